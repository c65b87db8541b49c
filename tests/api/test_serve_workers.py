"""`gaceta serve --workers 2` as a user runs it: two worker processes over the index the parent owns.

Checks that the workers answer every kind of route with the parent's data, that connections reach both workers,
that a second process is still told who owns the index, and that SIGTERM stops everything and frees the index."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psutil
import pytest

from retrieval.index import Index
from retrieval.settings import Settings
from tests.api.conftest import REGLAMENTO
from tests.index_fixtures import build_index

CLI = [sys.executable, "-c", "from gaceta.cli import main; main()"]
QUESTION = "¿Dentro de qué plazo puede el sindicato formular objeciones a la declaración anual del patrón?"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A home with the reglamento indexed (then closed: the server must own it), served by two workers."""
    home = tmp_path_factory.mktemp("workers-home")
    index = build_index(home, [REGLAMENTO])
    expected = index.search("objeción de los trabajadores a la declaración anual", k=5)
    index.close()
    port = _free_port()
    env = {**os.environ, "GACETA_HOME": str(home), "GACETA_ANSWERER": "extractive"}
    env.pop("GACETA_API_KEY", None)
    server = subprocess.Popen([*CLI, "serve", "--port", str(port), "--workers", "2"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    workers = []
    while time.monotonic() < deadline and server.poll() is None:
        workers = [p for p in psutil.Process(server.pid).children() if "spawn_main" in " ".join(p.cmdline())]
        try:
            # Each worker answers only once its app (model, store connection) is up; ask until both have.
            if len(workers) == 2 and all(_answered(base) for _ in range(20)) and _both_up(workers):
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    else:
        server.kill()
        pytest.fail(f"gaceta serve --workers 2 did not come up: {server.communicate()[0][-3000:]}")
    yield server, base, home, workers, expected
    if server.poll() is None:
        server.kill()
        server.wait()


def _answered(base: str) -> bool:
    return httpx.get(f"{base}/healthz", timeout=5).status_code == 200


def _both_up(workers) -> bool:
    """Both workers hold a connection to the parent's store socket (their app finished starting)."""
    return all(any(c.family == socket.AF_UNIX for c in w.net_connections(kind="unix")) for w in workers)


def test_workers_answer_with_the_parents_index(served):
    _, base, _, _, expected = served
    response = httpx.post(f"{base}/search", json={"query": "objeción de los trabajadores a la declaración anual",
                                                  "k": 5}, timeout=30)
    assert response.status_code == 200
    hits = response.json()["hits"]
    assert {h["chunk"]["chunk_id"] for h in hits} == {h.chunk.chunk_id for h in expected}
    chunk_id, doc_id = hits[0]["chunk"]["chunk_id"], hits[0]["chunk"]["doc_id"]
    assert httpx.get(f"{base}/chunks/{chunk_id}", timeout=30).json()["chunk"]["text"] == hits[0]["chunk"]["text"]
    assert httpx.get(f"{base}/documents/{doc_id}", timeout=30).json()["doc_id"] == doc_id
    page = httpx.get(f"{base}/documents/{doc_id}/pages/{hits[0]['chunk']['pages'][0]}.png", timeout=60)
    assert page.status_code == 200 and page.content.startswith(b"\x89PNG")
    answer = httpx.post(f"{base}/ask", json={"question": QUESTION, "answerer": "extractive"}, timeout=60).json()
    citations = [c for segment in answer["content"] for c in segment["citations"]]
    assert citations and all(c["verified"] for c in citations)
    assert any("treinta días hábiles" in c["cited_text"] for c in citations)


def test_connections_are_spread_over_both_workers(served):
    _, base, _, workers, _ = served
    before = [sum(w.cpu_times()[:2]) for w in workers]

    def search(i: int) -> int:
        with httpx.Client(base_url=base, timeout=60) as client:  # a connection of its own
            return client.post("/search", json={"query": f"utilidades de la empresa {i}", "k": 10}).status_code

    with ThreadPoolExecutor(16) as pool:
        assert set(pool.map(search, range(64))) == {200}
    used = [sum(w.cpu_times()[:2]) - b for w, b in zip(workers, before)]
    assert all(u > 0.05 for u in used), used


def test_a_second_process_is_told_the_server_owns_the_index(served):
    server, _, home, _, _ = served
    result = subprocess.run([*CLI, "status"], env={**os.environ, "GACETA_HOME": str(home)},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert f"pid {server.pid}" in result.stderr and "Traceback" not in result.stderr


def test_sigterm_stops_the_workers_and_frees_the_index(served):
    server, _, home, workers, _ = served
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)
    assert server.returncode == 0
    assert not any(w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers)
    Index.open(Settings(home=Path(home))).close()  # the lock went with the server
