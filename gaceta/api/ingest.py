"""The owner's ingest: files sent to `POST /ingest` go into the index this process serves, while it serves.

The per-file steps are the ingest flow's (flows/tasks.py `index_file`): parse → chunk → (contextualize) → embed,
then upsert document by document. The CPU-heavy part (PyMuPDF, the chunker's token counts, BM25 analysis, the
model) runs in one child process at the lowest CPU priority (`os.nice(19)`), so queries keep the cores they need
and the GIL of this process stays theirs; the child is started on the first file and kept (it loads the model
once). This process only writes: `Index.upsert` per document, whose points stay pending until the whole document
is in (`Store.upsert_document`), so a search sees all of a document or none of it, and the store's write revision
moves on, which is what the chunk cache and the law catalog follow. One file at a time, one document at a time.

A file already indexed with the same bytes, ingest version, embedding model, BM25 analysis and blurb recipe is
reported `cached` (its documents checked complete in the index); uploads are kept under
`$GACETA_HOME/uploads/<sha256>/<name>` (the name matters: a DOF edition's date is read from it), so page images
keep working whatever the sender does with its copy.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from flows.models import FileOutcome, FileStatus
from retrieval.settings import Settings

NICE = 19  # the child's niceness: the kernel gives it what queries leave over (≈ 1.5% of a core when contended)
_SAFE_NAME = re.compile(r"[^\w.()\- ]+")


def chunker_version() -> str:
    """As `flows.ingest_flow.chunker_version` (that module imports Prefect)."""
    from ingest import INGEST_VERSION

    return f"ingest-{INGEST_VERSION}"


def safe_name(name: str) -> str:
    """A file name the sender chose, reduced to one harmless path component."""
    base = _SAFE_NAME.sub("_", Path(name.replace("\\", "/")).name).strip(" .")[:200]
    return base or "upload.pdf"


# --- the child process ------------------------------------------------------------------------------------------
class _Totals:
    """The one thing `Index.embed` asks of a store: the BM25 totals, which the owner sends with each file."""

    exclusive = False

    def __init__(self) -> None:
        self.totals = (0, 0)

    def bm25_totals(self) -> tuple[int, int]:
        return self.totals


_child: dict[str, Any] = {}


def _child_start(settings_json: str) -> None:
    os.nice(NICE)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the owner decides
    from retrieval.embedders import load_embedder
    from retrieval.index import Index

    settings = Settings.model_validate_json(settings_json)
    _child["settings"] = settings
    _child["index"] = Index(settings, load_embedder(settings.embedding_model), _Totals())


@dataclass
class Prepared:
    """A file parsed, chunked and embedded by the child, ready for the owner to upsert."""

    outcome: FileOutcome
    documents: list = field(default_factory=list)
    chunks: list = field(default_factory=list)
    embedded: list = field(default_factory=list)


def _prepare(path: str, sha256: str, totals: tuple[int, int], use_context: bool) -> Prepared:
    """`flows.tasks.index_file` up to the upsert, as plain calls (no Prefect in the owner)."""
    from ingest.parse import parse_pdf

    index, settings = _child["index"], _child["settings"]
    index.store.totals = totals
    stages: dict[str, float] = {}
    t0 = time.perf_counter()
    parsed = parse_pdf(Path(path))
    stages["parse"] = time.perf_counter() - t0
    pages = parsed.source.pages
    if not parsed.ok:
        return Prepared(FileOutcome(path=path, status=FileStatus.failed, sha256=sha256,
                                    parse_status=parsed.status.value, reason=_reason(parsed), pages=pages,
                                    stages=_rounded(stages)))
    documents = parsed.documents
    t = time.perf_counter()
    chunks = [index.chunk_document(doc) for doc in documents]
    stages["chunk"] = time.perf_counter() - t
    usage = None
    if use_context:
        from ingest.contextualize import BlurbUsage, anthropic_client, contextualize_chunks

        usage = BlurbUsage()
        t = time.perf_counter()
        client = anthropic_client(settings.anthropic_api_key, settings.anthropic_base_url, settings.anthropic_timeout_s)
        chunks = [contextualize_chunks(doc, doc_chunks, client, settings.anthropic_model,
                                       settings.home / "cache" / "context", usage=usage)[0]
                  for doc, doc_chunks in zip(documents, chunks)]
        stages["contextualize"] = time.perf_counter() - t
    n_chunks = sum(len(c) for c in chunks)
    kept = [i for i, doc_chunks in enumerate(chunks) if doc_chunks]  # a document without text has no points
    documents, chunks = [documents[i] for i in kept], [chunks[i] for i in kept]
    t = time.perf_counter()
    flat = [c for doc_chunks in chunks for c in doc_chunks]
    embedded = index.embed(flat).split([len(c) for c in chunks]) if flat else []
    stages["embed"] = time.perf_counter() - t
    outcome = FileOutcome(path=path, status=FileStatus.ok, sha256=sha256, parse_status=parsed.status.value,
                          reason="repaired" if parsed.repaired else "", doc_ids=[d.doc_id for d in documents],
                          documents=len(documents), chunks=n_chunks, pages=pages, ocr_pages=len(parsed.ocr_pages),
                          stages=_rounded(stages), context=usage)
    return Prepared(outcome, documents, chunks, embedded)


def _reason(parsed) -> str:
    status, message = parsed.status.value, parsed.message.strip()
    if not message or message.lower().startswith(status.replace("_", " ")) or message.lower().startswith(status):
        return message or status
    return f"{status}: {message}"


def _rounded(stages: dict[str, float]) -> dict[str, float]:
    return {name: round(seconds, 4) for name, seconds in stages.items()}


# --- the owner side ---------------------------------------------------------------------------------------------
class Ingester:
    """One file at a time into `index`: a job thread here, the heavy work in a low-priority child process."""

    def __init__(self, index, settings: Settings):
        self.index = index
        self.settings = settings
        self.uploads = settings.home / "uploads"
        self._jobs = ThreadPoolExecutor(1, thread_name_prefix="gaceta-ingest")
        self._pool: ProcessPoolExecutor | None = None
        self._child_pid: int | None = None
        self._waiting = 0
        self._count_lock = threading.Lock()
        self._closing = False
        self._wrote = False

    # uploads
    def receive(self, name: str) -> tuple[Path, Any]:
        """A temporary file for an upload in progress (deleted by `discard` when the upload does not complete)."""
        self.uploads.mkdir(parents=True, exist_ok=True)
        tmp = self.uploads / f".part-{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}"
        return tmp, open(tmp, "wb")

    def keep(self, tmp: Path, sha256: str, name: str) -> Path:
        """The completed upload, content-addressed: uploads/<sha256>/<name>."""
        folder = self.uploads / sha256
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / safe_name(name)
        os.replace(tmp, final)
        return final

    @staticmethod
    def discard(tmp: Path) -> None:
        tmp.unlink(missing_ok=True)

    # jobs
    def submit(self, path: Path, sha256: str, context: bool | None) -> Future[FileOutcome]:
        with self._count_lock:
            self._waiting += 1
        return self._jobs.submit(self._run, path, sha256, context)

    def _key(self, sha256: str, use_context: bool) -> str:
        from retrieval.bm25 import ANALYZER_VERSION

        recipe = f"context:{self.settings.anthropic_model}" if use_context else "headers-only"
        parts = (sha256, chunker_version(), self.index.embedder.model_id, ANALYZER_VERSION, recipe)
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]

    def _done_marker(self, sha256: str, use_context: bool) -> Path:
        return self.uploads / sha256 / f"indexed-{self._key(sha256, use_context)}.json"

    def _run(self, path: Path, sha256: str, context: bool | None) -> FileOutcome:
        t0 = time.perf_counter()
        try:
            use_context = bool(self.settings.context if context is None else context) and bool(
                self.settings.anthropic_api_key)
            marker = self._done_marker(sha256, use_context)
            cached = self._cached(marker)
            if cached is not None:
                status = FileStatus.cached if cached.status is FileStatus.ok else cached.status
                return cached.model_copy(update={"path": str(path), "status": status, "from_cache": True,
                                                 "seconds": 0.0})
            prepared = self._prepare(path, sha256, use_context)
            outcome = prepared.outcome
            if outcome.status is FileStatus.ok:
                t = time.perf_counter()
                for doc, chunks, vectors in zip(prepared.documents, prepared.chunks, prepared.embedded):
                    self.index.upsert(doc, chunks, vectors)
                    self._wrote = True
                self.index.store.flush()
                outcome.stages["upsert"] = round(time.perf_counter() - t, 4)
            if outcome.status is not FileStatus.failed or outcome.parse_status:  # a parse verdict is cached too
                tmp = marker.with_suffix(".tmp")
                tmp.write_text(outcome.model_dump_json())
                os.replace(tmp, marker)
            outcome.path = str(path)
            outcome.seconds = round(time.perf_counter() - t0, 3)
            return outcome
        finally:
            with self._count_lock:
                self._waiting -= 1
                idle = self._waiting == 0
            if idle and not self._closing and self._wrote:
                self._wrote = False
                self.index.optimize()  # the ANN index over what was written, once the queue is empty

    def _cached(self, marker: Path) -> FileOutcome | None:
        try:
            outcome = FileOutcome.model_validate_json(marker.read_text())
        except (OSError, ValueError):
            return None
        if outcome.status is FileStatus.ok and not all(self.index.has_document(d) for d in outcome.doc_ids):
            return None  # recorded, but the index lost it (or was rebuilt): do it again
        return outcome

    def _prepare(self, path: Path, sha256: str, use_context: bool) -> Prepared:
        totals = self.index.store.bm25_totals()
        for attempt in (1, 2):
            pool = self._child_pool()
            try:
                return pool.submit(_prepare, str(path), sha256, totals, use_context).result()
            except BrokenProcessPool:
                self._pool = None
                if self._closing or attempt == 2:
                    return Prepared(FileOutcome(path=str(path), status=FileStatus.failed, sha256=sha256,
                                                reason="the ingest process died while reading this file"))
            except Exception as exc:  # noqa: BLE001  (one file's failure is its outcome, as in the flow)
                return Prepared(FileOutcome(path=str(path), status=FileStatus.failed, sha256=sha256,
                                            reason=f"{type(exc).__name__}: {exc}"))
        raise AssertionError("unreachable")

    def _child_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"), initializer=_child_start,
                                             initargs=(self.settings.model_dump_json(),))
            self._child_pid = self._pool.submit(os.getpid).result()
        return self._pool

    def close(self) -> None:
        """Stop: the child is killed (it never writes), a running upsert finishes, queued files are dropped."""
        self._closing = True
        if self._child_pid is not None:
            try:
                os.kill(self._child_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._jobs.shutdown(wait=True, cancel_futures=True)
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

