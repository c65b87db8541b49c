"""`prefect --no-prompt deploy --all` with the repository's prefect.yaml against a real `prefect server start` on
127.0.0.1: both deployments land, with their entrypoints, work pool and America/Mexico_City schedules.
Bounded: every step has a timeout, and the server is stopped whatever happens."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
PREFECT = [sys.executable, "-m", "prefect"]
START_TIMEOUT_S = 180


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def prefect_server(tmp_path):
    port = _free_port()
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "DO_NOT_TRACK": "1", "PREFECT_API_URL": f"http://127.0.0.1:{port}/api", "PWD": str(REPO)}
    env.pop("PREFECT_API_KEY", None)
    log = open(tmp_path / "server.log", "w")
    server = subprocess.Popen([*PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(port)], env=env,
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "prefect server did not start in time"
            time.sleep(1)
        yield env
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()


def test_deploy_all_against_a_local_server(prefect_server):
    env = prefect_server

    def prefect(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([*PREFECT, *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return done

    prefect("work-pool", "create", "gaceta", "--type", "process")
    prefect("--no-prompt", "deploy", "--all")

    api = env["PREFECT_API_URL"]
    deployments = {d["name"]: d for d in httpx.post(f"{api}/deployments/filter", json={}, timeout=10).json()}
    assert set(deployments) == {"inbox", "daily"}
    inbox, daily = deployments["inbox"], deployments["daily"]
    assert inbox["entrypoint"] == "flows/ingest_flow.py:ingest"
    assert daily["entrypoint"] == "flows/dof_daily.py:dof_daily"
    assert inbox["work_pool_name"] == daily["work_pool_name"] == "gaceta"
    assert inbox["parameters"] == {}  # paths unset: $GACETA_HOME/inbox
    crons = [s["schedule"] for s in daily["schedules"]]
    assert crons and all(s["cron"].endswith("* * 1-5") and s["timezone"] == "America/Mexico_City" for s in crons)
    assert inbox["schedules"][0]["schedule"]["interval"] > 0
    for d in (inbox, daily):
        assert d["pull_steps"][0]["prefect.deployments.steps.set_working_directory"]["directory"] == str(REPO)
        assert d["global_concurrency_limit"]["limit"] == 1
