"""`gaceta doctor [--repair] [--json]` on a real index (the LFT regulation ingested from an inbox, original kept):
healthy → 0; each damage found (exit 1), repaired from the kept original where the bytes allow, dropped (and said)
where they do not; a store that cannot be opened → 2, and rebuilt by --repair; a served index is refused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaceta.cli import app
from retrieval.models import SearchMode
from retrieval.settings import Settings
from tests.index_fixtures import home_with_inbox

REGLAMENTO = "mx_reglamento_arts_121_122_LFT.pdf"
PHRASE = "objeciones a la declaración anual"  # words of the regulation's article 4


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A home with the regulation indexed from inbox/reglamento.pdf (closed: flushed and unlocked)."""
    return home_with_inbox(tmp_path_factory.mktemp("doctor"), REGLAMENTO, "reglamento.pdf")


@pytest.fixture
def home(built, tmp_path, monkeypatch) -> Path:
    shutil.copytree(built / "inbox", tmp_path / "inbox")
    shutil.copytree(built / "home", tmp_path / "home")
    # the ledger names the source the original came from: move the copy's ledger to the copy's inbox
    from retrieval.originals import Originals

    originals = Originals(tmp_path / "home")
    for path in list(originals.sources_dir.rglob("*.json")) + list(originals.root.rglob("*.json")):
        entry = json.loads(path.read_text().replace(str(built / "inbox"), str(tmp_path / "inbox")))
        path.unlink()
        target = originals._source_path(entry["key"]) if "key" in entry else path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(entry))
    monkeypatch.setenv("GACETA_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GACETA_QDRANT_URL", raising=False)
    return tmp_path / "home"


def doctor(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["doctor", "--json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def kinds(report: dict) -> dict[str, bool]:
    return {p["kind"]: p["repaired"] for p in report["problems"]}


def searchable(home: Path) -> list[str]:
    """The doc ids a BM25 search for the phrase finds (the index opened as every command does, checks on)."""
    from retrieval.index import Index

    with Index.open(Settings(home=home)) as index:
        return sorted({h.document.doc_id for h in index.search(PHRASE, k=5, mode=SearchMode.bm25)})


def test_a_healthy_index(home):
    code, report = doctor()
    assert code == 0 and report["problems"] == [] and report["documents"] == 1 and report["points"] > 30


def test_points_without_a_record_are_reingested_from_the_kept_original(home):
    (record,) = (home / "documents").glob("*.json")
    doc_id = record.stem
    before = record.read_text()
    record.unlink()
    code, report = doctor()
    assert code == 1 and kinds(report) == {"points_without_record": False}
    code, report = doctor("--repair")
    assert code == 0, report
    assert kinds(report) == {"points_without_record": True}
    assert "re-ingested from" in report["problems"][0]["repair"]
    assert json.loads(record.read_text())["markdown"] == json.loads(before)["markdown"]
    assert searchable(home) == [doc_id]
    assert doctor() == (0, {**report, "problems": []})


def test_a_record_without_points_is_reingested(home):
    from retrieval.index import Index

    with Index.open(Settings(home=home)) as index:
        (doc_id,) = [p.stem for p in (home / "documents").glob("*.json")]
        assert index.store.delete_document(doc_id) > 0  # the points only: what a lost write leaves
    code, report = doctor()
    assert code == 1 and kinds(report) == {"record_without_points": False}
    code, report = doctor("--repair")
    assert code == 0 and kinds(report) == {"record_without_points": True}
    assert searchable(home) == [doc_id]


def test_a_missing_original_is_copied_again_from_its_unchanged_source(home):
    (kept,) = (home / "originals").glob("*/*.pdf")
    kept.unlink()
    code, report = doctor()
    assert code == 1 and kinds(report) == {"original_missing": False}
    code, report = doctor("--repair")
    assert code == 0 and "copied again from" in report["problems"][0]["repair"]
    assert kept.is_file() and searchable(home)


def test_an_original_gone_everywhere_drops_its_documents_and_says_so(home):
    (kept,) = (home / "originals").glob("*/*.pdf")
    kept.write_bytes(b"%PDF-1.7 overwritten")
    (home.parent / "inbox" / "reglamento.pdf").unlink()  # the source is gone too
    code, report = doctor()
    assert code == 1 and kinds(report) == {"original_changed": False}
    code, report = doctor("--repair")
    assert code == 0, report
    assert "dropped its documents" in report["problems"][0]["repair"]
    assert report["documents"] == 0 and report["points"] == 0
    assert not list((home / "originals").rglob("*.pdf"))
    result = CliRunner().invoke(app, ["status", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["index"]["documents"] == 0


def test_a_store_that_cannot_open_is_rebuilt_from_the_kept_originals(home):
    wal = sorted((home / "index" / "gaceta" / "shard" / "wal").glob("open-*"))[0]
    with open(wal, "r+b") as fh:
        fh.write(b"Z" * 4096)
    code, report = doctor()
    assert code == 2 and not report["opened"] and "write-ahead log" in report["problems"][0]["detail"]
    doc_ids = [p.stem for p in (home / "documents").glob("*.json")]
    code, report = doctor("--repair")
    assert code == 0, report
    assert report["set_aside"] and Path(report["set_aside"]).is_dir()  # kept for inspection, never deleted
    assert kinds(report) == {"store_damaged": True, "record_without_points": True}
    assert searchable(home) == doc_ids


def test_stale_totals_are_recounted(home):
    meta_path = home / "index" / "gaceta" / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "bm25_terms": meta["bm25_terms"] + 100}))
    code, report = doctor()
    assert code == 1 and kinds(report) == {"meta_totals": False}
    assert doctor("--repair")[0] == 0 and json.loads(meta_path.read_text())["bm25_terms"] == meta["bm25_terms"]


def test_a_served_index_is_refused(home):
    """While `gaceta serve` owns the index the doctor stops with one line. A live pid in owner.json stands in for the
    server, and a process on its url answering /healthz with the sha256 of the file's token (what the owner shows)."""
    from tests.api.test_trust_owner import Impostor, announce
    from retrieval.owner import owner_id

    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        with Impostor(shown=owner_id("the-owners-token")) as owner:
            announce(home, owner.url, sleeper.pid, "the-owners-token")
            result = CliRunner().invoke(app, ["doctor"])
        assert result.exit_code == 2
        assert f"served by pid {sleeper.pid}" in result.stderr and "stop the server" in " ".join(result.stderr.split())
    finally:
        sleeper.kill()
        sleeper.wait()
    assert os.path.exists(home / "owner.json")
