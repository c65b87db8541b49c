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
    answer = json.loads(run(QUESTION, "--json").stdout)
    lines = result.stdout.splitlines()
    # the answer's text once, with its markers, on one line (stdout is not a terminal: nothing hard-wrapped)
    first = answer["content"][0]["text"].strip()
    assert lines[0].startswith(first) and "[1]" in lines[0], lines
    assert result.stdout.count(first) == 1  # an extractive sentence is its own quote: never printed twice
    # the sources: a numbered list of the labels the answer carries, each whole on its line
    cites = [c for seg in answer["content"] for c in seg["citations"]]
    assert f"1. {cites[0]['label']}" in lines, lines
    # a plain-words footer
    cov = answer["coverage"]
    assert f"{cov['supported']} of {cov['sentences']} sentence" in lines[-1] and "backed by the quoted text" in lines[-1]
    assert "coverage" not in result.stdout and "relevance 0." not in result.stdout
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and 'class="cite verified"' in html and 'id="src-1"' in html


def test_a_long_answer_in_a_pipe_is_not_wrapped(run, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")  # even a narrow terminal width does not cut lines that go to a pipe
    result = run(QUESTION)
    assert result.exit_code == 0
    label_lines = [line for line in result.stdout.splitlines() if line.startswith("1. ")]
    assert label_lines and len(label_lines[0]) > 40 and ", p. " in label_lines[0], result.stdout


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


DRAFTED = ("Los trabajadores pueden formular queja ante la Comisión Intersecretarial para la Participación de "
           "Utilidades a los Trabajadores cuando el Servicio de Administración Tributaria no hubiere resuelto sus "
           "objeciones.")


def test_a_drafted_answer_lists_each_quote_under_its_label(run, monkeypatch):
    """Item 2: the quote is printed where it adds to the answer — a model's sentence is its own words, so the
    verified words it cites follow the source's label; the answer's text is printed once; the footer says who
    answered. (The claude answerer against the local Messages API stub: the real SDK, no network.)"""
    from tests.stubs.anthropic_stub import AnthropicStub, char_citation, document_blocks

    def drafted(request):  # the model cites the source that says it, wherever the search ranked that source
        docs = [d["source"]["data"] for d in document_blocks(request)]
        i = next((i for i, data in enumerate(docs) if "podrán formular queja" in data), 0)  # art. 28
        at = docs[i].index("Comisión Intersecretarial") if "podrán formular queja" in docs[i] else 0
        end = docs[i].find(".", at) + 1 or len(docs[i])
        return {"content": [{"type": "text", "text": DRAFTED, "citations": [char_citation(request, i, at, end)]}]}

    with AnthropicStub(drafted) as stub:
        for name, value in {"GACETA_ANTHROPIC_API_KEY": "sk-test", "GACETA_ANTHROPIC_BASE_URL": stub.base_url,
                            "GACETA_ANTHROPIC_MODEL": "claude-stub-1"}.items():
            monkeypatch.setenv(name, value)
        result = run(QUESTION, "--answerer", "claude")
        answer = json.loads(run(QUESTION, "--answerer", "claude", "--json").stdout)
    assert result.exit_code == 0, result.output
    assert answer["backend"] == "claude", answer.get("fallback_reason")
    cite = answer["content"][0]["citations"][0]
    assert cite["verified"]
    lines = result.stdout.splitlines()
    assert lines[0] == DRAFTED + "[1]", lines  # backed by its citation: no note after the marker
    assert result.stdout.count(DRAFTED) == 1
    at = lines.index(f"1. {cite['label']}")
    assert lines[at + 1] == f"   “{' '.join(cite['cited_text'].split())}”", lines  # the quote adds: it is shown
    assert "answer by claude, claude-stub-1" in lines[-1], lines
