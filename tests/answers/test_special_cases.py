"""An article for special cases yields to the general rule that says as much of what is asked.

A Spanish law titles the rules for special cases as such: the Ley de Enjuiciamiento Civil's juicio verbal states its
general rule in art. 438 ("Admisión de la demanda y contestación": the demandado answers "en el plazo de diez días")
and its exceptions in art. 441 ("Casos especiales en la tramitación inicial del juicio verbal.": "cuarenta días" for
the interesados a possession suit calls by edict, "cinco días" in a desahucio), whose words are the general rule's, and
led the answer to "¿Qué plazo tiene el demandado para contestar la demanda en el juicio verbal?". An article titled
as rules for special cases only ("Casos especiales…", "… en casos especiales.", "Especialidades de…":
`regimes.special_cases`, `regimes.special_regime`) is a special regime, as a Título of a kind of sociedad is
(test_special_regime.py): its sentence yields to a sentence of the same law outside any that holds every question
term it holds, in the sentence, its article's title or the divisions it stands in; where none does, or the question
speaks of special cases, it answers. The general rule it yields to stands in the article's division ("Del juicio
verbal"). A title that names a matter before its special cases ("Consecuencias de la falta de presentación inicial.
Casos especiales.") gives the general rule; a division of special rules is no special regime ("Sección 2.ª Reglas
especiales para la aplicación de las penas" of the Código Penal holds art. 73, the rule for two or more offences, which
no general rule states, though art. 62 shares its words: "A los autores de tentativa de delito se les impondrá la
pena inferior en uno o dos grados…"). The indexes hold the LEC's first page and its arts. 437–441, and the CP's first
page and arts. 59–77, cut from the shared PDFs.
"""

from __future__ import annotations

import pytest

from retrieval import regimes
from tests.answers.factory import verified_citations
from tests.conftest import SHARED
from tests.index_fixtures import build_cut_index

LEC = SHARED / "data" / "laws" / "boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf"
CP = SHARED / "data" / "laws" / "boe_consolidado_BOE-A-1995-25444_codigo_penal.pdf"
CUTS = [(LEC, [(0, 0), (178, 185)])]
CP_CUTS = [(CP, [(0, 0), (28, 32)])]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    with build_cut_index(tmp_path_factory.mktemp("special-cases"), CUTS) as idx:
        yield idx


@pytest.fixture(scope="module")
def penal(tmp_path_factory):
    with build_cut_index(tmp_path_factory.mktemp("special-rules"), CP_CUTS) as idx:
        yield idx


def test_the_general_rule_answers_before_the_special_cases(index):
    """Art. 438 is quoted first, and nothing of art. 441's special cases."""
    cited = verified_citations(index, "¿Qué plazo tiene el demandado para contestar la demanda en el juicio verbal?")
    assert cited and cited[0].article == "438", [c.label for c in cited]
    assert "441" not in {c.article for c in cited}, [c.label for c in cited]


def test_a_special_case_no_general_rule_states_still_answers(index):
    """Only art. 441 speaks of the interesados an edict in the Tablón Edictal Judicial Único calls."""
    cited = verified_citations(index, "¿En qué plazo pueden reclamar los interesados a los que insta el Tablón "
                                      "Edictal Judicial Único en el juicio verbal?")
    assert cited and cited[0].article == "441", [c.label for c in cited]


def test_a_question_on_special_cases_is_answered_by_them(index):
    cited = verified_citations(index, "¿Qué plazo tiene el demandado para contestar la demanda en los casos "
                                      "especiales del juicio verbal?")
    assert cited and cited[0].article == "441", [c.label for c in cited]


def test_a_division_of_special_rules_is_no_special_regime(penal):
    """Art. 73 stands in "Sección 2.ª Reglas especiales para la aplicación de las penas" and answers."""
    cited = verified_citations(penal, "¿Qué pena se impone al responsable de dos o más delitos?")
    assert cited and cited[0].article == "73", [c.label for c in cited]


@pytest.mark.parametrize("name, special", [
    ("Casos especiales en la tramitación inicial del juicio verbal.", True),
    ("Documentos exigidos en casos especiales.", True),
    ("Especialidades del incidente de recusación en juicios verbales. Otros casos especiales.", True),
    ("Oposición por pluspetición. Especialidades.", False),  # the rule on pluspetición, then its special cases
    ("Consecuencias de la falta de presentación inicial. Casos especiales.", False),
    ("Especialidad de la liquidación concursal.", True),
    ("Supuestos especiales de cese de administradores de la sociedad anónima.", True),
    ("Sentencia. Ausencia de cosa juzgada en casos especiales.", False),
    ("Instrumentos especiales de información.", False),
    ("Libro registro especial de acciones con voto doble.", False),
    ("Poder general y poder especial.", False),
])
def test_the_titles_of_special_cases(name, special):
    """Article titles of the shared laws: rules for special cases only, or a matter and its special cases, or a kind
    of a thing the law names."""
    assert regimes.special_cases(name) is special
