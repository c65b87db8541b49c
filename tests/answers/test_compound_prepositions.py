"""The nouns of compound prepositions name nothing a sentence states.

"Derecho de separación en caso de falta de distribución de dividendos." (LSC art. 348 bis) is the right of separation
in one case; its "en caso de" is a compound preposition, as "a fin de", "en virtud de", "a través de", "con objeto de"
are, and states no "casos". Read as content, it gave the title of art. 348 bis every word of "¿En qué casos tienen los
socios derecho de separación?", and that article answered instead of art. 346, "Causas legales de separación": "…
tendrán derecho de separación en los casos siguientes:". The extractive answerer and the reranker read questions,
sentences and titles without those nouns (`text_analysis.stated_terms`). The index holds the LSC's first page and
its arts. 341–353, cut from the shared PDF.
"""

from __future__ import annotations

import pytest

from retrieval.text_analysis import analyze, content_terms, stated_terms
from tests.answers.factory import verified_citations
from tests.conftest import SHARED
from tests.index_fixtures import build_cut_index

LSC = SHARED / "data" / "laws" / "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf"
CUTS = [(LSC, [(0, 0), (91, 93)])]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    with build_cut_index(tmp_path_factory.mktemp("compound-prepositions"), CUTS) as idx:
        yield idx


@pytest.mark.parametrize("text, noun", [
    ("Derecho de separación en caso de falta de distribución de dividendos.", "caso"),
    ("Sobreseimiento de la ejecución en el caso de inexistencia de la hipoteca.", "caso"),
    ("…a protección ambiental a través de las corporaciones autónomas regionales", "través"),
    ("…con objeto de regular la participación de los trabajadores", "objeto"),
])
def test_the_noun_of_a_compound_preposition_is_no_term(text, noun):
    (term,) = analyze(noun, ("spanish",))
    assert term in content_terms(text) and term not in stated_terms(text)


def test_a_question_asking_for_cases_keeps_them():
    assert set(analyze("casos", ("spanish",))) <= stated_terms("¿En qué casos tienen los socios derecho de separación?")


def test_the_cases_of_a_right_are_answered_by_the_article_listing_them(index):
    cited = verified_citations(index, "¿En qué casos tienen los socios derecho de separación?")
    assert cited and cited[0].article == "346", [c.label for c in cited]
