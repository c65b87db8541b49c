"""A special regime's provision yields to the general rule that says as much of what is asked.

The Ley de Sociedades de Capital states the general rule for every sociedad de capital ("La junta general será
convocada por los administradores…", art. 166, TÍTULO V La junta general) and gives whole Títulos to special kinds of
sociedad ("TÍTULO XIII Sociedad anónima europea", "TÍTULO XIV Sociedades anónimas cotizadas"), whose articles repeat
the general words ("La junta general de la sociedad anónima europea deberá ser convocada…", art. 493), and led the
answer to "¿Quién convoca la junta general?". A Título named by a kind of what its law regulates is a special regime
(`regimes.special_regime`); a sentence of it yields to a sentence of the same law outside any that holds every
question term it holds (`subjects.yielding`), unless the question names the kind — every word of it: "sociedad
anónima" does not name the "sociedad anónima europea". Where no general provision says as much ("Participación a
distancia", art. 521 of the cotizadas), the special one answers. The index holds the
LSC's pages of its enacting decree, arts. 1, 159–189, 455, 492–495, 515 and 521, cut from the shared PDF.
"""

from __future__ import annotations

import pytest

from retrieval.legal_search import legal_search
from tests.answers.factory import verified_citations
from tests.conftest import SHARED
from tests.index_fixtures import build_cut_index

LSC = SHARED / "data" / "laws" / "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf"
CUTS = [(LSC, [(0, 0), (10, 11), (47, 49), (50, 53), (111, 111), (115, 117), (124, 124), (127, 127)])]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    with build_cut_index(tmp_path_factory.mktemp("regimes"), CUTS) as idx:
        yield idx


def test_the_general_rule_answers_a_question_that_names_no_special_kind(index):
    """Art. 166 is quoted, and no article of the sociedad anónima europea or of the cotizadas."""
    cited = verified_citations(index, "¿Quién convoca la junta general?")
    assert "166" in {c.article for c in cited}, [c.label for c in cited]
    assert not {c.article for c in cited} & {"492", "493", "515"}, [c.label for c in cited]


def test_a_kind_named_in_part_is_not_the_special_kind(index):
    """"Sociedad anónima" is one word of the SE's "Sociedad anónima europea": the question asks about every sociedad
    anónima, and the SE's art. 493 ("La junta general de la sociedad anónima europea deberá ser convocada…") yields."""
    cited = verified_citations(index, "¿Cómo se convoca la junta general de una sociedad anónima?")
    assert cited and not {c.article for c in cited} & {"492", "493"}, [c.label for c in cited]


def test_a_special_regime_answers_a_question_that_names_its_kind(index):
    cited = verified_citations(index, "¿Quién convoca la junta general de la sociedad anónima europea?")
    assert cited and cited[0].article in {"492", "493"}, [c.label for c in cited]


def test_a_special_provision_no_general_one_matches_still_answers(index):
    cited = verified_citations(index, "¿Qué dispone la ley sobre participación a distancia?")
    assert cited and cited[0].article == "521", [c.label for c in cited]


def _articles(index, question, k=8):
    return [h.chunk.article for h in legal_search(index, question, k=k, openings=True).hits]


def _special(article: str) -> bool:  # the SE's Título XIII (arts. 455–494) and the cotizadas' XIV (495–541)
    return int(article.split()[0]) >= 455


def test_a_special_kind_the_question_names_nothing_of_ranks_after_the_general_rule(index):
    """Asked about a sociedad limitada, the cotizadas' art. 515 ("Plazo de convocatoria de las juntas generales
    extraordinarias.", "… con una antelación mínima de quince días") is not the rule: the search ranks every hit of
    the special Títulos after the law's other hits (`regimes.set_apart`), and the answer quotes none of them."""
    question = "¿Con cuánta antelación hay que convocar la junta general de una sociedad limitada?"
    ranked = _articles(index, question, k=30)
    special = [i for i, article in enumerate(ranked) if _special(article)]
    assert special and min(special) > max(i for i, article in enumerate(ranked) if not _special(article)), ranked
    cited = verified_citations(index, question)
    assert cited and not any(_special(c.article) for c in cited), [c.label for c in cited]


def test_a_special_kind_the_question_names_keeps_its_place(index):
    """Naming one word of the kind ("cotizada") may ask about it: its hits keep the place the reranker gives them."""
    ranked = _articles(index, "¿Con cuánta antelación se convocan las juntas extraordinarias de una sociedad cotizada?")
    assert ranked and ranked[0] == "515", ranked
