"""Extractive answers on a real DOF edition (11-Jan-2023, first 20 pages): cited exactly, verified, covered."""

from __future__ import annotations

import pytest

from retrieval.answers import ask, ask_stream
from retrieval.answers.extractive import NOT_FOUND
from retrieval.answers.models import CitationEvent, CoverageEvent, DoneEvent, SourcesEvent, TextEvent
from tests.index_fixtures import build_index

DOF = "dof_2023-01-11_MAT_first20pages.pdf"

# Questions whose answer is in the edition, and a phrase the cited span must contain.
ANSWERABLE = {
    "¿Cuándo se habilitó el Puerto de Tuxpan para tráfico de altura, mixto, de cabotaje y pesca?": "28 de mayo de 1974",
    "¿Cuál es el área total del recinto portuario de Tuxpan determinado en 1988?": "413,480.2479",
    "¿Cuándo suscribieron las partes el Convenio de Coordinación para el Programa de Registro e Identificación de "
    "Población?": "22 de enero de 2020",
}


@pytest.fixture(scope="module")
def dof_index(tmp_path_factory):
    index = build_index(tmp_path_factory.mktemp("dof-answers"), [DOF])
    yield index
    index.close()


@pytest.fixture(scope="module")
def answers(dof_index):
    return {q: ask(dof_index, q, answerer="extractive") for q in ANSWERABLE}


@pytest.mark.parametrize("question", ANSWERABLE)
def test_answers_are_fully_verified_and_covered(answers, dof_index, question):
    answer = answers[question]
    cites = [c for seg in answer.content for c in seg.citations]
    assert answer.found and answer.backend == "extractive" and cites
    assert all(c.verified and c.score == 100.0 for c in cites)
    assert answer.coverage.ratio >= 0.8 and not answer.coverage.flagged
    assert any(ANSWERABLE[question] in c.cited_text for c in cites)
    for c in cites:  # each citation resolves to its exact span of the document Markdown and a real page
        document = dof_index.document(c.doc_id)
        assert document.markdown[c.start : c.end] == c.cited_text
        assert c.pages == sorted({document.page_at(c.start), document.page_at(c.end - 1)})
        assert answer.sources[c.source_index].chunk.chunk_id == c.chunk_id


def test_sentences_are_distinct_and_in_document_order(answers):
    for answer in answers.values():
        cites = [c for seg in answer.content for c in seg.citations]
        assert len({c.cited_text for c in cites}) == len(cites)
        by_doc: dict[str, list[int]] = {}
        for c in cites:
            by_doc.setdefault(c.doc_id, []).append(c.start)
        assert all(starts == sorted(starts) for starts in by_doc.values())


def test_says_plainly_when_nothing_relevant_was_found(dof_index):
    answer = ask(dof_index, "¿Cuál es la receta tradicional del mole poblano con chocolate?", answerer="extractive")
    assert not answer.found
    assert answer.text == NOT_FOUND
    assert not any(seg.citations for seg in answer.content)


def test_stream_emits_sources_text_citations_coverage_done(dof_index, answers):
    question = next(iter(ANSWERABLE))
    events = list(ask_stream(dof_index, question, answerer="extractive"))
    kinds = [type(e) for e in events]
    assert kinds[0] is SourcesEvent and kinds[-2:] == [CoverageEvent, DoneEvent]
    assert set(kinds[1:-2]) == {TextEvent, CitationEvent}
    done = events[-1].answer
    assert done.content == answers[question].content
    assert "".join(e.text for e in events if isinstance(e, TextEvent)) == done.text


# -- a notice named by its title: the question names a document, not a topic for the articles of every law ----------
NAMED_NOTICES = {  # the notice's title as a lawyer writes it → words of that notice's title
    "¿Qué modifica el Tercer Addendum al Título de Concesión otorgado en favor de Administración Portuaria Integral "
    "de Tuxpan?": "TERCER Addendum al Título de Concesión",
    "¿Qué establece la Ampliación al Anexo de asignación y transferencia de recursos para el Programa de Registro e "
    "Identificación de Población?": "AMPLIACIÓN al Anexo de asignación",
}


@pytest.fixture(scope="module")
def dof_and_law(tmp_path_factory):
    # beside the edition, a law with numbered articles: their openings are what a question naming no article
    # consults, and the Reglamento's articles led these answers before
    index = build_index(tmp_path_factory.mktemp("dof-and-law"), [DOF, "mx_reglamento_arts_121_122_LFT.pdf"])
    yield index
    index.close()


@pytest.mark.parametrize("question", NAMED_NOTICES)
def test_a_notice_named_by_its_title_is_answered_from_that_notice(dof_and_law, question):
    from retrieval.legal_search import legal_search

    found = legal_search(dof_and_law, question, k=5, openings=True)
    assert found.hits and all(NAMED_NOTICES[question] in h.document.title for h in found.hits[:3])
    answer = ask(dof_and_law, question, answerer="extractive")
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert answer.found and cited
    assert NAMED_NOTICES[question] in dof_and_law.document(cited[0].doc_id).title
