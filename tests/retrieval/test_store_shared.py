"""A store hosted by the process that owns it and read by others (`retrieval.store.shared`): the same answers as
the owner's own, the owner's writes seen at once, no writes of its own, clear errors when the owner is unreachable.

The reading side runs in this process over the real socket; `tests/api/test_serve_workers.py` runs it in real
worker processes behind `gaceta serve`."""

from __future__ import annotations

import pytest

from retrieval.index import Index, Search
from retrieval.models import SearchFilters, SearchMode
from retrieval.store import StoreError
from retrieval.store.shared import RemoteStore, StoreHost
from tests.index_fixtures import build_index, comparable_hits, rewritten_chunk

REGLAMENTO = "mx_reglamento_arts_121_122_LFT.pdf"
DOF = "dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf"
SEARCHES = [
    Search("participación de los trabajadores en las utilidades", k=5),
    Search("objeción del escrito de los trabajadores", k=3, mode=SearchMode.bm25),
    Search("tabla de valores", k=8, mode=SearchMode.dense),
    Search("utilidades de las empresas", k=10, filters=SearchFilters(doc_type=["REGLAMENTO"])),
]


@pytest.fixture(scope="module")
def owner(tmp_path_factory) -> Index:
    index = build_index(tmp_path_factory.mktemp("shared-home"), [REGLAMENTO, DOF])
    yield index
    index.close()


@pytest.fixture(scope="module")
def host(owner) -> StoreHost:
    host = StoreHost(owner.store)
    yield host
    host.close()


@pytest.fixture(scope="module")
def reader(owner, host) -> Index:
    index = Index.open(owner.settings, store_opener=RemoteStore.opener(host.address, host.authkey))
    yield index
    index.close()


def test_a_reader_gets_the_owners_answers(owner, reader):
    expected = comparable_hits(owner.search_many(SEARCHES))
    assert all(scores for scores, _ in expected)
    assert comparable_hits(reader.search_many(SEARCHES)) == expected
    hit = owner.search_many(SEARCHES[:1])[0][0]
    assert reader.chunk(hit.chunk.chunk_id) == owner.chunk(hit.chunk.chunk_id)
    assert reader.has_document(hit.chunk.doc_id) and not reader.has_document("no-such-doc")
    assert reader.document(hit.chunk.doc_id) == owner.document(hit.chunk.doc_id)
    mine, theirs = owner.status(), reader.status()
    assert (theirs.documents, theirs.chunks, theirs.model, theirs.location) == (
        mine.documents, mine.chunks, mine.model, mine.location)
    assert "shared" in theirs.backend


def test_a_reader_sees_the_owners_writes_at_once(owner, reader):
    search = SEARCHES[0]
    first = reader.search_many([search])[0][0]
    with rewritten_chunk(owner, first.chunk.chunk_id, " [fe de erratas]"):
        again = next(h for h in reader.search_many([search])[0] if h.chunk.chunk_id == first.chunk.chunk_id)
        assert again.chunk.text.endswith("[fe de erratas]")
        owner.delete_document(first.chunk.doc_id)
        assert first.chunk.doc_id not in {h.chunk.doc_id for h in reader.search_many([search])[0]}
    assert reader.search_many([search])[0][0].chunk.text == first.chunk.text


def test_a_reader_cannot_write(owner, reader):
    doc = owner.document(owner.search_many(SEARCHES[:1])[0][0].chunk.doc_id)
    with pytest.raises(StoreError, match="another process owns"):
        reader.add_document(doc)
    with pytest.raises(StoreError, match="another process owns"):
        reader.delete_document(doc.doc_id)
    assert owner.has_document(doc.doc_id)


def test_a_wrong_key_or_a_missing_owner_is_a_clear_error(owner, host):
    embedder = owner.embedder
    with pytest.raises(StoreError, match="cannot reach the process that owns the index"):
        RemoteStore(host.address, b"not the key", embedder.model_id, embedder.dim)
    with pytest.raises(StoreError, match="cannot reach the process that owns the index"):
        RemoteStore(host.address + ".gone", host.authkey, embedder.model_id, embedder.dim)


def test_a_reader_whose_owner_stops_gets_a_clear_error(owner):
    host = StoreHost(owner.store)
    store = RemoteStore(host.address, host.authkey, owner.embedder.model_id, owner.embedder.dim)
    try:
        assert store.stats().chunks == owner.status().chunks
        host.close()
        with pytest.raises(StoreError, match="lost the process that owns the index"):
            store.stats()
    finally:
        store.close()
        host.close()


def test_a_reader_with_another_embedding_model_is_refused(owner, host):
    from retrieval.store import ModelMismatchError

    with pytest.raises(ModelMismatchError, match="was built with embedding model"):
        RemoteStore(host.address, host.authkey, "another/model", 384)
