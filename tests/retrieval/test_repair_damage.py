"""Issue 23, item 5: damage that opens fine but fails queries is found by the doctor, repaired from the kept
originals, and a query that meets it is a 503 whose body carries no server path.

Red-team case: a truncated `vector_storage-dense/vectors/chunk_0.mmap` — `doctor` said healthy while every hybrid or
dense query was a 503 whose body held the server's absolute path.
"""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gaceta.api import create_app
from gaceta.cli import app
from retrieval.settings import Settings
from tests.retrieval.test_doctor import PHRASE, built, doctor, home, kinds  # noqa: F401  (fixtures)


def truncate_vectors(home: Path) -> Path:
    (chunk,) = home.glob("index/*/shard/segments/*/vector_storage-dense/vectors/chunk_0.mmap")
    with open(chunk, "r+b") as fh:
        fh.truncate(4096)
    return chunk


def test_truncated_dense_vectors_are_found_and_repaired(home):
    truncate_vectors(home)
    code, report = doctor()
    assert code != 0 and kinds(report) == {"store_damaged": False}, report
    assert "run `gaceta doctor --repair`" in report["problems"][0]["detail"]
    code, report = doctor("--repair")
    assert code == 0 and kinds(report)["store_damaged"] is True, report
    assert doctor() == (0, doctor()[1]) and not doctor()[1]["problems"]
    result = CliRunner().invoke(app, ["search", PHRASE, "--json", "--mode", "dense"])
    assert result.exit_code == 0, result.output
    assert "objeciones" in json.dumps(json.loads(result.stdout), ensure_ascii=False)


def test_a_query_meeting_the_damage_is_a_503_without_server_paths(home):
    data = home
    truncate_vectors(data)
    with TestClient(create_app(Settings(home=data, answerer="extractive", api_key=None))) as client:
        for mode in ("hybrid", "dense"):
            reply = client.post("/search", json={"query": PHRASE, "mode": mode})
            assert reply.status_code == 503, reply.text
            detail = reply.json()["detail"]
            assert "gaceta doctor --repair" in detail
            assert str(data) not in detail and str(data.resolve()) not in detail and "/tmp" not in detail, detail
