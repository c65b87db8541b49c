"""The legal search on a real regulation (Reglamento de los artículos 121 y 122 de la LFT): a named article looked
up and reported, the reranker on and off, and a configured cross-encoder's score joining the features."""

from __future__ import annotations

import pytest

from retrieval.legal_search import legal_search
from tests.index_fixtures import build_index
from tests.retrieval.test_cross_encoder import build_tiny_cross_encoder

RLFT = "mx_reglamento_arts_121_122_LFT.pdf"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    index = build_index(tmp_path_factory.mktemp("rlft"), [RLFT])
    yield index
    index.close()


def test_a_named_article_leads_and_is_reported(index):
    result = legal_search(index, "¿Qué establece el artículo 16 del Reglamento?", k=5)
    first = result.hits[0]
    assert first.via == "reference" and first.chunk.article == "16" and first.features["reference"] == 1.0
    assert first.label.endswith(f"p. {first.chunk.page_at(first.chunk.start)[1] or first.chunk.pages[0]}")
    assert "art. 16" in first.label
    ref = result.references[0]
    assert ref.reference.articles == ["16"] and ref.resolved and ref.chunks >= 1
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))


def test_an_article_the_index_lacks_is_reported_unfound(index):
    result = legal_search(index, "¿Qué establece el artículo 999 del Reglamento?", k=5)
    assert result.references[0].chunks == 0 and all(h.via == "search" for h in result.hits)


def test_rerank_off_keeps_the_first_stage_order_after_the_named_article(index):
    query = "participación de los trabajadores en las utilidades de las empresas"
    plain = index.search(query, k=5)
    off = legal_search(index, query, k=5, rerank=False)
    assert [h.chunk.chunk_id for h in off.hits] == [h.chunk.chunk_id for h in plain]
    on = legal_search(index, query, k=5)
    assert all("score" in h.features for h in on.hits) and not any(h.features for h in off.hits)


def test_the_same_query_ranks_the_same_way_every_time(index):
    query = "objeciones de los trabajadores a la declaración anual"
    first = [h.chunk.chunk_id for h in legal_search(index, query, k=8).hits]
    assert all([h.chunk.chunk_id for h in legal_search(index, query, k=8).hits] == first for _ in range(3))


def test_a_configured_cross_encoder_scores_every_candidate(index, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    texts = [c.text for c in index.chunk_document(index.document(index.search("utilidades", k=1)[0].chunk.doc_id))]
    model = build_tiny_cross_encoder(tmp_path / "ce", texts)
    configured = index.settings.model_copy(update={"rerank_model": str(model)})
    original = index.settings
    index.settings = configured
    try:
        hits = legal_search(index, "reparto de utilidades", k=5).hits
    finally:
        index.settings = original
    assert all(0.0 <= h.features["cross"] <= 1.0 for h in hits)
