"""A question asking how a case was decided is answered by the judgment's operative part (`retrieval.rulings`): the
sentence that opens it is found by its form in the judgments among the best hits, leads the search (via
"disposition") and the answer, and is quoted whole even where the page broke it in two.

Real judgments: Chile's Corte Suprema, Rol 161.630-2023 (its operative part: "Por estas consideraciones y visto, además,
lo dispuesto … se rechazan el recurso de casación en el fondo…", p. 22) and the First Circuit's opinion in No. 20-1507
("For the reasons elucidated above, the Chapel's appeal is" / "dismissed without prejudice for lack of appellate
jurisdiction.", p. 16, split by a blank line in the PDF's text), beside the Ley de Amparo (a law, no judgment). The
questions are those of benchmarks/fresh_questions.tsv (laws_h, laws_i) and of a set written afterwards.
"""

from __future__ import annotations

import pytest

from retrieval.answers import ask
from retrieval.legal_search import legal_search
from retrieval.rulings import asks_outcome, disposes
from retrieval.settings import Settings
from tests.index_fixtures import build_index

CHILE = ("¿Cómo terminó en la Corte Suprema de Chile el juicio de Inmobiliaria El Bosque contra la arrendataria que "
         "dejó de pagar la renta durante la pandemia?")
FIRST_CIRCUIT = ("How did the First Circuit resolve Calvary Chapel of Bangor's appeal from the denial of a temporary "
                 "restraining order against Maine's COVID-19 gathering orders?")


@pytest.fixture(scope="module")
def courts_index(tmp_path_factory):
    home = tmp_path_factory.mktemp("courts") / "home"
    with build_index(home, ["cl_corte_suprema_sentencia_2024_imprevision.pdf", "us_ca1_court_of_appeals_opinion.pdf",
                            "mx_ley_de_amparo.pdf"]) as idx:
        yield idx


def _answer(index, question):
    settings = Settings(home=index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(index, question, k=8, settings=settings)
    return answer, [c for seg in answer.content for c in seg.citations]


def test_what_asks_how_a_case_was_decided():
    assert asks_outcome(CHILE) and asks_outcome(FIRST_CIRCUIT)
    assert asks_outcome("¿Qué resolvió la Suprema Corte en el amparo en revisión 1234/2023?")
    assert asks_outcome("¿Se acogió el recurso de casación de Inmobiliaria El Bosque?")
    assert asks_outcome("Was the Chapel's appeal dismissed?")
    assert not asks_outcome("¿Se rechaza la demanda si no se acompañan los documentos?")  # what the rule is
    assert not asks_outcome("¿Qué plazas de libre designación resolvió el Ministerio en abril de 2024?")
    assert not asks_outcome("¿Cómo se elige al Presidente de la República?")
    assert not asks_outcome("¿Se le puede cobrar al arrendatario la multa diaria por atraso pactada en el contrato?")


def test_what_opens_an_operative_part():
    """Sentences as the judgments print them (the Chilean one shortened after its first clause)."""
    assert disposes("Por estas consideraciones y visto, además, lo dispuesto en las normas legales citadas y en los "
                    "artículos 764, 765, 766, 767 y 768 del Código de Procedimiento Civil, se rechazan el recurso…")
    assert disposes("For the reasons elucidated above, the Chapel's appeal is")
    # the Tennessee Workers' Compensation Appeals Board (scan_us_tn_workers_comp_appeals_opinion.pdf, OCR'd)
    assert disposes("Having carefully reviewed the record, we reverse the trial court’s decision and remand the case "
                    "for entry of an order granting the employer’s motion for summary judgment.")
    # the formulas of the other systems, as their courts print them
    assert disposes("Por lo expuesto y fundado, se resuelve:")
    assert disposes("En mérito de lo expuesto, la Sala de Casación Civil de la Corte Suprema de Justicia, "
                    "administrando justicia en nombre de la República y por autoridad de la ley, RESUELVE:")
    assert disposes("Por todo lo expuesto, en nombre del Rey y por la autoridad que le confiere la Constitución, esta "
                    "Sala ha decidido:")
    assert not disposes("VIGÉSIMO: Que, consecuencia de todo lo antes razonado, es que la sentencia impugnada no ha "
                        "incurrido en los yerros jurídicos de fondo que se le atribuyen…")
    assert not disposes("On May 9, the district court issued a thoughtful rescript, in which it denied the Chapel's "
                        "request for a temporary restraining order.")


def test_the_operative_part_leads_the_search(courts_index):
    """The Chilean judgment's operative part is not among its first hits (the facts share the parties' names)."""
    hits = legal_search(courts_index, CHILE, k=8).hits
    assert hits[0].via == "disposition" and "se rechazan el recurso de casación" in hits[0].chunk.text, hits[0].label


@pytest.mark.parametrize("question,decided", [
    (CHILE, "se rechazan el recurso de casación en el fondo"),
    (FIRST_CIRCUIT, "dismissed without prejudice for lack of appellate jurisdiction"),
], ids=["Corte Suprema de Chile", "First Circuit"])
def test_a_question_on_how_a_case_ended_is_answered_by_its_operative_part(courts_index, question, decided):
    answer, cited = _answer(courts_index, question)
    assert answer.found and cited and cited[0].verified, answer.text
    assert decided in " ".join(cited[0].cited_text.split()), [c.cited_text[:120] for c in cited]


def test_a_question_on_a_judgments_reasons_is_not_answered_by_its_operative_part(courts_index):
    """Asked why, not how it ended: no chunk is marked, and the answer is what it was before."""
    question = ("En el fallo de la Corte Suprema chilena de julio de 2024 sobre imprevisión, ¿por qué no se le rebajó "
                "la renta a la arrendataria pese a las restricciones por covid?")
    assert not any(h.via == "disposition" for h in legal_search(courts_index, question, k=8).hits)


def test_a_case_not_indexed_is_not_answered_by_another_judgments_operative_part(courts_index):
    """The Tennessee opinion is not in this index: the First Circuit's "appeal is dismissed…" decided another case."""
    answer, cited = _answer(courts_index, "How did the Tennessee Workers' Compensation Appeals Board resolve the "
                                          "employer's appeal in Goodwin v. Morristown Driver's Services?")
    assert not any("dismissed without prejudice" in c.cited_text for c in cited), answer.text

