"""The `ingest` flow: the indexing run of `flows.indexing` as a Prefect flow run, each file an `index-file` task
(all inside one flow run: a flow run costs ≥ 1.1 s; a task costs ms).

What Prefect adds is Prefect's own: the task runner (`FileWorkersRunner`: `files_in_flight()` threads), the task's
retries of an Anthropic error that is worth retrying, the global concurrency limit on Anthropic calls
(`ANTHROPIC_LIMIT`), the run's name and id, its logs. The steps, the outcomes and the summary are the module's, the
same a run without Prefect gets (`run_ingest` with no Prefect API calls `flows.indexing.run` directly: no server, no
database, nothing to start). Whether a file needs indexing is asked of the index alone: Prefect keeps no results.

The run ends Completed with an `IngestSummary`, or Failed (its data a `RunFailed` carrying the summary) only when
files failed and none was indexed or already cached.
"""

from __future__ import annotations

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.concurrency.sync import concurrency
from prefect.runtime import flow_run
from prefect.states import Completed, Failed
from prefect.task_runners import ThreadPoolTaskRunner
from prefect.tasks import exponential_backoff

from flows import indexing
from flows.discovery import Candidate
from flows.indexing import files_in_flight
from flows.models import ContextMode, FileOutcome, IngestSummary, RunFailed, printable, summary_of
from ingest.cpus import available_cpus
from retrieval.settings import Settings

ANTHROPIC_LIMIT = "gaceta-anthropic"  # Prefect global concurrency limit around every Anthropic call
ANTHROPIC_SLOTS = 4  # created with this many slots when missing; change with `prefect gcl update`
FILE_RETRIES = 2  # a file whose blurbs still meet a retryable Anthropic error after the SDK's own retries


class FileWorkersRunner(ThreadPoolTaskRunner):
    """The ingest flow's task runner, its threads decided as each run starts (`files_in_flight()`), not at
    import."""

    def __init__(self, max_workers: int | None = None):
        super().__init__(max_workers=max_workers or available_cpus())  # no settings read at import

    def duplicate(self) -> "FileWorkersRunner":
        return type(self)(files_in_flight())  # Prefect duplicates the runner for every flow run: each reads the settings


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


def _anthropic_slot():
    return concurrency(ANTHROPIC_LIMIT, occupy=1)


def _retryable(task, task_run, state) -> bool:
    """Retry rate limits, overload, server errors and network trouble; not bad requests or auth."""
    import anthropic

    exc = state.result(raise_on_failure=False) if state.is_failed() else None
    if isinstance(exc, (anthropic.RateLimitError, anthropic.APIConnectionError, anthropic.InternalServerError)):
        return True
    return isinstance(exc, anthropic.APIStatusError) and exc.status_code in (408, 409, 429, 529)


@task(name="index-file", task_run_name="index {name}", cache_policy=NO_CACHE, retries=FILE_RETRIES,
      retry_delay_seconds=exponential_backoff(4), retry_jitter_factor=0.5, retry_condition_fn=_retryable)
def index_file(sink, item: Candidate, name: str, use_context: bool) -> FileOutcome:
    """One PDF through `sink.index` (`flows.indexing`); `name` only labels the task run."""
    return sink.index(item, use_context, log=get_run_logger(), guard=_anthropic_slot)


@flow(name="ingest", task_runner=FileWorkersRunner(), validate_parameters=True)
def ingest(paths: list[str] | None = None, context: bool | None = None) -> IngestSummary:
    """Index PDFs from files and folders (None: the inbox, $GACETA_HOME/inbox, created when missing). `context`
    overrides GACETA_CONTEXT for this run."""
    log = get_run_logger()
    settings = Settings()
    sink = indexing.open_sink(settings, log)
    mode, _ = indexing.context_mode(settings, context)
    if mode is ContextMode.on and isinstance(sink, indexing.IndexSink):
        ensure_anthropic_limit()
    log.info("ingest: %d files in flight, on %d CPUs this process may use", files_in_flight(settings),
             available_cpus())

    def submit(item: Candidate, use_context: bool):
        return index_file.submit(sink, item, printable(item.path.name), use_context)

    summary = indexing.run(paths, context, settings=settings, sink=sink, submit=submit, log=log,
                           run_id=flow_run.get_id(), run_name=flow_run.get_name())
    if summary.nothing_done:
        message = f"nothing could be indexed: {summary.headline()}"
        return Failed(message=message, data=RunFailed(message, summary))
    return Completed(message=summary.headline(), data=summary)


def prefect_api_configured() -> bool:
    """True when Prefect has an API URL (PREFECT_API_URL in the environment or the active profile)."""
    from prefect.settings import get_current_settings

    return bool(get_current_settings().api.url)


def run_ingest(paths: list[str] | None, context: bool | None = None, *,
               with_prefect: bool | None = None) -> tuple[IngestSummary, str]:
    """Run the ingest in this process; returns the summary and the final state's name (Completed/Failed).

    `with_prefect` (default: whether a Prefect API is configured): a tracked Prefect flow run against that API;
    otherwise `flows.indexing.run` itself, which needs no Prefect API at all, so nothing is started (Prefect's
    ephemeral server would cost 10-20 s a command and a SQLite database to track a one-shot run).
    """
    if with_prefect is None:
        with_prefect = prefect_api_configured()
    paths = None if paths is None else [str(p) for p in paths]
    if not with_prefect:
        summary = indexing.run(paths, context)
        return summary, "Failed" if summary.nothing_done else "Completed"
    state = ingest(paths=paths, context=context, return_state=True)
    summary = summary_of(state.result(raise_on_failure=False))
    if isinstance(summary, BaseException):
        raise summary  # the run could not start its work (e.g. the index is held by another process)
    if not isinstance(summary, IngestSummary):
        raise RuntimeError(f"ingest flow ended {state.name}: {state.message}")
    return summary, state.name
