"""Support and relevance judgements (retrieval/answers/support.py), offline."""

from __future__ import annotations

from retrieval.answers.support import Support, judge_relevance, judge_support


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
