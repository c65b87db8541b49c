"""`gaceta ingest PATH... [--context] [--json]`: run the `ingest` flow in this process, with a progress bar (files,
pages, chunks; one line per event when stderr is not a terminal) and a summary table; exit 1 when nothing could be
indexed. With a Prefect API configured (PREFECT_API_URL) the run is a tracked Prefect flow run; without one the flow
runs as plain functions (`flows.ingest_flow.run_ingest`): no Prefect server is started."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import typer

from gaceta.cli.common import NO_OWNER, console, err_console, fail, print_json, settings, shown, via_owner


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest_command)


def ingest_command(
    paths: list[Path] = typer.Argument(..., help="PDF files and/or folders (searched recursively).",
                                       readable=False),  # an unreadable file gets its own status
    context: bool | None = typer.Option(
        None, "--context/--no-context", help="Add Anthropic contextual blurbs (default: GACETA_CONTEXT)."),
    json_out: bool = typer.Option(False, "--json", help="Print the run summary as JSON."),
) -> None:
    """Index PDFs: parse → chunk → (contextualize) → embed → upsert, cached per file."""
    missing = [shown(str(p)) for p in paths if not os.path.lexists(p)]  # a dangling symlink gets its own status
    if missing:
        fail(f"no such file or folder: {', '.join(missing)}")
    # While `gaceta serve` owns the embedded index, the files go to it (gaceta/cli/ingest_owner.py).
    from gaceta.cli.ingest_owner import ingest_through_owner

    config = settings()
    state = via_owner(config, lambda owner: ingest_through_owner(owner, config.home, paths, context, json_out))
    if state is not NO_OWNER:
        raise typer.Exit(0 if state == "Completed" else 1)
    # Prefect's INFO lines would tear the progress bar; warnings and errors still show. Set by the user wins.
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    import flows  # noqa: F401  (offline Prefect settings, before Prefect is imported)

    summary, state = _run(paths, context, json_out)
    if json_out:
        print_json(summary)
    else:
        _print_summary(summary, state)
    if state != "Completed":
        raise typer.Exit(1)


def _run(paths: list[Path], context: bool | None, json_out: bool) -> tuple[Any, str]:
    """Open the index and load the model first (an index held by another process is one clear line, before any
    flow run exists), then run the flow."""
    from contextlib import nullcontext

    from flows import progress
    from flows.ingest_flow import run_ingest
    from flows.tasks import close_indexes, warm_up
    from retrieval.embedders import EmbedderError
    from retrieval.store import StoreError

    live = err_console.is_terminal and not json_out
    try:
        with err_console.status("opening the index, loading the model…") if live else nullcontext():
            warm_up(settings())
        view = _ProgressView() if live else _ProgressLines()
        with view, progress.listening(view.on_event):
            return run_ingest([str(p) for p in paths], context=context)
    except (StoreError, EmbedderError) as exc:
        fail(str(exc))
    finally:
        close_indexes()


class _ProgressView:
    """Three rich progress rows fed by the flow's progress events."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(TextColumn("{task.description:<7}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[note]}"), TimeElapsedColumn(), console=err_console,
                                 transient=False)
        self.files = self.progress.add_task("files", total=None, note="")
        self.pages = self.progress.add_task("pages", total=None, note="")
        self.chunks = self.progress.add_task("chunks", total=None, note="")

    def __enter__(self) -> _ProgressView:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def on_event(self, event: str, data: dict[str, Any]) -> None:
        if event == "discovered":
            self.progress.update(self.files, total=data["pdfs"])
        elif event == "file_started":
            self.progress.update(self.files, note=shown(Path(data["path"]).name))
        elif event == "parsed":
            self.progress.advance(self.pages, data["pages"])
        elif event == "chunked":
            self.progress.advance(self.chunks, data["chunks"])
        elif event == "file_done" and data["outcome"].issue is None:  # one of the run's PDFs
            self.progress.advance(self.files)


class _ProgressLines:
    """Progress for a log file or a pipe: one line per file as it starts and ends, written when it happens."""

    def __init__(self) -> None:
        self.total = 0
        self.done = 0

    def __enter__(self) -> _ProgressLines:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    @staticmethod
    def _line(text: str) -> None:
        # one write a line: two files run at once, and print() writes the newline apart
        sys.stderr.write(f"ingest: {text}\n")
        sys.stderr.flush()

    def on_event(self, event: str, data: dict[str, Any]) -> None:
        from flows.models import printable  # a name with a newline or escape codes stays one plain line

        if event == "discovered":
            self.total = data["pdfs"]
            self._line(f"{data['pdfs']} PDF(s), {data['others']} other path(s)")
        elif event == "file_started":
            self._line(f"[{self.done + 1}/{self.total}] {printable(Path(data['path']).name)}: started")
        elif event == "file_done":
            outcome = data["outcome"]
            detail = (f"{outcome.documents} documents, {outcome.chunks} chunks, {outcome.pages} pages in "
                      f"{outcome.seconds:.1f} s" if outcome.status.value == "ok" else outcome.reason)
            if outcome.issue is not None:  # never one of the run's PDFs: said, not counted
                self._line(f"{printable(outcome.path)}: {outcome.status.value} ({printable(detail)})")
                return
            self.done += 1
            self._line(f"[{self.done}/{self.total}] {printable(Path(outcome.path).name)}: {outcome.status.value}"
                       + (f" ({printable(detail)})" if detail else ""))


def _print_summary(summary, state: str) -> None:
    from rich.table import Table

    totals = Table(title=f"ingest {summary.flow_run_name or ''}: {state}", show_header=False, title_justify="left")
    totals.add_column(style="bold")
    totals.add_column(justify="right")
    rows = [
        ("files ok", summary.files_ok), ("files cached (skipped)", summary.files_cached),
        ("files skipped", summary.files_skipped), ("files failed", summary.files_failed),
        ("documents", summary.documents), ("chunks", summary.chunks), ("pages", summary.pages),
        ("seconds", f"{summary.seconds:.1f}"), ("pages/s", f"{summary.pages_per_s:.2f}"),
        ("chunks/s", f"{summary.chunks_per_s:.2f}"),
    ]
    stages = ", ".join(f"{k} {v:.1f}" for k, v in summary.stages.items() if v) or "-"
    rows.append(("stage seconds", f"{stages}, prefect/other {summary.prefect_overhead:.1f}"))
    rows.append(("embedding model", summary.embedding_model))
    rows.append(("contextual blurbs", summary.context_mode.value + (f" ({summary.context_note})" if summary.context_note else "")))
    if summary.context_mode.value == "on":
        a = summary.anthropic
        cost = "unknown price" if a.cost_usd is None else f"${a.cost_usd:.4f}"
        rows.append(("anthropic", f"{a.api_calls} calls, {a.from_cache} from file cache, {cost}, cache tokens "
                                  f"written {a.cache_creation_input_tokens} / read {a.cache_read_input_tokens}"))
    for label, value in rows:
        totals.add_row(label, str(value))
    console.print(totals)
    problems = [f for f in summary.files if f.status.value in ("failed", "skipped")]
    if problems:
        table = Table(title="not indexed", title_justify="left")
        for column in ("file", "status", "reason"):
            table.add_column(column)
        for f in problems:
            table.add_row(shown(f.path), f.status.value, shown(f.reason))
        console.print(table)
