"""`gaceta ingest` while `gaceta serve` owns the index: each PDF is uploaded to the owner (`POST /ingest`), which
indexes it with the ingest flow's steps while it keeps answering; the run's summary is the one a local run prints
(`IngestSummary`, recorded in the run log `gaceta status` lists)."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

from gaceta.cli.common import err_console, print_json


def ingest_through_owner(client, home: Path, paths: list[Path], context: bool | None, json_out: bool) -> str:
    """Send every PDF under `paths`, one at a time; returns the run's state name (Completed/Failed)."""
    from contextlib import nullcontext

    from flows.discovery import candidates, discover
    from flows.models import FileOutcome, FileStatus, IngestSummary
    from flows.run_log import record_run
    from gaceta.cli.common import shown
    from gaceta.cli.ingest_cmd import _detail, _print_summary
    from gaceta.client import OwnerError, OwnerUnreachable

    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    found = discover(paths)  # what the flow discovers: every path gets an outcome, only regular PDFs are sent
    total = len(candidates(found))
    outcomes: list[FileOutcome] = []
    model = version = ""
    sent = 0
    for item in found:
        if isinstance(item, FileOutcome):
            outcomes.append(item)
            continue
        path = item.path
        sent += 1
        note = f"{client.owner.url} (pid {client.owner.pid}) is indexing {shown(path.name)} ({sent}/{total})…"
        with nullcontext() if json_out else err_console.status(note):
            try:
                reply = client.ingest(path, context)
            except OwnerUnreachable:
                raise  # the owner is gone: the command indexes the files itself
            except (OwnerError, OSError) as exc:  # a refused or vanished file is its outcome; the others go on
                reason = str(exc) if isinstance(exc, OwnerError) else f"cannot read: {exc.strerror or exc}"
                outcomes.append(FileOutcome(path=str(path), status=FileStatus.failed, sha256=item.sha256,
                                            link=item.link, reason=reason))
                continue
        outcome = reply.outcome
        outcome.path, outcome.link = str(path), item.link
        model, version = reply.embedding_model, reply.chunker_version
        outcomes.append(outcome)
        if not json_out:  # the line a local run prints for a file: "[k/N] name: status (…)"
            detail = _detail(outcome)
            prefix = "" if err_console.is_terminal else "ingest: "  # a pipe reads as a local run's lines do
            err_console.print(f"{prefix}\\[{sent}/{total}] {shown(path.name)}: {outcome.status.value}"
                              + (f" ({shown(detail)})" if detail else ""), soft_wrap=True, highlight=False)
    summary = IngestSummary(flow_run_name=f"via-owner-pid-{client.owner.pid}", started_at=started,
                            embedding_model=model, chunker_version=version, files=outcomes)
    for outcome in outcomes:
        if outcome.status is FileStatus.ok:
            for stage, seconds in outcome.stages.items():
                summary.stages[stage] = round(summary.stages.get(stage, 0.0) + seconds, 3)
    summary.finished_at = dt.datetime.now(dt.timezone.utc)
    summary.seconds = round(time.perf_counter() - t0, 3)
    record_run(summary, home)
    state = "Failed" if summary.nothing_done else "Completed"
    if json_out:
        print_json(summary)
    else:
        _print_summary(summary, state)
    return state
