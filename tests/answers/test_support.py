"""Support and relevance judgements (retrieval/answers/support.py), offline."""

from __future__ import annotations

import pytest

from retrieval.answers import ask
from retrieval.answers.extractive import ExtractiveAnswerer
from retrieval.answers.pipeline import finish
from retrieval.answers.support import Support, judge_relevance, judge_support
from retrieval.legal_search import legal_search
from tests.index_fixtures import build_index


def test_a_number_the_source_never_states_is_not_supported():
    spans = ["The library holds 250,000 volumes.", "It stands in Cambridge, Massachusetts."]
    judged = judge_support("The library holds over 260,000 volumes.", spans)
    assert judged.label is not Support.supported
    assert "260000" in judged.missing
    assert judge_support("The library holds over 250,000 volumes.", spans).label is Support.supported


def test_a_claim_stated_by_one_span_is_supported_and_points_at_it():
    spans = ["Skip to content", "He joined Video Store Magazine in 1991.", "Arnold is the publisher of Media Play News."]
    judged = judge_support("Arnold is the publisher of Media Play News.", spans)
    assert judged.label is Support.supported
    assert judged.evidence == [2]


def test_no_spans_support_nothing():
    assert judge_support("Anything at all is claimed here.", []).label is Support.unsupported


def test_relevance_of_the_named_article():
    span = ("Constitución Política de los Estados Unidos Mexicanos, art. 27, párr. 1, p. 33\n"
            "La propiedad de las tierras y aguas comprendidas dentro de los límites del territorio nacional, "
            "corresponde originariamente a la Nación.")
    assert judge_relevance("¿Qué establece el artículo 27 de la Constitución?", [span]).relevant
    assert not judge_relevance("¿Cuál es la capital de Australia?", [span]).relevant


# --- on the real Constitution --------------------------------------------------------------------------------------

CPEUM = "mx_ley_CPEUM_constitucion_politica.pdf"


@pytest.fixture(scope="module")
def cpeum(tmp_path_factory):
    index = build_index(tmp_path_factory.mktemp("cpeum"), [CPEUM])
    yield index
    index.close()


def test_an_answer_quoting_the_asked_article_is_supported_and_relevant(cpeum):
    answer = ask(cpeum, "¿Qué establece el artículo 27 de la Constitución?", answerer="extractive")
    cov = answer.coverage
    assert answer.found and answer.content[0].citations[0].article == "27"
    assert cov.relevant and cov.relevance >= 0.5
    assert cov.cited == cov.sentences and cov.supported == cov.sentences and not cov.unsupported
    assert not cov.flagged and cov.flag_reasons == []
    assert all(seg.support.label is Support.supported for seg in answer.content if seg.citations)


def test_sources_that_answer_another_question_are_flagged_not_relevant(cpeum):
    # What a model that cites whatever it retrieved does: the article 27 answer, given to a question it does not
    # address. Its quotes are verified and back its own sentences; only relevance can tell.
    asked = "¿Qué establece el artículo 27 de la Constitución?"
    hits = legal_search(cpeum, asked, k=8).hits
    draft = ExtractiveAnswerer(cpeum.embedder).answer(asked, hits)
    other = "¿Cuántos días de vacaciones pagadas tiene un trabajador después de un año de servicios?"
    answer = finish(other, hits, draft, "extractive", embedder=cpeum.embedder)
    assert answer.coverage.cited == answer.coverage.sentences and answer.coverage.supported >= 1
    assert not answer.coverage.relevant and "not_relevant" in answer.coverage.flag_reasons
    assert finish(asked, hits, draft, "extractive", embedder=cpeum.embedder).coverage.relevant


def test_a_question_about_a_name_the_sources_never_mention_is_not_relevant(cpeum):
    answer = ask(cpeum, "¿Cuál es la capital de Australia y cuántos habitantes tiene?", answerer="extractive")
    assert not answer.found or not answer.coverage.relevant
