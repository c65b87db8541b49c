"""`gaceta serve --workers 2` as a user runs it: two worker processes over the index the parent owns.

Checks that the workers answer every kind of route with the parent's data, that keep-alive connections are split
evenly over the workers (also after one is killed and replaced), that a second process is still told who owns the
index, and that SIGTERM stops everything and frees the index."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil
import pytest

from retrieval.index import Index
from retrieval.models import SearchHit
from retrieval.settings import Settings
from tests.api.conftest import REGLAMENTO
from tests.index_fixtures import build_index

CLI = [sys.executable, "-c", "from gaceta.cli import main; main()"]
QUESTION = "¿Dentro de qué plazo puede el sindicato formular objeciones a la declaración anual del patrón?"
STARTED = "Application startup complete"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Served:
    server: subprocess.Popen
    port: int
    home: Path
    expected: list[SearchHit]
    log: list[str] = field(default_factory=list)  # the server's output so far (read on a thread: the pipe never fills)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def workers(self) -> list[psutil.Process]:
        return [p for p in psutil.Process(self.server.pid).children() if "spawn_main" in " ".join(p.cmdline())]

    def wait_for_workers(self, started: int) -> list[psutil.Process]:
        """The two workers, once `started` apps in all have logged that they are up (only then are they handed
        connections)."""
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and self.server.poll() is None:
            workers = self.workers()
            if len(workers) == 2 and sum(STARTED in line for line in self.log) >= started:
                return workers
            time.sleep(0.5)
        pytest.fail(f"gaceta serve --workers 2 did not come up: {''.join(self.log)[-3000:]}")

    def held(self, workers: list[psutil.Process]) -> list[int]:
        """Client connections each worker holds open."""
        return [sum(1 for c in w.net_connections(kind="tcp") if c.laddr.port == self.port and c.status == "ESTABLISHED")
                for w in workers]


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
    served = Served(server, port, home, expected)
    threading.Thread(target=lambda: served.log.extend(server.stdout), daemon=True).start()
    try:
        served.wait_for_workers(started=2)
        yield served
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def _split_of_eight_clients(served: Served, workers: list[psutil.Process]) -> list[int]:
    """Open eight keep-alive connections at once (one search each) and count them on each worker."""
    deadline = time.monotonic() + 30
    while any(served.held(workers)) and time.monotonic() < deadline:  # earlier tests' connections are closing
        time.sleep(0.1)
    time.sleep(0.2)  # and the workers' reports of them reach the parent
    clients = [httpx.Client(base_url=served.base, timeout=60) for _ in range(8)]
    try:
        with ThreadPoolExecutor(8) as pool:
            statuses = pool.map(lambda c: c.post("/search", json={"query": "utilidades", "k": 10}).status_code,
                                clients)
            assert set(statuses) == {200}
        return served.held(workers)
    finally:
        for client in clients:
            client.close()


def test_workers_answer_with_the_parents_index(served):
    base, expected = served.base, served.expected
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


def test_keep_alive_connections_are_split_evenly_over_the_workers(served):
    assert _split_of_eight_clients(served, served.workers()) == [4, 4]


def test_a_killed_worker_is_replaced_and_gets_its_share(served):
    killed = served.workers()[0]
    killed.kill()
    killed.wait(timeout=30)
    workers = served.wait_for_workers(started=3)
    assert killed.pid not in {w.pid for w in workers}
    assert _split_of_eight_clients(served, workers) == [4, 4]


def test_a_second_process_is_told_the_server_owns_the_index(served):
    result = subprocess.run([*CLI, "status"], env={**os.environ, "GACETA_HOME": str(served.home)},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert f"pid {served.server.pid}" in result.stderr and "Traceback" not in result.stderr


def test_sigterm_stops_the_workers_and_frees_the_index(served):
    workers = served.workers()
    served.server.send_signal(signal.SIGTERM)
    served.server.wait(timeout=60)
    assert served.server.returncode == 0
    assert not any(w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers)
    Index.open(Settings(home=served.home)).close()  # the lock went with the server
