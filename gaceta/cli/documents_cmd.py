"""`gaceta documents [--filter key=value …] [--offset N] [--limit N] [--as-of DATE] [--json]`: the indexed documents
(title, type, date, pages, chunks), newest first, filtered like `gaceta search`; then the laws held in several
versions, each version dated and the one in force on `--as-of` (default today) marked."""

from __future__ import annotations

from typing import Any

import typer

from gaceta.cli.common import NO_OWNER, console, fail, open_index, print_json, settings, via_owner


def register(app: typer.Typer) -> None:
    app.command("documents")(documents_command)


def list_documents(config, filters, offset: int, limit: int, as_of=None) -> dict[str, Any]:
    """The listing as JSON-able data (the `GET /documents` body): through the serving owner when there is one, else
    from the index this command opens."""
    from gaceta.api.schemas import DocumentListing

    params: dict[str, Any] = {"offset": offset, "limit": limit}
    if filters is not None:
        params.update({k: v for k, v in filters.model_dump(mode="json", exclude={"doc_ids", "as_of"}).items() if v})
    if as_of is not None:
        params["as_of"] = as_of.isoformat()
    served = via_owner(config, lambda client: client.documents(params))
    if served is not NO_OWNER:
        return served
    with open_index(config) as index:
        page = index.documents(filters, offset=offset, limit=limit)
        return DocumentListing.of(page, index.document_infos(), as_of).model_dump(mode="json")


def documents_command(
    filter_: list[str] = typer.Option(
        None, "--filter", "-f",
        help="key=value, repeatable: date_from, date_to (YYYY-MM-DD), issuing_body, doc_type, doc_id.",
    ),
    offset: int = typer.Option(0, "--offset", min=0, help="Skip this many documents."),
    limit: int = typer.Option(50, "--limit", min=1, max=500, help="List at most this many (≤ 500)."),
    as_of: str = typer.Option(None, "--as-of", help="Mark the version of each law in force on this day "
                              "(YYYY-MM-DD; default today)."),
    json_out: bool = typer.Option(False, "--json", help="Print the listing as JSON."),
) -> None:
    """List the indexed documents: id, title, type, issuing body, publication date, pages, chunks; then the laws
    held in several versions, with the version in force marked."""
    from gaceta.cli.search_cmd import as_of_day, parse_filters

    filters = parse_filters(filter_ or [])
    try:
        listing = list_documents(settings(), filters, offset, limit, as_of_day(as_of))
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
    if listing.get("laws"):
        on = "-".join(reversed(listing["as_of"].split("-")))
        versions = Table(title=f"laws held in several versions (in force on {on}: *)", title_justify="left")
        for column in ("law", "version", "doc_id"):
            versions.add_column(column, overflow="fold")
        for law in listing["laws"]:
            for i, v in enumerate(law["versions"]):
                day = "-".join(reversed(v["version_date"].split("-"))) if v["version_date"] else "undated"
                versions.add_row(law["title"] if i == 0 else "", f"{day}{' *' if v['in_force'] else ''}", v["doc_id"])
        console.print(versions)
