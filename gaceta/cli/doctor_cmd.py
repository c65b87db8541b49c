"""`gaceta doctor [--repair] [--json]`: check the index's records against its points, its kept originals against
their sha256, its metadata and the ingest version of its records; with --repair, rebuild what the kept originals
allow (`retrieval.doctor`). Exit 0 healthy (or everything repaired), 1 problems found or left, 2 cannot open.

The doctor needs the index to itself: while `gaceta serve` owns it, it says so and stops (stop the server, run the
doctor, start the server again) rather than repairing under a live server."""

from __future__ import annotations

import typer
from rich.markup import escape

from gaceta.cli.common import console, err_console, fail, print_json, settings

CANNOT_OPEN = 2


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor_command)


def doctor_command(
    repair: bool = typer.Option(False, "--repair", help="Rebuild what can be rebuilt from the kept originals."),
    json_out: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Check the index (records against points, kept originals against their sha256, metadata, ingest versions);
    with --repair, re-ingest damaged documents from their kept originals and drop what cannot be rebuilt."""
    from gaceta.client import find_owner
    from retrieval.doctor import run
    from retrieval.embedders import EmbedderError
    from retrieval.store import StoreError, index_exists

    config = settings()
    owner = find_owner(config)
    if owner is not None:
        fail(f"the index is served by pid {owner.pid} at {owner.url}: `gaceta doctor` needs it to itself; stop the "
             f"server (kill -TERM {owner.pid}), run `gaceta doctor` again, then start the server", CANNOT_OPEN)
    if not index_exists(config):
        kept = [p for p in (config.documents_dir, config.home / "originals") if p.is_dir() and any(p.iterdir())]
        if not kept:
            fail(f"no index at {config.index_dir}: nothing to check", CANNOT_OPEN)
        if not repair:  # records or kept originals without an index: its folder went; a repair rebuilds it
            fail(f"no index at {config.index_dir}, but document records and kept originals are there: run `gaceta "
                 f"doctor --repair` to rebuild the index from the kept originals", 1)
    try:
        report = run(config, repair)
    except (StoreError, EmbedderError) as exc:  # in use by another process, another model
        fail(str(exc), CANNOT_OPEN)
    if json_out:
        print_json(report)
    else:
        _print(report, repair)
    if not report.opened and not repair:
        raise typer.Exit(CANNOT_OPEN)
    if report.unrepaired:
        raise typer.Exit(1)


def _print(report, repaired: bool) -> None:
    if report.opened or repaired:
        console.print(f"index at {report.home}: {report.documents} document records, {report.points} points")
    if not report.problems:
        console.print("[green]healthy[/]: records, points, kept originals and metadata agree")
        return
    for problem in report.problems:
        mark = "[green]repaired[/]" if problem.repaired else "[bold red]problem[/]"
        err_console.print(f"{mark} {problem.kind} {escape(problem.subject)}: {escape(problem.detail)}")
        if problem.repair:
            err_console.print(f"    → {escape(problem.repair)}")
    left = len(report.unrepaired)
    if left:
        hint = "" if repaired else "; run `gaceta doctor --repair`"
        err_console.print(f"{left} problem(s) left{hint}")
    else:
        console.print("[green]all repaired[/]")
