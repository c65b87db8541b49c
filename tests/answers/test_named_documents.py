"""A document the question names by its whole name, or as one of the annexes its title lists, or an annex by its number
and its instrument's initials, is what the question names (`retrieval.question_laws.understood`,
`retrieval.law_lookup.each_listed`, `law_lookup._annex_forms`): the search reports it resolved, and the answer does
not stand another document's text in for it.

Real DOF text: the RMF 2025's annexes 11, 12, 13, 23, 30, 31 and 32 published as one document ("ANEXOS 11, 12, 13, 23,
30, 31 y 32 de la Resolución Miscelánea Fiscal para 2025, …"), and the edition of 2023-01-11, which holds the RMF
2023's Anexo 14 among other acts. The questions are those of benchmarks/fresh_questions.tsv (laws_n, laws_i) and of
a set written afterwards on these PDFs.
"""

from __future__ import annotations

import json

import pytest

from retrieval.answers import ask
from retrieval.law_lookup import each_listed
from retrieval.legal_search import legal_search
from retrieval.settings import Settings
from tests.index_fixtures import build_index

LISTED = "ANEXOS 11, 12, 13, 23, 30, 31 y 32 de la Resolución Miscelánea Fiscal para 2025"
ANEXO_14 = "ANEXO 14 de la Resolución Miscelánea Fiscal para 2023"


@pytest.fixture(scope="module")
def rmf_index(tmp_path_factory):
    home = tmp_path_factory.mktemp("rmf") / "home"
    with build_index(home, ["dof_2025-01-14_RMF2025_anexo13_landscape.pdf",
                            "dof_2023-01-11_MAT_first20pages.pdf"]) as idx:
        yield idx


def test_a_title_listing_annexes_names_each_of_them():
    """The title as the DOF prints it (tests/data/identity_truth.tsv); its date after the list is not the name."""
    title = f"{LISTED}, publicada el 30 de diciembre de 2024."
    assert each_listed(title)[2] == "ANEXO 13 de la Resolución Miscelánea Fiscal para 2025"
    assert [n.split()[1] for n in each_listed(title)] == ["11", "12", "13", "23", "30", "31", "32"]
    assert each_listed(f"{ANEXO_14}, publicada el 27 de diciembre de 2022.") == []


@pytest.mark.parametrize("question", [
    "¿Quién firmó el Anexo 13 de la Resolución Miscelánea Fiscal para 2025 y por qué no lo firmó el jefe del SAT?",
    "¿Qué contiene el Anexo 31 de la Resolución Miscelánea Fiscal para 2025?",
])
def test_an_annex_the_title_lists_is_resolved_to_that_document(rmf_index, question):
    refs = legal_search(rmf_index, question, k=8).references
    assert [(r.resolved, r.titles[0][:len(LISTED)]) for r in refs] == [(True, LISTED)], refs


def test_an_annex_the_title_does_not_list_is_not_that_document(rmf_index):
    """Anexo 14 of 2025 is not among 11, 12, 13, 23, 30, 31 and 32 (nor the Anexo 14 of 2023)."""
    refs = legal_search(rmf_index, "¿Qué contiene el Anexo 14 de la Resolución Miscelánea Fiscal para 2025?",
                        k=8).references
    assert not any(r.resolved for r in refs), refs


@pytest.mark.parametrize(("question", "title"), [
    ("¿Qué artículo del ISR fundamenta el Anexo 13 RMF?", LISTED),
    ("¿Qué contiene el Anexo 31 de la RMF para 2025?", LISTED),
    ("¿Qué áreas lista el anexo 13 de la RMF 2025?", LISTED),
    ("¿Qué periodo cubre el Anexo 14 de la RMF 2023?", ANEXO_14),
])
def test_an_annex_named_by_its_instruments_initials_is_that_document(rmf_index, question, title):
    """A tax adviser names an annex by the initials of the Resolución Miscelánea Fiscal, its year given or not."""
    refs = legal_search(rmf_index, question, k=8).references
    assert [(r.resolved, r.titles[0][:len(title)]) for r in refs] == [(True, title)], refs


@pytest.mark.parametrize("question", [
    "¿Qué contiene el Anexo 13 de la RMF 2024?",  # another year's annex 13: not held
    "¿Qué contiene el Anexo 14 de la RMF 2025?",  # 2025's annexes held are 11, 12, 13, 23, 30, 31 and 32
])
def test_an_annex_of_another_year_or_number_is_not_that_document(rmf_index, question):
    refs = legal_search(rmf_index, question, k=8).references
    assert not any(r.resolved for r in refs), refs


def test_a_law_an_annex_cites_is_said_absent_and_the_annex_answers(rmf_index):
    """The Ley del ISR is not indexed, the Anexo 13 is: the answer says the law is absent, then quotes the annex's
    ground ("Para los efectos del artículo 79, fracción XIX de la Ley del ISR…"); `found` stays true."""
    settings = Settings(home=rmf_index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(rmf_index, "¿Qué artículo de la Ley del ISR fundamenta el Anexo 13 de la RMF 2025?", k=8,
                 settings=settings)
    assert answer.text.startswith("La Ley del ISR no está entre los documentos indexados."), answer.text
    assert answer.found and "79, fracción XIX" in answer.text, answer.text
    [annex] = [r.doc_ids[0] for r in answer.references if r.resolved]
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and {c.doc_id for c in cited} == {annex}, [c.label for c in cited]


def test_an_annex_named_by_number_is_not_answered_from_another_document(rmf_index):
    """"Según el Anexo 13 de la RMF 2025…" about Tabasco: the edition of 2023's Tabasco "Ampliación al Anexo de
    Asignación…" speaks of Tabasco's Registro Civil, and led the answer before; the annex named by its number answers,
    as a named law does."""
    settings = Settings(home=rmf_index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(rmf_index, "Según el Anexo 13 de la RMF 2025, ¿qué obligaciones tiene el Registro Civil de Tabasco?",
                 k=8, settings=settings)
    [annex] = [r.doc_ids[0] for r in answer.references if r.resolved]
    assert {s.document.doc_id for s in answer.sources} == {annex}, [s.document.title for s in answer.sources]
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert {c.doc_id for c in cited} <= {annex}, [c.label for c in cited]


def test_an_annex_named_by_number_is_searched_when_the_first_stage_holds_none_of_it(rmf_index):
    """The question's words are the 2023 edition's Tabasco "Ampliación al Anexo de Asignación y Transferencia de
    Recursos para el Programa de Registro e Identificación de Población": the first stage held only its chunks, so the
    named annex could not answer. The annex is searched on its own, and only its hits are sources."""
    result = legal_search(rmf_index, "¿Qué dice el Anexo 13 RMF sobre la transferencia de recursos para el Programa "
                                     "de Registro e Identificación de Población en Tabasco?", k=8, openings=True)
    [annex] = [r.doc_ids[0] for r in result.references if r.resolved]
    assert result.hits and {h.chunk.doc_id for h in result.hits} == {annex}, [h.label for h in result.hits]


def test_a_document_named_by_its_whole_name_is_not_answered_from_another(rmf_index):
    """The Anexo 14 of 2023 written out: the search reports it resolved, and the answer cites that annex or says it
    found nothing — not the edition's next act (the Tabasco "Ampliación al Anexo de Asignación…", which the answer
    quoted before, flagged as not addressing the question)."""
    question = ("¿Qué periodo cubre la información de donatarias autorizadas del Anexo 14 de la Resolución Miscelánea "
                "Fiscal para 2023?")
    refs = legal_search(rmf_index, question, k=8).references
    assert [(r.resolved, r.titles[0][:len(ANEXO_14)]) for r in refs] == [(True, ANEXO_14)], refs
    settings = Settings(home=rmf_index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(rmf_index, question, k=8, settings=settings)
    data = json.loads(answer.model_dump_json())
    cited = [c for seg in answer.content for c in seg.citations]
    assert all(ANEXO_14 in c.label or c.doc_id == refs[0].doc_ids[0] for c in cited), [c.label for c in cited]
    assert data["found"] is bool(cited)


def test_an_edition_named_by_its_day_is_answered_from_that_editions_documents(rmf_index):
    """"el DOF del 14 de enero de 2025" is the edition that published the RMF 2025's annexes: the answer cites its
    documents only, not the edition of 2023-01-11's (which holds the RMF 2023's Anexo 14)."""
    settings = Settings(home=rmf_index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(rmf_index, "¿Qué anexos de la Resolución Miscelánea Fiscal publicó el DOF el 14 de enero de 2025?",
                 k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert answer.found and cited, answer.text
    assert {answer.sources[c.source_index].document.publication_date.isoformat() for c in cited} == {"2025-01-14"}
    assert {s.document.publication_date.isoformat() for s in answer.sources} == {"2025-01-14"}


def test_an_edition_the_index_does_not_hold_is_said_to_be_absent(rmf_index):
    """No document of the DOF of 3 March 2022 is indexed: the answer says so and names the editions held closest to
    that day, `found` false, no sources — not another day's acts. The search reports the same."""
    settings = Settings(home=rmf_index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(rmf_index, "¿Qué publicó el DOF el 3 de marzo de 2022?", k=6, settings=settings)
    data = json.loads(answer.model_dump_json())
    assert data["found"] is False and answer.sources == []
    assert answer.text.startswith("El DOF del 03-03-2022 no está entre los documentos indexados; las ediciones del DOF "
                                  "indexadas más cercanas son las del 11-01-2023 y 14-01-2025"), answer.text
    [edition] = legal_search(rmf_index, "¿Qué publicó el DOF el 3 de marzo de 2022?", k=6).references
    assert edition.absent and not edition.resolved and edition.reference.text == "DOF el 3 de marzo de 2022"
