"""`gaceta ask`: a cited answer from the index — numbered markers, a sources list, or JSON / a standalone HTML page."""

from __future__ import annotations

from pathlib import Path

import typer

from gaceta.cli.common import (NO_OWNER, WAIT_S, console, err_console, fail, open_index, print_json, settings,
                               via_owner)


def print_answer(answer) -> None:
    """The answer's text once, with [n] markers (red [n?] when unverified); then the sources as a numbered list of
    labels, each with its quote only where the quote adds to the answer (an extractive answer's sentence IS its
    quote: not printed twice); then one plain-words line on how well the text is backed. In a pipe or a file
    nothing is hard-wrapped (a label never breaks across lines)."""
    from rich.text import Text

    from gaceta.answer_html import citation_key, numbered_citations, where

    wrap = console.is_terminal
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
    console.print(text, soft_wrap=not wrap)
    if cites:
        console.print()
        console.print(Text("Sources", style="bold"), soft_wrap=not wrap)
    said = _squashed("".join(seg.text for seg in answer.content))
    for i, c in enumerate(cites, 1):
        line = Text(f"{i}. ", style="bold")
        if not c.verified:
            line.append("✗ unverified quote: ", style="red")
        line.append(c.label or f"{c.document_title}, {where(c)}")
        quote = " ".join(c.cited_text.split())
        if quote and (not c.verified or _squashed(quote) not in said):
            line.append(f"\n   “{quote}”", style="" if c.verified else "red")
        for note in c.notes:
            line.append(f"\n   {' '.join(note.text.split())}", style="dim")
        console.print(line, soft_wrap=not wrap)
    console.print(Text(f"\n{footer(answer)}", style="bold red" if answer.coverage.flagged else "dim"),
                  soft_wrap=not wrap)
    if answer.fallback_reason:
        err_console.print(Text(answer.fallback_reason, style="yellow"), soft_wrap=True)


def _squashed(text: str) -> str:
    return " ".join(text.split()).casefold()


def footer(answer) -> str:
    """How well the answer is backed, in plain words: "3 of 3 sentences backed by the quoted text · extractive
    answer (no model)"; what is wrong (a sentence without a verified citation, sources that do not address the
    question) is said, not coded."""
    cov = answer.coverage
    total = cov.sentences
    parts = []
    if not total:
        parts.append("no sentence to check")
    elif not cov.cited:
        parts.append(f"none of the {total} sentences cites a verified source")
    else:
        backed = f"{cov.supported} of {total} {'sentence' if total == 1 else 'sentences'} backed by the quoted text"
        if cov.partial:
            backed += f", {len(cov.partial)} partly"
        if cov.unsupported:
            backed += f", {len(cov.unsupported)} not backed"
        parts.append(backed)
        if cov.cited < total:
            parts.append(f"{total - cov.cited} without a verified citation")
        if not cov.relevant:
            parts.append("the sources may not address the question")
    who = "extractive answer (no model)" if answer.backend == "extractive" else f"answer by {answer.backend}"
    parts.append(who + (f", {answer.model}" if answer.model and answer.backend != "extractive" else ""))
    return " · ".join(parts)


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
        as_of: str = typer.Option(None, "--as-of", help="Each law in the version in force on this day "
                                  "(YYYY-MM-DD; default: today)."),
        as_json: bool = typer.Option(False, "--json", help="The answer object as JSON on stdout."),
        html: Path = typer.Option(None, "--html", help="Also write a standalone HTML page with hoverable citations."),
        rerank: str = typer.Option(None, "--rerank", help="on | off (default: GACETA_RERANK, on)."),
        wait: float = typer.Option(WAIT_S, "--wait", min=0, help="Seconds to wait for an embedded index another "
                                   "command holds (0: do not wait)."),
    ) -> None:
        """Answer a question from the indexed documents; every claim cited to a verified span and PDF page."""
        from gaceta.cli.search_cmd import parse_filters, with_as_of

        if not question.strip():
            fail("the question is empty")
        from typing import get_args

        from retrieval.settings import Answerer

        if answerer is not None and answerer not in get_args(Answerer):
            fail(f"--answerer must be one of {', '.join(get_args(Answerer))} (got {answerer!r})")
        if rerank not in (None, "on", "off"):
            fail("--rerank must be on or off")
        filters = with_as_of(parse_filters(filter_ or []), as_of)

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
