"""`gaceta status [--json] [--runs N]`: what the index holds (documents, chunks, model, store) and the last
ingest runs (from the run log under the data dir: no Prefect start-up for a status line). While `gaceta serve` owns
the index, the index's figures come from it (`GET /status`); while another command holds the embedded index, status
waits its turn like `search` (`--wait`)."""

from __future__ import annotations

import typer

from gaceta.cli.common import NO_OWNER, WAIT_S, console, fail, print_json, settings, via_owner, with_index_turn


def register(app: typer.Typer) -> None:
    app.command("status")(status_command)


def status_command(
    runs: int = typer.Option(5, "--runs", min=0, help="How many recent ingest runs to list."),
    json_out: bool = typer.Option(False, "--json", help="Print the status as JSON."),
    wait: float = typer.Option(WAIT_S, "--wait", min=0, help="Seconds to wait for an embedded index another command "
                               "holds (0: do not wait)."),
) -> None:
    """Show the index: documents, chunks, embedding model, store, and the last ingest runs."""
    from flows.run_log import last_runs
    from gaceta.client import find_owner
    from retrieval.doctor import engine_panics_quiet
    from retrieval.index import Index
    from retrieval.store import StoreError

    cfg = settings()
    status = via_owner(cfg, lambda owner: owner.status())
    served_by = None if status is NO_OWNER else find_owner(cfg)
    if status is NO_OWNER:
        try:
            with engine_panics_quiet():  # a panicking segment is IndexDamaged's one line, not Rust's report too
                index = with_index_turn(cfg, lambda: Index.open(cfg), wait)  # an ingest holds it: wait our turn
            with index:
                status = index.status()
        except StoreError as exc:
            fail(str(exc))
    recent = last_runs(cfg.home, runs)
    if json_out:
        print_json({"home": str(cfg.home), "index": status.model_dump(mode="json"),
                    "runs": [_run_row(r) for r in recent]})
        return
    from rich.table import Table

    table = Table(title=f"gaceta index at {cfg.home}", show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    for label, value in (("documents", status.documents), ("chunks", status.chunks),
                         ("pending (not searchable)", status.pending), ("embedding model", f"{status.model} ({status.dim}-d)"),
                         ("store", f"{status.backend} at {status.location}"),
                         ("served by", f"pid {served_by.pid} at {served_by.url}" if served_by else "-")):
        table.add_row(label, str(value))
    console.print(table)
    if not recent:
        console.print("no ingest runs recorded yet")
        return
    runs_table = Table(title="last ingest runs", title_justify="left")
    for column in ("started (UTC)", "run", "ok", "cached", "skipped", "failed", "chunks", "pages/s", "seconds"):
        runs_table.add_column(column)
    for r in recent:
        row = _run_row(r)
        runs_table.add_row(*(str(row[k]) for k in ("started_at", "run", "ok", "cached", "skipped", "failed",
                                                     "chunks", "pages_per_s", "seconds")))
    console.print(runs_table)


def _run_row(summary) -> dict:
    return {"started_at": summary.started_at.strftime("%Y-%m-%d %H:%M:%S"), "run": summary.flow_run_name,
            "ok": summary.files_ok, "cached": summary.files_cached, "skipped": summary.files_skipped,
            "failed": summary.files_failed, "documents": summary.documents, "chunks": summary.chunks,
            "pages_per_s": summary.pages_per_s, "seconds": summary.seconds}
