"""`gaceta delete DOC_ID… [--json]`: remove documents from the index — their chunks, their records, and their kept
PDF when no other document refers to those bytes."""

from __future__ import annotations

from typing import Any

import typer

from gaceta.cli.common import NO_OWNER, console, err_console, open_index, print_json, settings, via_owner


def register(app: typer.Typer) -> None:
    app.command("delete")(delete_command)


def delete_documents(config, doc_ids: list[str]) -> dict[str, Any]:
    """{"deleted": [...], "missing": [...]} as JSON-able data: through the serving owner when there is one
    (`DELETE /documents/{id}` per id), else on the index this command opens."""
    ids = list(dict.fromkeys(doc_ids))
    served = via_owner(config, lambda client: [client.delete(doc_id) for doc_id in ids])
    if served is NO_OWNER:
        with open_index(config) as index:
            served = [index.delete_document(doc_id) for doc_id in ids]
    return {"deleted": [d for d, ok in zip(ids, served) if ok], "missing": [d for d, ok in zip(ids, served) if not ok]}


def delete_command(
    doc_ids: list[str] = typer.Argument(..., help="Document ids (as `gaceta documents` lists them)."),
    json_out: bool = typer.Option(False, "--json", help="Print what was deleted as JSON."),
) -> None:
    """Delete documents: their chunks, records and (when unused) kept PDFs. Exit 1 when an id is not in the index."""
    result = delete_documents(settings(), doc_ids)
    if json_out:
        print_json(result)
    else:
        for doc_id in result["deleted"]:
            console.print(f"deleted {doc_id}")
        for doc_id in result["missing"]:
            err_console.print(f"[bold red]error:[/] no document {doc_id!r} in the index")
    if result["missing"]:
        raise typer.Exit(1)
