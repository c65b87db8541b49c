"""`gaceta ingest` with no Prefect API configured launches Prefect's ephemeral API itself, early, under gaceta's
PREFECT_HOME, runs the flow against it and leaves no server behind; a configured API always wins."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

from tests.flows.conftest import GACETA_CLI, REPO, link_pdfs

FILE = "dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf"


def _processes_with_env(marker: str) -> list[int]:
    """Live processes whose environment mentions `marker` (the run's own GACETA_HOME)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and proc.name != str(os.getpid()):
            try:
                if marker.encode() in (proc / "environ").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue  # exited meanwhile, or not ours to read
    return found


def test_cli_without_an_api_runs_on_its_own_early_server(tmp_path):
    home = tmp_path / "home"
    folder = link_pdfs(tmp_path / "in", [FILE])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}  # a user with no Prefect setup
    env.update(GACETA_HOME=str(home), PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1")
    done = subprocess.run([*GACETA_CLI, "ingest", str(folder), "--json"], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["files_ok"] == 1 and summary["chunks"] >= 1

    database = home / "prefect" / "prefect.db"  # the server kept its state under gaceta's PREFECT_HOME
    with sqlite3.connect(database) as db:
        runs = {row[0] for row in db.execute("SELECT id FROM flow_run")}
    assert summary["flow_run_id"] in runs
    assert _processes_with_env(str(home)) == []  # the server was stopped with the command


def test_a_configured_api_wins_over_the_early_server(prefect_api):
    from prefect.settings import PREFECT_API_URL

    from flows.ephemeral_api import launch_early

    assert PREFECT_API_URL.value() == prefect_api
    assert launch_early() is None
