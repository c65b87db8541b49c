"""Putting files into the index: one module of plain functions (no Prefect import), used by every way in.

    discover → prepare a file (parse, chunk, contextualise, embed) → write it through a `Sink`

- `run` is a whole ingest run: discovery (`flows.discovery`), one outcome per path, each candidate asked of the sink
  (`Sink.cached`) and otherwise indexed (`Sink.index`), the summary, the final optimize and the run record. `gaceta
  ingest` without a Prefect API calls it directly (`flows.ingest_flow.run_ingest`); the `ingest` flow calls it with a
  `submit` that makes each file a Prefect task (retries, task runner: Prefect's own).
- `prepare_file` is a file's work up to the write; `write_file` the write. `IndexSink` does both against an `Index`
  this process holds; the serving owner (`gaceta.api.ingest`) runs `prepare_file` in its low-priority child and
  `write_file` itself; `OwnerSink` sends each file to that owner (`POST /ingest`), which runs these same steps.

Exactness under SIGKILL rests on the store's document protocol (retrieval.store.base): point ids are deterministic,
a document is written pending, its stale points are removed, and only then is it marked complete. `write_file` writes
every document record of a file before any of its points, so a file counts as indexed (`Index.indexed_documents`)
only when all of its documents are complete: a killed run redoes the files it was on.

Layering: this module uses `ingest` and `retrieval`; nothing in either imports it.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from flows import progress
from flows.discovery import Candidate, candidates, discover
from flows.models import STAGES, ContextMode, FileOutcome, FileStatus, IngestSummary, printable
from flows.parse_pool import ParsedFile, ParsePool, parse_and_chunk
from flows.run_log import record_run
from ingest.contextualize import PROMPT_VERSION, BlurbUsage
from ingest.cpus import available_cpus
from retrieval.settings import Settings

LOG = logging.getLogger("gaceta.ingest")
Log = logging.Logger | logging.LoggerAdapter
Guard = Callable[[], AbstractContextManager]  # wraps every Anthropic call (the flow: a Prefect concurrency slot)
CONTEXT_RETRIES = 5  # the Anthropic SDK's own retries of a rate limit, overload, server or network error

# PyMuPDF is not thread-safe and the store wants one writer: parsing (with chunking) and writing never run twice at
# once in a process. A run on several CPUs parses and chunks in worker processes instead (`flows.parse_pool`), one
# file a worker. Embedding takes no lock here: the embedder guards its own model and tokenizer (`Embedder.lock`), and
# a file's chunks sent to the encoder's worker processes need none, so one file embeds while the next is read.
_stage_locks = {name: threading.Lock() for name in ("parse", "upsert")}
_indexes: dict[str, Any] = {}
_indexes_lock = threading.Lock()


# --- what a run decides ----------------------------------------------------------------------------------------
def chunker_version() -> str:
    """The ingest version (`ingest.INGEST_VERSION`, bumped by hand when what a file becomes changes): with the
    file's sha256, the embedding model, the BM25 analyzer and the blurb recipe, it decides re-indexing."""
    from ingest import INGEST_VERSION

    return f"ingest-{INGEST_VERSION}"


def file_workers(settings: Settings | None = None) -> int:
    """Files read (parsed and chunked) at once: GACETA_INGEST_WORKERS, else one per CPU this process may run on;
    more than one are read in that many worker processes (`flows.parse_pool`)."""
    settings = settings or Settings()
    return settings.ingest_workers or available_cpus()


def files_in_flight(settings: Settings | None = None) -> int:
    """Files a run works on at once (its threads): twice the file workers when those are processes, so that while
    some files embed or are written others are being read (2,000 short files on 2 CPUs: 315 → 291 s, the CPUs
    busy 75 → 88 %); one on one worker, where there is nothing to overlap."""
    workers = file_workers(settings)
    return 2 * workers if workers > 1 else 1


def inbox_dir(settings: Settings) -> Path:
    """Where a run given no paths looks: $GACETA_HOME/inbox."""
    return settings.home / "inbox"


def context_mode(settings: Settings, requested: bool | None) -> tuple[ContextMode, str]:
    """Blurbs for this run (asked for, or GACETA_CONTEXT) and a key to pay for them; the note says why not."""
    wanted = settings.context if requested is None else requested
    if not wanted:
        return ContextMode.off, ""
    if not settings.anthropic_api_key:
        return ContextMode.no_key, ("contextual blurbs requested but GACETA_ANTHROPIC_API_KEY is not set: "
                                    "indexed with headers only")
    return ContextMode.on, f"blurbs by {settings.anthropic_model} (prompt {PROMPT_VERSION})"


def indexed_documents(index, sha256: str, mode: ContextMode, source: str | None = None) -> list[str] | None:
    """The ids of the file's documents when the index holds them all as this run would make them, else None (the
    index alone says so: `retrieval.index.Index.indexed_documents`)."""
    return index.indexed_documents(sha256, with_blurbs=mode is ContextMode.on, source=source)


def cached_outcome(index, path: str, sha256: str, use_context: bool, source: str | None) -> FileOutcome | None:
    """The `cached` outcome of a file the index already holds as it would be indexed now, else None; with `source`,
    the file becomes that source's current version too (a twin keeps the documents)."""
    doc_ids = index.indexed_documents(sha256, with_blurbs=use_context, source=source)
    if doc_ids is None:
        return None
    return FileOutcome(path=path, status=FileStatus.cached, from_cache=True, sha256=sha256, doc_ids=doc_ids,
                       documents=len(doc_ids))


# --- the index this process holds -----------------------------------------------------------------------------
def _index_key(settings: Settings) -> str:
    return settings.model_dump_json(include={"home", "qdrant_url", "collection", "embedding_model"})


def open_index(settings: Settings):
    """One `Index` per process and store (opening an embedded store twice in a process is not allowed)."""
    from retrieval.index import Index

    key = _index_key(settings)
    with _indexes_lock:
        if key not in _indexes:
            _indexes[key] = Index.open(settings)
        return _indexes[key]


def close_indexes() -> None:
    with _indexes_lock:
        for index in _indexes.values():
            index.close()
        _indexes.clear()


def warm_up(settings: Settings) -> None:
    """Open the index and load the model's tokenizer (what the chunker, or the parsing processes it is sent to,
    count with). The weights load where they are first used: on one CPU by the first file's embedding, on several
    in the encoder's worker processes, which the run starts beside its first files."""
    open_index(settings).embedder.count_tokens("calentamiento")


# --- one file --------------------------------------------------------------------------------------------------
@dataclass
class Prepared:
    """A file parsed, chunked, (contextualised) and embedded: its outcome so far and, when `ok`, the documents with
    text, their chunks and vectors, ready for `write_file`."""

    outcome: FileOutcome
    documents: list = field(default_factory=list)
    chunks: list = field(default_factory=list)
    embedded: list = field(default_factory=list)


def _rounded(stages: dict[str, float]) -> dict[str, float]:
    return {name: round(seconds, 4) for name, seconds in stages.items()}


def _reason(parsed) -> str:
    status, message = parsed.status.value, parsed.message.strip()
    if not message or message.lower().startswith(status.replace("_", " ")) or message.lower().startswith(status):
        return message or status
    return f"{status}: {message}"


def contextualize(documents: list, chunks: list[list], settings: Settings, usage: BlurbUsage,
                  guard: Guard = nullcontext) -> list[list]:
    """Blurbs for every chunk; the SDK retries rate limits and server errors (`CONTEXT_RETRIES`), and a re-run
    re-reads the blurbs already paid for from the file cache."""
    from ingest.contextualize import anthropic_client, contextualize_chunks

    client = anthropic_client(settings.anthropic_api_key, settings.anthropic_base_url, settings.anthropic_timeout_s,
                              max_retries=CONTEXT_RETRIES)
    cache_dir = settings.home / "cache" / "context"
    return [contextualize_chunks(doc, doc_chunks, client, settings.anthropic_model, cache_dir, guard=guard,
                                 usage=usage)[0]
            for doc, doc_chunks in zip(documents, chunks)]


def read_file(index, path: str, parse_pool: ParsePool | None = None) -> ParsedFile:
    """The file parsed and chunked with `index`'s tokenizer: in a worker of `parse_pool`, else here (one file at a
    time: PyMuPDF is not thread-safe)."""
    if parse_pool is not None:
        return parse_pool.parse(path)
    embedder = index.embedder
    with _stage_locks["parse"]:
        return parse_and_chunk(path, embedder.count_tokens, embedder.max_tokens, index.settings.ocr_workers)


def prepare_file(index, path: str, sha256: str, use_context: bool, *, log: Log = LOG,
                 guard: Guard = nullcontext, parse_pool: ParsePool | None = None) -> Prepared:
    """Parse → chunk (`read_file`) → (contextualise) → embed one PDF with `index`'s model and settings:
    everything but the write. A parse status other than ok is the outcome (`failed` with the reason), not an
    error."""
    settings = index.settings
    t0 = time.perf_counter()
    progress.emit("file_started", path=path)
    name = printable(Path(path).name)  # one log line, whatever the file is called
    log.info("stage parse: %s", name)
    read = read_file(index, path, parse_pool)
    parsed, chunks, stages = read.parsed, read.chunks, read.stages
    pages = parsed.source.pages
    progress.emit("parsed", path=path, pages=pages, warnings=list(parsed.warnings))
    if not parsed.ok:
        return Prepared(FileOutcome(path=path, status=FileStatus.failed, sha256=sha256,
                                    parse_status=parsed.status.value, reason=_reason(parsed), pages=pages,
                                    seconds=round(time.perf_counter() - t0, 3), stages=_rounded(stages)))
    documents = parsed.documents
    log.info("stage chunk: %s (%d documents)", name, len(documents))
    n_chunks = sum(len(c) for c in chunks)
    progress.emit("chunked", path=path, chunks=n_chunks)
    usage = None
    if use_context:
        usage = BlurbUsage()
        log.info("stage contextualize: %s (%d chunks)", name, n_chunks)
        t = time.perf_counter()
        chunks = contextualize(documents, chunks, settings, usage, guard)
        stages["contextualize"] = time.perf_counter() - t
    kept = [i for i, doc_chunks in enumerate(chunks) if doc_chunks]  # a document without text has no points
    documents, chunks = [documents[i] for i in kept], [chunks[i] for i in kept]
    log.info("stage embed: %s (%d chunks)", name, n_chunks)
    embedded: list = []
    flat = [c for doc_chunks in chunks for c in doc_chunks]
    stages["embed"] = 0.0
    if flat:  # all the file's chunks in one batch (fuller model batches than document by document), split back
        t = time.perf_counter()
        vectors = index.embed(flat)
        stages["embed"] = time.perf_counter() - t
        embedded = vectors.split([len(doc_chunks) for doc_chunks in chunks])
    outcome = FileOutcome(path=path, status=FileStatus.ok, sha256=sha256, parse_status=parsed.status.value,
                          reason="repaired" if parsed.repaired else "", doc_ids=[d.doc_id for d in documents],
                          documents=len(documents), chunks=n_chunks, pages=pages, ocr_pages=len(parsed.ocr_pages),
                          seconds=round(time.perf_counter() - t0, 3), stages=_rounded(stages), context=usage)
    return Prepared(outcome, documents, chunks, embedded)


def write_file(index, prepared: Prepared, source: str | None = None) -> float:
    """Every document record of the file first, then its documents' points (`Index.upsert_documents`, under
    `source`, default each document's resolved path); returns the seconds it took."""
    with _stage_locks["upsert"]:
        t0 = time.perf_counter()
        for doc in prepared.documents:
            index.records.save(doc)
        if prepared.documents:
            index.upsert_documents(list(zip(prepared.documents, prepared.chunks, prepared.embedded)), source)
        return time.perf_counter() - t0


def optimize(index) -> None:
    """Build the search structures over what was written and make it durable, without closing the index."""
    with _stage_locks["upsert"]:
        index.optimize()
        index.store.flush()


# --- where a file goes -----------------------------------------------------------------------------------------
class Sink(Protocol):
    """Whoever holds the index a run writes to."""

    embedding_model: str
    stops_run: tuple[type[BaseException], ...]  # errors of `index` that stop the run instead of failing one file

    def run_name(self, started: dt.datetime) -> str:
        """The run's name when no Prefect flow run names it."""

    def cached(self, item: Candidate, use_context: bool) -> FileOutcome | None:
        """The file's `cached` outcome when the index already holds it as it would be indexed now, else None."""

    def index(self, item: Candidate, use_context: bool, *, log: Log = LOG, guard: Guard = nullcontext) -> FileOutcome:
        """Index one file; its outcome. An exception is that file's `failed` outcome, except `stops_run`'s."""

    def finish(self, summary: IngestSummary) -> None:
        """After the run's files: what the sink does once (the local index is optimized)."""


class IndexSink:
    """The index this process holds (`open_index`). With more than one file worker (`file_workers`), its files are
    parsed and chunked in that many worker processes (`flows.parse_pool`). Those and the encoder's workers start
    with the first file to index (a run that finds every file indexed starts none) and the parsing processes exit
    when the run finishes."""

    stops_run: tuple[type[BaseException], ...] = ()

    def __init__(self, index):
        self.idx = index
        self.embedding_model = index.embedder.model_id
        self.parse_pool: ParsePool | None = None
        workers = file_workers(index.settings)
        if workers > 1:
            embedder = index.embedder
            self.parse_pool = ParsePool(workers, embedder.token_counter(), embedder.max_tokens,
                                        index.settings.ocr_workers)
        self._started = False
        self._start_lock = threading.Lock()

    def _start(self) -> None:
        with self._start_lock:
            if not self._started:
                self._started = True
                self.idx.embedder.start()  # the encoder's worker processes load while the first files parse
                if self.parse_pool is not None:
                    self.parse_pool.start()

    def run_name(self, started: dt.datetime) -> str:
        return f"local-{started:%Y%m%dT%H%M%S}"

    def cached(self, item: Candidate, use_context: bool) -> FileOutcome | None:
        from retrieval.originals import source_key

        return cached_outcome(self.idx, str(item.path), item.sha256, use_context, source_key(item.path))

    def index(self, item: Candidate, use_context: bool, *, log: Log = LOG, guard: Guard = nullcontext) -> FileOutcome:
        self._start()
        t0 = time.perf_counter()
        prepared = prepare_file(self.idx, str(item.path), item.sha256, use_context, log=log, guard=guard,
                                parse_pool=self.parse_pool)
        outcome = prepared.outcome
        if outcome.status is not FileStatus.ok:
            return outcome
        name = printable(item.path.name)
        log.info("stage upsert: %s (%d documents)", name, len(prepared.documents))
        outcome.stages["upsert"] = round(write_file(self.idx, prepared), 4)
        log.info("indexed: %s", name)
        outcome.seconds = round(time.perf_counter() - t0, 3)
        return outcome

    def finish(self, summary: IngestSummary) -> None:
        if self.parse_pool is not None:
            self.parse_pool.close()  # its workers exit: the run's files are all read
        if summary.files_ok:
            t0 = time.perf_counter()
            optimize(self.idx)
            summary.stages["optimize"] = round(time.perf_counter() - t0, 3)


class OwnerSink:
    """The process serving this data dir's embedded index (`gaceta serve`, found by `retrieval.owner.find_owner`):
    each file is sent to it (`Owner.ingest`: a look-up by sha256, then the bytes), and it indexes the file with
    `prepare_file` + `write_file` while it serves; its reply is the file's outcome. A file the owner refuses or
    cannot be asked about fails with the reason; with `stop_when_gone`, an owner that no longer answers stops the
    run (`OwnerUnreachable`) so the caller can open the index itself."""

    def __init__(self, owner, http=None, *, stop_when_gone: bool = False):
        from retrieval.owner import OwnerUnreachable

        self.owner = owner
        self.http = http
        self.stops_run: tuple[type[BaseException], ...] = (OwnerUnreachable,) if stop_when_gone else ()
        self.embedding_model = str(owner.status(http).get("model", ""))

    def run_name(self, started: dt.datetime) -> str:
        return f"via-owner-pid-{self.owner.pid}"

    def cached(self, item: Candidate, use_context: bool) -> FileOutcome | None:
        return None  # the owner is asked (`GET /ingest/{sha256}`) before the bytes are sent

    def index(self, item: Candidate, use_context: bool, *, log: Log = LOG, guard: Guard = nullcontext) -> FileOutcome:
        from retrieval.owner import OwnerError

        path, name = str(item.path), printable(item.path.name)
        t0 = time.perf_counter()
        progress.emit("file_started", path=path)
        log.info("sending %s to the index's owner (pid %d, %s)", name, self.owner.pid, self.owner.url)
        try:
            reply = self.owner.ingest(item.path, item.path.name, use_context, sha256=item.sha256, http=self.http)
        except self.stops_run:
            raise
        except (OwnerError, OSError) as exc:  # a refused or vanished file is its outcome; the others go on
            reason = str(exc) if isinstance(exc, OwnerError) else f"cannot read: {exc.strerror or exc}"
            return FileOutcome(path=path, status=FileStatus.failed, sha256=item.sha256, reason=reason,
                               seconds=round(time.perf_counter() - t0, 3))
        outcome = FileOutcome.model_validate(reply["outcome"])
        outcome.path = path
        if outcome.status is not FileStatus.cached:
            outcome.seconds = round(time.perf_counter() - t0, 3)
        log.info("%s: %s by the owner%s", name, outcome.status.value,
                 f" ({printable(outcome.reason)})" if outcome.reason else "")
        return outcome

    def finish(self, summary: IngestSummary) -> None:
        pass  # the owner optimizes its index once its queue is empty


def open_sink(settings: Settings, log: Log = LOG) -> Sink:
    """The serving owner when one answers (then this process must not open the index), else the index itself."""
    from retrieval.owner import OwnerError, find_owner

    owner = find_owner(settings)
    if owner is not None:
        try:
            sink = OwnerSink(owner)
        except OwnerError:
            pass  # not answering (starting, or a stale file): opening the index says who holds it
        else:
            log.info("ingest: the index is served by pid %d at %s: sending the files there", owner.pid, owner.url)
            return sink
    return IndexSink(open_index(settings))


# --- a run -----------------------------------------------------------------------------------------------------
Submit = Callable[[Candidate, bool], Any]  # a file to index → a future whose `result()` is its FileOutcome


def run(paths: list[str] | None, context: bool | None = None, *, settings: Settings | None = None,
        sink: Sink | None = None, submit: Submit | None = None, log: Log = LOG,
        run_id: str | None = None, run_name: str | None = None) -> IngestSummary:
    """Index PDFs from files and folders (None: the inbox, created when missing) into `sink` (default `open_sink`);
    `context` overrides GACETA_CONTEXT. `submit` runs a file's `sink.index` (default: a pool of `files_in_flight`
    threads); a file's error is its `failed` outcome and never stops the others. The summary is recorded in the
    run log (`flows.run_log`) even when the final optimize fails."""
    settings = settings or Settings()
    t0 = time.perf_counter()
    started = dt.datetime.now(dt.timezone.utc)
    if paths is None:
        inbox = inbox_dir(settings)
        inbox.mkdir(parents=True, exist_ok=True)
        paths = [str(inbox)]
    found = discover(paths)
    pdfs = candidates(found)
    progress.emit("discovered", pdfs=len(pdfs), others=len(found) - len(pdfs), bytes=sum(c.size for c in pdfs))
    sink = sink or open_sink(settings, log)
    mode, note = context_mode(settings, context)
    if mode is ContextMode.no_key:
        log.warning(note)
    use_context = mode is ContextMode.on
    pool = None
    if submit is None:
        in_flight = files_in_flight(settings)
        log.info("ingest: %d files in flight, on %d CPUs this process may use", in_flight, available_cpus())
        pool = ThreadPoolExecutor(max_workers=in_flight, thread_name_prefix="ingest")
        submit = lambda item, use: pool.submit(sink.index, item, use, log=log)  # noqa: E731

    def failed(item: Candidate, exc: Exception) -> FileOutcome:
        return FileOutcome(path=str(item.path), status=FileStatus.failed, sha256=item.sha256,
                           reason=f"{type(exc).__name__}: {exc}")

    slots: list[tuple[Candidate | None, FileOutcome | None, Any]] = []  # (candidate, outcome known, future)
    outcomes: list[FileOutcome] = []
    try:
        to_index: list[int] = []
        for item in found:
            if isinstance(item, FileOutcome):
                slots.append((None, item, None))
                continue
            try:  # a file the index holds already is answered here; the others are submitted
                known = sink.cached(item, use_context)
            except Exception as exc:  # one file's error never stops the others: it is that file's outcome
                known = failed(item, exc)
            slots.append((item, known, None))
            if known is None:
                to_index.append(len(slots) - 1)
        # The largest files first: a long law submitted last would embed and write alone while the other workers
        # idle. Outcomes are still reported in discovery order.
        for i in sorted(to_index, key=lambda i: -slots[i][0].size):
            item = slots[i][0]
            try:
                slots[i] = (item, None, submit(item, use_context))
            except Exception as exc:  # one file's error never stops the others: it is that file's outcome
                slots[i] = (item, failed(item, exc), None)
        for item, outcome, future in slots:
            if future is not None:
                try:
                    outcome = future.result()
                except sink.stops_run:
                    raise
                except Exception as exc:  # one file's error never stops the others
                    outcome = failed(item, exc)
            if item is not None:
                outcome.link = item.link
            if outcome.status is FileStatus.failed:
                log.warning("failed: %s: %s", printable(outcome.path), printable(outcome.reason))
            outcomes.append(outcome)
            progress.emit("file_done", outcome=outcome)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    summary = IngestSummary(flow_run_id=run_id, flow_run_name=run_name or sink.run_name(started), started_at=started,
                            embedding_model=sink.embedding_model, chunker_version=chunker_version(),
                            context_mode=mode, context_note=note, files=outcomes)
    for outcome in outcomes:
        if outcome.status is FileStatus.ok:
            for stage in STAGES:
                summary.stages[stage] = round(summary.stages[stage] + outcome.stages.get(stage, 0.0), 3)
            if outcome.context is not None:
                summary.anthropic.add(outcome.context)
    try:
        sink.finish(summary)
    finally:  # the run's record is written even when the final optimize fails
        summary.finished_at = dt.datetime.now(dt.timezone.utc)
        summary.seconds = round(time.perf_counter() - t0, 3)
        record_run(summary, settings.home)
    log.info("ingest: %s", summary.headline())
    return summary
