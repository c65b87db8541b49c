"""`gaceta search`: ranked chunks for a query, or for a file of queries in one process."""

from __future__ import annotations

import datetime as dt
import re
import sys
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from gaceta.cli.common import NO_OWNER, WAIT_S, console, fail, open_index, print_json, settings, via_owner

FILTER_KEYS = {
    "date_from": "date_from",
    "from": "date_from",
    "date_to": "date_to",
    "to": "date_to",
    "issuing_body": "issuing_body",
    "body": "issuing_body",
    "doc_type": "doc_type",
    "type": "doc_type",
    "doc_id": "doc_ids",
    "as_of": "as_of",
}


def parse_filters(items: list[str]):
    """`key=value` pairs → SearchFilters; a repeated list key accumulates (doc_type=NOM --filter doc_type=LEY)."""
    from retrieval.models import SearchFilters

    if not items:
        return None
    fields: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        field = FILTER_KEYS.get(key.strip().lower())
        if not sep or field is None or not value.strip():
            fail(f"bad filter {item!r}: use key=value with key one of {', '.join(sorted(set(FILTER_KEYS)))}")
        value = value.strip()
        if field in ("date_from", "date_to", "as_of"):
            try:
                fields[field] = dt.date.fromisoformat(value)
            except ValueError:
                fail(f"bad date in filter {item!r}: use YYYY-MM-DD")
        else:
            fields.setdefault(field, []).append(value)
    return SearchFilters(**fields)


def as_of_day(as_of: str | None, option: str = "--as-of") -> dt.date | None:
    """A day given on the command line (YYYY-MM-DD), or a clear failure."""
    if as_of is None:
        return None
    try:
        return dt.date.fromisoformat(as_of)
    except ValueError:
        fail(f"bad {option} {as_of!r}: use YYYY-MM-DD")


def with_as_of(filters, as_of: str | None):
    """`--as-of YYYY-MM-DD` on top of the `--filter`s: each law in the version in force on that day."""
    from retrieval.models import SearchFilters

    day = as_of_day(as_of)
    return filters if day is None else (filters or SearchFilters()).model_copy(update={"as_of": day})


def _print_references(references) -> None:
    for r in references:
        ref = r.reference
        what = ", ".join(f"{ref.noun or 'art.'} {a}" for a in ref.articles) or "—"
        if r.resolved:
            console.print(f"[dim]understood:[/] {ref.text!r} → {what} of {escape('; '.join(r.titles[:2]))} "
                          f"({r.chunks} chunks looked up)", soft_wrap=True)
            continue
        why = escape(r.reason or "not in the index")
        closest = f" (closest indexed: {escape('; '.join(r.closest[:3]))})" if r.closest else ""
        console.print(f"[dim]understood:[/] {ref.text!r} → {what}: [yellow]{why}[/]{closest}", soft_wrap=True)


_HEADING_MARKS = re.compile(r"(?m)^#{1,6}[ \t]+")


def _plain(text: str, limit: int = 400) -> str:
    """A chunk's text as a reader sees it: Markdown heading marks dropped, whitespace folded, cut at `limit`."""
    text = " ".join(_HEADING_MARKS.sub("", text).split())
    return text if len(text) <= limit else text[:limit] + " …"


def _print_hits(query: str, hits) -> None:
    """A table on a terminal; in a pipe, one record a hit with each line whole (nothing wrapped at 80 columns)."""
    from rich.table import Table

    if not hits:
        console.print(f"[yellow]no results for[/] {query}")
        return
    if not console.is_terminal:
        lines = [query]
        for hit in hits:
            pages = ", ".join(str(p) for p in hit.chunk.pages)
            lines += [f"{hit.rank}. {hit.label or hit.document.title} (score {hit.score:.4f}, p. {pages})",
                      f"   {' › '.join(hit.chunk.heading_path) or '—'}", f"   {_plain(hit.chunk.text)}"]
        console.print(escape("\n".join(lines)), soft_wrap=True)
        return
    table = Table(title=f"[bold]{escape(query)}[/]", show_lines=True, title_justify="left")
    for column, style in (("#", "dim"), ("score", "cyan"), ("document", "bold"), ("where", "green"), ("text", "")):
        table.add_column(column, style=style, overflow="fold")
    for hit in hits:
        pages = ", ".join(str(p) for p in hit.chunk.pages)
        where = " › ".join(hit.chunk.heading_path) or "—"
        table.add_row(str(hit.rank), f"{hit.score:.4f}", escape(hit.label or hit.document.title),
                      escape(f"p. {pages}\n{where}"), escape(_plain(hit.chunk.text)))
    console.print(table)


def _read_queries(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        fail(f"cannot read queries file {path}: {exc.strerror}")
    queries = [line.strip() for line in lines if line.strip()]
    if not queries:
        fail(f"no queries in {path}")
    return queries


def register(app: typer.Typer) -> None:
    @app.command()
    def search(
        query: str = typer.Argument(None, help="What to look for (Spanish or English)."),
        k: int = typer.Option(10, "-k", "--top", min=1, max=1000, help="How many chunks to return."),
        filter_: list[str] = typer.Option(
            None,
            "--filter",
            "-f",
            help="key=value, repeatable: date_from, date_to (YYYY-MM-DD), issuing_body, doc_type, doc_id.",
        ),
        as_of: str = typer.Option(None, "--as-of", help="Each law in the version in force on this day "
                                  "(YYYY-MM-DD; default: today)."),
        mode: str = typer.Option("hybrid", "--mode", help="hybrid | dense | bm25"),
        fusion: str = typer.Option("rrf", "--fusion", help="How hybrid fuses dense and BM25: rrf | dbsf"),
        prefetch: int = typer.Option(None, "--prefetch", min=1, help="Candidates per side before fusion."),
        queries: Path = typer.Option(None, "--queries", help="A file with one query per line."),
        as_json: bool = typer.Option(False, "--json", help="JSON on stdout (JSON lines with --queries)."),
        rerank: str = typer.Option("on", "--rerank", help="on: named provisions first, then the feature reranker; "
                                   "off: the hybrid order after any named provision."),
        max_chars: int = typer.Option(None, "--max-chars", min=1, help="Cut each hit's text to this many characters "
                                      "(the hit says `truncated`)."),
        wait: float = typer.Option(WAIT_S, "--wait", min=0, help="Seconds to wait for an embedded index another "
                                   "command holds (0: do not wait)."),
    ) -> None:
        """Search the index: ranked chunks with document, page, heading path and score."""
        from retrieval.models import Fusion, SearchMode

        if (query is None) == (queries is None):
            fail("give a query, or --queries FILE (not both)")
        texts = _read_queries(queries) if queries is not None else [query]
        if not all(t.strip() for t in texts):
            fail("the query is empty")
        try:
            search_mode, fusion_kind = SearchMode(mode), Fusion(fusion)
        except ValueError:
            fail(f"--mode must be one of {[m.value for m in SearchMode]}, --fusion one of {[f.value for f in Fusion]}")
        if rerank not in ("on", "off"):
            fail("--rerank must be on or off")
        filters = with_as_of(parse_filters(filter_ or []), as_of)

        from gaceta.api.schemas import SearchResponse, hit_chars

        config = settings()
        wants_rerank = rerank == "on"
        body = {"k": k, "mode": search_mode.value, "rerank": wants_rerank, "fusion": fusion_kind.value,
                "prefetch": prefetch, "filters": filters.model_dump(mode="json", exclude_none=True) if filters else None,
                "max_chars": max_chars}

        def emit(result: SearchResponse) -> None:
            # One shape for a search, here and over HTTP: the API's SearchResponse (JSON lines with --queries).
            if as_json and queries is not None:
                sys.stdout.write(result.model_dump_json() + "\n")
            elif as_json:
                print_json(result)
            else:
                _print_references(result.references)
                if result.country is not None:
                    c = result.country
                    aside = "1 document of another country" if c.set_aside == 1 else \
                        f"{c.set_aside} documents of other countries"
                    console.print(f"[dim]understood:[/] {escape(', '.join(repr(w) for w in c.words))} → the law of "
                                  f"{escape(c.name)} ({aside} set aside)", soft_wrap=True)
                _print_hits(result.query, result.hits)

        if via_owner(config, lambda owner: [emit(owner.search({"query": text, **body})) for text in texts]) is NO_OWNER:
            from retrieval.legal_search import legal_search

            with open_index(config, wait) as index:
                for text in texts:
                    found = legal_search(index, text, k=k, mode=search_mode, filters=filters, rerank=wants_rerank,
                                         fusion=fusion_kind, prefetch=prefetch)
                    emit(SearchResponse.of(text, search_mode, k, found,
                                            hit_chars(max_chars, config.max_hit_chars)))
