"""`gaceta attribute FILE|-`: check a text (a model's answer, a memo, a brief) against the official text — each
sentence supported / partly / unsupported, each quote exact / altered / misattributed / not found."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from gaceta.cli.common import NO_OWNER, console, err_console, fail, open_index, print_json, settings, via_owner

SUPPORT_MARKS = {"supported": ("✓ supported", "green"), "partial": ("◐ partly", "yellow"),
                 "unsupported": ("✗ unsupported", "bold red")}
QUOTE_MARKS = {"exact": ("EXACT", "green"), "altered": ("ALTERED", "yellow"),
               "misattributed": ("MISATTRIBUTED", "bold red"), "not_found": ("NOT FOUND", "bold red")}


def read_text(source: str) -> str:
    """The text to check: a UTF-8 file, or standard input for "-"."""
    if source == "-":
        try:
            return sys.stdin.read()
        except UnicodeDecodeError:
            fail("standard input is not UTF-8 text")
    path = Path(source)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        fail(f"no such file: {path}")
    except IsADirectoryError:
        fail(f"{path} is a directory, not a text file")
    except UnicodeDecodeError:
        fail(f"{path} is not UTF-8 text (a PDF goes through `gaceta ingest`; attribute checks plain text)")
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror}")


def _squash(text: str) -> str:
    return " ".join(text.split())


def print_attribution(result) -> None:
    """Each claim sentence with its verdict and the spans that back it; each quote with its class, the official
    wording and the changed words; then the tally."""
    from rich.text import Text

    for sentence in result.sentences:
        if sentence.support is None:
            continue
        mark, style = SUPPORT_MARKS[sentence.support.value]
        line = Text(f"{mark:<14} ", style=style)
        line.append(_squash(sentence.text))
        for c in sentence.citations:
            line.append(f"\n    ↳ {c.label}", style="dim")
        if sentence.missing:
            line.append(f"\n    no source states: {', '.join(sentence.missing)}", style="yellow")
        console.print(line)
        for q in (result.quotes[i] for i in sentence.quotes):
            name, qstyle = QUOTE_MARKS[q.status.value]
            quote = Text("    «", style="dim")
            quote.append(_squash(q.text), style="italic")
            quote.append("» ", style="dim")
            quote.append(name, style=qstyle)
            if q.claimed is not None:
                quote.append(f"  claimed: {q.claimed.text}", style="dim")
            if q.found_label:
                quote.append(f"\n      found: {q.found_label}")
            if q.status.value in ("altered", "misattributed") and not q.verbatim and q.official:
                quote.append("\n      official: «", style="dim")
                quote.append(_squash(q.official))
                quote.append("»", style="dim")
                changes = [d for d in q.diff if d.op != "equal"]
                for d in changes:
                    quote.append(f"\n      {d.op}: ", style="dim")
                    quote.append(f"“{d.quoted}”" if d.quoted else "—", style="red")
                    quote.append(" → ", style="dim")
                    quote.append(f"“{d.official}”" if d.official else "—", style="green")
                if not changes:
                    quote.append("\n      (same words; punctuation differs)", style="dim")
            console.print(quote)
    s = result.summary
    tally = Text(f"\n{s.sentences} claim sentences: {s.supported} supported, {s.partial} partly, "
                 f"{s.unsupported} unsupported", style="bold red" if s.unsupported else "dim")
    if result.quotes:
        tally.append(" · quotes: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in s.quotes.items() if n),
                     style="dim")
    if result.model:
        tally.append(f" · sentences judged by {result.model}", style="dim")
    console.print(tally)


def register(app: typer.Typer) -> None:
    @app.command()
    def attribute(
        source: str = typer.Argument(..., metavar="FILE|-", help="A UTF-8 text file, or - for standard input."),
        question: str = typer.Option(None, "--question", "-q", help="A question to retrieve sources with too."),
        doc: list[str] = typer.Option(None, "--doc", "-d", help="Check only against this document id (repeatable)."),
        as_json: bool = typer.Option(False, "--json", help="The attribution object as JSON on stdout."),
        rerank: str = typer.Option(None, "--rerank", help="on | off (default: GACETA_RERANK, on)."),
        llm: bool = typer.Option(False, "--llm", help="Re-judge the sentences without quotes with the chat model "
                                 "at GACETA_OPENAI_BASE_URL (offline when none is configured)."),
        as_of: str = typer.Option(None, "--as-of", help="Check against each law in the version in force on this "
                                  "day (YYYY-MM-DD; default today)."),
    ) -> None:
        """Check a text against the indexed documents: which sentences the sources back, and whether each quote
        («…», “…”, "…") is exact, altered, or attributed to the wrong article or law."""
        from retrieval.attribution import AttributionInputError, UnknownDocuments, checked_input
        from retrieval.attribution import attribute as attribute_text

        if rerank not in (None, "on", "off"):
            fail("--rerank must be on or off")
        text = read_text(source)
        try:
            doc_ids = checked_input(text, doc)
        except AttributionInputError as exc:
            fail(str(exc))
        if question is not None and not question.strip():
            fail("the question is empty")
        from gaceta.cli.search_cmd import as_of_day

        day = as_of_day(as_of)
        config = settings()
        wants_rerank = None if rerank is None else rerank == "on"
        body = {"text": text, "question": question, "doc_ids": doc_ids, "rerank": wants_rerank, "llm": llm,
                "as_of": day.isoformat() if day else None}
        result = via_owner(config, lambda owner: owner.attribute(body))
        if result is NO_OWNER:
            index = open_index(config)
            with index:
                try:
                    result = attribute_text(index, text, question=question, doc_ids=doc_ids,
                                            rerank=config.rerank if wants_rerank is None else wants_rerank,
                                            llm=llm, settings=config, as_of=day)
                except UnknownDocuments as exc:
                    fail(str(exc))
            from gaceta.api.schemas import AttributionResponse

            result = AttributionResponse.of(result, config.max_hit_chars)
        if as_json:
            print_json(result)
        else:
            print_attribution(result)
            if result.fallback_reason:
                err_console.print(f"[yellow]{result.fallback_reason}[/]")
            if not result.found:
                err_console.print("[yellow]nothing in the index backs this text[/]")
