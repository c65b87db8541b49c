"""`gaceta ask`: a cited answer from the index — numbered markers, a sources list, or JSON / a standalone HTML page."""

from __future__ import annotations

from pathlib import Path

import typer

from gaceta.cli.common import (NO_OWNER, WAIT_S, console, err_console, fail, open_index, print_json, settings,
                               via_owner)


def print_answer(answer) -> None:
    """The answer with [n] markers (red [n?] when unverified), then each source: document, page, quote."""
    from rich.text import Text

    from gaceta.answer_html import citation_key, numbered_citations, where

    cites = numbered_citations(answer)
    number = {citation_key(c): i + 1 for i, c in enumerate(cites)}
    text = Text()
    for seg in answer.content:
        text.append(seg.text)  # Text.append never interprets markup: document text stays text
        for c in seg.citations:
            n = number[citation_key(c)]
            text.append(f"[{n}]" if c.verified else f"[{n}?]", style="bold green" if c.verified else "bold red")
        if seg.support is not None and seg.support.label.value != "supported":
            partly = seg.support.label.value == "partial"
            text.append(" (partly backed by its citation)" if partly else " (NOT backed by its citation)",
                        style="yellow" if partly else "bold red")
    console.print(text)
    console.print()
    for i, c in enumerate(cites, 1):
        line = Text(f"[{i}] ", style="bold")
        line.append("✓ " if c.verified else "✗ unverified ", style="green" if c.verified else "red")
        line.append(c.label or f"{c.document_title}, {where(c)}", style="bold")
        line.append(f"\n    “{' '.join(c.cited_text.split())}”")
        for note in c.notes:
            line.append(f"\n    {note.text}", style="dim")
        console.print(line)
    cov = answer.coverage
    meta = Text(f"\n{answer.backend}" + (f" · {answer.model}" if answer.model else ""), style="dim")
    low = "uncited" in cov.flag_reasons or (cov.flagged and not cov.flag_reasons)  # no reasons: before issue 17
    meta.append(f" · citation coverage {cov.ratio:.0%} ({cov.cited}/{cov.sentences} sentences)",
                style="bold red" if low else "dim")
    if cov.cited:
        meta.append(f" · backed {cov.supported} supported, {len(cov.partial)} partly, {len(cov.unsupported)} not",
                    style="bold red" if "unsupported" in cov.flag_reasons else "dim")
        meta.append(f" · sources {'address' if cov.relevant else 'do NOT address'} the question "
                    f"(relevance {cov.relevance:.2f})", style="dim" if cov.relevant else "bold red")
    console.print(meta)
    if answer.fallback_reason:
        err_console.print(Text(answer.fallback_reason, style="yellow"))


def register(app: typer.Typer) -> None:
    @app.command()
    def ask(
        question: str = typer.Argument(..., help="The question (Spanish or English)."),
        answerer: str = typer.Option(None, "--answerer", "-a", help="extractive | claude | tags | tools (default: GACETA_ANSWERER)."),
        k: int = typer.Option(8, "-k", "--top", min=1, max=50, help="How many chunks to retrieve."),
        filter_: list[str] = typer.Option(
            None, "--filter", "-f",
            help="key=value, repeatable: date_from, date_to (YYYY-MM-DD), issuing_body, doc_type, doc_id.",
        ),
        as_json: bool = typer.Option(False, "--json", help="The answer object as JSON on stdout."),
        html: Path = typer.Option(None, "--html", help="Also write a standalone HTML page with hoverable citations."),
        rerank: str = typer.Option(None, "--rerank", help="on | off (default: GACETA_RERANK, on)."),
        wait: float = typer.Option(WAIT_S, "--wait", min=0, help="Seconds to wait for an embedded index another "
                                   "command holds (0: do not wait)."),
    ) -> None:
        """Answer a question from the indexed documents; every claim cited to a verified span and PDF page."""
        from gaceta.cli.search_cmd import parse_filters

        if not question.strip():
            fail("the question is empty")
        from typing import get_args

        from retrieval.settings import Answerer

        if answerer is not None and answerer not in get_args(Answerer):
            fail(f"--answerer must be one of {', '.join(get_args(Answerer))} (got {answerer!r})")
        if rerank not in (None, "on", "off"):
            fail("--rerank must be on or off")
        filters = parse_filters(filter_ or [])

        from retrieval.answers import AnswerError, ask as ask_question

        config = settings()
        wants_rerank = None if rerank is None else rerank == "on"
        body = {"question": question, "k": k, "answerer": answerer, "rerank": wants_rerank,
                "filters": filters.model_dump(mode="json", exclude_none=True) if filters else None}
        answer = via_owner(config, lambda owner: owner.ask(body))
        if answer is NO_OWNER:
            index = open_index(config, wait)
            with index:
                try:
                    answer = ask_question(index, question, k=k, filters=filters, answerer=answerer, settings=config,
                                          rerank=wants_rerank)
                except AnswerError as exc:
                    fail(str(exc))
            from gaceta.api.schemas import AnswerResponse

            answer = AnswerResponse.of(answer, config.max_hit_chars)  # the shape the server answers with
        if html is not None:
            from gaceta.answer_html import render_answer_html

            try:
                html.write_text(render_answer_html(answer), encoding="utf-8")
            except OSError as exc:
                fail(f"cannot write {html}: {exc.strerror}")
        if as_json:
            print_json(answer)
        else:
            print_answer(answer)
            if html is not None:
                err_console.print(f"[dim]wrote {html}[/]")
