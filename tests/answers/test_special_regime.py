"""A special regime's provision yields to the general rule that says as much of what is asked.

The Ley de Sociedades de Capital states the general rule for every sociedad de capital ("La junta general será
convocada por los administradores…", art. 166, TÍTULO V La junta general) and gives whole Títulos to special kinds of
sociedad ("TÍTULO XIII Sociedad anónima europea", "TÍTULO XIV Sociedades anónimas cotizadas"), whose articles repeat
the general words ("La junta general de la sociedad anónima europea deberá ser convocada…", art. 493), and led the
answer to "¿Quién convoca la junta general?". A Título named by a kind of what its law regulates is a special regime
(`subjects.special_regime`); a sentence of it yields to a sentence of the same law outside any that holds every
question term it holds (`subjects.yielding`), unless the question names the kind — every word of it: "sociedad
anónima" does not name the "sociedad anónima europea". Where no general provision says as much ("Participación a
distancia", art. 521 of the cotizadas), the special one answers. The index holds the
LSC's pages of its enacting decree, arts. 1, 159–166, 182–189, 455, 492–495, 515 and 521, cut from the shared PDF.
"""

from __future__ import annotations

import pytest

from tests.answers.factory import verified_citations
from tests.conftest import SHARED
from tests.index_fixtures import build_cut_index

LSC = SHARED / "data" / "laws" / "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf"
CUTS = [(LSC, [(0, 0), (10, 11), (47, 49), (51, 53), (111, 111), (115, 117), (124, 124), (127, 127)])]


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
