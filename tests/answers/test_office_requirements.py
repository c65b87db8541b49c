"""A question about the requirements for one office is answered by that office's article, not another's.

A constitution states each office's requirements in an article of its own, opening "Para ser <office> se requiere:"
and listing them in fractions. The Constitution's art. 58 ("Para ser senador se requieren los mismos requisitos que
para ser diputado, excepto el de la edad…") shares most words with any such question, and led the answers to
"¿Qué edad se requiere para ser Presidente de la República?" (art. 82), "¿Qué requisitos se necesitan para ser
diputado?" (art. 55) and "¿Qué edad se requiere para ser Secretario de Estado?" (art. 91). A sentence whose article
states the requirements for another office (`text_analysis.offices`, `subjects.office_of`: the first office the
sentence introducing them names) is now another subject, as a sentence of another kind is.
The index holds the Constitution's pages of arts. 55–58, 82, 91–95 and 102, cut from the shared PDF.
"""

from __future__ import annotations

import pytest

from retrieval.answers import ask
from retrieval.settings import Settings
from retrieval.text_analysis import offices
from tests.conftest import PDFS
from tests.index_fixtures import build_cut_index

CUTS = [(PDFS / "mx_ley_CPEUM_constitucion_politica.pdf", [(0, 1), (62, 65), (87, 88), (91, 94), (103, 104)])]


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
    assert offices("¿Puede postularse para ser reelecta en el periodo inmediato?") == []  # no office named
