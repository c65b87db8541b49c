"""The second stage's legal weights: the text in force above transitory and reform-decree text, a named article
first, and a question about reforms weighing every role the same."""

from __future__ import annotations

from ingest.models import LegalReference, ProvisionRole
from retrieval.rerank import ROLE_WEIGHTS, asks_about_history, rerank
from tests.answers.factory import make_hits

BODIES = [
    "Se reforma el párrafo sexto del artículo 27 de esta Constitución en materia de propiedad de las aguas.",
    "La propiedad de las tierras y aguas corresponde originariamente a la Nación, la cual ha tenido el derecho.",
    "El presente Decreto entrará en vigor al día siguiente de su publicación; la propiedad de las aguas se regula.",
]
ROLES = [ProvisionRole.reform_decree, ProvisionRole.text, ProvisionRole.transitory]


def hits():
    out = make_hits(BODIES)
    return [h.model_copy(update={"chunk": h.chunk.model_copy(update={"role": role, "article": "27"})})
            for h, role in zip(out, ROLES)]


def ranks(found) -> dict[int, int]:
    return {h.chunk.index: h.rank for h in found}


def test_the_weights_order_roles_as_a_lawyer_reads_them():
    w = ROLE_WEIGHTS
    assert w[ProvisionRole.text] > w[ProvisionRole.preamble] > w[ProvisionRole.transitory]
    assert w[ProvisionRole.transitory] > w[ProvisionRole.reform_decree] and w[ProvisionRole.index] < 0.5


def test_text_in_force_outranks_a_reform_decree_ranked_first_by_the_first_stage():
    found = rerank("¿Qué dispone la Constitución sobre la propiedad de las tierras y aguas?", hits(), [],
                   {h.chunk.chunk_id: h.rank for h in hits()})
    assert ranks(found)[1] == 1  # the text in force, although the first stage put the decree first
    assert found[0].features["role"] == 1.0 and all("score" in h.features for h in found)


def test_a_question_about_reforms_weighs_every_role_the_same():
    question = "¿Qué decreto reformó el párrafo sexto del artículo 27 sobre la propiedad de las aguas?"
    assert asks_about_history(question)
    found = rerank(question, hits(), [], {h.chunk.chunk_id: h.rank for h in hits()})
    assert ranks(found)[0] == 1 and all(h.features["role"] == 1.0 for h in found)


def test_a_named_article_of_the_named_law_comes_first_even_unsearched():
    base = hits()
    named = base[2].model_copy(update={"via": "reference", "chunk": base[2].chunk.model_copy(
        update={"role": ProvisionRole.text, "article": "28"})})
    ref = LegalReference(text="artículo 28", articles=["28"])
    search_ranks = {h.chunk.chunk_id: h.rank for h in base[:2]}  # the lookup alone found the third
    found = rerank("¿Qué dice el artículo 28?", [base[0], base[1], named], [(ref, [named.chunk.doc_id])],
                   search_ranks)
    assert found[0].chunk.article == "28" and found[0].features["reference"] == 1.0
    assert found[0].features["fused"] == 0.0
