"""The `ingest` flow: files and folders → one cached `index_file` task per PDF, all inside one flow run
(a flow run costs ≥ 1.1 s and the first one 10-20 s while Prefect's ephemeral API starts; a task costs ms).

A file that fails never stops the others. The run ends Completed with an `IngestSummary`, or Failed (its data a
`RunFailed` carrying the summary) only when files failed and none was indexed or already cached.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from pathlib import Path

from prefect import flow, get_run_logger
from prefect.runtime import flow_run
from prefect.states import Completed, Failed, State
from prefect.task_runners import ThreadPoolTaskRunner

from flows import progress
from flows.discovery import discover, file_sha256
from flows.models import STAGES, ContextMode, FileOutcome, FileStatus, IngestSummary, RunFailed, summary_of
from flows.run_log import record_run
from flows.tasks import ANTHROPIC_LIMIT, ANTHROPIC_SLOTS, all_indexed, index_file, open_index, optimize_index
from ingest.contextualize import PROMPT_VERSION
from retrieval.bm25 import ANALYZER_VERSION
from retrieval.settings import Settings


def results_dir(settings: Settings) -> Path:
    """Where per-file cache records (Prefect persisted results) live: under the data dir, as a plain path."""
    return (settings.home / "flows" / "results").resolve()


def context_mode(settings: Settings, requested: bool | None) -> tuple[ContextMode, str]:
    wanted = settings.context if requested is None else requested
    if not wanted:
        return ContextMode.off, ""
    if not settings.anthropic_api_key:
        return ContextMode.no_key, ("contextual blurbs requested but GACETA_ANTHROPIC_API_KEY is not set: "
                                    "indexed with headers only")
    return ContextMode.on, f"blurbs by {settings.anthropic_model} (prompt {PROMPT_VERSION})"


def file_cache_key(sha256: str, chunker_version: str, model_id: str, mode: ContextMode, settings: Settings) -> str:
    """Same bytes + chunker + embedding model + BM25 analysis + blurb recipe = same key; anything else re-processes
    the file."""
    recipe = f"context:{settings.anthropic_model}:{PROMPT_VERSION}" if mode is ContextMode.on else "headers-only"
    parts = (chunker_version, model_id, ANALYZER_VERSION, recipe)
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]
    return f"ingest-{sha256}-{digest}"


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


@flow(name="ingest", task_runner=ThreadPoolTaskRunner(max_workers=2), validate_parameters=True)
def ingest(paths: list[str], context: bool | None = None) -> IngestSummary:
    """Index PDFs from files and folders. `context` overrides GACETA_CONTEXT for this run."""
    logger = get_run_logger()
    settings = Settings()
    t0 = time.perf_counter()
    started = dt.datetime.now(dt.timezone.utc)
    pdfs, others = discover(paths)
    progress.emit("discovered", pdfs=len(pdfs), others=len(others))

    index = open_index(settings)
    model_id, chunker_version = index_versions(index)
    mode, note = context_mode(settings, context)
    if mode is ContextMode.no_key:
        logger.warning(note)
    if mode is ContextMode.on and pdfs:
        ensure_anthropic_limit()

    task = index_file.with_options(result_storage=results_dir(settings))
    submitted = []
    for path in pdfs:
        sha = file_sha256(path)
        key = file_cache_key(sha, chunker_version, model_id, mode, settings)
        args = dict(path=str(path), name=path.name, sha256=sha, cache_key=key, settings=settings,
                    use_context=mode is ContextMode.on)
        submitted.append((path, sha, args, task.submit(**args)))

    outcomes: list[FileOutcome] = list(others)
    for path, sha, args, future in submitted:
        future.wait()
        state = future.state
        if state.name == "Cached":
            outcome = state.result()
            if outcome.status is FileStatus.ok and not all_indexed(settings, outcome.doc_ids):
                logger.warning("cache says %s is indexed but the index lacks it: re-indexing", path.name)
                state = task.with_options(refresh_cache=True)(**args, return_state=True)
            else:
                outcome = outcome.model_copy(update={"path": str(path), "from_cache": True, "seconds": 0.0,
                    "status": FileStatus.cached if outcome.status is FileStatus.ok else outcome.status})
        if state.name != "Cached":
            outcome = (state.result() if state.is_completed() else
                       FileOutcome(path=str(path), status=FileStatus.failed, sha256=sha, reason=_failure_reason(state)))
        if outcome.status is FileStatus.failed:
            logger.warning("failed: %s: %s", path.name, outcome.reason)
        outcomes.append(outcome)
        progress.emit("file_done", outcome=outcome)

    summary = IngestSummary(
        flow_run_id=flow_run.get_id(), flow_run_name=flow_run.get_name(), started_at=started,
        embedding_model=model_id, chunker_version=chunker_version, context_mode=mode, context_note=note,
        files=outcomes,
    )
    for outcome in outcomes:
        if outcome.status is FileStatus.ok:
            for stage in STAGES:
                summary.stages[stage] = round(summary.stages[stage] + outcome.stages.get(stage, 0.0), 3)
            if outcome.context is not None:
                summary.anthropic.add(outcome.context)
    if summary.files_ok:
        t_opt = time.perf_counter()
        optimize_index(settings)
        summary.stages["optimize"] = round(time.perf_counter() - t_opt, 3)
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


def run_ingest(paths: list[str], context: bool | None = None) -> tuple[IngestSummary, str]:
    """Run the flow in this process; returns the summary and the run's final state name (Completed/Failed)."""
    state = ingest(paths=[str(p) for p in paths], context=context, return_state=True)
    summary = summary_of(state.result(raise_on_failure=False))
    if isinstance(summary, BaseException):
        raise summary  # the run could not start its work (e.g. the index is held by another process)
    if not isinstance(summary, IngestSummary):
        raise RuntimeError(f"ingest flow ended {state.name}: {state.message}")
    return summary, state.name
