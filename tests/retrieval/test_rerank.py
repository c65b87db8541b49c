"""The second stage's legal weights: the text in force above transitory and reform-decree text, a named article
first, and a question about reforms weighing every role the same."""

from __future__ import annotations

import pytest

from ingest.models import HeadingKind, LegalReference, ProvisionRole
from retrieval.rerank import (ROLE_WEIGHTS, article_title, asks_about_history, names_topic, rerank, term_matches,
                              title_words)
from retrieval.text_analysis import content_terms
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


@pytest.mark.parametrize(("question", "history"), [
    ("¿Cuándo se habilitó el Puerto de Tuxpan para tráfico de altura?", True),  # a past event: its date
    ("¿Cuándo suscribieron las partes el Convenio de Coordinación?", True),
    ("¿Cuándo fue expedida la Ley de Amparo?", True),
    ("¿Cuándo entra en vigor el decreto?", True),
    ("¿Cuándo procede el sobreseimiento en el juicio de amparo?", False),  # the condition a rule states
    ("¿Cuándo debe disolverse la sociedad de capital?", False),
    ("¿Qué pena tiene el robo cuando hay violencia?", False),
])
def test_when_asks_about_history_only_of_a_past_event(question, history):
    assert asks_about_history(question) is history


@pytest.mark.parametrize(("question", "history"), [
    ("¿Cuándo se publica el decreto en el Diario Oficial?", True),  # the verb, in any form
    ("¿Quién publica las reglas de carácter general?", True),
    ("¿Cuál es la fecha de publicación de la ley?", True),
    ("¿Qué establece el documento publicado?", True),
    ("¿Qué facultades tiene la Secretaría de la Función Pública?", False),  # the adjective: what the law says
    ("¿Qué medidas de salud pública dispone la ley?", False),
    ("¿Quién preside la reunión pública de la comisión?", False),
])
def test_publishing_is_history_and_the_adjective_publica_is_not(question, history):
    assert asks_about_history(question) is history


def test_an_expropriation_for_public_use_is_answered_from_the_text_in_force():
    """"utilidad pública" names what article 27 says, not its reform: the text in force outranks the decree."""
    question = "¿Qué dispone la Constitución sobre la expropiación por causa de utilidad pública?"
    found = rerank(question, hits(), [], {h.chunk.chunk_id: h.rank for h in hits()})
    assert ranks(found)[1] == 1


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


def titled(hit, heading: str):
    return hit.model_copy(update={"chunk": hit.chunk.model_copy(update={
        "role": ProvisionRole.text, "heading_path": [heading], "heading_kinds": [HeadingKind.articulo]})})


def test_an_article_titled_with_the_questions_words_moves_up():
    base = make_hits(["El capital de la sociedad no podrá ser inferior a un euro.",
                      "La sociedad se constituye por escritura pública con su capital."])
    base = [titled(base[0], "Artículo 23. Estatutos sociales."), titled(base[1], "Artículo 4. Capital social mínimo.")]
    found = rerank("¿Qué dispone la ley sobre capital social mínimo?", base, [],
                   {h.chunk.chunk_id: h.rank for h in base})
    assert found[0].chunk.heading_path == ["Artículo 4. Capital social mínimo."]
    assert found[0].features["title"] > 0.5 > found[1].features["title"]  # "Estatutos sociales." shares one word
    # requisitos / requiere: another form of the word counts, at half weight
    assert article_title(base[1].chunk) == "Capital social mínimo."
    assert term_matches({"requisit", "president"}, {"requier", "president"}) == {"president": 1.0, "requisit": 0.5}


@pytest.mark.parametrize(("question", "title", "names"), [
    ("¿Qué dispone la ley sobre domicilio?", "Domicilio.", True),  # LSC art. 9
    ("¿Qué dispone la ley sobre capital social mínimo?", "Capital social mínimo.", True),  # LSC art. 4
    ("¿Cuáles son los requisitos de la demanda?", "Requisitos de la demanda.", True),
    # half the question's terms, but about something else: LSC art. 140 does not name "monopolios" as a topic
    ("¿Están permitidos los monopolios?", "Adquisiciones derivativas permitidas.", False),
    ("¿Qué dispone la ley sobre capital social mínimo?", "Estatutos sociales.", False),  # one word shared, of two
])
def test_a_title_names_the_topic_only_when_all_of_it_is_asked_about(question, title, names):
    """The search consults the article openings unless a candidate's title names what the question asks about
    (`legal_search._titled`); the relevance flag reads the same rule (`coverage.titled_articles`)."""
    assert (names_topic(content_terms(question), title_words(title)) is not None) is names


def test_hits_without_article_titles_keep_the_first_stages_order():
    base = make_hits(BODIES)
    found = rerank("¿Qué dispone sobre la propiedad de las aguas?", base, [], {h.chunk.chunk_id: h.rank for h in base})
    assert [h.chunk.index for h in found] == [0, 1, 2] and all(h.features["title"] == 0.0 for h in found)
