"""`gaceta parse FILE...`: what the parser makes of each file — status, legal documents, chunks with headers."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import typer

from gaceta.cli.common import console, fail, print_json, settings, shown

MAX_TOKENS = 256  # word-counted here; the embedder's tokenizer sizes chunks at ingest time


def _words(text: str) -> int:
    return len(text.split())


def register(app: typer.Typer) -> None:
    """Add `gaceta parse` to the app."""

    @app.command("parse")
    def parse(
        files: list[Path] = typer.Argument(..., help="PDF files to parse.", readable=False),  # each gets its status
        as_json: bool = typer.Option(False, "--json", help="Machine-readable output: results, documents, chunks."),
        markdown: bool = typer.Option(False, "--markdown", help="Print each document's Markdown."),
    ) -> None:
        """Parse PDFs into legal documents and chunks (no index is touched)."""
        from flows.models import printable
        from ingest.chunker import chunk_document
        from ingest.parse import parse_pdf

        missing = [shown(str(f)) for f in files if not os.path.lexists(f)]
        if missing:
            fail(f"no such file: {', '.join(missing)}")
        # Every other path gets its parse status: a folder, a FIFO or a device is `unreadable` (never read), a
        # dangling symlink too; MuPDF's messages go to the log (ingest.pdf_open), so stdout stays JSON.
        payload, crashed = [], 0
        ocr_workers = settings().ocr_workers
        for path in files:
            try:
                result = parse_pdf(path, ocr_workers=ocr_workers)
                chunks = {d.doc_id: chunk_document(d, _words, MAX_TOKENS) for d in result.documents}
            except Exception as exc:  # a parser bug on one file: logged with its trace, the others still reported
                logging.getLogger("gaceta.parse").exception("parse: %s", printable(str(path)))
                crashed += 1
                error = f"{type(exc).__name__}: {exc}"
                if as_json:
                    payload.append({"path": str(path), "error": error})
                else:
                    console.print(f"[bold]{shown(str(path))}[/]: [red]error[/] — {shown(error)}")
                continue
            if as_json:
                payload.append({"result": result.model_dump(mode="json", exclude={"documents": {"__all__": {"markdown"}}}),
                                "chunks": {k: [c.model_dump(mode="json") for c in v] for k, v in chunks.items()}})
                continue
            _print_human(result, chunks, markdown)
        if as_json:
            print_json(payload)
        if crashed:
            raise typer.Exit(1)


def _print_human(result, chunks, markdown: bool) -> None:
    status = "[green]ok[/]" if result.ok else f"[red]{result.status.value}[/]"
    extra = f" — {result.message}" if result.message else ""
    console.print(f"[bold]{shown(result.source.path)}[/]: {status}{shown(extra)} ({result.source.pages} pages, "
                  f"{len(result.documents)} documents)")
    if result.ocr_pages:
        console.print(f"  OCR'd pages: {result.ocr_pages}")
    for warning in result.warnings:
        console.print(f"  [yellow]warning:[/] {shown(warning)}")
    for doc in result.documents:
        date = doc.publication_date.isoformat() if doc.publication_date else "-"
        printed = "–".join(p or "?" for p in doc.printed_pages) if any(doc.printed_pages) else "-"
        console.print(f"  [bold cyan]{doc.doc_id}[/] {doc.doc_type or '-'} | {shown(doc.title[:120])}")
        console.print(f"    body: {shown(doc.issuing_body or '-')} | date: {date} | section: {shown(doc.section or '-')} | "
                      f"PDF pages {doc.pdf_pages[0]}–{doc.pdf_pages[1]} | printed {printed} | "
                      f"{len(doc.headings)} headings")
        if markdown:
            console.print(doc.markdown, markup=False)
        for chunk in chunks[doc.doc_id]:
            console.print(f"    [dim]chunk {chunk.index}[/] pages {chunk.pages}", highlight=False)
            for line in chunk.header.splitlines():
                console.print(f"      {line}", markup=False)
