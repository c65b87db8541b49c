"""A question that tells the asker's case before asking (issue 25, "say what is missing rather than guess"): the
case's particulars, which no law states, do not make the offline answerer say "No encontré" when the provision that
answers is among the sources; what is asked still decides whether anything answers at all. Over the real GDPR."""

from __future__ import annotations

import pytest

from retrieval.text_analysis import case_terms
from tests.answers.factory import cli_answer
from tests.index_fixtures import build_index

GDPR = "eu_gdpr_council_position_5419-16.pdf"
# Art. 78: "Right to an effective judicial remedy against a supervisory authority"; the asker says none of it
COURT = ("Five months ago I lodged a complaint with my national data protection authority and I have heard nothing "
         "since. Under the GDPR, can I go to court against the authority itself?")
SUBPROCESSOR = ("We're a small SaaS company processing personal data on behalf of our business clients. Under the "
                "GDPR, can we bring in another cloud provider as a sub-processor without getting the client's "
                "sign-off first?")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("told_case")
    build_index(home, [GDPR]).close()
    return home


def cited(answer: dict) -> list[str]:
    return [c["label"] for seg in answer["content"] for c in seg["citations"] if c["verified"]]


def test_the_case_told_does_not_hide_the_provision_that_answers(home, monkeypatch):
    answer = cli_answer(home, monkeypatch, COURT)
    assert answer["found"], answer["content"]
    assert any("Art. 78(" in label for label in cited(answer)), cited(answer)


def test_what_is_asked_still_decides_that_nothing_answers(home, monkeypatch):
    for question in ("What is the capital of Australia?",
                     "I run a small bakery in Lyon and my sister keeps asking me about geography. What is the capital "
                     "of Australia?"):
        answer = cli_answer(home, monkeypatch, question)
        assert not answer["found"] and not cited(answer), (question, cited(answer))


def test_an_answer_from_another_article_is_flagged(home, monkeypatch):
    """A told case now reaches an answer where it said "No encontré"; if that answer is not the article that answers
    (art. 28, a processor engaging another processor), the relevance flag says so."""
    answer = cli_answer(home, monkeypatch, SUBPROCESSOR)
    assert answer["found"]
    if not any(label.startswith("General Data Protection Regulation") and "Art. 28(" in label
               for label in cited(answer)):
        assert answer["coverage"]["flagged"] and not answer["coverage"]["relevant"], answer["coverage"]


def test_the_case_is_the_sentences_that_do_not_ask():
    told = case_terms("Mi cuñado se llevó mi coche sin permiso el viernes. ¿Qué pena prevé el Código Penal para lo "
                      "que hizo?")
    assert {"coch", "viern"} <= told and "pen" not in told, told
    assert case_terms("¿Qué pena tiene el robo de un coche?") == set()  # all question
    assert case_terms("Pena del robo de un coche.") == set()  # a statement is the question
    assert case_terms("¿Puedo recurrir? ¿En qué plazo?") == set()
