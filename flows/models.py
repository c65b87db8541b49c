"""What an ingest run reports: one outcome per input file and the run's totals (the CLI's summary table, the
`--json` output and the run log all come from these models)."""

from __future__ import annotations

import datetime as dt
from enum import Enum

from pydantic import BaseModel, Field, computed_field

from ingest.contextualize import BlurbUsage

STAGES = ("parse", "chunk", "contextualize", "embed", "upsert")


class FileStatus(str, Enum):
    ok = "ok"  # parsed and indexed in this run
    cached = "cached"  # already indexed with the same sha256, chunker version, embedding model and context mode
    skipped = "skipped"  # not a PDF: never opened
    failed = "failed"  # a parse status other than ok, or an exception; `reason` says which


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
    path: str
    status: FileStatus
    reason: str = ""
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

    def headline(self) -> str:
        return (f"{self.files_ok} ok, {self.files_cached} cached, {self.files_skipped} skipped, "
                f"{self.files_failed} failed; {self.documents} documents, {self.chunks} chunks, "
                f"{self.pages} pages in {self.seconds:.1f} s")
