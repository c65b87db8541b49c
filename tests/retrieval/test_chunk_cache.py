"""Parsed hits kept between searches (`retrieval.chunk_cache`): same answers as without them, never stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.chunk_cache import ChunkCache
from retrieval.index import Index, Search
from retrieval.models import SearchFilters, SearchMode
from retrieval.settings import Settings
from tests.index_fixtures import build_index, comparable_hits, rewritten_chunk

pytestmark = pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")

DOF = "dof_2023-01-11_MAT_first20pages.pdf"
QUERIES = [
    Search("tipo de cambio para solventar obligaciones en moneda extranjera", k=10),
    Search("Instituto Nacional Electoral", k=5, mode=SearchMode.bm25),
    Search("convocatoria", k=20, mode=SearchMode.dense),
    Search("acuerdo de la Secretaría", k=10, filters=SearchFilters(issuing_body=["SECRETARIA DE MARINA"])),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Index:
    index = build_index(tmp_path_factory.mktemp("cache-home"), [DOF])
    yield index
    index.close()


def test_cached_hits_are_the_hits_a_fresh_read_gives(index):
    uncached = Index(Settings(home=index.settings.home, chunk_cache=0), index.embedder, index.store)
    assert index._chunks is not None and uncached._chunks is None
    expected = comparable_hits(uncached.search_many(QUERIES))
    assert all(scores for scores, _ in expected)
    assert comparable_hits(index.search_many(QUERIES)) == expected  # cold: fetched, then kept
    assert len(index._chunks) > 0
    assert comparable_hits(index.search_many(QUERIES)) == expected  # warm: from the cache


def test_a_rewritten_document_is_never_served_from_the_cache(index):
    query = Search("tipo de cambio para solventar obligaciones en moneda extranjera", k=3)
    first = index.search_many([query])[0][0]
    with rewritten_chunk(index, first.chunk.chunk_id, " [corregido]"):
        hit = next(h for h in index.search_many([query])[0] if h.chunk.chunk_id == first.chunk.chunk_id)
        assert hit.chunk.text.endswith("[corregido]")
    hit = next(h for h in index.search_many([query])[0] if h.chunk.chunk_id == first.chunk.chunk_id)
    assert hit.chunk.text == first.chunk.text


def test_the_cache_keeps_the_most_recently_used_entries_up_to_its_size(index):
    cache = ChunkCache(size=3)
    parsed = index.search_many([Search("acuerdo", k=5, mode=SearchMode.bm25)])[0]
    items = {f"p{i}": (hit.chunk, hit.document) for i, hit in enumerate(parsed)}
    cache.put_many(dict(list(items.items())[:3]), revision=0)  # before any get: no revision yet, nothing kept
    assert len(cache) == 0
    assert cache.get_many(["p0"], revision=7) == {}
    cache.put_many(dict(list(items.items())[:3]), revision=7)
    assert set(cache.get_many(["p0", "p1", "p2"], revision=7)) == {"p0", "p1", "p2"}
    cache.get_many(["p0"], revision=7)  # p0 is now the most recent
    cache.put_many({"p3": items["p3"]}, revision=7)
    assert set(cache.get_many(list(items), revision=7)) == {"p0", "p2", "p3"}
    cache.put_many({"p4": items["p4"]}, revision=6)  # read from an older revision: dropped
    assert "p4" not in cache.get_many(["p4"], revision=7)
    assert cache.get_many(["p0", "p2", "p3"], revision=8) == {}  # the store was written: all gone


def test_a_store_other_processes_write_gets_no_cache(tmp_path):
    from qdrant_client import QdrantClient

    from retrieval.embedders import load_embedder
    from retrieval.store.client import ClientStore

    embedder = load_embedder("use-v3")
    store = ClientStore(QdrantClient(":memory:"), "test", embedder.model_id, embedder.dim, location=":memory:")
    try:
        assert Index(Settings(home=Path(tmp_path)), embedder, store)._chunks is None
    finally:
        store.close()
