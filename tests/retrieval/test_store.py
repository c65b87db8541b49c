"""The Store contract, the same suite over qdrant-edge (embedded) and qdrant-client (`QdrantClient(":memory:")`)."""

from __future__ import annotations

import datetime as dt
import zlib

import numpy as np
import pytest

from retrieval import bm25
from retrieval.models import Fusion, SearchFilters
from retrieval.store.base import PENDING, ModelMismatchError, PointData, VectorQuery
from tests.index_fixtures import STORE_KINDS, open_test_store

pytestmark = [
    pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning"),
    pytest.mark.filterwarnings("ignore:Local mode performs exact:UserWarning"),
]

DIM = 16
DOCS = {
    "dof-a": ("SECRETARIA DE ECONOMIA", "ACUERDO", dt.date(2024, 12, 15)),
    "dof-b": ("SECRETARIA DEL TRABAJO Y PREVISION SOCIAL", "NORMA OFICIAL MEXICANA", dt.date(2025, 1, 14)),
    "ley-c": ("CONGRESO DE LA UNION", "LEY", dt.date(2021, 5, 28)),
}
TEXTS = {
    "dof-a": ["Acuerdo por el que se fijan los aranceles de importación de acero.", "Transitorios del acuerdo."],
    "dof-b": [
        "La NOM-035-STPS-2018 identifica los factores de riesgo psicosocial en el trabajo.",
        "El patrón debe aplicar la guía de referencia a los trabajadores.",
        "Vigilancia de la norma por la Secretaría del Trabajo.",
    ],
    "ley-c": ["Artículo 27. La propiedad de las tierras y aguas corresponde originariamente a la Nación."],
}


def _vector(seed: str) -> np.ndarray:
    v = np.random.default_rng(zlib.crc32(seed.encode())).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def _points(store, doc_id: str, texts: list[str]) -> list[PointData]:
    body, kind, date = DOCS[doc_id]
    sparse, lengths = bm25.document_vectors(texts, *store.bm25_totals())
    document = {"doc_id": doc_id, "issuing_body": body, "doc_type": kind, "publication_date": date.isoformat()}
    return [
        PointData(
            chunk_id=f"{doc_id}:{i:05d}",
            dense=_vector(text),
            sparse=sparse[i],
            payload={"chunk_id": f"{doc_id}:{i:05d}", "doc_id": doc_id, "index": i, "text": text, "document": document},
            bm25_len=lengths[i],
        )
        for i, text in enumerate(texts)
    ]


def _ids(found) -> list[str]:
    return [payload["chunk_id"] for payload, _ in found]


@pytest.fixture(params=STORE_KINDS)
def store(request, tmp_path):
    s = open_test_store(request.param, tmp_path, DIM)
    for doc_id, texts in TEXTS.items():
        s.upsert_document(doc_id, _points(s, doc_id, texts))
    yield s
    s.close()


def test_counts_and_stats(store):
    stats = store.stats()
    assert (stats.points, stats.chunks, stats.documents, stats.pending) == (6, 6, 3, 0)
    assert stats.model_id == "test-model" and stats.dim == DIM
    lengths = bm25.document_vectors([t for texts in TEXTS.values() for t in texts], 0, 0)[1]
    assert stats.avgdl == pytest.approx(np.mean(lengths))


def test_reupsert_is_idempotent(store):
    before = store.stats()
    store.upsert_document("dof-b", _points(store, "dof-b", TEXTS["dof-b"]))
    after = store.stats()
    assert (after.points, after.chunks, after.documents) == (before.points, before.chunks, before.documents)
    assert after.avgdl == pytest.approx(before.avgdl)


def test_replacing_a_document_removes_its_stale_chunks(store):
    store.upsert_document("dof-b", _points(store, "dof-b", ["Texto nuevo de la norma, en un solo fragmento."]))
    assert store.stats().points == 4
    assert store.chunk_payload("dof-b:00000")["text"].startswith("Texto nuevo")
    assert store.chunk_payload("dof-b:00002") is None
    found = store.search(None, bm25.query_vector("Secretaría del Trabajo vigilancia"), k=10)
    assert "dof-b:00002" not in _ids(found)


def test_incomplete_documents_are_invisible(store):
    """Points written but never marked complete (a crash mid-document) are never returned."""
    texts = ["Decreto de estímulos fiscales a la región fronteriza norte."]
    store._upsert([_pending_point(store, texts[0])], PENDING)
    assert store.stats().pending == 1
    query = bm25.query_vector("estímulos fiscales región fronteriza")
    assert "dof-x:00000" not in _ids(store.search(_vector(texts[0]), query, k=10))
    assert store.chunk_payload("dof-x:00000") is None
    assert not store.has_document("dof-x")


def _pending_point(store, text: str) -> PointData:
    (point,) = _points(store, "dof-a", [text])
    point.chunk_id = "dof-x:00000"
    point.payload = {**point.payload, "chunk_id": "dof-x:00000", "doc_id": "dof-x"}
    return point


def test_delete_document(store):
    assert store.delete_document("dof-b") == 3
    assert not store.has_document("dof-b")
    assert store.stats().chunks == 3
    assert store.delete_document("dof-b") == 0


def test_modes_find_the_right_chunk(store):
    text = TEXTS["ley-c"][0]
    assert _ids(store.search(_vector(text), None, k=1)) == ["ley-c:00000"]
    assert _ids(store.search(None, bm25.query_vector("propiedad de las tierras"), k=1)) == ["ley-c:00000"]
    for fusion in Fusion:
        found = store.search(_vector(text), bm25.query_vector("tierras y aguas"), k=3, fusion=fusion)
        assert _ids(found)[0] == "ley-c:00000"
        assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)


def test_stopword_only_bm25_query_returns_nothing(store):
    assert store.search(None, bm25.query_vector("de la que el"), k=5) == []


@pytest.mark.parametrize(
    ("filters", "docs"),
    [
        (SearchFilters(date_from=dt.date(2024, 12, 1), date_to=dt.date(2024, 12, 31)), {"dof-a"}),
        (SearchFilters(date_from=dt.date(2024, 12, 1)), {"dof-a", "dof-b"}),
        (SearchFilters(date_to=dt.date(2022, 1, 1)), {"ley-c"}),
        (SearchFilters(issuing_body=["SECRETARIA DE ECONOMIA", "CONGRESO DE LA UNION"]), {"dof-a", "ley-c"}),
        (SearchFilters(doc_type=["NOM"]), {"dof-b"}),
        (SearchFilters(doc_ids=["ley-c", "dof-a"]), {"ley-c", "dof-a"}),
        (SearchFilters(doc_type=["NOM"], date_to=dt.date(2022, 1, 1)), set()),
    ],
)
def test_filters(store, filters, docs):
    query = _vector("anything")
    found = store.search(query, bm25.query_vector("acuerdo norma artículo trabajo"), k=10, filters=filters)
    assert {p["doc_id"] for p, _ in found} == docs
    assert {p["doc_id"] for p, _ in store.search(query, None, k=10, filters=filters)} == docs


def test_opening_with_another_model_is_an_error(tmp_path):
    with open_test_store("edge", tmp_path, DIM) as s:
        s.upsert_document("ley-c", _points(s, "ley-c", TEXTS["ley-c"]))
    with pytest.raises(ModelMismatchError, match="test-model"):
        open_test_store("edge", tmp_path, DIM, model_id="other-model")
    with pytest.raises(ModelMismatchError):
        open_test_store("edge", tmp_path, DIM + 1)
    with open_test_store("edge", tmp_path, DIM) as s:  # the failed opens released the lock; the data is intact
        assert s.stats().chunks == 1


def test_client_backend_checks_the_model_in_collection_metadata():
    from qdrant_client import QdrantClient

    client = QdrantClient(":memory:")
    open_test_store("client", None, DIM, client=client)
    with pytest.raises(ModelMismatchError, match="other-model"):
        open_test_store("client", None, DIM, model_id="other-model", client=client)


def test_edge_index_persists_across_reopen(tmp_path):
    with open_test_store("edge", tmp_path, DIM) as s:
        for doc_id, texts in TEXTS.items():
            s.upsert_document(doc_id, _points(s, doc_id, texts))
        avgdl = s.stats().avgdl
    with open_test_store("edge", tmp_path, DIM) as s:
        stats = s.stats()
        assert (stats.chunks, stats.documents, stats.avgdl) == (6, 3, pytest.approx(avgdl))
        assert _ids(s.search(None, bm25.query_vector("NOM-035-STPS-2018"), k=1)) == ["dof-b:00000"]


def test_second_opener_of_an_embedded_index_is_told_who_owns_it(tmp_path):
    import os

    from retrieval.store.base import IndexInUseError

    with open_test_store("edge", tmp_path, DIM):
        with pytest.raises(IndexInUseError, match=f"pid {os.getpid()}"):
            open_test_store("edge", tmp_path, DIM)
    open_test_store("edge", tmp_path, DIM).close()


def test_search_many_answers_each_query_as_search_does(store):
    queries = [
        VectorQuery(_vector(TEXTS["ley-c"][0]), bm25.query_vector("tierras y aguas"), k=3),
        VectorQuery(None, bm25.query_vector("de la que el"), k=5),  # stopwords only: nothing to search
        VectorQuery(None, bm25.query_vector("NOM-035-STPS-2018 psicosocial"), k=2),
        VectorQuery(_vector("anything"), None, k=10, filters=SearchFilters(doc_type=["NOM"])),
        VectorQuery(_vector("acero"), bm25.query_vector("aranceles acero"), k=2, fusion=Fusion.dbsf),
    ]
    batched = store.search_many(queries)
    one_by_one = [store.search(q.dense, q.sparse, k=q.k, filters=q.filters, fusion=q.fusion) for q in queries]
    assert [_ids(found) for found in batched] == [_ids(found) for found in one_by_one]
    assert _ids(batched[0])[0] == "ley-c:00000" and batched[1] == []
    assert _ids(batched[2])[0] == "dof-b:00000"
    assert {p["doc_id"] for p, _ in batched[3]} == {"dof-b"}


def test_an_index_built_with_another_bm25_analysis_must_be_rebuilt(tmp_path):
    import json

    with open_test_store("edge", tmp_path, DIM) as s:
        s.upsert_document("ley-c", _points(s, "ley-c", TEXTS["ley-c"]))
        meta_path = next(tmp_path.rglob("meta.json"))
    meta = json.loads(meta_path.read_text())
    assert meta["bm25_analyzer"] == bm25.ANALYZER_VERSION
    del meta["bm25_analyzer"]  # as an index written before the analysis was versioned
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ModelMismatchError, match=f"BM25 analysis '{bm25.LEGACY_ANALYZER_VERSION}'.*rebuild"):
        open_test_store("edge", tmp_path, DIM)


def test_pending_points_left_by_a_crash_stay_hidden_after_reopening(tmp_path):
    """The embedded store drops its `state` filter only when it has counted no pending point: points a killed
    ingest left pending are found at open, and searches keep filtering them out."""
    store = open_test_store("edge", tmp_path, DIM)
    for doc_id, texts in TEXTS.items():
        store.upsert_document(doc_id, _points(store, doc_id, texts))
    text = "Decreto de estímulos fiscales a la región fronteriza norte."
    store._begin_write("dof-x")  # what a kill between write and completion leaves: the write's mark, its points
    store._upsert([_pending_point(store, text)], PENDING)
    store.close()
    store = open_test_store("edge", tmp_path, DIM)
    try:
        found = store.search(_vector(text), bm25.query_vector("estímulos fiscales región fronteriza"), k=10)
        assert found and "dof-x:00000" not in _ids(found)
        store.delete_document("dof-x")
        assert store.stats().pending == 0
        assert _ids(store.search(None, bm25.query_vector("Artículo 27 tierras y aguas"), k=1)) == ["ley-c:00000"]
    finally:
        store.close()


def test_a_search_during_a_document_write_never_sees_its_pending_points(tmp_path):
    """A write in progress makes the embedded store filter again: a search made while new chunks are written but
    not yet marked complete finds neither them nor the chunks they replace (which are already gone)."""
    import threading

    from retrieval.store.edge import EdgeStore

    class PausingStore(EdgeStore):
        """Holds every document write just before its chunks are marked complete, until told to go on."""

        def __init__(self, *args):
            super().__init__(*args)
            self.pending_written, self.go_on = threading.Event(), threading.Event()

        def _set_payload(self, where, payload):
            if self.pending_written is not None:
                self.pending_written.set()
                self.go_on.wait(30)
            super()._set_payload(where, payload)

    store = PausingStore(tmp_path / "index", "test", "test-model", DIM)
    try:
        paused = store.pending_written
        store.pending_written = None  # the fixture documents are written without pausing
        for doc_id, texts in TEXTS.items():
            store.upsert_document(doc_id, _points(store, doc_id, texts))
        query = bm25.query_vector("Secretaría del Trabajo norma vigilancia riesgo psicosocial")
        assert {p["doc_id"] for p, _ in store.search(None, query, k=10)} >= {"dof-b"}  # unfiltered: none pending
        store.pending_written = paused
        new_text = ["Versión nueva: la Secretaría del Trabajo vigila la norma de riesgo psicosocial."]
        writer = threading.Thread(target=store.upsert_document, args=("dof-b", _points(store, "dof-b", new_text)))
        writer.start()
        assert paused.wait(30)
        found = store.search(_vector(new_text[0]), query, k=10)
        assert "dof-b" not in {p["doc_id"] for p, _ in found}
        store.go_on.set()
        writer.join(30)
        found = store.search(_vector(new_text[0]), query, k=10)
        assert [p["text"] for p, _ in found if p["doc_id"] == "dof-b"] == new_text
    finally:
        store.go_on.set()
        store.close()


def test_a_write_that_fails_part_way_leaves_an_index_that_opens_whole(tmp_path):
    """A document write that fails after its first batch (here: a point of the wrong dimension in the second batch)
    leaves pending points nobody counted; the next write recounts, so the index reopens without a false "damaged",
    and a retry of the same document replaces the partial one."""
    texts = [f"Artículo {i}. Texto del artículo número {i} de la norma." for i in range(300)]
    with open_test_store("edge", tmp_path, DIM) as s:
        s.upsert_document("dof-a", _points(s, "dof-a", TEXTS["dof-a"]))
        points = _points(s, "dof-b", texts)
        points[-1] = PointData(**{**points[-1].__dict__, "dense": np.ones(DIM + 1, dtype=np.float32)})
        with pytest.raises(Exception):
            s.upsert_document("dof-b", points)
        s.upsert_document("ley-c", _points(s, "ley-c", TEXTS["ley-c"]))
    with open_test_store("edge", tmp_path, DIM) as s:  # no IndexDamaged: the totals match the points
        assert s.stats().documents == 2
        s.upsert_document("dof-b", _points(s, "dof-b", texts[:3]))
    with open_test_store("edge", tmp_path, DIM) as s:
        stats = s.stats()
        assert (stats.chunks, stats.documents) == (len(TEXTS["dof-a"]) + 3 + len(TEXTS["ley-c"]), 3)
