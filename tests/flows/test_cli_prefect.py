"""`gaceta ingest` and Prefect: with no Prefect API it runs the flow's plain functions (no server started, no
Prefect database written); with PREFECT_API_URL set it is a tracked flow run on that API. Either way a fully cached
re-run prints no ERROR line and no traceback, and with stderr sent to a file progress lines are there as they
happen."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from tests.flows.conftest import GACETA_CLI, REPO, link_pdfs

FILE = "mx_reglamento_arts_121_122_LFT.pdf"


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


def _ingest(folder: Path, env: dict[str, str], log: Path, *extra: str) -> subprocess.CompletedProcess:
    with open(log, "w") as err:
        return subprocess.run([*GACETA_CLI, "ingest", str(folder), *extra], env=env, cwd=REPO, stdout=subprocess.PIPE,
                              stderr=err, text=True, timeout=600)


def _assert_quiet(log: Path) -> None:
    text = log.read_text()
    for bad in ("Traceback", "ERROR", "CancelledError", "task_run_recorder"):
        assert bad not in text, text[-3000:]


def test_without_a_prefect_api_nothing_is_started(tmp_path):
    home = tmp_path / "home"
    folder = link_pdfs(tmp_path / "in", [FILE])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}  # a user with no Prefect setup
    env.update(GACETA_HOME=str(home), PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1")

    first = _ingest(folder, env, tmp_path / "first.log", "--json")
    assert first.returncode == 0, (tmp_path / "first.log").read_text()[-3000:]
    summary = json.loads(first.stdout)
    assert summary["files_ok"] == 1 and summary["chunks"] >= 1 and summary["flow_run_id"] is None
    assert not list((home / "prefect").glob("*.db"))  # no Prefect database: no server ran
    assert _processes_with_env(str(home)) == []

    # stderr to a file (what cron or a service manager does): one line per file, then the summary on stdout
    t0 = time.monotonic()
    again = _ingest(folder, env, tmp_path / "again.log")
    seconds = time.monotonic() - t0
    assert again.returncode == 0
    lines = (tmp_path / "again.log").read_text().splitlines()
    assert f"ingest: [1/1] {FILE}: cached" in lines, lines
    assert "files cached (skipped)" in again.stdout
    _assert_quiet(tmp_path / "again.log")
    assert seconds < 60  # imports and the model only (≈ 4 s idle); generous for a shared 2-core box


def test_with_a_prefect_api_the_run_is_tracked_and_a_cached_rerun_is_quiet(tmp_path, prefect_api):
    from prefect.client.orchestration import get_client

    home = tmp_path / "home"
    folder = link_pdfs(tmp_path / "in", [FILE])
    env = {**os.environ, "GACETA_HOME": str(home), "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1",
           "PREFECT_API_URL": prefect_api}
    runs = []
    for name in ("first", "cached"):
        done = _ingest(folder, env, tmp_path / f"{name}.log", "--json")
        assert done.returncode == 0, (tmp_path / f"{name}.log").read_text()[-3000:]
        _assert_quiet(tmp_path / f"{name}.log")
        runs.append(json.loads(done.stdout))
    assert runs[0]["files_ok"] == 1 and runs[1]["files_cached"] == 1
    with get_client(sync_client=True) as client:
        for summary in runs:
            assert client.read_flow_run(summary["flow_run_id"]).state.is_completed()
