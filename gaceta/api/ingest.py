"""The owner's ingest: files sent to `POST /ingest` go into the index this process serves, while it serves.

The per-file steps are the indexing module's (`flows.indexing.prepare_file`: parse → chunk → (contextualize) →
embed), then its write (`flows.indexing.write_file`): every document record of the file, then its documents' points. The CPU-heavy part (PyMuPDF, the chunker's token counts, BM25 analysis, the
model) runs in one child process at the lowest CPU priority (`os.nice(19)`), so queries keep the cores they need
and the GIL of this process stays theirs; the child is started on the first file and kept (it loads the model
once). This process only writes (`Index.upsert_documents`), whose points stay pending until each document is whole
(`Store.upsert_document`), so a search sees all of a document or none of it, and the store's write revision moves
on, which is what the chunk cache and the law catalog follow. One file at a time.

Whether a file is already indexed is the index's to say (`flows.indexing.cached_outcome`, the check every run makes):
such a file is reported `cached`, exactly as a local run reports it. An upload lives under
`$GACETA_HOME/uploads/<sha256>/<name>` (the name matters: a DOF edition's date is read from it) until its file is
indexed, found cached or failed — then it goes: the index keeps its one original per sha256 (`retrieval.originals`),
and pages are rendered from that. The sender's `source` (when the route trusts it) is the document's source identity,
so a new version of the same inbox file replaces the old one.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from flows.indexing import Prepared, cached_outcome, context_mode, prepare_file, write_file
from flows.models import ContextMode, FileOutcome, FileStatus
from ingest.worker_process import end_with_parent
from retrieval.settings import Settings
from retrieval.store import StoreError

log = logging.getLogger("gaceta.api")
NICE = 19  # the child's niceness: the kernel gives it what queries leave over (≈ 1.5% of a core when contended)
_SAFE_NAME = re.compile(r"[^\w.()\- ]+")


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
    end_with_parent()  # a server killed with -9 leaves no ingest child (≈ 500 MB) behind
    os.nice(NICE)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the owner decides
    from retrieval.embedders import load_embedder
    from retrieval.index import Index

    settings = Settings.model_validate_json(settings_json)
    # an `Index` over the model whose store is the owner's, which this process never opens
    _child["index"] = Index(settings, load_embedder(settings.embedding_model, settings.device), _Totals())


def _prepare(path: str, sha256: str, totals: tuple[int, int], use_context: bool) -> Prepared:
    """The file's steps up to the write (`flows.indexing.prepare_file`), in the child."""
    _child["index"].store.totals = totals
    return prepare_file(_child["index"], path, sha256, use_context)


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
        self._uploads: dict[Path, int] = {}  # kept uploads and the jobs still to read them

    # uploads
    def receive(self, name: str) -> tuple[Path, Any]:
        """A temporary file for an upload in progress (deleted by `discard` when the upload does not complete)."""
        self.uploads.mkdir(parents=True, exist_ok=True)
        tmp = self.uploads / f".part-{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}"
        return tmp, open(tmp, "wb")

    def keep(self, tmp: Path, sha256: str, name: str) -> Path:
        """The completed upload, content-addressed: uploads/<sha256>/<name>."""
        folder = self.uploads / sha256
        final = folder / safe_name(name)
        with self._count_lock:  # one job more to read it: a job of the same file ending now leaves it in place
            folder.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, final)
            self._uploads[final] = self._uploads.get(final, 0) + 1
        return final

    @staticmethod
    def discard(tmp: Path) -> None:
        tmp.unlink(missing_ok=True)

    @staticmethod
    def drop_upload(path: Path) -> None:
        path.unlink(missing_ok=True)
        try:
            path.parent.rmdir()  # its sha256 folder, once empty
        except OSError:
            pass

    # jobs
    def use_context(self, context: bool | None) -> bool:
        """Blurbs for this file: asked for (or GACETA_CONTEXT) and a key to pay for them (`context_mode`)."""
        return context_mode(self.settings, context)[0] is ContextMode.on

    def indexed(self, path: str, sha256: str, context: bool | None, source: str | None = None) -> FileOutcome | None:
        """The `cached` outcome when the index already holds this file as it would be indexed now (`cached_outcome`)."""
        return cached_outcome(self.index, path, sha256, self.use_context(context), source)

    def submit(self, path: Path, sha256: str, context: bool | None,
               source: str | None = None) -> Future[FileOutcome]:
        with self._count_lock:
            self._waiting += 1
        return self._jobs.submit(self._run, path, sha256, context, source)

    def _run(self, path: Path, sha256: str, context: bool | None, source: str | None) -> FileOutcome:
        t0 = time.perf_counter()
        try:
            cached = self.indexed(str(path), sha256, context, source)  # asked in the job: a file sent twice is done once
            if cached is not None:
                return cached
            prepared = self._prepare(path, sha256, self.use_context(context))
            outcome = prepared.outcome
            if outcome.status is FileStatus.ok:
                self._wrote = self._wrote or bool(prepared.documents)  # optimized once the queue is empty
                try:
                    seconds = write_file(self.index, prepared, source)
                    self.index.store.flush()
                except Exception as exc:  # this file's outcome: the server goes on
                    if isinstance(exc, StoreError):  # expected (damage, a full disk): its own line says what
                        log.error("ingest: writing %s failed: %s", path.name, exc)
                    else:  # a bug: logged with its trace
                        log.exception("ingest: writing %s failed", path.name)
                    outcome = FileOutcome(path=str(path), status=FileStatus.failed, sha256=sha256,
                                          reason=f"{type(exc).__name__}: {exc}")
                else:
                    outcome.stages["upsert"] = round(seconds, 4)
            outcome.path = str(path)
            outcome.seconds = round(time.perf_counter() - t0, 3)
            return outcome
        finally:
            with self._count_lock:
                self._waiting -= 1
                idle = self._waiting == 0
                left = self._uploads.get(path, 1) - 1
                self._uploads[path] = left
                if left <= 0:  # indexed (its original kept by the index), cached or failed: the upload has served
                    del self._uploads[path]
                    self.drop_upload(path)
            if idle and not self._closing and self._wrote:
                self._wrote = False
                self.index.optimize()  # the ANN index over what was written, once the queue is empty

    def _prepare(self, path: Path, sha256: str, use_context: bool) -> Prepared:
        totals = self.index.store.bm25_totals()
        for attempt in (1, 2):
            try:  # the child's start-up is inside: a child that dies at start is this file's outcome, not a 500
                pool = self._child_pool()
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

