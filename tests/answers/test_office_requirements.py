"""A question about the requirements for one office is answered by that office's article, not another's.

A constitution states each office's requirements in an article of its own, opening "Para ser <office> se requiere:"
and listing them in fractions. The Constitution's art. 58 ("Para ser senador se requieren los mismos requisitos que
para ser diputado, excepto el de la edad…") shares most words with any such question, and led the answers to
"¿Qué edad se requiere para ser Presidente de la República?" (art. 82), "¿Qué requisitos se necesitan para ser
diputado?" (art. 55) and "¿Qué edad se requiere para ser Secretario de Estado?" (art. 91). A sentence whose article
states the requirements for another office (`text_analysis.offices`, `subjects.office_of`: the first office the
sentence introducing them names) is now another subject, as a sentence of another kind is.
The index holds the Constitution's pages of arts. 55–58, 82, 91–95, 97 and 102, cut from the shared PDF.
"""

from __future__ import annotations

import pytest

from retrieval.answers import ask
from retrieval.legal_search import legal_search
from retrieval.rerank import rerank
from retrieval.settings import Settings
from retrieval.text_analysis import offices
from tests.conftest import PDFS
from tests.index_fixtures import build_cut_index

CUTS = [(PDFS / "mx_ley_CPEUM_constitucion_politica.pdf", [(0, 1), (62, 65), (87, 88), (91, 94), (96, 97), (103, 104)])]
DURANGO = PDFS / "mx_durango_ley_del_periodico_oficial.pdf"
LEY_99 = PDFS / "co_diario_oficial_ley_99_1993.pdf"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    with build_cut_index(tmp_path_factory.mktemp("offices"), CUTS) as idx:
        yield idx


@pytest.mark.parametrize(("question", "article"), [
    ("¿Qué edad se requiere para ser Presidente de la República?", "82"),
    ("¿Qué requisitos se necesitan para ser diputado?", "55"),
    ("¿Qué edad se requiere para ser Secretario de Estado?", "91"),
    ("¿Qué requisitos hay para ser senador?", "58"),  # the senador's own article still answers for the senador
    ("¿Qué se necesita para ser Ministro de la Suprema Corte de Justicia de la Nación?", "95"),
    # art. 97 states one list of requirements for two offices: "Para ser electo Magistrada o Magistrado de Circuito,
    # así como Jueza o Juez de Distrito, se necesita:"
    ("¿Qué requisitos se piden para ser juez de distrito?", "97"),
    ("¿Qué se necesita para ser electo Magistrado de Circuito?", "97"),
])
def test_the_offices_own_article_answers(index, question, article):
    answer = ask(index, question, settings=Settings(home=index.settings.home))
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == article, [c.label for c in cited]
    assert all(c.article == article for c in cited), [c.label for c in cited]


def test_the_office_a_text_states_requirements_for():
    assert [t for _, t in offices("Para ser senador se requieren los mismos requisitos que para ser diputado")] \
        == ["senador", "diput"]
    assert [t for _, t in offices("Para que una persona pueda ser titular de la Fiscalía General de la República")] \
        == ["fiscali"]
    assert [t for _, t in offices("¿Qué se necesita para ser electo Presidente?")] == ["president"]
    both = "Para ser electo Magistrada o Magistrado de Circuito, así como Jueza o Juez de Distrito, se necesita:"
    assert offices(both) == [(0, "magistr"), (0, "magistr"), (0, "juez"), (0, "juez")]  # one statement, two offices
    assert [t for _, t in offices("Para ser electo ministro de la Suprema Corte de Justicia de la Nación, se necesita:")
            ] == ["ministr"]
    assert offices("¿Puede postularse para ser reelecta en el periodo inmediato?") == []  # no office named


@pytest.fixture(scope="module")
def durango(tmp_path_factory):
    with build_cut_index(tmp_path_factory.mktemp("director"), [*CUTS, (DURANGO, [(0, 9)]), (LEY_99, [(0, 58)])]) as idx:
        yield idx


def test_an_article_opening_with_an_offices_requirements_is_found_for_it(durango):
    """Durango's Ley del Periódico Oficial names the Periódico in nearly every article; its art. 15 opens "Para ser
    Director se requiere:" and has no title. Beside the Constitution's offices and the Ley 99's "Del Director
    General", the Director's requirements are answered from it."""
    question = "¿Qué requisitos se necesitan para ser Director del Periódico Oficial de Durango?"
    answer = ask(durango, question, settings=Settings(home=durango.settings.home))
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "15", [c.label for c in cited]


def test_the_opening_with_an_offices_requirements_ranks_as_a_title(durango):
    """Over all the shared PDFs the first stage ranks art. 15 16th for the Director question (the Periódico's name is
    in every article of its law): read as the article's title, its opening brings it into the eight the answer reads."""
    question = "¿Qué requisitos se necesitan para ser Director del Periódico Oficial de Durango?"
    hits = legal_search(durango, question, k=30, rerank=False).hits
    director = next(h for h in hits if h.chunk.article == "15" and "Para ser Director" in h.chunk.text)
    others = [h for h in hits if h is not director]
    first_stage = [*others[:15], director, *others[15:]]
    ranked = rerank(question, first_stage, [], {h.chunk.chunk_id: i for i, h in enumerate(first_stage, start=1)},
                    limit=8)
    assert "15" in [h.chunk.article for h in ranked], [h.label or h.chunk.article for h in ranked]
