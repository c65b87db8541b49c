"""Scheduled ingestion runs, as docs/operations.md sets it up: a real `prefect server start` on 127.0.0.1 (its own
PREFECT_HOME, analytics off), a process work pool, the `inbox` deployment of prefect.yaml deployed with
`prefect --no-prompt deploy` (plus a 10 s interval so the test need not wait 10 minutes), and gaceta's process worker
(`python -m flows.worker`: Prefect's ProcessWorker; `prefect worker start` hangs on SIGTERM once it has run a flow).
The server's scheduler must create a run by itself (`auto_scheduled`) and the worker must complete it: the PDF
dropped in $GACETA_HOME/inbox (the deployment's default paths) is then in the index. SIGTERM stops the worker
within seconds, and nothing in the server's or worker's output mentions telemetry (the box is offline).

All of it while `gaceta serve` answers on the same GACETA_HOME (docs/operations.md, "One owner"): the server owns
the embedded index, so the scheduled run must not open it (that would be an IndexInUseError): it finds the owner
(`retrieval.owner.find_owner`) and sends the PDF there, and the owner's /search returns the new document as soon as
the run is Completed.

This is the test of the SQLAlchemy pin in pyproject.toml: with SQLAlchemy 2.1 Prefect 3.8.8's scheduler fails
("Can't evaluate bulk DML statement") and no scheduled run ever exists."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import ServeProcess
from tests.flows.conftest import REPO, gaceta_env, link_pdfs

PREFECT = [sys.executable, "-m", "prefect"]
PDF = "mx_reglamento_arts_121_122_LFT.pdf"
START_TIMEOUT_S = 120
RUN_TIMEOUT_S = 240
STOP_TIMEOUT_S = 10


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _processes_marked(marker: str) -> list[int]:
    """Live processes whose environment holds `marker` (the worker and the flow runs it started)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if marker.encode() in (proc / "environ").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


def _stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.timeout(420)
def test_inbox_deployment_runs_on_its_schedule(tmp_path):
    port = _free_port()
    api = f"http://127.0.0.1:{port}/api"
    home = tmp_path / "gaceta"
    link_pdfs(home / "inbox", [PDF])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PREFECT_HOME=str(tmp_path / "prefect"), PREFECT_API_URL=api, PREFECT_SERVER_ANALYTICS_ENABLED="false",
               DO_NOT_TRACK="1", PREFECT_WORKER_QUERY_SECONDS="2", GACETA_HOME=str(home), HF_HUB_OFFLINE="1",
               PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1", PWD=str(REPO))
    logs = {name: tmp_path / f"{name}.log" for name in ("server", "worker")}

    def tail(name: str) -> str:
        return f"--- {name} ---\n" + logs[name].read_text(errors="replace")[-4000:]

    def prefect(*args: str) -> str:
        done = subprocess.run([*PREFECT, *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return done.stdout + done.stderr

    t0 = time.monotonic()
    server = subprocess.Popen([*PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(port)], env=env,
                              cwd=tmp_path, stdout=open(logs["server"], "w"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    worker = None
    serve = ServeProcess(home, {"PREFECT_API_URL": api, "PREFECT_HOME": str(tmp_path / "prefect")})
    try:
        serve.start()  # `gaceta serve` on the same data dir: the index's owner while the schedule runs
        t_served = time.monotonic()
        while True:
            try:
                if httpx.get(f"{api}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, tail("server")
            assert time.monotonic() - t0 < START_TIMEOUT_S, "prefect server did not start in time\n" + tail("server")
            time.sleep(0.5)

        prefect("work-pool", "create", "gaceta", "--type", "process")
        prefect("--no-prompt", "deploy", "--name", "inbox", "--interval", "10")
        deployment = httpx.get(f"{api}/deployments/name/ingest/inbox", timeout=10).json()
        assert deployment["parameters"] == {}  # paths default: $GACETA_HOME/inbox, resolved by the flow run

        marker = f"GACETA_TEST_WORKER={uuid.uuid4().hex}"
        worker = subprocess.Popen([sys.executable, "-m", "flows.worker", "--pool", "gaceta"],
                                  env={**env, "GACETA_TEST_WORKER": marker.split("=")[1]}, cwd=tmp_path,
                                  stdout=open(logs["worker"], "w"), stderr=subprocess.STDOUT, start_new_session=True)
        query = {"flow_runs": {"deployment_id": {"any_": [deployment["id"]]}}}
        done = None
        while done is None:
            assert time.monotonic() - t0 < RUN_TIMEOUT_S, "no scheduled run completed in time\n" + tail("server") \
                + tail("worker")
            assert worker.poll() is None, tail("worker")
            runs = httpx.post(f"{api}/flow_runs/filter", json=query, timeout=10).json()
            for run in runs:
                state = run["state"]["type"]
                assert state not in ("FAILED", "CRASHED"), f"{run['name']}: {run['state']}\n" + tail("worker")
                if run["auto_scheduled"] and state == "COMPLETED":
                    done = run
            time.sleep(2)
        ran_s = time.monotonic() - t0
        # searchable through the owner the moment the run is Completed: the flow sent the file there
        from retrieval.files import file_sha256

        sha = file_sha256(home / "inbox" / PDF)
        hits = httpx.post(f"{serve.url}/search", json={"query": "objeciones a la declaración anual del patrón",
                                                        "k": 5}, timeout=120).json()["hits"]
        assert hits and hits[0]["chunk"]["doc_id"].startswith(sha[:12]), hits
        worker_log = logs["worker"].read_text(errors="replace")
        assert f"served by pid {serve.proc.pid}" in worker_log, tail("worker")
        assert "IndexInUseError" not in worker_log and "in use by pid" not in worker_log, tail("worker")
        time.sleep(3)  # idle after a run: where `prefect worker start` ignores SIGTERM

        t_stop = time.monotonic()
        os.kill(worker.pid, signal.SIGTERM)  # the worker process itself, as a service manager does
        try:
            code = worker.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the worker ignored SIGTERM for {STOP_TIMEOUT_S} s\n" + tail("worker"))
        stopped_s = time.monotonic() - t_stop
        while _processes_marked(marker) and time.monotonic() - t_stop < STOP_TIMEOUT_S:
            time.sleep(0.2)  # a flow run the worker had just started goes with it
        assert _processes_marked(marker) == [], "processes of the worker outlived it\n" + tail("worker")
        assert serve.stop() == 0, serve.log()[-3000:]  # a clean stop: the index flushed and unlocked
    finally:
        if worker is not None:
            _stop(worker, signal.SIGKILL)
        serve.kill()
        _stop(server)
    print(f"gaceta serve up after {t_served - t0:.0f} s; scheduled run completed through it {ran_s:.0f} s after "
          f"`prefect server start`; worker stopped in {stopped_s:.1f} s")

    assert code == 0, tail("worker")
    worker_log = logs["worker"].read_text(errors="replace")
    assert "Traceback" not in worker_log, tail("worker")
    for name, path in logs.items():
        text = path.read_text(errors="replace").lower()
        for word in ("telemetry", "analytics", "sens-o-matic"):
            assert word not in text, tail(name)

    from retrieval.files import file_sha256
    from flows.indexing import indexed_documents
    from flows.models import ContextMode
    from flows.indexing import open_index
    from retrieval.settings import Settings

    with gaceta_env(home):
        index = open_index(Settings())
        doc_ids = indexed_documents(index, file_sha256(home / "inbox" / PDF), ContextMode.off)
        assert doc_ids, "the scheduled run completed but the inbox PDF is not in the index"
        assert index.status().pending == 0
