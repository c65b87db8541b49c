"""A gazette's summary published as a document of its own — the BOE's "Sumario", a DOF edition's "Contenido" —
states what each act it lists does ("Real Decreto 354/2024, de 26 de marzo, por el que se nombra Decano de los
Juzgados de Valladolid al Magistrado don Alberto Mata Saiz"), and it may be all the index holds of that act: its
entries answer. An entry for a document the search also retrieved does not: that document's own text answers.
A law's table of contents still answers nothing (tests/answers/test_extractive_dof.py and the title questions)."""

from __future__ import annotations

import pytest

from tests.answers.factory import cli_answer
from tests.index_fixtures import build_index

SUMARIO = "boe_2024-04-15_sumario_BOE-S-2024-92.pdf"  # the BOE of 15 April 2024: its summary alone
EDITION = "dof_2024-12-15_MAT_full_edition_34pp.pdf"  # a DOF edition: its "Contenido" and the LISTADOS it lists


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("gazette_summary")
    build_index(home, [SUMARIO, EDITION]).close()
    return home


def first_cited(answer: dict) -> dict:
    cited = [c for seg in answer["content"] for c in seg["citations"] if c["verified"]]
    assert answer["found"] and cited, answer["content"]
    return cited[0]


@pytest.mark.parametrize("question,states", [
    ("¿Quién fue nombrado Decano de los Juzgados de Valladolid por real decreto de marzo de 2024?",
     "Alberto Mata Saiz"),
    ("¿Qué orden ministerial creó la oficina consular honoraria de España en El Calafate (Argentina)?",
     "Orden AUC/319/2024, de 9 de abril"),
])
def test_an_act_the_index_holds_only_through_the_summary_is_answered_from_its_entry(home, monkeypatch, question,
                                                                                       states):
    cited = first_cited(cli_answer(home, monkeypatch, question))
    assert "Sumario" in cited["document_title"], cited["label"]
    assert states in cited["cited_text"], cited["cited_text"]


def test_an_entry_for_a_retrieved_document_leaves_the_answer_to_that_documents_text(home, monkeypatch):
    answer = cli_answer(home, monkeypatch, "¿Con qué votación aprobó el Comité de Evaluación del Poder Judicial de "
                                           "la Federación los listados de personas elegibles publicados el 15 de "
                                           "diciembre de 2024?")
    cited = [c for seg in answer["content"] for c in seg["citations"] if c["verified"]]
    assert cited and not any(c["document_title"] == "Contenido" for c in cited), [c["label"] for c in cited]
    assert cited[0]["document_title"].startswith("LISTADOS de personas elegibles"), cited[0]["label"]
