"""`GET /documents` (filters, pages), `DELETE /documents/{id}` (behind the key), and page images read from the kept
original: from another working directory, and after the ingested file is gone."""

from __future__ import annotations

import hashlib
import os
import shutil

import pytest
from fastapi.testclient import TestClient

from gaceta.api import create_app
from retrieval.settings import Settings
from tests.api.conftest import REGLAMENTO
from tests.conftest import pdf


# --- the listing, on the shared API index --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def reglamento_doc_id(client) -> str:
    """The regulation's id, found by the listing itself (its title's case is the parser's business)."""
    docs = client.get("/documents").json()["documents"]
    return next(d["doc_id"] for d in docs if d["title"].casefold().startswith("reglamento de los artículos 121 y 122"))


def test_list_documents(client, reglamento_doc_id):
    body = client.get("/documents").json()
    assert body["total"] == len(body["documents"]) >= 3 and body["offset"] == 0
    row = next(d for d in body["documents"] if d["doc_id"] == reglamento_doc_id)
    assert row["title"].casefold().startswith("reglamento de los artículos 121 y 122")
    assert row["pages"] == 6 and row["chunks"] > 1
    assert set(row) == {"doc_id", "title", "doc_type", "issuing_body", "publication_date", "label", "pages", "chunks", "law_id", "version_date"}
    assert not any("/" in str(v) for d in body["documents"] for k, v in d.items() if k not in ("title", "law_id"))  # no server paths ("mx/ley-…" is a law id)


def test_list_filters_like_search(client, reglamento_doc_id):
    doc = client.get(f"/documents/{reglamento_doc_id}").json()
    by_type = client.get("/documents", params={"doc_type": doc["doc_type"]}).json()["documents"]
    assert reglamento_doc_id in {d["doc_id"] for d in by_type}
    assert all(d["doc_type"] == doc["doc_type"] for d in by_type)
    assert client.get("/documents", params={"doc_type": "NOM"}).json()["total"] == 0
    assert client.get("/documents", params={"issuing_body": "NADIE"}).json()["total"] == 0
    dates = [d["publication_date"] for d in client.get("/documents").json()["documents"] if d["publication_date"]]
    if dates:
        day = max(dates)
        same = client.get("/documents", params={"date_from": day, "date_to": day}).json()["documents"]
        assert same and all(d["publication_date"] == day for d in same)


def test_list_pages_and_bounds(client):
    everything = client.get("/documents").json()
    first = client.get("/documents", params={"limit": 1}).json()
    second = client.get("/documents", params={"limit": 1, "offset": 1}).json()
    assert first["total"] == everything["total"] and first["limit"] == 1
    assert [first["documents"][0], second["documents"][0]] == everything["documents"][:2]
    for params in ({"limit": 501}, {"limit": 0}, {"offset": -1}, {"date_from": "2024-02-01", "date_to": "2024-01-01"},
                   {"date_from": "yesterday"}):
        r = client.get("/documents", params=params)
        assert r.status_code == 422, params


# --- an index of its own: a file ingested by a relative path, then moved away from -----------------------------------
@pytest.fixture(scope="module")
def own(tmp_path_factory):
    """A copy of the reglamento ingested as `reglamento.pdf` from its folder (a relative source path)."""
    from ingest.parse import parse_pdf
    from retrieval.index import Index

    root = tmp_path_factory.mktemp("own")
    inbox = root / "inbox"
    inbox.mkdir()
    shutil.copy(pdf(REGLAMENTO), inbox / "reglamento.pdf")
    settings = Settings(home=root / "home", answerer="extractive", api_key=None)
    cwd = os.getcwd()
    os.chdir(inbox)
    try:
        index = Index.open(settings)
        result = parse_pdf("reglamento.pdf")
        assert result.documents[0].source_path == "reglamento.pdf"
        index.add_documents(result.documents)
        index.optimize()
    finally:
        os.chdir(cwd)
    yield root, settings, index, result.documents[0]
    index.close()


def test_page_image_from_another_cwd_and_after_the_file_is_gone(own, monkeypatch):
    root, settings, index, doc = own
    start = doc.page_spans[1].start
    url = f"/documents/{doc.doc_id}/pages/{doc.page_spans[1].page}.png"
    monkeypatch.chdir(root)  # not where the file was ingested from: its recorded path no longer resolves
    with TestClient(create_app(settings, index)) as client:
        r = client.get(url, params={"highlight": f"{start}-{start + 200}"})
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        assert int(r.headers["x-highlighted-words"]) > 0
        (root / "inbox" / "reglamento.pdf").unlink()  # the inbox emptied
        monkeypatch.chdir(root / "inbox")
        assert client.get(url, params={"highlight": f"{start}-{start + 100}"}).status_code == 200


def test_missing_kept_original_is_410(own, tmp_path):
    root, settings, index, doc = own
    kept = index.originals.kept(doc.source_sha256)
    hidden = tmp_path / "hidden.pdf"
    shutil.move(kept, hidden)
    try:
        with TestClient(create_app(settings, index)) as client:
            r = client.get(f"/documents/{doc.doc_id}/pages/3.png")  # a page not rendered (cached) before
        assert r.status_code == 410 and "re-ingest it" in r.json()["detail"]
    finally:
        shutil.move(hidden, kept)


def test_delete_needs_the_key_and_removes_everything(own):
    root, settings, index, doc = own
    kept = index.originals.kept(doc.source_sha256)
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == doc.source_sha256
    locked = settings.model_copy(update={"api_key": "s3cret"})
    with TestClient(create_app(locked, index)) as client:
        assert client.delete(f"/documents/{doc.doc_id}").status_code == 401
        assert client.delete(f"/documents/{doc.doc_id}", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert index.has_document(doc.doc_id)
        auth = {"Authorization": "Bearer s3cret"}
        r = client.delete(f"/documents/{doc.doc_id}", headers=auth)
        assert r.status_code == 200 and r.json() == {"doc_id": doc.doc_id, "deleted": True}
        assert client.get(f"/documents/{doc.doc_id}", headers=auth).status_code == 404
        assert client.get(f"/documents/{doc.doc_id}/pages/1.png", headers=auth).status_code == 404
        assert client.get("/documents", headers=auth).json()["total"] == 0
        hits = client.post("/search", json={"query": "objeciones de los trabajadores", "k": 5}, headers=auth).json()
        assert hits["hits"] == []
        assert client.delete(f"/documents/{doc.doc_id}", headers=auth).status_code == 404
    assert not kept.exists() and index.status().documents == 0 and index.document(doc.doc_id) is None
