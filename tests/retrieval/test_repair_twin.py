"""Issue 23, item 4: a twin file keeps its document.

Red-team case: ingest two files with the same bytes (`a.pdf`, `b.pdf`: b is skipped as a duplicate), then change
`a.pdf` and ingest it again: the document both shared was deleted — b's too — and `doctor` said healthy. Here through
`gaceta ingest` (the local flow), and through a serving owner (`POST /ingest` with the owner's token, as `gaceta
ingest` sends it while `gaceta serve` runs)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from gaceta.api import create_app
from retrieval.originals import source_key
from retrieval.settings import Settings
from tests.retrieval.test_update_source import NEW, OLD, cli, home, write_decree  # noqa: F401  (fixture)


def doc_ids(home: Path) -> set[str]:
    return {p.stem for p in (home / "documents").glob("*.json")}


def test_a_twin_keeps_its_document_when_the_other_path_changes(home, tmp_path):
    folder = tmp_path / "gaceta"
    folder.mkdir()
    a, b = folder / "a.pdf", folder / "b.pdf"
    write_decree(a, OLD)
    shutil.copyfile(a, b)
    (first,) = cli("ingest", str(a), "--json")["files"]
    (twin,) = cli("ingest", str(b), "--json")["files"]
    assert first["status"] == "ok" and twin["status"] == "cached" and twin["doc_ids"] == first["doc_ids"]

    write_decree(a, NEW)
    (changed,) = cli("ingest", str(a), "--json")["files"]
    assert changed["status"] == "ok" and changed["doc_ids"] != first["doc_ids"]
    assert set(first["doc_ids"]) | set(changed["doc_ids"]) <= doc_ids(home)  # b's version stays, a's new one joins
    hits = cli("search", OLD, "--json", "--mode", "bm25")["hits"]
    assert any(h["chunk"]["doc_id"] in first["doc_ids"] for h in hits)
    assert cli("doctor", "--json")["problems"] == []

    # b changes too (to a's new bytes): the old version has no source left, and goes; both paths share the new one.
    shutil.copyfile(a, b)
    (b_changed,) = cli("ingest", str(b), "--json")["files"]
    assert b_changed["status"] == "ok" and b_changed["doc_ids"] == changed["doc_ids"]
    assert doc_ids(home) == set(changed["doc_ids"])
    assert cli("doctor", "--json")["problems"] == []


def test_a_twin_sent_to_the_owner_keeps_its_document(tmp_path):
    home = tmp_path / "home"
    folder = tmp_path / "inbox"
    folder.mkdir()
    a, b = folder / "a.pdf", folder / "b.pdf"
    write_decree(a, OLD)
    shutil.copyfile(a, b)
    settings = Settings(home=home, answerer="extractive", api_key=None)
    with TestClient(create_app(settings, owner_url="http://127.0.0.1:9")) as client:
        token = json.loads((home / "owner.json").read_text())["token"]
        trusted = {"X-Gaceta-Owner": token}

        def send(path: Path) -> dict:
            from retrieval.files import file_sha256

            params = {"name": path.name, "source": source_key(path)}
            known = client.get(f"/ingest/{file_sha256(path)}", params=params, headers=trusted)
            if known.status_code == 200:
                return known.json()["outcome"]
            reply = client.post("/ingest", params=params, content=path.read_bytes(),
                                headers={**trusted, "Content-Type": "application/pdf"})
            assert reply.status_code == 200, reply.text
            return reply.json()["outcome"]

        first, twin = send(a), send(b)
        assert first["status"] == "ok" and twin["status"] == "cached"
        write_decree(a, NEW)
        changed = send(a)
        assert changed["status"] == "ok"
        ids = {d["doc_id"] for d in client.get("/documents").json()["documents"]}
        assert set(first["doc_ids"]) | set(changed["doc_ids"]) <= ids
