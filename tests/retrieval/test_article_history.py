"""What a reform changed (issue 24 item 3): the Ley de Amparo before (13-03-2025) and after (16-10-2025) its
reform, both in one index.

The truth for "which articles changed" is a plain text diff of the two PDFs made here, independently of the ingest:
PyMuPDF's page text, less the lines every other page repeats (running header, "Última Reforma DOF …"), less the
amendment-note lines ("Párrafo reformado DOF …"), cut at each line that opens an article ("Artículo 7o. …") from
"Artículo 1o." to the law's own TRANSITORIOS, compared word by word.
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import re
from pathlib import Path

import pymupdf
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gaceta.api import create_app
from gaceta.cli import app
from retrieval.answers.models import DoneEvent
from retrieval.answers.pipeline import ask, ask_stream
from retrieval.article_history import (HistoryError, NotInIndex, article_diff, article_history, find_law,
                                       law_diff)
from retrieval.attribution import attribute
from retrieval.index import Index
from retrieval.legal_search import legal_search
from retrieval.models import SearchFilters
from retrieval.settings import Settings
from tests.conftest import AMPARO_AFTER, AMPARO_BEFORE

_NOTE = re.compile(r"\b(reformad|adicionad|derogad|recorrid)[oa]s?\b.*\bDOF\b|^Fe de erratas", re.I)
_OPENS = re.compile(r"^Artículo\s+(\d+)(?:\s*(?:o|°|º))?\.?(?:\s+(Bis|Ter|Quáter|Quater|Quinquies|Sexies))?\.-?\s")
OLD = "Las personas morales oficiales estarán exentas de prestar las garantías"
NEW = "los organismos descentralizados, las empresas públicas del Estado"


def plain_articles(path: Path) -> dict[str, list[str]]:
    doc = pymupdf.open(path)
    pages = [[line.strip() for line in page.get_text().splitlines()] for page in doc]
    seen = collections.Counter(line for page in pages for line in set(page))
    running = {line for line, n in seen.items() if n > len(pages) / 2}
    lines = [line for page in pages for line in page
             if line and line not in running and not re.fullmatch(r"\d+ de \d+", line)]
    articles: dict[str, list[str]] = {}
    key = None
    for line in lines:
        opened = _OPENS.match(line + " ")
        if opened:
            name = opened.group(1) + (f" {opened.group(2)}" if opened.group(2) else "")
            if key is not None or name == "1":
                if name in articles:
                    break
                key = name
                articles[key] = []
        elif key is not None and line.upper() == "TRANSITORIOS":
            break
        if key is not None and not _NOTE.search(line):
            articles[key].append(line)
    return {k: re.findall(r"\w+|[^\w\s]", " ".join(v)) for k, v in articles.items()}


def test_cli_and_api(amparo_versions: Path, monkeypatch) -> None:
    """`gaceta diff` / `gaceta history` (no colour: changes marked as git's word diff), `gaceta article` and
    `GET /laws/…`. First in the module: the commands open the index themselves (the `index` fixture holds it once
    opened)."""
    monkeypatch.setenv("GACETA_HOME", str(amparo_versions))
    runner = CliRunner()
    shown = runner.invoke(app, ["diff", "Ley de Amparo", "7"])
    assert shown.exit_code == 0, shown.output
    assert "[-exentas-] {+exentos+}" in shown.stdout and "13-03-2025 → 16-10-2025" in shown.stdout
    listed = runner.invoke(app, ["diff", "mx/ley-de-amparo", "--json"])
    assert listed.exit_code == 0, listed.output
    assert "129" in json.loads(listed.stdout)["changed"]
    history = runner.invoke(app, ["history", "Ley de Amparo", "129", "--json"])
    assert history.exit_code == 0 and [v["status"] for v in json.loads(history.stdout)["versions"]] == \
        ["first", "changed"]
    before = runner.invoke(app, ["article", "Ley de Amparo", "7", "--as-of", "2025-06-01", "--json"])
    assert before.exit_code == 0, before.output
    assert OLD in " ".join(json.loads(before.stdout)["text"].split())
    shown = runner.invoke(app, ["article", "mx/ley-de-amparo", "17", "--fraction", "I"])
    assert shown.exit_code == 0 and shown.stdout.startswith("Ley de Amparo (") and "fr. I," in shown.stdout
    assert "\nI. Cuando se reclame una norma general autoaplicativa" in shown.stdout and "\nII." not in shown.stdout
    missing = runner.invoke(app, ["diff", "Código Penal Federal", "7"])
    assert missing.exit_code == 1 and "not a law in the index" in missing.stderr and "Traceback" not in missing.output
    with TestClient(create_app(Settings(home=amparo_versions, answerer="extractive", api_key=None))) as client:
        reply = client.get("/laws/Ley de Amparo/articles/7/diff")
        assert reply.status_code == 200, reply.text
        assert reply.json()["status"] == "changed" and reply.json()["before"]["version"]["version_date"] == "2025-03-13"
        reply = client.get("/laws/mx/ley-de-amparo/diff", params={"from": "2025-06-01"})
        assert reply.status_code == 200 and "129" in reply.json()["changed"]
        reply = client.get("/laws/mx/ley-de-amparo/articles/129/history")
        assert reply.status_code == 200 and len(reply.json()["versions"]) == 2
        assert client.get("/laws/mx/ley-de-amparo").json()["name"] == "Ley de Amparo"
        assert client.get("/laws/Código Penal Federal/diff").status_code == 404
        assert client.get("/laws/%1E/diff").status_code == 404  # a blank name names no law
        reply = client.get("/laws/mx/ley-de-amparo/articles/7/diff", params={"from": "2025-11-01", "to": "2026-01-01"})
        assert reply.status_code == 409 and "same version" in reply.json()["detail"]
        assert client.get("/laws/mx/ley-de-amparo/articles/7/diff", params={"from": "1-11-2025"}).status_code == 422
        # the provision itself, in the version in force on the day asked about (default today)
        for params, want, not_want, version in (({}, NEW, OLD, "2025-10-16"),
                                                ({"as_of": "2025-06-01"}, OLD, NEW, "2025-03-13")):
            reply = client.get("/laws/Ley de Amparo/articles/7o.", params=params)
            assert reply.status_code == 200, reply.text
            got = reply.json()
            text = " ".join(got["text"].split())
            assert want in text and not_want not in text and text.startswith("###### Artículo 7o.")
            assert got["version"]["version_date"] == version and got["law_id"] == "mx/ley-de-amparo"
            assert got["label"].startswith("Ley de Amparo (") and "art. 7" in got["label"]  # names its version
        fraction = client.get("/laws/mx/ley-de-amparo/articles/17", params={"fraction": "ii"}).json()
        assert fraction["text"].startswith("II.") and "III." not in fraction["text"] and "fr. II" in fraction["label"]
        missing = client.get("/laws/Código Penal Federal/articles/7")
        assert missing.status_code == 404 and "not a law in the index" in missing.json()["detail"]
        missing = client.get("/laws/Ley de Amparo/articles/999")
        assert missing.status_code == 404
        assert missing.json()["detail"].startswith("article 999 not found in Ley de Amparo")
        assert client.get("/laws/Ley de Amparo/articles/17", params={"paragraph": 0}).status_code == 422


@pytest.fixture(scope="module")
def index(amparo_versions: Path):
    with Index.open(Settings(home=amparo_versions)) as index:
        yield index


@pytest.fixture(scope="module")
def amparo(index: Index):
    return find_law(index, "Ley de Amparo")


def test_the_changed_articles_are_those_a_plain_text_diff_finds(index: Index, amparo) -> None:
    before, after = plain_articles(AMPARO_BEFORE), plain_articles(AMPARO_AFTER)
    assert len(before) == len(after) > 250  # the whole law was read
    truth = {k for k in after if k in before and after[k] != before[k]}
    assert len(truth) > 20
    found = law_diff(index, *amparo)
    assert set(found.changed) == truth
    assert found.added == [] and found.removed == [] and found.unchanged == len(after) - len(truth)
    assert (found.before_version.version_date, found.after_version.version_date) == \
        (dt.date(2025, 3, 13), dt.date(2025, 10, 16))


def test_an_article_word_by_word(index: Index, amparo) -> None:
    law, versions = amparo
    assert law.law_id == "mx/ley-de-amparo" and [v.version_date for v in law.versions] == \
        [dt.date(2025, 3, 13), dt.date(2025, 10, 16)]
    diff = article_diff(index, law, versions, "7o.")
    assert diff.status == "changed" and diff.article == "7"
    assert OLD in " ".join(diff.before.text.split()) and NEW in " ".join(diff.after.text.split())
    assert diff.before.label.startswith("Ley de Amparo (texto vigente al 13-03-2025), art. 7")
    assert diff.after.label.startswith("Ley de Amparo (texto vigente al 16-10-2025), art. 7")
    steps = {(c.op, c.before, c.after) for c in diff.changes}
    assert ("replace", "exentas", "exentos") in steps
    assert any(c.op == "insert" and NEW in c.after for c in diff.changes)
    # the notes date the text; they are not its words
    assert any("16-10-2025" in n.text for n in diff.after.notes) and "reformado" not in diff.after.wording
    same = article_diff(index, law, versions, "10")
    assert same.status == "unchanged" and same.changes == [] and same.before.wording == same.after.wording
    # the versions in force on two days; one day → one version: nothing to compare
    dated = article_diff(index, law, versions, "7", before=dt.date(2025, 6, 1), after=dt.date(2026, 1, 1))
    assert dated.changes == diff.changes
    with pytest.raises(HistoryError, match="same version"):
        article_diff(index, law, versions, "7", before=dt.date(2025, 11, 1), after=dt.date(2026, 1, 1))
    with pytest.raises(NotInIndex, match="article 999"):
        article_diff(index, law, versions, "999")
    with pytest.raises(NotInIndex, match="Código Penal Federal"):
        find_law(index, "Código Penal Federal")


def test_history_of_an_article(index: Index, amparo) -> None:
    history = article_history(index, *amparo, "129")
    assert [(v.version.version_date, v.status) for v in history.versions] == \
        [(dt.date(2025, 3, 13), "first"), (dt.date(2025, 10, 16), "changed")]
    assert any("16-10-2025" in n.text for n in history.versions[1].text.notes)


def test_labels_name_the_version_and_a_day_before_every_version_is_said(index: Index) -> None:
    result = legal_search(index, "¿Qué establece el artículo 7o. de la Ley de Amparo?", k=5)
    assert result.hits and all("(texto vigente al 16-10-2025)" in h.label for h in result.hits)
    answer = ask(index, "¿Qué establece el artículo 7o. de la Ley de Amparo?", filters=SearchFilters(
        as_of=dt.date(2020, 1, 1)), answerer="extractive")
    assert answer.text.startswith("El 01-01-2020 es anterior a la versión más antigua de la Ley de Amparo "
                                  "(texto vigente al 13-03-2025)")
    cited = [c for s in answer.content for c in s.citations]
    assert cited and all("(texto vigente al 13-03-2025)" in c.label for c in cited)


def test_attribution_checks_a_quote_against_the_version_in_force(index: Index) -> None:
    text = f"Según el artículo 7o. de la Ley de Amparo, «{OLD}»."
    then = attribute(index, text, as_of=dt.date(2025, 6, 1), rerank=False)
    now = attribute(index, text, rerank=False)
    assert then.quotes[0].status.value == "exact"
    assert now.quotes[0].status.value != "exact"


def test_a_question_about_what_changed_quotes_both_versions(index: Index) -> None:
    """Each version quoted where its wording differs, each citation verified against its own version; the same
    answer streamed; a question about what the article says (no change asked) answers from the version in force."""
    question = "¿Qué cambió en el artículo 7o. de la Ley de Amparo con la reforma de 2025?"
    answer = ask(index, question, answerer="extractive")
    assert answer.text.startswith("El artículo 7 de la Ley de Amparo cambió entre el texto vigente al 13-03-2025 y "
                                  "el vigente al 16-10-2025.")
    cited = [c for s in answer.content for c in s.citations]
    assert all(c.verified for c in cited) and len(cited) == 2
    old, new = cited
    assert old.label.startswith("Ley de Amparo (texto vigente al 13-03-2025), art. 7") and "exentas" in old.cited_text
    assert new.label.startswith("Ley de Amparo (texto vigente al 16-10-2025), art. 7") and NEW in new.cited_text
    assert "reformado" not in answer.text  # the notes are not quoted as the law's words
    streamed = [e for e in ask_stream(index, question, answerer="extractive") if isinstance(e, DoneEvent)]
    assert streamed and streamed[0].answer.text == answer.text
    same = ask(index, "¿Qué cambió en el artículo 10 de la Ley de Amparo?", answerer="extractive")
    assert same.text.startswith("El artículo 10 de la Ley de Amparo dice lo mismo")
    plain = ask(index, "¿Qué establece el artículo 7o. de la Ley de Amparo?", answerer="extractive")
    labels = [c.label for s in plain.content for c in s.citations]
    assert labels and not any("13-03-2025" in label for label in labels)
