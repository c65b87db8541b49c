"""One owner of the embedded index, everyone else its client — with real processes and sockets.

`gaceta serve` runs in its own process over a small real index; `gaceta status|search|ask|ingest` run beside it as
a user runs them and succeed through it (opening the index themselves would fail: the server holds its lock). A
document ingested through the owner is searchable as soon as the ingest says done. Killing the ingest client
mid-upload, or the owner mid-ingest, leaves every document whole or absent, and a re-run completes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import CLI, REGLAMENTO, ServeProcess
from tests.conftest import pdf
from tests.index_fixtures import build_index

DURANGO = "mx_durango_ley_del_periodico_oficial.pdf"
NEW = "es_declaracion_universal_derechos_humanos.pdf"  # ingested through the owner while it serves
CRASH = "mx_durango_acuerdo_general_01-2021_judicatura.pdf"  # ingest interrupted by kill -9, then re-run
QUESTION = "¿Dentro de qué plazo puede el sindicato formular objeciones a la declaración anual del patrón?"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("owner-home")
    build_index(home, [REGLAMENTO, DURANGO]).close()
    return home


@pytest.fixture(scope="module")
def server(home):
    served = ServeProcess(home).start()
    yield served
    served.kill()


def expected_chunks(name: str) -> dict[str, list[str]]:
    """A fresh local parse of the shared PDF: its documents' chunk ids, as an ingest would index them."""
    from ingest.chunker import chunk_document
    from ingest.parse import parse_pdf
    from retrieval.embedders import load_embedder
    from retrieval.settings import Settings

    embedder = load_embedder(Settings().embedding_model)
    docs = parse_pdf(pdf(name)).documents
    chunks = {d.doc_id: [c.chunk_id for c in chunk_document(d, embedder.count_tokens, embedder.max_tokens)]
              for d in docs}
    return {doc_id: ids for doc_id, ids in chunks.items() if ids}


def whole_or_absent(url: str, expected: dict[str, list[str]]) -> dict[str, str]:
    """Per document: 'whole' (every chunk readable, nothing beyond), 'absent' (none), or what is wrong."""
    verdicts = {}
    for doc_id, ids in expected.items():
        found = [httpx.get(f"{url}/chunks/{cid}", timeout=60).status_code for cid in ids]
        extra = httpx.get(f"{url}/chunks/{doc_id}:{len(ids):05d}", timeout=60).status_code
        if all(s == 200 for s in found) and extra == 404:
            verdicts[doc_id] = "whole"
        elif all(s == 404 for s in found):
            verdicts[doc_id] = "absent"
        else:
            verdicts[doc_id] = f"partial: {found.count(200)}/{len(ids)} chunks, extra {extra}"
    return verdicts


def search(url: str, query: str, k: int = 5, **body) -> dict:
    response = httpx.post(f"{url}/search", json={"query": query, "k": k, **body}, timeout=120)
    response.raise_for_status()
    return response.json()


def test_status_search_and_ask_go_through_the_owner(server):
    status = server.cli("status", "--json")
    assert status.returncode == 0, status.stderr
    index = json.loads(status.stdout)["index"]
    assert index["documents"] >= 2 and index["pending"] == 0
    assert index == httpx.get(f"{server.url}/status", timeout=60).json()
    assert f"pid {server.proc.pid}" in server.cli("status").stdout

    answer = server.cli("ask", QUESTION, "--json", "-k", "5")
    assert answer.returncode == 0, answer.stderr
    api = httpx.post(f"{server.url}/ask", json={"question": QUESTION, "k": 5}, timeout=120).json()
    assert json.loads(answer.stdout) == api  # one Answer shape, from the CLI or the API
    assert api["coverage"]["cited"] >= 1 and api["content"]

    query = "objeciones de los trabajadores a la declaración anual"
    found = server.cli("search", query, "-k", "4", "--json", "--filter", "doc_type=REGLAMENTO")
    assert found.returncode == 0, found.stderr
    api = search(server.url, query, k=4, filters={"doc_type": ["REGLAMENTO"]})
    assert json.loads(found.stdout) == api  # the API's SearchResponse, exactly
    assert api["hits"] and all(h["document"]["doc_type"] == "REGLAMENTO" for h in api["hits"])


def test_a_second_server_and_workers_on_the_embedded_index_are_one_line_errors(server):
    again = server.cli("serve", "--port", "0", timeout=120)
    assert again.returncode == 1 and f"already served by pid {server.proc.pid}" in again.stderr
    workers = server.cli("serve", "--port", "0", "--workers", "2", timeout=120)
    assert workers.returncode == 1 and "GACETA_QDRANT_URL" in workers.stderr and "Traceback" not in workers.stderr


def test_a_document_ingested_through_the_owner_is_searchable_when_ingest_says_done(server):
    expected = expected_chunks(NEW)
    before = json.loads(server.cli("status", "--json").stdout)["index"]["documents"]
    query = "Declaración Universal de Derechos Humanos dignidad"
    assert not any(h["chunk"]["doc_id"] in expected for h in search(server.url, query)["hits"])
    # searches keep coming while the owner ingests: none may fail
    stop, errors, answered = threading.Event(), [], []

    def load() -> None:
        with httpx.Client(base_url=server.url, timeout=120) as http:
            while not stop.is_set():
                r = http.post("/search", json={"query": "declaración anual del patrón", "k": 5})
                (answered if r.status_code == 200 else errors).append(r.status_code)

    threads = [threading.Thread(target=load) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        ingest = server.cli("ingest", str(pdf(NEW)), "--json")
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert ingest.returncode == 0, ingest.stderr
    summary = json.loads(ingest.stdout)
    assert [f["status"] for f in summary["files"]] == ["ok"]
    assert summary["chunks"] == sum(len(ids) for ids in expected.values())
    assert not errors and answered
    hits = search(server.url, query)["hits"]  # no restart, no wait
    assert hits[0]["chunk"]["doc_id"] in expected
    assert set(whole_or_absent(server.url, expected).values()) == {"whole"}
    again = json.loads(server.cli("ingest", str(pdf(NEW)), "--json").stdout)
    assert [f["status"] for f in again["files"]] == ["cached"]
    status = json.loads(server.cli("status", "--json").stdout)
    assert status["index"]["documents"] == before + len(expected) and status["runs"][0]["ok"] == 0


_SLOW_UPLOAD = """
import socket, sys, time
host, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
body = open(path, "rb").read()
s = socket.create_connection((host, port))
s.sendall(f"POST /ingest?name=crash.pdf HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/pdf\\r\\n"
          f"Content-Length: {len(body)}\\r\\n\\r\\n".encode() + body[: len(body) // 2])
print("half sent", flush=True)
time.sleep(600)
"""


def test_documents_are_listed_and_deleted_through_the_owner(server):
    listed = server.cli("documents", "--json")
    assert listed.returncode == 0, listed.stderr
    api = httpx.get(f"{server.url}/documents", timeout=60).json()
    assert json.loads(listed.stdout) == api  # one listing, from the CLI or the API
    durango = next(d["doc_id"] for d in api["documents"] if "Periódico Oficial" in d["title"])
    typed = server.cli("documents", "--json", "--filter", "doc_type=ley")
    assert [d["doc_id"] for d in json.loads(typed.stdout)["documents"]] == [durango]
    gone = server.cli("delete", durango, "--json")
    assert gone.returncode == 0 and json.loads(gone.stdout) == {"deleted": [durango], "missing": []}, gone.stderr
    assert durango not in {d["doc_id"] for d in httpx.get(f"{server.url}/documents", timeout=60).json()["documents"]}
    again = server.cli("delete", durango)
    assert again.returncode == 1 and "no document" in again.stderr


def test_kill_9_of_the_ingest_client_mid_upload_indexes_nothing(server, home):
    expected = expected_chunks(CRASH)
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    client = subprocess.Popen([sys.executable, "-c", _SLOW_UPLOAD, host, port, str(pdf(CRASH))],
                              stdout=subprocess.PIPE, text=True)
    assert client.stdout.readline().strip() == "half sent"
    time.sleep(0.5)
    os.kill(client.pid, signal.SIGKILL)
    client.wait()
    deadline = time.monotonic() + 30
    while list((home / "uploads").glob(".part-*")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not list((home / "uploads").glob(".part-*")), "the half upload was not discarded"
    assert set(whole_or_absent(server.url, expected).values()) == {"absent"}
    assert search(server.url, "declaración anual del patrón")["hits"]  # still serving


def _ingest_then_kill_owner(served: ServeProcess, home: Path, at_pending: bool) -> tuple[bool, str]:
    """Start `gaceta ingest CRASH` through `served` and SIGKILL the owner: as soon as the upload has arrived (the
    file is then being parsed), or — `at_pending` — once points of the document are written but not yet complete.
    Returns whether the owner was killed (if the ingest ends first, nothing is killed) and the file's status as the
    client reports it."""
    kept = home / "uploads" / hashlib.sha256(pdf(CRASH).read_bytes()).hexdigest()
    ingest = subprocess.Popen([*CLI, "ingest", str(pdf(CRASH)), "--json"], env=served.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (kept.is_dir() and any(kept.glob("*.pdf"))) and time.monotonic() < deadline:
        time.sleep(0.005)
    killed = not at_pending
    while at_pending and ingest.poll() is None and time.monotonic() < deadline:
        try:
            if httpx.get(f"{served.url}/status", timeout=10).json()["pending"] > 0:
                killed = True
                break
        except httpx.HTTPError:
            break
    if killed:
        served.kill()
    out, err = ingest.communicate(timeout=300)
    said = json.loads(out)["files"][0]["status"]
    if killed and not at_pending:  # killed before anything was written: the client says the file failed
        assert ingest.returncode == 1 and said == "failed", err
    elif killed:  # the owner may finish the document between `GET /status` and the kill; then the client says ok
        assert (ingest.returncode, said) in ((1, "failed"), (0, "ok")), err
    return killed, said


def test_kill_9_of_the_owner_mid_ingest_leaves_documents_whole_or_absent(server, home):
    expected = expected_chunks(CRASH)
    assert _ingest_then_kill_owner(server, home, at_pending=False) == (True, "failed")
    # the stale owner.json (a dead pid) is ignored: a command opens the index itself
    local = server.cli("status", "--json")
    assert local.returncode == 0, local.stderr
    restarted = ServeProcess(home).start()
    assert set(whole_or_absent(restarted.url, expected).values()) <= {"whole", "absent"}
    killed_pending, said = _ingest_then_kill_owner(restarted, home, at_pending=True)  # now while it writes, if we can
    restarted = ServeProcess(home).start() if killed_pending else restarted
    try:
        verdicts = whole_or_absent(restarted.url, expected)
        # whole or absent, and whole whenever the client said it was done
        assert set(verdicts.values()) <= ({"whole"} if said == "ok" else {"whole", "absent"}), (said, verdicts)
        rerun = restarted.cli("ingest", str(pdf(CRASH)), "--json")
        assert rerun.returncode == 0, rerun.stderr
        assert [f["status"] for f in json.loads(rerun.stdout)["files"]] in (["ok"], ["cached"])
        assert set(whole_or_absent(restarted.url, expected).values()) == {"whole"}
        # what was indexed before the crashes is still there, and searchable
        assert search(restarted.url, "Declaración Universal de Derechos Humanos dignidad")["hits"]
    finally:
        assert restarted.stop() == 0
    assert not (home / "owner.json").exists(), "a clean stop withdraws owner.json"
    after = server.cli("status", "--json")  # no owner: the command opens the index itself, as before
    assert after.returncode == 0 and json.loads(after.stdout)["index"]["pending"] == 0
    print(f"killed while points were pending: {killed_pending}")
