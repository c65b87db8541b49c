"""A question asking where a law regulates a matter is answered with the divisions whose names are that matter.

"¿Dónde regula la Ley de Amparo la suspensión del acto reclamado?" — the law answers in its own structure: its
"Sección Tercera" / "Suspensión del Acto Reclamado" (p. 45 of the DOF's text, arts. 125 ff., amparo indirecto) and
"Sección Cuarta" / "Suspensión del Acto Reclamado" (p. 66, arts. 190 ff., amparo directo). Before, the answer quoted
art. 148 (the suspension of a self-executing norm), a provision inside the first section, and named neither. The
Código Penal prints "TÍTULO I" / "Del homicidio y sus formas" over its art. 138 (p. 59); the LEC prints "TÍTULO III"
/ "Del juicio verbal" over its art. 437 (p. 179), and a lawyer names it "la LEC". Expected values are what those
pages print. The index holds the pages where each division opens, cut from the real PDFs.
"""

from __future__ import annotations

import pytest

from retrieval.answers import ask
from retrieval.settings import Settings
from tests.conftest import PDFS, SHARED
from tests.index_fixtures import build_cut_index

LAWS = SHARED / "data" / "laws"
CUTS = [
    # the title page; CAPÍTULO IV Notificaciones (art. 24); TÍTULO SEGUNDO, CAPÍTULO I El Amparo Indirecto (art. 107)
    # and its Sección Tercera (arts. 125 ff.); CAPÍTULO II El Amparo Directo (art. 170) and its Sección Cuarta (190 ff.)
    # and CAPÍTULO VII Improcedencia (art. 61)
    (PDFS / "mx_ley_de_amparo.pdf", [(0, 0), (9, 9), (22, 22), (37, 37), (44, 45), (56, 56), (65, 66)]),
    # the title page; LIBRO II, TÍTULO I Del homicidio y sus formas (arts. 138 ff.); Sección 1.ª De las estafas (248)
    (LAWS / "boe_consolidado_BOE-A-1995-25444_codigo_penal.pdf", [(0, 1), (57, 59), (95, 95)]),
    # the title page; TÍTULO III Del juicio verbal (arts. 437 ff.)
    (LAWS / "boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf", [(0, 1), (178, 179)]),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    idx = build_cut_index(tmp_path_factory.mktemp("where-regulated"), CUTS)
    yield idx
    idx.close()


def _ask(index, question: str):
    settings = Settings(home=index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(index, question, k=8, settings=settings)
    return answer, [c for seg in answer.content for c in seg.citations if c.verified]


def test_the_sections_a_law_regulates_a_matter_in_are_named_and_the_first_one_quoted(index):
    answer, cited = _ask(index, "¿Dónde regula la Ley de Amparo la suspensión del acto reclamado?")
    assert [(d.path[-1], d.first_article) for d in answer.divisions] == [
        ("Sección Tercera Suspensión del Acto Reclamado", "125"),
        ("Sección Cuarta Suspensión del Acto Reclamado", "190")]
    assert [d.path[:2] for d in answer.divisions] == [
        ["TÍTULO SEGUNDO De los Procedimientos de Amparo", "CAPÍTULO I El Amparo Indirecto"],
        ["TÍTULO SEGUNDO De los Procedimientos de Amparo", "CAPÍTULO II El Amparo Directo"]]
    assert answer.text.startswith("Dónde se regula: Ley de Amparo, TÍTULO SEGUNDO, CAPÍTULO I, Sección Tercera "
                                  "«Suspensión del Acto Reclamado», arts. 125 a ")
    assert cited and cited[0].article == "125"
    assert "La suspensión del acto reclamado se decretará de oficio o a petición" in cited[0].cited_text


@pytest.mark.parametrize(("question", "division", "article", "quoted"), [
    ("¿En qué capítulo del Código Penal se regula el homicidio?", "TÍTULO I Del homicidio y sus formas", "138",
     "como reo de homicidio"),
    ("¿Qué artículos de la LEC regulan el juicio verbal?", "TÍTULO III Del juicio verbal", "437", "juicio verbal"),
    ("¿Dónde se regulan las notificaciones en la Ley de Amparo?", "CAPÍTULO IV Notificaciones", "24",
     "deben notificarse a más tardar dentro del tercer día hábil"),
    # the law's own name left implicit in its division's ("Improcedencia"), the law named by its subject only
    ("¿Dónde se regula la improcedencia del amparo?", "CAPÍTULO VII Improcedencia", "61",
     "El juicio de amparo es improcedente"),
    # the kind of offence left implicit in the code's division ("De las estafas")
    ("¿Qué artículos del Código Penal regulan el delito de estafa?", "Sección 1.ª De las estafas", "248",
     "Cometen estafa los que, con ánimo de lucro"),
])
def test_a_division_named_by_the_matter_answers_where(index, question: str, division: str, article: str,
                                                     quoted: str):
    answer, cited = _ask(index, question)
    assert [d.path[-1] for d in answer.divisions] == [division]
    assert answer.divisions[0].first_article == article
    assert cited and cited[0].article == article
    assert quoted in cited[0].cited_text


@pytest.mark.parametrize("question", [
    "¿Dónde se presenta la demanda de amparo?",  # where something is done, not where the law regulates it
    "¿Dónde regula la Ley de Amparo los daños punitivos?",  # no division is named so
    "¿Qué dice la Ley de Amparo sobre la suspensión del acto reclamado?",  # asks what, not where
])
def test_a_question_not_asking_where_or_naming_no_division_is_answered_as_before(index, question: str):
    answer, _ = _ask(index, question)
    assert answer.divisions == []
    assert not answer.text.startswith("Dónde se regula")


def test_a_law_named_by_its_acronym_alone_is_that_law(index):
    """"la LEC": the acronym the index's LEC has, with one vowel, a shape the parser reads as a law nowhere else."""
    answer, _ = _ask(index, "¿Qué artículos de la LEC regulan el juicio verbal?")
    assert [(r.reference.text, r.resolved, r.titles) for r in answer.references] == [
        ("LEC", True, ["Ley 1/2000, de 7 de enero, de Enjuiciamiento Civil."])]
