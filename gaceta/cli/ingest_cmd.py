"""`gaceta ingest PATH... [--context] [--json] [--log-file FILE]`: index files with `flows.indexing` in this process,
with one live display on a terminal (files done in order, the files in flight and their stage, pages, chunks, time
left) or plain lines elsewhere (one outcome line per file, in order, its warnings under it), then a summary table and
the files not indexed, whole names; exit 1 when nothing could be indexed. While `gaceta serve` owns the embedded
index the files go to it (`flows.indexing.OwnerSink`); otherwise this process opens the index: with a Prefect API
configured (PREFECT_API_URL) the run is a tracked Prefect flow run, without one the module's run is called as is
(`flows.ingest_flow.run_ingest`): no Prefect server is started. The display, the summary and the run record are the
same either way."""

from __future__ import annotations

import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

import typer

from gaceta.cli.common import (NO_OWNER, WAIT_S, console, err_console, fail, print_json, settings, shown, via_owner,
                               with_index_turn)


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest_command)


def ingest_command(
    paths: list[Path] = typer.Argument(..., help="PDF files and/or folders (searched recursively).",
                                       readable=False),  # an unreadable file gets its own status
    context: bool | None = typer.Option(
        None, "--context/--no-context", help="Add Anthropic contextual blurbs (default: GACETA_CONTEXT)."),
    json_out: bool = typer.Option(False, "--json", help="Print the run summary as JSON."),
    log_file: Path | None = typer.Option(None, "--log-file", dir_okay=False,
                                         help="Also write the run's log records (INFO and up, timestamped) to FILE."),
    wait: float = typer.Option(WAIT_S, "--wait", min=0, help="Seconds to wait for an embedded index another "
                               "command holds (0: do not wait)."),
) -> None:
    """Index PDFs: parse → chunk → (contextualize) → embed → upsert, cached per file."""
    missing = [shown(str(p)) for p in paths if not os.path.lexists(p)]  # a dangling symlink gets its own status
    if missing:
        fail(f"no such file or folder: {', '.join(missing)}")
    # Prefect's INFO lines would tear the progress bar; warnings and errors still show. Set by the user wins.
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    import flows  # noqa: F401  (offline Prefect settings, before Prefect is imported)

    from retrieval.embedders import EmbedderError
    from retrieval.store import StoreError

    config = settings()
    # While `gaceta serve` owns the embedded index, the files go to it; an owner that stops answering before the
    # run's end leaves the files to this process (NO_OWNER).
    ran = via_owner(config, lambda client: _run(paths, context, json_out, log_file, wait, client))
    try:
        summary, state = _run(paths, context, json_out, log_file, wait) if ran is NO_OWNER else ran
    except (StoreError, EmbedderError) as exc:  # the index is held, damaged, or the model will not load
        if json_out:  # stdout of --json is always JSON: the run that could not start, and why
            print_json({"state": "Failed", "error": str(exc), "files": []})
        fail(str(exc))
    if json_out:
        print_json(summary)
    else:
        _print_summary(summary, state)
    if state != "Completed":
        raise typer.Exit(1)


def _run(paths: list[Path], context: bool | None, json_out: bool, log_file: Path | None = None,
         wait_s: float = WAIT_S, client=None) -> tuple[Any, str]:
    """The run with its progress shown (a live display on a terminal, plain lines otherwise) and every log record
    routed through `_RunLog`. Through the owner (`client`) when one serves the index; otherwise the index is opened
    and the model loaded first (an index held by another process is one clear line, before any run exists)."""
    from contextlib import nullcontext

    from flows import indexing, progress

    live = err_console.is_terminal and not json_out
    view: _Progress = _ProgressView() if live else _ProgressLines()
    names = [str(p) for p in paths]
    if client is None:  # Prefect sets up its logging as it is imported: before `_RunLog` routes the records
        from flows.ingest_flow import run_ingest
    try:
        with _RunLog(view, log_file):
            if client is None:
                with err_console.status("opening the index, loading the model…") if live else nullcontext():
                    config = settings()  # another command holding the embedded index is waited for (one line says so)
                    with_index_turn(config, lambda: indexing.warm_up(config), wait_s)
                with view, progress.listening(view.on_event):
                    return run_ingest(names, context=context)
            sink = indexing.OwnerSink(client.owner, client.http, stop_when_gone=True)
            with view, progress.listening(view.on_event):
                summary = indexing.run(names, context, settings=settings(), sink=sink)
            return summary, "Failed" if summary.nothing_done else "Completed"
    finally:
        indexing.close_indexes()


class _RunLog(logging.Handler):
    """While a run lasts, log records reach the terminal through the progress view, not the root's own handlers
    (Prefect's console handler prints a timestamped line that tears a live display): a record from a thread that is
    working on a file — MuPDF's errors, Tesseract's messages (`ingest.ocr`), a library's warning — becomes that
    file's warning, printed once under its outcome line; any other is one plain `warning:` line. The flow's own
    "failed: FILE: reason" record is the file's outcome line already and is not printed twice. Prefect's records under
    WARNING (a tracked run with PREFECT_LOGGING_LEVEL=INFO) are plain lines as they come. With `--log-file` every
    record (INFO and up) also goes to that file with its timestamp."""

    def __init__(self, view: _Progress, log_file: Path | None) -> None:
        super().__init__(logging.NOTSET)  # the loggers' levels decide, as for the console handler it stands in for
        self.view = view
        self.log_file = log_file
        self.file_handler: logging.Handler | None = None
        self.saved: list[logging.Handler] = []
        self.saved_level = logging.WARNING

    def __enter__(self) -> _RunLog:
        root = logging.getLogger()
        self.saved, self.saved_level = list(root.handlers), root.level
        for handler in self.saved:
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler):
                root.removeHandler(handler)
        root.addHandler(self)
        if self.log_file is not None:
            try:
                self.file_handler = logging.FileHandler(self.log_file, encoding="utf-8")
            except OSError as exc:
                self.__exit__()
                fail(f"cannot write the log file {shown(str(self.log_file))}: {exc.strerror or exc}")
            self.file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
            self.file_handler.setLevel(logging.INFO)
            root.addHandler(self.file_handler)
            root.setLevel(min(self.saved_level or logging.WARNING, logging.INFO))
            logging.getLogger("gaceta").setLevel(logging.INFO)
        return self

    def __exit__(self, *exc: object) -> None:
        root = logging.getLogger()
        root.removeHandler(self)
        if self.file_handler is not None:
            root.removeHandler(self.file_handler)
            self.file_handler.close()
            self.file_handler = None
        root.setLevel(self.saved_level)
        for handler in self.saved:
            if handler not in root.handlers:
                root.addHandler(handler)

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == "gaceta.ingest" and str(record.msg).startswith("failed:"):
            return  # said by the file's outcome line
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is still said, never raised into the run
            message = str(record.msg)
        if record.levelno < logging.WARNING:
            if record.name.startswith("prefect"):  # a run's INFO lines, asked for with PREFECT_LOGGING_LEVEL=INFO
                self.view.say(message)
            return  # (other INFO records reach the terminal only through --log-file's root level: the file's)
        self.view.warning(threading.get_ident(), message)


class _Progress:
    """What both views share: the files in flight per thread (so a record logged while a file is read is that
    file's), each file's warnings (once each, in order), the files done in the order the flow reports them."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.total = 0
        self.done = 0
        self.pages = 0
        self.chunks = 0
        self.working: dict[int, str] = {}  # thread id -> path
        self.stage: dict[str, str] = {}  # path -> what is being done to it
        self.notes: dict[str, list[str]] = {}  # path -> its warnings

    def __enter__(self) -> _Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            leftover = [(path, notes) for path, notes in self.notes.items() if notes]
            self.notes.clear()
        for path, notes in leftover:  # a file whose outcome never came (should not happen): its warnings still show
            self.say_warnings(Path(path).name, notes)

    def warning(self, thread: int, message: str) -> None:
        from flows.models import printable

        message = printable(message)
        with self.lock:
            path = self.working.get(thread)
            if path is not None:
                notes = self.notes.setdefault(path, [])
                if message not in notes:
                    notes.append(message)
                return
        self.say(f"warning: {message}")

    def on_event(self, event: str, data: dict[str, Any]) -> None:
        with self.lock:
            if event == "discovered":
                self.total = data["pdfs"]
                self.started(data)
            elif event == "file_started":
                self.working[threading.get_ident()] = data["path"]
                self.stage[data["path"]] = "reading"
            elif event == "parsed":
                self.pages += data.get("pages") or 0
                self.stage[data["path"]] = "chunking"
                notes = self.notes.setdefault(data["path"], [])
                for warning in data.get("warnings") or []:
                    if warning not in notes:
                        notes.append(warning)
            elif event == "chunked":
                self.chunks += data.get("chunks") or 0
                self.stage[data["path"]] = "embedding and writing"
            elif event == "file_done":
                outcome = data["outcome"]
                self.stage.pop(outcome.path, None)
                for thread, path in list(self.working.items()):
                    if path == outcome.path:
                        del self.working[thread]
                notes = self.notes.pop(outcome.path, [])
                if outcome.issue is None:  # one of the run's PDFs: counted
                    self.done += 1
                    self.counted(outcome)
                self.refresh()  # the display drops the file before its outcome line is printed above it
                self.finished(outcome, notes)
                return
            self.refresh()

    def outcome_line(self, outcome) -> str:
        from flows.models import printable

        name = printable(Path(outcome.path).name) if outcome.issue is None else printable(outcome.path)
        counter = f"[{self.done}/{self.total}] " if outcome.issue is None else ""
        return f"{counter}{name}: {outcome.status.value}" + (f" ({printable(_detail(outcome))})"
                                                               if _detail(outcome) else "")

    # what each view does
    def counted(self, outcome) -> None: ...

    def started(self, data: dict[str, Any]) -> None: ...
    def finished(self, outcome, notes: list[str]) -> None: ...
    def refresh(self) -> None: ...
    def say(self, text: str) -> None: ...
    def say_warnings(self, name: str, notes: list[str]) -> None: ...


def _detail(outcome) -> str:
    if outcome.status.value == "ok":
        ocr = f", {outcome.ocr_pages} read by OCR" if outcome.ocr_pages else ""
        return (f"{_count(outcome.documents, 'document')}, {_count(outcome.chunks, 'chunk')}, "
                f"{_count(outcome.pages, 'page')}{ocr}, {outcome.seconds:.1f} s"
                + (f"; {outcome.reason}" if outcome.reason else ""))
    return outcome.reason  # cached: nothing to add


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class _ProgressView(_Progress):
    """One live display on stderr: a bar of the files done (in order) with the time left, the pages and chunks
    read so far, and a line for each file in flight with its stage; each file's outcome (and its warnings under
    it) is printed above the display once, when the flow reports it."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        super().__init__()
        # the bar and the time left go by bytes read, not files: one long scan is not "one file of ten"
        self.bar = Progress(TextColumn("files {task.fields[files]}"), BarColumn(), TextColumn("{task.fields[note]}"),
                            TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("· about"),
                            TimeRemainingColumn(), TextColumn("left"), console=err_console, transient=True)
        self.task = self.bar.add_task("files", total=None, note="", files="0/?")
        self.bytes_done = 0
        self.live = None

    def _render(self):
        from rich.console import Group
        from rich.text import Text

        rows = [self.bar.get_renderable()]
        for path, stage in list(self.stage.items()):
            rows.append(Text(f"  {Path(path).name} — {stage}", style="dim", overflow="ellipsis", no_wrap=True))
        return Group(*rows)

    def __enter__(self) -> _ProgressView:
        from rich.live import Live

        self.live = Live(self._render(), console=err_console, refresh_per_second=4, transient=True,
                         get_renderable=self._render)
        self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        if self.live is not None:
            self.live.stop()

    def started(self, data: dict[str, Any]) -> None:
        self.bar.update(self.task, total=data.get("bytes") or None, files=f"0/{data['pdfs']}")
        if data.get("others"):
            self.say(f"{data['pdfs']} PDF(s), {data['others']} other path(s)")

    def refresh(self) -> None:
        self.bar.update(self.task, completed=self.bytes_done, files=f"{self.done}/{self.total}",
                        note=f"{_count(self.pages, 'page')}, {_count(self.chunks, 'chunk')}")

    def counted(self, outcome) -> None:
        try:
            self.bytes_done += os.stat(outcome.path).st_size
        except OSError:  # gone since it was read: the estimate goes on without it
            pass

    def finished(self, outcome, notes: list[str]) -> None:
        from rich.markup import escape

        style = {"ok": "green", "cached": "dim", "failed": "red", "skipped": "yellow"}.get(outcome.status.value, "")
        line = escape(self.outcome_line(outcome))
        err_console.print(f"[{style}]{line}[/]" if style else line, soft_wrap=True)
        self.say_warnings(Path(outcome.path).name, notes)

    def say(self, text: str) -> None:
        err_console.print(text, markup=False, highlight=False, soft_wrap=True)

    def say_warnings(self, name: str, notes: list[str]) -> None:
        for note in notes:
            err_console.print(f"    warning: {note}", style="yellow", markup=False, highlight=False, soft_wrap=True)


class _ProgressLines(_Progress):
    """Progress for a log file or a pipe: plain lines, no timestamps, written when they happen: the count of PDFs
    found, then one outcome line per file in the order the flow reports them ("[k/N] name: status (…)", k only
    increases), each followed by that file's warnings ("    warning: …"); with --json too (stdout is the JSON)."""

    @staticmethod
    def _line(text: str) -> None:
        # one write a line: two files run at once, and print() writes the newline apart
        sys.stderr.write(f"ingest: {text}\n")
        sys.stderr.flush()

    def started(self, data: dict[str, Any]) -> None:
        self._line(f"{data['pdfs']} PDF(s), {data['others']} other path(s)")

    def finished(self, outcome, notes: list[str]) -> None:
        self._line(self.outcome_line(outcome))
        self.say_warnings(Path(outcome.path).name, notes)

    def say(self, text: str) -> None:
        self._line(text)

    def say_warnings(self, name: str, notes: list[str]) -> None:
        for note in notes:
            self._line(f"    warning: {note}")


def _print_summary(summary, state: str) -> None:
    from rich.table import Table

    totals = Table(title=f"ingest {summary.flow_run_name or ''}: {state}", show_header=False, title_justify="left")
    totals.add_column(style="bold")
    totals.add_column(justify="right")
    rows = [
        ("files indexed", summary.files_ok), ("files cached (skipped)", summary.files_cached),
        ("files skipped", summary.files_skipped), ("files failed", summary.files_failed),
        ("legal documents (several per edition)", summary.documents),
        ("chunks", summary.chunks), ("pages", summary.pages),
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
        table.add_column("file", overflow="fold", ratio=3)  # whole names: two damaged files must be told apart
        table.add_column("status", no_wrap=True)
        table.add_column("reason", overflow="fold", ratio=2)
        for f in problems:
            table.add_row(shown(f.path), f.status.value, shown(f.reason))
        # in a terminal a long name folds within its cell; in a pipe or a file each row is one line
        if console.is_terminal:
            console.print(table)
        else:
            from rich.console import Console

            width = max(len(f.path) + len(f.reason) + len(f.status.value) for f in problems) + 12
            Console(file=console.file, width=max(console.width, width), highlight=False).print(table)
