"""Issue 23, item 5: damage that opens fine but fails queries is found by the doctor, repaired from the kept
originals, and a query that meets it is a 503 whose body carries no server path.

Red-team case: a truncated `vector_storage-dense/vectors/chunk_0.mmap` — `doctor` said healthy while every hybrid or
dense query was a 503 whose body held the server's absolute path.
"""

from __future__ import annotations

import json
import os
import shutil
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


def test_a_truncated_payload_page_is_repaired(home):
    """Red-team: status said "run `gaceta doctor --repair`", and --repair exited 2 with the same line."""
    (page,) = home.glob("index/*/shard/segments/*/payload_storage/page_0.dat")
    with open(page, "r+b") as fh:
        fh.truncate(1000)
    code, report = doctor()
    assert code != 0 and kinds(report) == {"store_damaged": False}, report
    code, report = doctor("--repair")
    assert code == 0 and kinds(report)["store_damaged"] is True, report
    assert doctor()[1]["problems"] == []


def test_a_record_overwritten_while_serving_is_a_503_then_repaired(home):
    """Red-team: random bytes over a record file made its routes 500 with a traceback, and --repair left
    `unreadable_record`."""
    with TestClient(create_app(Settings(home=home, answerer="extractive", api_key=None))) as client:
        (record,) = (home / "documents").glob("*.json")
        record.write_bytes(os.urandom(2000))
        for path in (f"/documents/{record.stem}", f"/documents/{record.stem}/pages/1.png"):
            reply = client.get(path)
            assert reply.status_code == 503, (path, reply.text)
            assert "gaceta doctor --repair" in reply.json()["detail"] and str(home) not in reply.json()["detail"]
    code, report = doctor("--repair")
    assert code == 0 and kinds(report) == {"unreadable_record": True}, report
    assert doctor()[1]["problems"] == []


def test_a_missing_index_folder_is_rebuilt_from_the_kept_originals(home):
    """Red-team: `--repair` with index/ missing said "nothing to check" though records and originals exist."""
    shutil.rmtree(home / "index")
    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 1 and "doctor --repair" in " ".join(result.stderr.split())
    assert not (home / "index").exists()  # looking changes nothing
    code, report = doctor("--repair")
    assert code == 0 and report["problems"] and all(p["repaired"] for p in report["problems"]), report
    assert doctor()[1]["problems"] == []
    result = CliRunner().invoke(app, ["search", PHRASE, "--json"])
    assert "objeciones" in result.stdout


def test_random_bytes_over_the_payload_tracker_are_never_a_traceback(home):
    """Red-team: random bytes over a segment's `payload_storage/tracker.dat` printed a 202-line Rust panic from
    `status`, `serve` and `doctor`. Whatever the engine makes of it — qdrant-edge 0.9 rebuilds it from its
    write-ahead log here, a panic is `IndexDamaged` (retrieval/store/edge.py) — every command answers in lines of its
    own, and after `--repair` the index is healthy and finds what it held."""
    (tracker,) = home.glob("index/*/shard/segments/*/payload_storage/tracker.dat")
    tracker.write_bytes(os.urandom(tracker.stat().st_size))
    runner = CliRunner()
    for command in (["status"], ["doctor"], ["search", PHRASE]):
        result = runner.invoke(app, command)
        said = result.stdout + result.stderr
        assert result.exit_code in (0, 1) and "Traceback" not in said and "panicked" not in said, (command, said)
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    code, _ = doctor("--repair")
    assert code == 0
    assert doctor()[1]["problems"] == []
    result = runner.invoke(app, ["search", PHRASE, "--json"])
    assert "objeciones" in result.stdout


def test_a_panicking_segment_is_one_line_in_every_command(home):
    """Red-team: random bytes over a segment's `payload_storage/tracker.dat` made `status`, `serve`, `doctor` and
    `doctor --repair` print qdrant-edge's Rust panic (with RUST_BACKTRACE=1, ~160 lines of backtrace). The panic hook
    writes to file descriptor 2 itself, which CliRunner never sees: here each command runs as a process, as a user
    runs it. All-0xFF offsets make the engine panic on its first read (checked first: the test is not vacuous)."""
    import subprocess
    import sys

    assert doctor()[0] == 0  # opened and closed once more: the write-ahead log no longer holds what it rebuilds
    (tracker,) = home.glob("index/*/shard/segments/*/payload_storage/tracker.dat")
    tracker.write_bytes(b"\xff" * tracker.stat().st_size)
    env = {**os.environ, "GACETA_HOME": str(home), "RUST_BACKTRACE": "1"}
    env.pop("GACETA_QDRANT_URL", None)
    engine = subprocess.run(
        [sys.executable, "-c", "import sys, qdrant_edge as q; shard = q.EdgeShard.load(sys.argv[1]); "
                               "shard.scroll(q.ScrollRequest(limit=1024, with_payload=True, with_vector=True))",
         str(tracker.parents[3])], env=env, capture_output=True, text=True, timeout=120)
    assert "panicked at" in engine.stderr, engine.stderr[-2000:]  # the damage does panic the engine

    cli = [sys.executable, "-c", "from gaceta.cli import main; main()"]
    for command, code in ((["status"], 1), (["serve", "--port", "0"], 1), (["doctor"], 2), (["doctor", "--repair"], 0)):
        result = subprocess.run([*cli, *command], env=env, capture_output=True, text=True, timeout=600)
        said = result.stdout + result.stderr
        assert result.returncode == code, (command, result.returncode, said[-3000:])
        assert "panicked" not in said and "stack backtrace" not in said and "Traceback" not in said, (command, said)
        if code:  # the store's own message, naming the damage and its repair
            assert "damaged" in said and "run `gaceta doctor --repair`" in " ".join(result.stderr.split()), said
    assert doctor()[1]["problems"] == []
    result = CliRunner().invoke(app, ["search", PHRASE, "--json"])
    assert "objeciones" in result.stdout
