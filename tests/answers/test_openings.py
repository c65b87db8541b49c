"""Article openings (retrieval/openings.py) on the real Constitution: a question that names no article is answered
from the article whose opening answers it; a named article is untouched; the vectors live and die with documents."""

from __future__ import annotations

import json

import numpy as np
import pytest

from retrieval.index import Index
from retrieval.legal_search import legal_search
from retrieval.settings import Settings
from tests.answers.factory import cli_answer
from tests.index_fixtures import build_index

CPEUM = "mx_ley_CPEUM_constitucion_politica.pdf"
PRESIDENT = "¿Cuáles son los requisitos para ser Presidente de la República?"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("openings")
    build_index(home, [CPEUM]).close()
    return home


@pytest.fixture
def index(home):
    with Index.open(Settings(home=home)) as index:
        yield index


def cpeum_id(index: Index) -> str:
    return next(e.document.doc_id for e in index.catalog().entries if "Constituci" in e.document.title)


def test_written_at_ingest_one_vector_an_article(home, index):
    doc_id = cpeum_id(index)
    path = home / "openings" / f"{doc_id}.npz"
    assert path.is_file()
    with np.load(path) as data:
        articles = [str(a) for a in data["articles"]]
        assert data["vectors"].shape == (len(articles), 384)
    body = {c.article for c in index.articles(doc_id)}
    assert set(articles) == body and len(articles) == len(body)  # each article of the body once
    assert {"1", "27", "82", "136"} <= set(articles)


def test_free_form_question_ranks_the_answering_article(index):
    opened = index.opened(PRESIDENT, None, 5)
    assert opened[0].article == "82", opened  # "Para ser Presidente se requiere: …"
    hits = legal_search(index, PRESIDENT, k=8, openings=True).hits  # what an answer reads
    assert hits[0].chunk.article == "82" and hits[0].features["opening"] == 1.0, [
        (h.chunk.article, h.features) for h in hits[:5]]


def cli_ask(home, monkeypatch, question: str) -> tuple[dict, dict]:
    """`gaceta ask QUESTION --json` (extractive) over `home`: the answer and its first verified citation."""
    answer = cli_answer(home, monkeypatch, question)
    return answer, next(c for seg in answer["content"] for c in seg["citations"] if c["verified"])


def test_cli_answer_quotes_article_82(home, monkeypatch):
    answer, first = cli_ask(home, monkeypatch, PRESIDENT)
    assert "art. 82" in first["label"], first
    assert "Para ser Presidente se requiere" in json.dumps(answer, ensure_ascii=False)


def test_when_a_rule_applies_is_asked_of_the_text_in_force(home, monkeypatch):
    # "¿Cuándo…?" in the present asks for the condition or moment a rule states: the text in force answers it, read
    # through the openings; it was read as a question about the law's history (every role the same, no openings) and
    # led by a reform decree. "1o. de octubre" states the moment it asks for: the answer is not flagged.
    answer, first = cli_ask(home, monkeypatch, "¿Cuándo inicia el Presidente el ejercicio de su encargo?")
    assert "art. 83" in first["label"] and "1o. de octubre" in first["cited_text"], first
    assert answer["coverage"]["relevant"] is True, answer["coverage"]


def test_a_plain_search_keeps_its_budget(index):
    hits = legal_search(index, PRESIDENT, k=8).hits  # `gaceta search`, POST /search: no transformer query
    assert all("opening" not in h.features and h.via != "opening" for h in hits)


def test_named_article_is_not_touched(index):
    hits = legal_search(index, "¿Qué dispone el artículo 27 de la Constitución?", k=5, openings=True).hits
    assert hits[0].chunk.article == "27" and hits[0].via == "reference"
    assert all("opening" not in h.features for h in hits)  # a named article: the lookup decides, no openings


def test_lost_file_is_rebuilt_with_the_same_ranking(home):
    with Index.open(Settings(home=home)) as index:
        doc_id = cpeum_id(index)
        before = index.opened(PRESIDENT, None, 10)
    (home / "openings" / f"{doc_id}.npz").write_bytes(b"not a numpy file")
    with Index.open(Settings(home=home)) as fresh:  # a new process's view: nothing in memory
        assert fresh.opened(PRESIDENT, None, 10) == before
    assert (home / "openings" / f"{doc_id}.npz").stat().st_size > 1000  # written again, whole


def test_off_writes_nothing_and_delete_removes(tmp_path, monkeypatch):
    monkeypatch.setenv("GACETA_OPENINGS", "off")
    home = tmp_path / "off"
    build_index(home, ["mx_reglamento_arts_121_122_LFT.pdf"]).close()
    assert not (home / "openings").exists()
    with Index.open(Settings(home=home)) as index:
        hits = legal_search(index, "¿Ante quién pueden formular queja los trabajadores?", k=5, openings=True).hits
        assert hits and all("opening" not in h.features for h in hits)
    monkeypatch.setenv("GACETA_OPENINGS", "on")
    home = tmp_path / "on"
    build_index(home, ["mx_reglamento_arts_121_122_LFT.pdf"]).close()
    with Index.open(Settings(home=home)) as index:
        doc_ids = {e.document.doc_id for e in index.catalog().entries}
        written = {p.name.split(".")[0] for p in (home / "openings").iterdir()}
        assert written == doc_ids  # one file (vectors, or a no-article marker) a document
        for doc_id in doc_ids:
            assert index.delete_document(doc_id)
        assert not any((home / "openings").iterdir())


@pytest.mark.parametrize(("question", "article"), [
    ("¿Cómo se organiza la Administración Pública Federal según la Constitución?", "art. 90"),
    ("¿Qué establece la Constitución sobre la educación pública?", "art. 3"),
])
def test_the_adjective_publica_does_not_ask_about_the_laws_history(home, monkeypatch, question, article):
    # "pública" describes what the law regulates; read as "publicación" it made the question one about the law's
    # history (every role the same, no openings) and a reform decree led the answer.
    _, first = cli_ask(home, monkeypatch, question)
    assert f"{article}," in first["label"] and "DECRETO" not in first["label"], first
