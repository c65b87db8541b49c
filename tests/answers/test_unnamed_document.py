"""A law named by its number, and an indexed document of its kind that prints no number: not "not indexed".

The NOM-001-SEDE-2012's first chapter, as shared, never prints the norm's number: it opens "CAPITULO 1 /
DISPOSICIONES GENERALES / ARTICULO 100" and calls itself "esta NOM" (only its file name says which NOM it is, and a
file name is no evidence of what a document is). Asked "Según la NOM-001-SEDE-2012, ¿cómo deben ser las puertas…?",
the answer said "La NOM-001-SEDE-2012 no está entre los documentos indexados", `found: false`, though the index held
the very text. A document of the named kind (a Norma Oficial Mexicana) that prints neither its name nor its number
may be the one named (`LawCatalog.unnamed`): the question is answered from it — and only from it, since the named one
may still be absent — and the answer opens saying it is not sure which norm that text is.
"""

from __future__ import annotations

import pytest

from gaceta.answer_html import reference_text
from retrieval.answers import ask
from retrieval.legal_search import legal_search
from retrieval.settings import Settings
from tests.index_fixtures import build_index

NOM = "mx_nom-001-sede-2012_capitulo1.pdf"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    idx = build_index(tmp_path_factory.mktemp("unnamed") / "home", [NOM, "mx_ley_de_amparo.pdf"])
    yield idx
    idx.close()


def _nom(index) -> str:
    return next(d.doc_id for d in index.document_infos() if d.source_path and d.source_path.endswith(NOM))


def _ask(index, question: str):
    answer = ask(index, question, settings=Settings(home=index.settings.home))
    return answer, [c for seg in answer.content for c in seg.citations if c.verified]


def test_a_norm_named_by_its_number_is_answered_from_the_norm_that_prints_none(index):
    answer, cited = _ask(index, "Según la NOM-001-SEDE-2012, ¿cómo deben ser las puertas por las que se entra al "
                                "espacio de trabajo de equipos de más de 600 volts?")
    assert answer.found and cited
    assert {c.doc_id for c in cited} == {_nom(index)}
    assert answer.text.startswith("No consta si la NOM-001-SEDE-2012 está entre los documentos indexados: "
                                  "«DISPOSICIONES GENERALES» (NORMA OFICIAL MEXICANA) no imprime su nombre ni su "
                                  "número.")
    (ref,) = answer.references
    assert ref.resolved and not ref.absent and ref.possible == ["DISPOSICIONES GENERALES"]
    # the page's "Entendido:" line (answer_html; gaceta/web/app.js says the same)
    assert reference_text(ref) == ("«NOM-001-SEDE-2012», quizá DISPOSICIONES GENERALES (no imprime su nombre ni su "
                                   "número)")


def test_another_norm_is_not_answered_from_another_document(index):
    """The index's unnumbered NOM may be the NOM-035-STPS-2018 as far as its text says; the Ley de Amparo, whose
    art. 79 speaks "En materia laboral", is not."""
    answer, cited = _ask(index, "¿Qué dice la NOM-035-STPS-2018 sobre el estrés laboral?")
    assert answer.text.startswith("No consta si la NOM-035-STPS-2018")
    assert {c.doc_id for c in cited} <= {_nom(index)}


def test_search_reports_the_reference_as_unsure(index):
    result = legal_search(index, "NOM-001-SEDE-2012 espacio de trabajo puertas", k=5)
    (ref,) = result.references
    assert ref.resolved and ref.doc_ids == [_nom(index)] and ref.reason.startswith("No consta si")
    assert {h.chunk.doc_id for h in result.hits} == {_nom(index)}


def test_a_law_named_by_its_name_is_still_absent(index):
    answer, cited = _ask(index, "¿Qué pena impone el Código Penal Federal al homicidio?")
    assert not answer.found and not cited
    assert answer.text.startswith("El Código Penal Federal no está entre los documentos indexados")
