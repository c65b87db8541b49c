"""What an ingest run reports: one outcome per input file and the run's totals (the CLI's summary table, the
`--json` output and the run log all come from these models)."""

from __future__ import annotations

import datetime as dt
import json
import logging
import unicodedata
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator
from pydantic_core import PydanticSerializationError

from ingest.contextualize import BlurbUsage

STAGES = ("parse", "chunk", "contextualize", "embed", "upsert")


log = logging.getLogger("gaceta.ingest")


def safe_text(text: str) -> str:
    """`text` as valid UTF-8. A file name that is not UTF-8 reaches Python with its undecodable bytes as lone
    surrogates (PEP 383, `os.fsdecode`), which no JSON encoder writes: each such byte becomes the four characters
    `\\xNN` (the name `bad\\xffname.pdf` for the bytes `bad<0xff>name.pdf`); any other lone surrogate becomes
    `\\udNNN`. Text that is valid UTF-8 is returned unchanged."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def valid_utf8(data: Any) -> Any:
    """JSON-ready data (dicts, lists, strings, numbers) with every string made valid UTF-8 by `safe_text`."""
    if isinstance(data, str):
        return safe_text(data)
    if isinstance(data, dict):
        return {valid_utf8(k): valid_utf8(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [valid_utf8(v) for v in data]
    return data


def printable(text: str) -> str:
    """`text` for one line of a terminal or a log: `safe_text`, and control characters (a newline in a file name, an
    escape sequence) shown as Python escapes (`\\n`, `\\x1b`), so a name can neither break a line nor drive the
    terminal."""
    return "".join(repr(ch)[1:-1] if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch
                   for ch in safe_text(text))


def has_undecodable(text: str) -> bool:
    """True when `text` (a path from `os.fsdecode`) carries bytes that are not UTF-8."""
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


class FileStatus(str, Enum):
    ok = "ok"  # parsed and indexed in this run
    cached = "cached"  # already indexed with the same sha256, chunker version, embedding model and context mode
    skipped = "skipped"  # never opened: not a PDF by name, not a regular file, a duplicate…; `issue` says which
    failed = "failed"  # a parse status other than ok, an unreadable or missing file, or an exception; `reason` says


class InputIssue(str, Enum):
    """Why a path found by an ingest run was not parsed (`FileOutcome.issue`); parse failures have `parse_status`."""

    missing = "missing"  # no such file or folder (failed)
    not_pdf_name = "not_pdf_name"  # a regular file whose name does not end in .pdf (skipped)
    name_not_utf8 = "name_not_utf8"  # the name's bytes are not UTF-8; shown with \xNN escapes (skipped)
    not_regular = "not_regular"  # a FIFO, socket or device: never opened (skipped)
    folder_named_pdf = "folder_named_pdf"  # a folder whose name ends in .pdf: walked like any folder (skipped)
    folder_symlink = "folder_symlink"  # a symlink to a folder inside a walked folder: not followed (skipped)
    dangling_symlink = "dangling_symlink"  # a symlink whose target does not exist (failed when named .pdf)
    symlink_loop = "symlink_loop"  # a symlink that resolves to itself (failed when named .pdf)
    unreadable = "unreadable"  # the file or folder cannot be read (permissions, I/O error) (failed)
    duplicate = "duplicate"  # the same file, or the same bytes, as an earlier path of this run (skipped)


class ContextMode(str, Enum):
    off = "off"
    on = "on"
    no_key = "no_key"  # asked for, but no Anthropic key: headers only


class RunFailed(Exception):
    """The data of a Failed run: why, plus the run's summary (a Failed state must carry an exception, or
    Prefect's runner cannot resolve it)."""

    def __init__(self, message: str, summary: BaseModel):
        super().__init__(message, summary)
        self.summary = summary

    def __str__(self) -> str:
        return self.args[0]


def summary_of(result: object) -> object:
    """A run's summary from its state's result, Completed or Failed."""
    return result.summary if isinstance(result, RunFailed) else result


class FileOutcome(BaseModel):
    """One input path's outcome. `path` is the path as found (made valid UTF-8 by `safe_text`: a name that is not
    UTF-8 shows its bytes as `\\xNN`); `link` is where a symlink points, resolved; `issue` names why a path was not
    parsed, `parse_status` why a parsed file yielded nothing."""

    model_config = ConfigDict(validate_assignment=True)  # a path or reason set later is made safe too

    path: str
    status: FileStatus
    reason: str = ""
    issue: InputIssue | None = None
    link: str | None = None
    from_cache: bool = False  # outcome read from the per-file cache record (nothing re-done)
    sha256: str | None = None
    parse_status: str | None = None
    doc_ids: list[str] = []
    documents: int = 0
    chunks: int = 0
    pages: int = 0
    seconds: float = 0.0
    stages: dict[str, float] = {}
    ocr_pages: int = 0
    context: BlurbUsage | None = None

    @field_validator("path", "reason", "link")
    @classmethod
    def _valid_utf8(cls, value: str | None) -> str | None:
        return None if value is None else safe_text(value)


def unserialisable(outcome: FileOutcome, exc: Exception) -> FileOutcome:
    """What stands in the run record for an outcome that cannot be written as JSON: its path, status and why."""
    return FileOutcome(path=outcome.path, status=outcome.status, issue=outcome.issue,
                       reason=f"this file's outcome could not be recorded: {type(exc).__name__}: {exc}")


class IngestSummary(BaseModel):
    """A run's totals. `documents`, `chunks` and `pages` count work done in this run (cached files add nothing),
    so `pages_per_s` is a throughput; `stages` sums per-file stage seconds (plus the run's final index
`optimize`) and `prefect_overhead` is the rest."""

    flow_run_id: str | None = None
    flow_run_name: str | None = None
    started_at: dt.datetime
    finished_at: dt.datetime | None = None
    seconds: float = 0.0
    embedding_model: str
    chunker_version: str
    context_mode: ContextMode = ContextMode.off
    context_note: str = ""
    files: list[FileOutcome] = []
    stages: dict[str, float] = Field(default_factory=lambda: {s: 0.0 for s in STAGES})
    anthropic: BlurbUsage = Field(default_factory=BlurbUsage)

    def _count(self, status: FileStatus) -> int:
        return sum(1 for f in self.files if f.status is status)

    @computed_field
    @property
    def files_ok(self) -> int:
        return self._count(FileStatus.ok)

    @computed_field
    @property
    def files_cached(self) -> int:
        return self._count(FileStatus.cached)

    @computed_field
    @property
    def files_skipped(self) -> int:
        return self._count(FileStatus.skipped)

    @computed_field
    @property
    def files_failed(self) -> int:
        return self._count(FileStatus.failed)

    @computed_field
    @property
    def documents(self) -> int:
        return sum(f.documents for f in self.files if f.status is FileStatus.ok)

    @computed_field
    @property
    def chunks(self) -> int:
        return sum(f.chunks for f in self.files if f.status is FileStatus.ok)

    @computed_field
    @property
    def pages(self) -> int:
        return sum(f.pages for f in self.files if f.status is FileStatus.ok)

    @computed_field
    @property
    def pages_per_s(self) -> float:
        return round(self.pages / self.seconds, 2) if self.seconds else 0.0

    @computed_field
    @property
    def chunks_per_s(self) -> float:
        return round(self.chunks / self.seconds, 2) if self.seconds else 0.0

    @computed_field
    @property
    def prefect_overhead(self) -> float:
        """Seconds of the run not spent inside a stage: task/flow bookkeeping, cache checks, hashing."""
        return round(max(0.0, self.seconds - sum(self.stages.values())), 3)

    @property
    def nothing_done(self) -> bool:
        """True when files failed and none was indexed or already cached: the run is 'Failed'."""
        return self.files_failed > 0 and self.files_ok + self.files_cached == 0

    def to_json(self) -> str:
        """The summary as JSON, always: text that is not valid UTF-8 is escaped (`valid_utf8`), and an outcome that
        still cannot be serialised is replaced by `unserialisable` (its path, status and the error), so one file
        never costs the run its record or its `--json`."""
        try:
            return self.model_dump_json(indent=2)
        except (PydanticSerializationError, ValueError) as exc:
            log.warning("ingest summary: %s; writing the outcomes one by one", exc)
        files = []
        for outcome in self.files:
            try:
                files.append(valid_utf8(outcome.model_dump(mode="json")))
            except Exception as exc:  # noqa: BLE001  (recorded as this file's reason)
                files.append(unserialisable(outcome, exc).model_dump(mode="json"))
        data = valid_utf8(self.model_dump(mode="json", exclude={"files"}))
        data["files"] = files
        return json.dumps(data, indent=2, ensure_ascii=False)

    def headline(self) -> str:
        return (f"{self.files_ok} ok, {self.files_cached} cached, {self.files_skipped} skipped, "
                f"{self.files_failed} failed; {self.documents} documents, {self.chunks} chunks, "
                f"{self.pages} pages in {self.seconds:.1f} s")
