"""Issue 23, item 6 (process hygiene), with real processes and sockets.

Red-team cases: an owner.json naming a live unrelated pid (reused after a crash) blocked `serve` and `doctor`; after
the server was SIGKILLed its ingest child (≈ 500 MB) kept running; HEAD on GET routes was a 405; and a server bound
beyond loopback without an API key let anyone on the network replace a law.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from retrieval.owner import find_owner, owner_id, write_owner
from retrieval.settings import Settings
from tests.api.conftest import CLI, REGLAMENTO, ServeProcess
from tests.conftest import pdf
from tests.index_fixtures import build_index
from tests.processes import still_running


@pytest.fixture
def sleeper():
    proc = subprocess.Popen(["sleep", "120"])
    yield proc.pid
    proc.kill()
    proc.wait()


class Impostor:
    """Another program on a port, answering /healthz as JSON with an owner of its own."""

    def __init__(self, shown: str | None):
        body = json.dumps({"status": "ok", "version": "x", "owner": shown}).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"

    def __enter__(self) -> Impostor:
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.http.shutdown()
        self.http.server_close()


def announce(home: Path, url: str, pid: int, token: str | None) -> None:
    write_owner(home, url, token)
    record = json.loads((home / "owner.json").read_text())
    (home / "owner.json").write_text(json.dumps({**record, "pid": pid}))


def test_a_live_unrelated_pid_is_not_the_owner(tmp_path, sleeper):
    settings = Settings(home=tmp_path)
    announce(tmp_path, "http://127.0.0.1:9", sleeper, "token-of-a-crashed-server")  # nothing listens on port 9
    assert find_owner(settings) is None
    with Impostor(shown=owner_id("someone-else")) as other:  # a reused port: another server answers
        announce(tmp_path, other.url, sleeper, "token-of-a-crashed-server")
        assert find_owner(settings) is None
    announce(tmp_path, "http://127.0.0.1:9", sleeper, None)  # an owner.json from before tokens
    assert find_owner(settings) is None


def test_the_owner_that_answers_with_its_token_is_found(tmp_path, sleeper):
    with Impostor(shown=owner_id("the-token")) as owner:
        announce(tmp_path, owner.url, sleeper, "the-token")
        found = find_owner(Settings(home=tmp_path))
        assert found is not None and (found.pid, found.url, found.token) == (sleeper, owner.url, "the-token")


def test_doctor_and_serve_are_not_blocked_by_a_stale_owner_file(tmp_path, sleeper):
    home = tmp_path / "home"
    build_index(home, []).close()
    announce(home, "http://127.0.0.1:9", sleeper, "stale")
    env = {**os.environ, "GACETA_HOME": str(home)}
    doctor = subprocess.run([*CLI, "doctor"], env=env, capture_output=True, text=True, timeout=300)
    assert "served by" not in doctor.stderr and doctor.returncode == 0, doctor.stderr[-2000:]
    # serve starts over the stale file and announces itself in it (ServeProcess waits for owner.json naming its pid)
    served = ServeProcess(home).start()
    try:
        assert find_owner(Settings(home=home)).pid == served.proc.pid
        assert "already served" not in served.log()
    finally:
        served.kill()


def test_no_api_key_means_loopback_only(tmp_path):
    env = {**os.environ, "GACETA_HOME": str(tmp_path)}
    env.pop("GACETA_API_KEY", None)
    result = subprocess.run([*CLI, "serve", "--host", "0.0.0.0", "--port", "0"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode != 0
    assert "GACETA_API_KEY" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "owner.json").exists()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    home = tmp_path_factory.mktemp("hygiene-home")
    build_index(home, [REGLAMENTO]).close()
    served = ServeProcess(home).start()
    yield served
    served.kill()


def test_head_works_where_get_does(server):
    doc_id = httpx.get(f"{server.url}/documents").json()["documents"][0]["doc_id"]
    for path in ("/healthz", "/documents", f"/documents/{doc_id}", "/", "/static/app.js"):
        get, head = httpx.get(f"{server.url}{path}"), httpx.head(f"{server.url}{path}")
        assert (get.status_code, head.status_code) == (200, 200), path
        assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"], path


def test_the_servers_children_die_with_it(server, tmp_path):
    """An ingest starts the server's ingest child; kill -9 of the server alone leaves no process of its behind."""
    owner = find_owner(Settings(home=server.home))
    assert owner is not None and owner.pid == server.proc.pid  # it answers as the owner: its token is in the file
    body = pdf("es_declaracion_universal_derechos_humanos.pdf").read_bytes()
    reply = httpx.post(f"{server.url}/ingest", params={"name": "dudh.pdf"}, content=body,
                       headers={"Content-Type": "application/pdf"}, timeout=600)
    assert reply.status_code == 200 and reply.json()["outcome"]["status"] == "ok", reply.text[:500]
    children = server.children()
    assert children, "the ingest child should be running"
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait(timeout=30)
    left = still_running(children, within_s=20)
    assert not left, f"still running after the server was killed: {left}"
    assert find_owner(Settings(home=server.home)) is None  # the owner.json it left names a dead pid
