"""`gaceta ask` on a real index: terminal markers and sources, --json answer object, --html page, bad input."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gaceta.cli import app
from tests.index_fixtures import build_index

QUESTION = "¿Ante quién pueden formular queja los trabajadores sobre la participación de utilidades?"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("ask-cli")
    build_index(home, ["mx_reglamento_arts_121_122_LFT.pdf"]).close()
    return home


@pytest.fixture
def run(home, monkeypatch):
    monkeypatch.setenv("GACETA_HOME", str(home))
    monkeypatch.setenv("GACETA_ANSWERER", "extractive")
    return lambda *args: CliRunner().invoke(app, ["ask", *args])


def test_json_answer_object(run):
    result = run(QUESTION, "--json", "-k", "5")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["found"] and answer["backend"] == "extractive" and len(answer["sources"]) == 5
    cites = [c for seg in answer["content"] for c in seg["citations"]]
    assert cites and all(c["verified"] for c in cites)
    assert any("Comisión Intersecretarial" in c["cited_text"] for c in cites)


def test_terminal_shows_markers_and_sources(run, tmp_path):
    page = tmp_path / "answer.html"
    result = run(QUESTION, "--html", str(page))
    assert result.exit_code == 0, result.output
    assert "[1]" in result.stdout and "✓" in result.stdout and "coverage 100%" in result.stdout
    assert "Reglamento de los Artículos 121 y 122" in " ".join(result.stdout.split()) and ", art. " in result.stdout
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and 'class="cite verified"' in html and 'id="src-1"' in html


def test_unknown_answerer_and_bad_filter_fail_cleanly(run):
    for args in ([QUESTION, "--answerer", "gpt"], [QUESTION, "--filter", "colour=red"], ["  "]):
        result = run(*args)
        assert result.exit_code == 1 and "error:" in result.output and "Traceback" not in result.output


def test_unconfigured_claude_falls_back_and_says_why(run, monkeypatch):
    monkeypatch.delenv("GACETA_ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = run(QUESTION, "--answerer", "claude", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["backend"] == "extractive" and "GACETA_ANTHROPIC_API_KEY" in answer["fallback_reason"]


def test_no_index_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("GACETA_HOME", str(tmp_path / "empty"))
    result = CliRunner().invoke(app, ["ask", QUESTION])
    assert result.exit_code == 1 and "no index" in result.output
