"""The `ingest` flow: files and folders → one `index_file` task per PDF not yet in the index, all inside one flow
run (a flow run costs ≥ 1.1 s; a task costs ms).

Two ways to run it, one code path: as a Prefect flow run (deployments, or `gaceta ingest` with a Prefect API
configured), or as plain functions (`ingest.fn`: `gaceta ingest` with no Prefect API: no server, no database,
nothing to start). Whether a file needs indexing is asked of the index alone (`indexed_documents`): Prefect keeps
no result files.

A file that fails never stops the others. The run ends Completed with an `IngestSummary`, or Failed (its data a
`RunFailed` carrying the summary) only when files failed and none was indexed or already cached.
"""

from __future__ import annotations

import datetime as dt
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from prefect import flow
from prefect.runtime import flow_run
from prefect.states import Completed, Failed, State
from prefect.task_runners import ThreadPoolTaskRunner

from flows import progress
from flows.discovery import Candidate, candidates, discover
from flows.models import (STAGES, ContextMode, FileOutcome, FileStatus, IngestSummary, RunFailed, printable,
                          summary_of)
from flows.run_log import record_run
from flows.tasks import (ANTHROPIC_LIMIT, ANTHROPIC_SLOTS, index_file, open_index, optimize_index, run_logger,
                         send_file, tracked)
from ingest.contextualize import PROMPT_VERSION
from ingest.cpus import available_cpus
from retrieval.originals import source_key
from retrieval.settings import Settings


def file_workers(settings: Settings | None = None) -> int:
    """Files in flight at once (one parses while another chunks/embeds; each stage is locked per process):
    GACETA_INGEST_WORKERS, else one per CPU this process may run on (`ingest.cpus.available_cpus`)."""
    settings = settings or Settings()
    return settings.ingest_workers or available_cpus()


class FileWorkersRunner(ThreadPoolTaskRunner):
    """The ingest flow's task runner, its threads decided as each run starts (`file_workers()`), not at import."""

    def __init__(self, max_workers: int | None = None):
        super().__init__(max_workers=max_workers or available_cpus())  # no settings read at import

    def duplicate(self) -> "FileWorkersRunner":
        return type(self)(file_workers())  # Prefect duplicates the runner for every flow run: each reads the settings


def inbox_dir(settings: Settings) -> Path:
    """Where the `inbox` deployment looks when given no paths: $GACETA_HOME/inbox."""
    return settings.home / "inbox"


def context_mode(settings: Settings, requested: bool | None) -> tuple[ContextMode, str]:
    wanted = settings.context if requested is None else requested
    if not wanted:
        return ContextMode.off, ""
    if not settings.anthropic_api_key:
        return ContextMode.no_key, ("contextual blurbs requested but GACETA_ANTHROPIC_API_KEY is not set: "
                                    "indexed with headers only")
    return ContextMode.on, f"blurbs by {settings.anthropic_model} (prompt {PROMPT_VERSION})"


def indexed_documents(index, sha256: str, mode: ContextMode, source: str | None = None) -> list[str] | None:
    """The ids of the file's documents when the index holds them all, complete and made as this run would make
    them; None when the file must be (re)indexed. The index alone says so (`retrieval.index.Index.
    indexed_documents`, which the serving owner asks too)."""
    return index.indexed_documents(sha256, with_blurbs=mode is ContextMode.on, source=source)


def ensure_anthropic_limit() -> None:
    """Create the global concurrency limit on Anthropic calls if it does not exist (operators tune it with
    `prefect gcl update gaceta-anthropic --limit N`); without it, `concurrency()` would not limit anything."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            client.read_global_concurrency_limit_by_name(ANTHROPIC_LIMIT)
        except ObjectNotFound:
            try:
                client.create_global_concurrency_limit(
                    GlobalConcurrencyLimitCreate(name=ANTHROPIC_LIMIT, limit=ANTHROPIC_SLOTS))
            except ObjectAlreadyExists:
                pass  # another worker created it first


def _failure_reason(state: State) -> str:
    exc = state.result(raise_on_failure=False)
    if isinstance(exc, BaseException):
        return f"{type(exc).__name__}: {exc}"
    return state.message or state.name or "failed"


def _submit_file(task_obj, args: dict, pool: ThreadPoolExecutor | None):
    """A Prefect task future inside a flow run, a thread-pool future for the plain functions."""
    return task_obj.submit(**args) if pool is None else pool.submit(task_obj.fn, **args)


def _owner(settings: Settings):
    """The serving process that owns the embedded index (`retrieval.owner.find_owner`) and its embedding model,
    when it answers; (None, "") otherwise: then the run opens the index itself."""
    from retrieval.owner import OwnerError, find_owner

    owner = find_owner(settings)
    if owner is None:
        return None, ""
    try:
        return owner, str(owner.status().get("model", ""))
    except OwnerError:
        return None, ""  # not answering (starting, or a stale file): opening the index says who holds it


def _slot(item: Candidate, owner, index, settings: Settings, mode: ContextMode, pool: ThreadPoolExecutor | None):
    """The file's outcome when the index already holds it (`cached`), else (candidate, its submitted task)."""
    path = str(item.path)
    if owner is not None:  # the owner asks its index whether the file is there (`Index.indexed_documents`)
        args = dict(path=path, name=item.path.name, sha256=item.sha256, owner=owner,
                    use_context=mode is ContextMode.on)
        return item, _submit_file(send_file, args, pool)
    doc_ids = indexed_documents(index, item.sha256, mode, source_key(item.path))  # a twin file joins its documents
    if doc_ids is not None:
        return FileOutcome(path=path, status=FileStatus.cached, from_cache=True, sha256=item.sha256,
                           link=item.link, doc_ids=doc_ids, documents=len(doc_ids))
    args = dict(path=path, name=item.path.name, sha256=item.sha256, settings=settings,
                use_context=mode is ContextMode.on)
    return item, _submit_file(index_file, args, pool)


def _file_outcome(item: Candidate, future) -> FileOutcome:
    if isinstance(future, Future):
        try:
            outcome = future.result()
        except Exception as exc:  # one file's error never stops the others
            outcome = FileOutcome(path=str(item.path), status=FileStatus.failed, sha256=item.sha256,
                                  reason=f"{type(exc).__name__}: {exc}")
    else:
        future.wait()
        state = future.state
        if state.is_completed():
            outcome = state.result()
        else:
            outcome = FileOutcome(path=str(item.path), status=FileStatus.failed, sha256=item.sha256,
                                  reason=_failure_reason(state))
    outcome.link = item.link
    return outcome


@flow(name="ingest", task_runner=FileWorkersRunner(), validate_parameters=True)
def ingest(paths: list[str] | None = None, context: bool | None = None) -> IngestSummary:
    """Index PDFs from files and folders (None: the inbox, $GACETA_HOME/inbox, created when missing). `context`
    overrides GACETA_CONTEXT for this run."""
    logger = run_logger()
    settings = Settings()
    t0 = time.perf_counter()
    started = dt.datetime.now(dt.timezone.utc)
    if paths is None:
        inbox = inbox_dir(settings)
        inbox.mkdir(parents=True, exist_ok=True)
        paths = [str(inbox)]
    found = discover(paths)
    pdfs = candidates(found)
    progress.emit("discovered", pdfs=len(pdfs), others=len(found) - len(pdfs))

    # While `gaceta serve` owns the embedded index, each file goes to it (it indexes with these same steps and
    # upserts itself); otherwise this run opens the index. The summary and the run log are the same either way.
    owner, model_id = _owner(settings)
    index = None
    if owner is None:
        index = open_index(settings)
        model_id = index.embedder.model_id
    else:
        logger.info("ingest: the index is served by pid %d at %s: sending the files there", owner.pid, owner.url)
    mode, note = context_mode(settings, context)
    if mode is ContextMode.no_key:
        logger.warning(note)
    in_run = tracked()
    if mode is ContextMode.on and pdfs and in_run and owner is None:
        ensure_anthropic_limit()

    workers = file_workers(settings)
    logger.info("ingest: %d files in flight, on %d CPUs this process may use", workers, available_cpus())
    pool = None if in_run else ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ingest")
    slots: list[FileOutcome | tuple] = []
    for item in found:
        if isinstance(item, FileOutcome):
            slots.append(item)
            continue
        try:
            slots.append(_slot(item, owner, index, settings, mode, pool))
        except Exception as exc:  # one file's error never stops the others: it is that file's outcome
            slots.append(FileOutcome(path=str(item.path), status=FileStatus.failed, sha256=item.sha256,
                                     link=item.link, reason=f"{type(exc).__name__}: {exc}"))

    outcomes: list[FileOutcome] = []
    try:
        for slot in slots:
            outcome = _file_outcome(*slot) if isinstance(slot, tuple) else slot
            if outcome.status is FileStatus.failed:
                logger.warning("failed: %s: %s", printable(outcome.path), printable(outcome.reason))
            outcomes.append(outcome)
            progress.emit("file_done", outcome=outcome)
    finally:
        if pool is not None:
            pool.shutdown(wait=True)

    summary = IngestSummary(
        flow_run_id=flow_run.get_id(), flow_run_name=flow_run.get_name() or _local_run_name(started),
        started_at=started,
        embedding_model=model_id, chunker_version=chunker_version(), context_mode=mode, context_note=note,
        files=outcomes,
    )
    for outcome in outcomes:
        if outcome.status is FileStatus.ok:
            for stage in STAGES:
                summary.stages[stage] = round(summary.stages[stage] + outcome.stages.get(stage, 0.0), 3)
            if outcome.context is not None:
                summary.anthropic.add(outcome.context)
    try:
        if summary.files_ok and owner is None:  # the owner optimizes itself once its queue is empty
            t_opt = time.perf_counter()
            optimize_index(settings)
            summary.stages["optimize"] = round(time.perf_counter() - t_opt, 3)
    finally:  # the run's record is written even when the final optimize fails
        summary.finished_at = dt.datetime.now(dt.timezone.utc)
        summary.seconds = round(time.perf_counter() - t0, 3)
        record_run(summary, settings.home)
    logger.info("ingest: %s", summary.headline())
    if summary.nothing_done:
        message = f"nothing could be indexed: {summary.headline()}"
        return Failed(message=message, data=RunFailed(message, summary))
    return Completed(message=summary.headline(), data=summary)


def chunker_version() -> str:
    """The ingest version (`ingest.INGEST_VERSION`, bumped by hand when what a file becomes changes): with the
    file's sha256, the embedding model, the BM25 analyzer and the blurb recipe, it decides re-indexing. An explicit
    constant, not a hash of the source files: a comment or a refactor no longer re-indexes everything."""
    from ingest import INGEST_VERSION

    return f"ingest-{INGEST_VERSION}"


def index_versions(index) -> tuple[str, str]:
    """(embedding model id, chunker version): with the file's sha256, what decides whether it is re-indexed."""
    return index.embedder.model_id, chunker_version()


def _local_run_name(started: dt.datetime) -> str:
    return f"local-{started:%Y%m%dT%H%M%S}"


def prefect_api_configured() -> bool:
    """True when Prefect has an API URL (PREFECT_API_URL in the environment or the active profile)."""
    from prefect.settings import get_current_settings

    return bool(get_current_settings().api.url)


def run_ingest(paths: list[str] | None, context: bool | None = None, *,
               with_prefect: bool | None = None) -> tuple[IngestSummary, str]:
    """Run the ingest in this process; returns the summary and the final state's name (Completed/Failed).

    `with_prefect` (default: whether a Prefect API is configured): a tracked Prefect flow run against that API;
    otherwise the flow's plain function (`ingest.fn`), which needs no Prefect API at all, so nothing is started
    (Prefect's ephemeral server would cost 10-20 s a command and a SQLite database to track a one-shot run).
    """
    if with_prefect is None:
        with_prefect = prefect_api_configured()
    kwargs = dict(paths=None if paths is None else [str(p) for p in paths], context=context)
    state = ingest(**kwargs, return_state=True) if with_prefect else ingest.fn(**kwargs)
    summary = summary_of(state.result(raise_on_failure=False))
    if isinstance(summary, BaseException):
        raise summary  # the run could not start its work (e.g. the index is held by another process)
    if not isinstance(summary, IngestSummary):
        raise RuntimeError(f"ingest flow ended {state.name}: {state.message}")
    return summary, state.name
