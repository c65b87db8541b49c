"""The ingest flow while `gaceta serve` owns the embedded index, with real processes and sockets: the flow finds the
owner (`retrieval.owner.find_owner`), sends each file to it instead of opening the index (which the server holds:
opening it would be an IndexInUseError), and gets back the same outcomes and summary a local run builds. A document
is returned by the owner's /search as soon as the run returns; a re-run is `cached` by the owner's index without
sending the file's bytes again; a file that cannot be parsed is reported with its reason, as locally."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import REGLAMENTO, ServeProcess
from tests.flows.conftest import gaceta_env, link_pdfs
from tests.index_fixtures import build_index

NEW = "es_declaracion_universal_derechos_humanos.pdf"
BAD = "malformed_encrypted_password_test.pdf"
QUERY = "Declaración Universal de Derechos Humanos dignidad"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    home = tmp_path_factory.mktemp("owner-flow-home")
    build_index(home, [REGLAMENTO]).close()
    server = ServeProcess(home).start()
    yield server
    server.kill()


def _search(url: str, query: str) -> list[dict]:
    response = httpx.post(f"{url}/search", json={"query": query, "k": 5}, timeout=120)
    response.raise_for_status()
    return response.json()["hits"]


def test_run_ingest_goes_through_the_serving_owner(served, tmp_path):
    from flows import indexing
    from flows.ingest_flow import run_ingest
    from flows.run_log import last_runs

    inbox = link_pdfs(tmp_path / "inbox", [NEW, BAD])
    home = served.home
    assert not any(h["chunk"]["doc_id"].startswith(_sha(inbox / NEW)[:12]) for h in _search(served.url, QUERY))
    with gaceta_env(home):
        summary, state = run_ingest([str(inbox)], with_prefect=False)
        assert not indexing._indexes, "the run opened the index itself (the owner holds it)"
    assert state == "Completed"
    files = {Path(f.path).name: f for f in summary.files}
    assert files[NEW].status.value == "ok" and files[NEW].path == str(inbox / NEW)
    assert files[NEW].chunks > 0 and files[NEW].documents == len(files[NEW].doc_ids) >= 1
    assert all(d.startswith(files[NEW].sha256[:12]) for d in files[NEW].doc_ids)
    assert files[BAD].status.value == "failed" and files[BAD].parse_status == "encrypted"
    assert summary.embedding_model and summary.chunker_version.startswith("ingest-")
    assert summary.stages["parse"] > 0 and summary.stages["upsert"] > 0
    # searchable through the owner as soon as the run returned: no restart, no wait
    hits = _search(served.url, QUERY)
    assert hits and hits[0]["chunk"]["doc_id"] in files[NEW].doc_ids
    assert last_runs(home, 1)[0].flow_run_name == summary.flow_run_name  # the same run log as a local run

    # again, as a tracked Prefect flow run: cached by the owner's index, the bytes not sent again
    kept = home / "uploads" / files[NEW].sha256
    uploaded = {p: p.stat().st_mtime_ns for p in kept.glob("*.pdf")}
    with gaceta_env(home):
        again, state = run_ingest([str(inbox / NEW)], with_prefect=True)
        assert not indexing._indexes
    assert state == "Completed", again.headline()
    assert [(f.status.value, f.from_cache, sorted(f.doc_ids)) for f in again.files] == [
        ("cached", True, sorted(files[NEW].doc_ids))]
    assert again.flow_run_id is not None
    assert {p: p.stat().st_mtime_ns for p in kept.glob("*.pdf")} == uploaded
    status = httpx.get(f"{served.url}/status", timeout=60).json()
    assert status["pending"] == 0
    assert "Traceback" not in served.log()


def test_the_cli_status_shows_the_runs_sent_through_the_owner(served):
    status = served.cli("status", "--json")
    assert status.returncode == 0, status.stderr
    runs = json.loads(status.stdout)["runs"]
    assert runs and runs[0]["cached"] == 1


def _sha(path: Path) -> str:
    from retrieval.files import file_sha256

    return file_sha256(path)
