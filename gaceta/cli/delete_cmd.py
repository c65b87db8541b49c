"""`gaceta delete DOC_ID… [--json]`: remove documents from the index — their chunks, their records, and their kept
PDF when no other document refers to those bytes."""

from __future__ import annotations

from typing import Any

import typer

from gaceta.cli.common import console, err_console, fail, open_index, print_json, settings


def register(app: typer.Typer) -> None:
    app.command("delete")(delete_command)


def delete_documents(config, doc_ids: list[str]) -> dict[str, Any]:
    """{"deleted": [...], "missing": [...]} as JSON-able data. This is where a command reaches the index: today it
    opens it itself; with a serving owner running, the client branch (`DELETE /documents/{id}` per id) goes here."""
    deleted, missing = [], []
    with open_index(config) as index:
        for doc_id in dict.fromkeys(doc_ids):
            (deleted if index.delete_document(doc_id) else missing).append(doc_id)
    return {"deleted": deleted, "missing": missing}


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
