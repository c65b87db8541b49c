"""A question asking what a term means is answered by the sentence that defines it, not by one that only uses it
(`retrieval/definitions.py`): Spain's Código Penal "Es calumnia la imputación de un delito…" (art. 205) before
"Nadie será penado por calumnia o injuria sino en virtud de querella…" (art. 215); the GDPR's "(12) 'personal data
breach' means…" (Art. 4) before the articles on notifying one (Arts. 33, 34); the Ley de Amparo's "II. La autoridad
responsable, teniendo tal carácter…" (art. 5) before the articles that use the term. Over the real laws, cut to the
pages that hold those articles and their titles."""

from __future__ import annotations

import pymupdf
import pytest

from retrieval.definitions import defined_term
from tests.answers.factory import cli_answer
from tests.conftest import PDFS, SHARED
from tests.index_fixtures import build_index

CODIGO_PENAL = SHARED / "data" / "laws" / "boe_consolidado_BOE-A-1995-25444_codigo_penal.pdf"
GDPR = PDFS / "eu_gdpr_council_position_5419-16.pdf"
AMPARO = SHARED / "data" / "laws" / "mx_ley_de_amparo_DOF_2025-03-13.pdf"
CUTS = [(CODIGO_PENAL, [(0, 1), (84, 89)]),  # the title; arts. 205-216 (calumnia, injuria)
        (GDPR, [(0, 2), (109, 113), (160, 163)]),  # the title; Art. 4 (definitions); Arts. 33-34 (breaches)
        (AMPARO, [(0, 113)])]  # the whole law: art. 5 names the parties, 270 other articles use their names


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("definitions")
    files = []
    for path, ranges in CUTS:
        cut = root / path.name
        with pymupdf.open(path) as src, pymupdf.open() as out:
            for first, last in ranges:
                out.insert_pdf(src, from_page=first, to_page=last)
            out.save(cut)
        files.append(cut)
    build_index(root / "home", files).close()
    return root / "home"


def first_cited(answer: dict) -> dict:
    cited = [c for seg in answer["content"] for c in seg["citations"] if c["verified"]]
    assert answer["found"] and cited, answer["content"]
    return cited[0]


@pytest.mark.parametrize("question,article,states", [
    ("¿Qué se entiende legalmente por calumnia?", "205", "Es calumnia la imputación de un delito"),
    ("What is a personal data breach?", "4", "'personal data breach' means"),
    ("What does 'personal data' mean under the GDPR?", "4", "'personal data' means"),
    # an item of a definitions list, found in the law the question speaks of though the search ranks the many
    # articles that use the term above it; the party named in inclusive language ("La persona quejosa")
    ("¿Qué es la autoridad responsable en el juicio de amparo?", "5", "La autoridad responsable, teniendo tal"),
    ("¿Quién tiene el carácter de quejoso en el juicio de amparo?", "5", "La persona quejosa, teniendo tal"),
])
def test_a_question_asking_what_a_term_means_is_answered_by_its_definition(home, monkeypatch, question, article,
                                                                          states):
    cited = first_cited(cli_answer(home, monkeypatch, question))
    assert cited["article"] == article, cited["label"]
    assert states in cited["cited_text"], cited["cited_text"]


def test_a_question_asking_for_something_else_asks_for_no_definition():
    assert defined_term("¿Qué es la autoridad responsable en el juicio de amparo?") == "autoridad responsable"
    assert defined_term("How is 'controller' defined in the GDPR?") == "controller"
    for question in ("¿Qué pena tiene la calumnia?", "¿Cuál es el plazo para contestar la demanda?",
                     "What is the maximum fine under the GDPR?", "What are the best practices for consulting users?",
                     "¿Qué es el plazo de prescripción?"):
        assert defined_term(question) is None, question
