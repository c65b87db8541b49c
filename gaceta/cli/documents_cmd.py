"""`gaceta documents [--filter key=value …] [--offset N] [--limit N] [--json]`: the indexed documents (title, type,
date, pages, chunks), newest first, filtered like `gaceta search`."""

from __future__ import annotations

from typing import Any

import typer

from gaceta.cli.common import NO_OWNER, console, fail, open_index, print_json, settings, via_owner


def register(app: typer.Typer) -> None:
    app.command("documents")(documents_command)


def list_documents(config, filters, offset: int, limit: int) -> dict[str, Any]:
    """The listing as JSON-able data (the `GET /documents` body): through the serving owner when there is one, else
    from the index this command opens."""
    params: dict[str, Any] = {"offset": offset, "limit": limit}
    if filters is not None:
        params.update({k: v for k, v in filters.model_dump(mode="json", exclude={"doc_ids"}).items() if v})
    served = via_owner(config, lambda client: client.documents(params))
    if served is not NO_OWNER:
        return served
    with open_index(config) as index:
        return index.documents(filters, offset=offset, limit=limit).model_dump(mode="json")


def documents_command(
    filter_: list[str] = typer.Option(
        None, "--filter", "-f",
        help="key=value, repeatable: date_from, date_to (YYYY-MM-DD), issuing_body, doc_type, doc_id.",
    ),
    offset: int = typer.Option(0, "--offset", min=0, help="Skip this many documents."),
    limit: int = typer.Option(50, "--limit", min=1, max=500, help="List at most this many (≤ 500)."),
    json_out: bool = typer.Option(False, "--json", help="Print the listing as JSON."),
) -> None:
    """List the indexed documents: id, title, type, issuing body, publication date, pages, chunks."""
    from gaceta.cli.search_cmd import parse_filters

    filters = parse_filters(filter_ or [])
    try:
        listing = list_documents(settings(), filters, offset, limit)
    except ValueError as exc:
        fail(str(exc))
    if json_out:
        print_json(listing)
        return
    docs = listing["documents"]
    if not docs:
        console.print("no documents" + (" match those filters" if filters else " in the index"))
        return
    from rich.table import Table

    shown = f"{listing['offset'] + 1}–{listing['offset'] + len(docs)} of {listing['total']}"
    table = Table(title=f"documents {shown}", title_justify="left")
    for column in ("doc_id", "date", "type", "title", "issuing body", "pages", "chunks"):
        table.add_column(column, overflow="fold")
    for d in docs:
        table.add_row(d["doc_id"], d["publication_date"] or "", d["doc_type"] or "", d["title"],
                      d["issuing_body"] or "", str(d["pages"]), str(d["chunks"]))
    console.print(table)
