"""The ingest flow's tasks: one `index_file` per PDF, running parse → chunk → contextualize → embed → upsert as
nested tasks. Under a Prefect flow run they are Prefect tasks (tracked, retried); called as plain functions
(`ingest.fn`, no Prefect API) each runs its own function (`task.fn`), with the same retries done here.

Exactness under SIGKILL rests on the store's document protocol (retrieval.store.base): point ids are
deterministic, a document is written pending, its stale points (an earlier attempt, another chunker) are
removed, and only then is it marked complete, so search never shows a half-indexed document. All of a file's
document records are written before any of its points, so a file counts as indexed (`retrieval.index.Index.
indexed_documents`) only when every one of its documents is complete: a killed run redoes the files it was on.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.concurrency.sync import concurrency
from prefect.context import FlowRunContext
from prefect.exceptions import MissingContextError
from prefect.tasks import exponential_backoff

from flows import progress
from flows.models import FileOutcome, FileStatus, printable
from ingest.contextualize import BlurbUsage, anthropic_client, contextualize_chunks
from ingest.models import Chunk, LegalDocument, ParseResult
from retrieval.index import Embedded
from retrieval.settings import Settings

ANTHROPIC_LIMIT = "gaceta-anthropic"  # Prefect global concurrency limit around every Anthropic call
ANTHROPIC_SLOTS = 4  # created with this many slots when missing; change with `prefect gcl update`

# PyMuPDF is not thread-safe, nor is the embedding model's tokenizer (the chunker counts tokens with it while
# another thread embeds: measured to corrupt a batch), and the store wants one writer. With the thread-pool
# runner one file parses while another chunks/embeds, but no lock is held twice at once in a process.
_stage_locks = {name: threading.Lock() for name in ("parse", "model", "upsert")}
_indexes: dict[str, Any] = {}
_indexes_lock = threading.Lock()
_anthropic_slots = threading.BoundedSemaphore(ANTHROPIC_SLOTS)  # the limit when no Prefect API holds it
CONTEXT_RETRIES = 5


def tracked() -> bool:
    """True inside a Prefect flow run (its tasks then run as Prefect tasks), False when the flow's function is
    called directly (`ingest.fn`)."""
    return FlowRunContext.get() is not None


def call(task_obj, *args: Any, **kwargs: Any) -> Any:
    """Run a task: a Prefect task run inside a flow run, its plain function otherwise."""
    return task_obj(*args, **kwargs) if tracked() else task_obj.fn(*args, **kwargs)


def run_logger() -> logging.Logger | logging.LoggerAdapter:
    """Prefect's run logger inside a run; outside, a plain `gaceta.ingest` logger."""
    try:
        return get_run_logger()
    except MissingContextError:
        return logging.getLogger("gaceta.ingest")


def open_index(settings: Settings):
    """One `Index` per process and store (opening an embedded store twice in a process is not allowed)."""
    from retrieval.index import Index

    key = settings.model_dump_json(include={"home", "qdrant_url", "collection", "embedding_model"})
    with _indexes_lock:
        if key not in _indexes:
            _indexes[key] = Index.open(settings)
        return _indexes[key]


def use_index(settings: Settings, index) -> None:
    """Make `index` this process's index for `settings` (the serving owner's ingest child: an `Index` over the
    model whose store is the owner's, which this process must not open)."""
    key = settings.model_dump_json(include={"home", "qdrant_url", "collection", "embedding_model"})
    with _indexes_lock:
        _indexes[key] = index


def warm_up(settings: Settings) -> None:
    """Open the index and load what the embedding model loads lazily (tokenizer, weights), which the first file
    would otherwise wait for; a command does this while Prefect's API server starts on the other core."""
    embedder = open_index(settings).embedder
    embedder.count_tokens("calentamiento")
    embedder.embed_documents(["calentamiento"])


def close_indexes() -> None:
    with _indexes_lock:
        for index in _indexes.values():
            close = getattr(index, "close", None)
            if close is not None:
                close()
        _indexes.clear()


def optimize_index(settings: Settings) -> None:
    """Build the search structures over what this run wrote and make it durable, without closing the index
    (a worker's flow-run process may exit without `close`)."""
    index = open_index(settings)
    with _stage_locks["upsert"]:
        index.optimize()
        index.store.flush()


def _rounded(stages: dict[str, float]) -> dict[str, float]:
    return {name: round(seconds, 4) for name, seconds in stages.items()}


def _retryable_error(exc: BaseException | None) -> bool:
    """Retry rate limits, overload, server errors and network trouble; not bad requests or auth."""
    import anthropic

    if isinstance(exc, (anthropic.RateLimitError, anthropic.APIConnectionError, anthropic.InternalServerError)):
        return True
    return isinstance(exc, anthropic.APIStatusError) and exc.status_code in (408, 409, 429, 529)


def _retryable(task, task_run, state) -> bool:
    return _retryable_error(state.data if isinstance(state.data, BaseException) else None)


@task(name="parse", cache_policy=NO_CACHE)
def parse_task(path: str, ocr_workers: int | None = None) -> tuple[ParseResult, float]:
    """The parse and its seconds of work (time waiting for the lock is not work: it is the other file's);
    `ocr_workers` processes OCR a scan's pages (None: every core)."""
    from ingest.parse import parse_pdf

    with _stage_locks["parse"]:
        t0 = time.perf_counter()
        return parse_pdf(Path(path), ocr_workers=ocr_workers), time.perf_counter() - t0


@task(name="chunk", cache_policy=NO_CACHE)
def chunk_task(documents: list[LegalDocument], settings: Settings) -> tuple[list[list[Chunk]], float]:
    index = open_index(settings)
    with _stage_locks["model"]:
        t0 = time.perf_counter()
        return [index.chunk_document(doc) for doc in documents], time.perf_counter() - t0


@task(name="contextualize", cache_policy=NO_CACHE, retries=CONTEXT_RETRIES, retry_delay_seconds=exponential_backoff(1),
      retry_jitter_factor=0.5, retry_condition_fn=_retryable)
def contextualize_task(documents: list[LegalDocument], chunks: list[list[Chunk]], settings: Settings,
                       usage: BlurbUsage) -> list[list[Chunk]]:
    """Blurbs for every chunk; a retry after a 429 re-reads the blurbs already paid for from the file cache."""
    client = anthropic_client(settings.anthropic_api_key, settings.anthropic_base_url, settings.anthropic_timeout_s)
    cache_dir = settings.home / "cache" / "context"
    slot = (lambda: concurrency(ANTHROPIC_LIMIT, occupy=1)) if tracked() else (lambda: _anthropic_slots)
    return [
        contextualize_chunks(doc, doc_chunks, client, settings.anthropic_model, cache_dir, guard=slot, usage=usage)[0]
        for doc, doc_chunks in zip(documents, chunks)
    ]


@task(name="embed", cache_policy=NO_CACHE)
def embed_task(chunks: list[list[Chunk]], settings: Settings) -> tuple[list[Embedded], float]:
    """All the file's chunks in one batch (fuller model batches than document by document), split back."""
    index = open_index(settings)
    flat = [c for doc_chunks in chunks for c in doc_chunks]
    if not flat:
        return [], 0.0
    with _stage_locks["model"]:
        t0 = time.perf_counter()
        embedded = index.embed(flat)
        seconds = time.perf_counter() - t0
    return embedded.split([len(doc_chunks) for doc_chunks in chunks]), seconds


@task(name="upsert", cache_policy=NO_CACHE)
def upsert_task(documents: list[LegalDocument], chunks: list[list[Chunk]], embedded: list[Embedded],
                settings: Settings) -> float:
    """Every document record of the file first, then each document's points: a file whose records are all
    complete in the store is wholly indexed."""
    index = open_index(settings)
    with _stage_locks["upsert"]:
        t0 = time.perf_counter()
        for doc in documents:
            index.records.save(doc)
        items = list(zip(documents, chunks, embedded))
        if hasattr(index, "upsert_documents"):  # one file's documents together (the index replaces versions)
            index.upsert_documents(items)
        else:
            for item in items:
                index.upsert(*item)
        return time.perf_counter() - t0


def _reason(parsed: ParseResult) -> str:
    status, message = parsed.status.value, parsed.message.strip()
    if not message or message.lower().startswith(status.replace("_", " ")) or message.lower().startswith(status):
        return message or status
    return f"{status}: {message}"


def _contextualize(documents, chunks, settings: Settings, usage: BlurbUsage) -> list[list[Chunk]]:
    """The contextualize task; without Prefect, its retries (same condition, exponential backoff) done here."""
    if tracked():
        return contextualize_task(documents, chunks, settings, usage)
    for attempt in range(CONTEXT_RETRIES + 1):
        try:
            return contextualize_task.fn(documents, chunks, settings, usage)
        except Exception as exc:
            if attempt == CONTEXT_RETRIES or not _retryable_error(exc):
                raise
            time.sleep(2 ** attempt)


def prepare_file(path: str, name: str, sha256: str, settings: Settings,
                 use_context: bool) -> tuple[FileOutcome, list[LegalDocument], list[list[Chunk]], list[Embedded]]:
    """Parse → chunk → (contextualize) → embed one PDF, everything but the write: the outcome so far and, when it
    is `ok`, the documents with text, their chunks and vectors. `index_file` then upserts; the serving owner calls
    this in its low-priority child (no Prefect run there: the steps run as plain functions) and upserts itself."""
    logger = run_logger()
    stages: dict[str, float] = {}
    t0 = time.perf_counter()
    progress.emit("file_started", path=path)
    name = printable(name)  # one log line, whatever the file is called
    logger.info("stage parse: %s", name)
    parsed, stages["parse"] = call(parse_task, path, settings.ocr_workers)
    pages = parsed.source.pages
    progress.emit("parsed", path=path, pages=pages, warnings=list(parsed.warnings))
    if not parsed.ok:
        return (FileOutcome(path=path, status=FileStatus.failed, sha256=sha256, parse_status=parsed.status.value,
                            reason=_reason(parsed), pages=pages, seconds=round(time.perf_counter() - t0, 3),
                            stages=_rounded(stages)), [], [], [])
    documents = parsed.documents
    logger.info("stage chunk: %s (%d documents)", name, len(documents))
    chunks, stages["chunk"] = call(chunk_task, documents, settings)
    n_chunks = sum(len(c) for c in chunks)
    progress.emit("chunked", path=path, chunks=n_chunks)
    usage = None
    if use_context:
        usage = BlurbUsage()
        logger.info("stage contextualize: %s (%d chunks)", name, n_chunks)
        t_ctx = time.perf_counter()
        chunks = _contextualize(documents, chunks, settings, usage)
        stages["contextualize"] = time.perf_counter() - t_ctx
    kept = [i for i, doc_chunks in enumerate(chunks) if doc_chunks]  # a document without text has no points
    documents, chunks = [documents[i] for i in kept], [chunks[i] for i in kept]
    logger.info("stage embed: %s (%d chunks)", name, n_chunks)
    embedded, stages["embed"] = call(embed_task, chunks, settings)
    outcome = FileOutcome(path=path, status=FileStatus.ok, sha256=sha256, parse_status=parsed.status.value,
                          reason="repaired" if parsed.repaired else "", doc_ids=[d.doc_id for d in documents],
                          documents=len(documents), chunks=n_chunks, pages=pages, ocr_pages=len(parsed.ocr_pages),
                          seconds=round(time.perf_counter() - t0, 3), stages=_rounded(stages), context=usage)
    return outcome, documents, chunks, embedded


@task(name="index-file", task_run_name="index {name}", cache_policy=NO_CACHE)
def index_file(path: str, name: str, sha256: str, settings: Settings, use_context: bool) -> FileOutcome:
    """Parse one PDF and index its documents; a parse status other than ok is an outcome, not an error. Nothing
    is cached here: whether a file needs this is the index's to say (`retrieval.index.Index.indexed_documents`).
    `name` only labels the task run."""
    t0 = time.perf_counter()
    outcome, documents, chunks, embedded = prepare_file(path, name, sha256, settings, use_context)
    if outcome.status is not FileStatus.ok:
        return outcome
    name = printable(name)
    logger = run_logger()
    logger.info("stage upsert: %s (%d documents)", name, len(documents))
    outcome.stages["upsert"] = round(call(upsert_task, documents, chunks, embedded, settings), 4)
    logger.info("indexed: %s", name)
    outcome.seconds = round(time.perf_counter() - t0, 3)
    return outcome


@task(name="send-file", task_run_name="send {name} to the index's owner", cache_policy=NO_CACHE)
def send_file(path: str, name: str, sha256: str, owner, use_context: bool) -> FileOutcome:
    """One PDF indexed by the process that owns the embedded index (`gaceta serve`, found by `retrieval.owner.
    find_owner`): it runs this flow's per-file steps (`prepare_file`) in its low-priority child and upserts, and
    its reply is the file's `FileOutcome`, the one `index_file` would have returned here. A file the owner cannot
    be asked about fails with the reason (the next run tries it again)."""
    from retrieval.owner import OwnerError

    logger = run_logger()
    t0 = time.perf_counter()
    progress.emit("file_started", path=path)
    logger.info("sending %s to the index's owner (pid %d, %s)", printable(name), owner.pid, owner.url)
    try:
        reply = owner.ingest(path, name, use_context, sha256=sha256)
    except OwnerError as exc:
        return FileOutcome(path=path, status=FileStatus.failed, sha256=sha256, reason=str(exc),
                           seconds=round(time.perf_counter() - t0, 3))
    outcome = FileOutcome.model_validate(reply["outcome"])
    outcome.path = path
    if outcome.status is not FileStatus.cached:
        outcome.seconds = round(time.perf_counter() - t0, 3)
    logger.info("%s: %s by the owner%s", printable(name), outcome.status.value,
                f" ({printable(outcome.reason)})" if outcome.reason else "")
    return outcome
