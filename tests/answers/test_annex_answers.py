"""A question on what an acuerdo carries in its annex is answered from the annex's article (`ingest.headings`: an
annex closes the acuerdo's transitorios), not "No encontré" nor the acuerdo's own "Artículo único".

The acuerdo is built in the DOF's layout around the real articles of the Reglamento of arts. 121-122 of the Ley
Federal del Trabajo (`tests/ingest/test_annexes.py`); the questions are the ones written for those articles in
benchmarks/fresh_questions.tsv.
"""

from __future__ import annotations

import json

import pytest

from retrieval.answers import ask
from retrieval.settings import Settings
from tests.index_fixtures import build_index
from tests.ingest.test_annexes import NAME_CAPS, acuerdo_pdf


@pytest.fixture(scope="module")
def annex_index(tmp_path_factory):
    root = tmp_path_factory.mktemp("annex")
    with build_index(root / "home", [acuerdo_pdf(root / "acuerdo.pdf", NAME_CAPS)]) as idx:
        yield idx


QUESTIONS = [
    ("8", "¿Qué pasa con las utilidades que los trabajadores no reclamaron en el año?"),
    ("4", "¿Qué derechos tiene el sindicato titular del contrato colectivo respecto de la declaración anual del "
          "patrón?"),
    ("7", "Si la empresa corrige su declaración de impuestos y resulta más ganancia, ¿hay que repartir más "
          "utilidades a los trabajadores y en qué plazo?"),
]


@pytest.mark.parametrize("article,question", QUESTIONS, ids=[f"art. {a}" for a, _ in QUESTIONS])
def test_a_question_on_the_annex_is_answered_from_the_annexs_article(annex_index, article, question):
    settings = Settings(home=annex_index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(annex_index, question, k=8, settings=settings)
    data = json.loads(answer.model_dump_json())
    assert data["found"] is True, answer.text
    first = next(c for seg in answer.content for c in seg.citations)
    assert first.verified and first.article == article, (first.label, answer.text)
