"""The HNSW path finds what exact search finds: recall@10 ≥ 0.98 on real embeddings, through the store's settings.

Real text (the 1,215 xquad_es sentences, Spanish; 150 of its questions as queries) embedded with the default
model; the segment threshold is lowered so optimize() builds HNSW graphs at this modest size, and the test
checks that it did, so the comparison is HNSW against brute force and not brute force against itself.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from retrieval import bm25
from retrieval.embedders import load_embedder
from retrieval.settings import Settings
from retrieval.store.base import PointData
from tests.index_fixtures import open_test_store


@pytest.fixture(scope="module")
def texts(eval_dir):
    xquad = json.loads((eval_dir / "xquad_es" / "xquad-r.es.json").read_text())
    paragraphs = [p for article in xquad["data"] for p in article["paragraphs"]]
    corpus = [s for p in paragraphs for s in p["sentences"]]
    questions = [qa["question"] for p in paragraphs for qa in p["qas"]][::8]
    return corpus, questions


def test_hnsw_recall_at_10_against_exact_search(tmp_path, texts):
    corpus, questions = texts
    embedder = load_embedder(Settings().embedding_model)
    vectors = embedder.embed_documents(corpus)
    queries = embedder.embed_documents(questions)
    empty = bm25.SparseVector([], [])
    with open_test_store("edge", tmp_path, embedder.dim, indexing_threshold_kb=100) as store:
        points = [
            PointData(f"ann:{i:05d}", v, empty, {"doc_id": "ann", "chunk_id": f"ann:{i:05d}", "index": i}, 0)
            for i, v in enumerate(vectors)
        ]
        store.upsert_document("ann", points)
        store.optimize()
        assert store.shard.info().indexed_vectors_count >= len(corpus) // 2  # HNSW graphs exist
        recalls = []
        for query in queries:
            approx = {p["chunk_id"] for p, _ in store.search(query, None, k=10)}
            exact = {p["chunk_id"] for p, _ in store.search(query, None, k=10, exact=True)}
            recalls.append(len(approx & exact) / 10)
    assert np.mean(recalls) >= 0.98, np.mean(recalls)
