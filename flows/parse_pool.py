"""Parsing and chunking in worker processes: one file a worker, as many workers as the run has file workers.

PyMuPDF's text extraction and the chunker's token counts are Python and C under one interpreter's GIL: in the
ingest process they ran one file at a time (a parse lock, PyMuPDF not being thread-safe) and took CPU from the
writer and from the threads feeding the encoders. Here each file is read by a `spawn`ed process (never `fork`: the
parent runs Qdrant's and Prefect's threads) holding the embedder's tokenizer (`Embedder.token_counter`, pickled once
to each worker): the same `parse_pdf` and `chunk_document` as in the process, so the chunks are the same, and the
parent gets them back pickled (the Ley de Amparo's document and chunks: 1.5 MB, ≈ 60 ms both ways, against ≈ 3.5 s
of parsing and chunking).

What a file's reading logs in a worker (MuPDF's complaints, Tesseract's messages from `ingest.ocr`) is sent back
with it and logged in the ingest process, on the thread working on that file, as if read there: the CLI prints it
under that file's outcome line, `--log-file` keeps it.

A run on one CPU keeps its files in the process (`flows.indexing.prepare_file` without a pool): a worker's start
and the pickling would only add to the same single CPU. A worker that dies (killed, out of memory on a huge page)
takes the files in flight on the pool with it: each is read again alone, in a process of its own, so only the
file that kills its reader fails (with the reason); the next files get fresh workers.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from ingest.chunker import chunk_document
from ingest.models import Chunk, ParseResult
from ingest.parse import parse_pdf
from ingest.worker_process import end_with_parent

_worker: dict = {}  # in a worker: the token count and budget the chunker cuts with, the OCR processes a scan gets


@dataclass
class ParsedFile:
    """A file parsed and, when it parsed, its documents' chunks (in document order), with each stage's seconds."""

    parsed: ParseResult
    chunks: list[list[Chunk]] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)
    records: list[logging.LogRecord] = field(default_factory=list)  # logged while a worker read it


class ParseWorkerDied(RuntimeError):
    """The worker process reading a file died (killed, out of memory): that file is not indexed."""


def parse_and_chunk(path: str, count_tokens: Callable[[str], int], max_tokens: int,
                    ocr_workers: int | None) -> ParsedFile:
    """`parse_pdf`, then `chunk_document` for each document of a file that parsed: the one recipe, run in the
    ingest process (one CPU) or in a worker."""
    t = time.perf_counter()
    parsed = parse_pdf(Path(path), ocr_workers=ocr_workers)
    result = ParsedFile(parsed, stages={"parse": time.perf_counter() - t})
    if parsed.ok:
        t = time.perf_counter()
        result.chunks = [chunk_document(doc, count_tokens, max_tokens) for doc in parsed.documents]
        result.stages["chunk"] = time.perf_counter() - t
    return result


class _Kept(logging.Handler):
    """A worker's log records while it reads a file, made picklable (message formatted, traceback as text)."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        record.msg, record.args = record.getMessage(), None
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
        self.records.append(record)


def _init(count_tokens: Callable[[str], int], max_tokens: int, ocr_workers: int | None, log_level: int) -> None:
    end_with_parent()  # a killed ingest leaves no worker behind
    _worker.update(count_tokens=count_tokens, max_tokens=max_tokens, ocr_workers=ocr_workers)
    root = logging.getLogger()
    root.setLevel(log_level)  # what the ingest process logs, at its level
    root.handlers[:] = [kept := _Kept()]
    _worker["kept"] = kept


def _in_worker(path: str) -> ParsedFile:
    kept = _worker["kept"]
    kept.records = []
    result = parse_and_chunk(path, _worker["count_tokens"], _worker["max_tokens"], _worker["ocr_workers"])
    result.records = kept.records
    return result


def _relog(records: list[logging.LogRecord]) -> None:
    """A worker's records, logged in this process on the calling thread (the one working on the file)."""
    for record in records:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


def _ready() -> None:
    """A first task, so each worker starts (spawn, imports, the tokenizer unpickled) before the first file."""


class ParsePool:
    """`workers` spawned processes that each read one file at a time (`parse`, from any thread), started on first
    use or by `start`, restarted after a worker dies."""

    def __init__(self, workers: int, count_tokens: Callable[[str], int], max_tokens: int,
                 ocr_workers: int | None = None):
        self.workers = workers
        self._initargs = (count_tokens, max_tokens, ocr_workers, logging.getLogger().getEffectiveLevel())
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start every worker now (an ingest starts them with its first file to index, so the others find them
        loaded)."""
        pool = self._started()
        for _ in range(self.workers):  # a spawn context starts a worker per task none is free for
            pool.submit(_ready)

    def parse(self, path: str) -> ParsedFile:
        """The file parsed and chunked in a worker; an error of the file's own is raised as it was raised there."""
        pool = self._started()
        try:
            result = pool.submit(_in_worker, path).result()
        except BrokenProcessPool:
            with self._lock:
                if self._pool is pool:
                    self._pool = None  # the next file starts fresh workers
            pool.shutdown(wait=False, cancel_futures=True)
            result = self._alone(path)
        _relog(result.records)
        return result

    def _alone(self, path: str) -> ParsedFile:
        """A file that was in flight when a worker died, read again in a process of its own: only the file that
        kills its reader fails."""
        alone = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=_init,
                                    initargs=self._initargs)
        try:
            return alone.submit(_in_worker, path).result()
        except BrokenProcessPool as exc:
            raise ParseWorkerDied(f"the process parsing this file died ({exc}); it was not indexed") from None
        finally:
            alone.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _started(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_init, initargs=self._initargs)
            return self._pool
