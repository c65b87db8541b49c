"""Spanish analyzer behaviour, and BM25 through Qdrant's sparse path ranked against rank_bm25.BM25Okapi."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from retrieval import bm25
from retrieval.spanish_analyzer import analyze
from retrieval.store.base import PointData
from tests.index_fixtures import open_test_store


def test_accents_case_and_stemming_fold_together():
    assert analyze("CONSTITUCIÓN") == analyze("constitucion") == analyze("Constituciones")[:1]
    assert analyze("las tierras y aguas") == analyze("Tierra agua")
    assert analyze("año") != analyze("ano")  # ñ is a letter of its own, not an accented n


def test_stopwords_are_dropped_and_content_words_kept():
    assert analyze("de la que el en y a los del se las por") == []
    assert analyze("El trabajador tiene derecho") == analyze("trabajador derecho")


def test_article_references_match_in_all_spellings():
    for spelling in ("art. 27", "Art 27", "artículo 27", "ARTÍCULO 27.-", "art.27"):
        terms = analyze(spelling)
        assert "articulo_27" in terms, spelling
        assert "27" in terms, spelling
    assert "articulo_27" not in analyze("el 27 de marzo, conforme al artículo")


def test_nom_codes_are_one_term_and_their_parts():
    terms = analyze("conforme a la NOM-035-STPS-2018, Factores de riesgo")
    assert "nom-035-stps-2018" in terms
    assert {"nom", "035", "stps", "2018"} <= set(terms)


def test_numbers_are_kept():
    assert analyze("1,500 pesos el 15 de enero de 2025")[:1] == ["1,500"]
    assert "2025" in analyze("15 de enero de 2025")


def test_code_query_ranks_the_chunk_that_cites_the_code_first(tmp_path):
    texts = [
        "La NOM-035-STPS-2018 establece los factores de riesgo psicosocial en el trabajo.",
        "La NOM-036-STPS-2018 trata de los factores de riesgo ergonómico en el trabajo.",
        "El artículo 35 de la Ley Federal del Trabajo, reformado en 2018.",
    ]
    with open_test_store("edge", tmp_path, dim=4) as store:
        _index(store, texts)
        found = store.search(None, bm25.query_vector("NOM-035-STPS-2018"), k=3)
    assert found[0][0]["text"] == texts[0]


def _index(store, texts: list[str]) -> None:
    vectors, lengths = bm25.document_vectors(texts, *store.bm25_totals())
    rng = np.random.default_rng(0)
    points = []
    for i, (text, vector, length) in enumerate(zip(texts, vectors, lengths)):
        dense = rng.normal(size=store.dim).astype(np.float32)
        payload = {"doc_id": "corpus", "chunk_id": f"corpus:{i:05d}", "index": i, "text": text}
        points.append(PointData(f"corpus:{i:05d}", dense / np.linalg.norm(dense), vector, payload, length))
    store.upsert_document("corpus", points)


@pytest.fixture(scope="module")
def xquad(eval_dir):
    data = json.loads((eval_dir / "xquad_es" / "xquad.es.json").read_text())
    paragraphs = [p for article in data["data"] for p in article["paragraphs"]]
    return [p["context"] for p in paragraphs], [qa["question"] for p in paragraphs for qa in p["qas"]]


@pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")
@pytest.mark.parametrize(("kind", "stride"), [("edge", 1), ("client", 4)])  # local mode is slow at sparse queries
def test_qdrant_bm25_ranks_like_bm25okapi_on_xquad_es(tmp_path, xquad, kind, stride):
    """Our sparse vectors + Qdrant's IDF modifier vs the rank_bm25 oracle, same analyzer, same k1 and b."""
    contexts, questions = xquad[0], xquad[1][::stride]
    oracle = BM25Okapi([analyze(c) for c in contexts], k1=bm25.K1, b=bm25.B)
    with open_test_store(kind, tmp_path, dim=4) as store:
        _index(store, contexts)
        overlaps = []
        for question in questions:
            ours = [p["index"] for p, _ in store.search(None, bm25.query_vector(question), k=10)]
            scores = oracle.get_scores(analyze(question))
            theirs = [i for i in np.argsort(-scores, kind="stable")[:10] if scores[i] > 0]
            overlaps.append(len(set(ours) & set(theirs)) / max(len(theirs), 1))
    assert np.mean(overlaps) >= 0.9, np.mean(overlaps)
