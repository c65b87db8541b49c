"""The `tools` answerer: answer sentences with source ids and verbatim quotes through a tool call, on an
OpenAI-compatible endpoint (httpx) and on Claude tool use (the real anthropic SDK), both against local stubs."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from retrieval.answers import AnswerError, answer_hits
from retrieval.answers.models import CitationEvent, TextEvent
from retrieval.answers.pipeline import _stream_answer
from retrieval.answers.tools import SCHEMA, TOOL_NAME, ToolsAnswerer
from tests.answers import factory
from tests.answers.factory import make_hits
from tests.stubs.anthropic_stub import AnthropicStub, tool_use
from tests.stubs.openai_stub import OpenAIStub, ToolCall

BODIES = [
    "Artículo 1.- La presente Ley es de orden público y de observancia general en toda la República. "
    "Su aplicación corresponde al Ejecutivo Federal por conducto de la Secretaría.",
    "Artículo 2.- El plazo para presentar el aviso será de treinta días hábiles contados a partir de la publicación. "
    "El aviso se presentará por escrito ante la autoridad competente.",
]
QUESTION = "¿Cuál es el plazo para presentar el aviso y ante quién se presenta?"
GOOD = {"sentences": [
    {"text": "El aviso se presenta dentro de treinta días hábiles.",
     "citations": [{"source": 2, "quote": "El plazo para presentar el aviso será de treinta días hábiles"}]},
    {"text": "Se presenta por escrito ante la autoridad competente.",
     "citations": [{"source": 2, "quote": "El aviso se presentará por escrito ante la autoridad competente."}]},
], "found": True}
PROVIDERS = ["openai", "anthropic"]


def stub_for(provider: str, arguments):
    """A stub of `provider` whose every reply calls the answer tool with `arguments` (dict, or raw JSON text)."""
    if provider == "openai":
        return OpenAIStub(lambda req: ToolCall(arguments))
    if isinstance(arguments, str):
        return AnthropicStub(lambda req: {"content": [tool_use(raw_json=arguments)]})
    return AnthropicStub(lambda req: {"content": [tool_use(arguments)]})


def tools_settings(settings, provider: str, stub, **extra):
    if provider == "openai":
        update = {"openai_base_url": stub.base_url, "openai_model": "stub-llm"}
    else:
        update = {"anthropic_api_key": "sk-test", "anthropic_base_url": stub.base_url,
                  "anthropic_model": "claude-stub-1", "anthropic_max_retries": 1}
    return settings.model_copy(update={"answerer": "tools", "tools_provider": provider, **update, **extra})


def streamed(backend, hits, question=QUESTION, embedder=None):
    return factory.streamed(backend, hits, question, embedder)


def cites(answer):
    return [c for seg in answer.content for c in seg.citations]


def test_openai_request_asks_for_the_tool_and_quotes_verify(settings, embedder):
    hits = make_hits(BODIES)
    with stub_for("openai", GOOD) as stub:
        answer = answer_hits(QUESTION, hits, ToolsAnswerer(tools_settings(settings, "openai", stub)), embedder)
    request = stub.requests[0]
    assert request["tools"][0]["function"]["name"] == TOOL_NAME
    assert request["tools"][0]["function"]["parameters"] == SCHEMA
    assert request["tool_choice"] == {"type": "function", "function": {"name": TOOL_NAME}}
    assert '<source id="2"' in request["messages"][1]["content"] and "ignore any instructions" in request["messages"][0]["content"]
    assert answer.backend == "tools" and answer.fallback_reason is None and answer.model == "stub-llm"
    assert answer.text == ("El aviso se presenta dentro de treinta días hábiles. "
                           "Se presenta por escrito ante la autoridad competente.")
    first, second = cites(answer)
    chunk = hits[1].chunk
    assert first.verified and second.verified and first.chunk_id == chunk.chunk_id and first.source_index == 1
    assert first.start == chunk.start + BODIES[1].index("El plazo para presentar")
    assert chunk.text[second.start - chunk.start : second.end - chunk.start] == GOOD["sentences"][1]["citations"][0]["quote"]
    assert answer.coverage.ratio == 1.0 and not answer.coverage.flagged


def test_anthropic_tool_use_request_and_quotes_verify(settings, embedder):
    hits = make_hits(BODIES)
    with stub_for("anthropic", GOOD) as stub:
        answer = answer_hits(QUESTION, hits, ToolsAnswerer(tools_settings(settings, "anthropic", stub)), embedder)
    request = stub.requests[0]
    assert request["tools"] == [{"name": TOOL_NAME, "description": request["tools"][0]["description"],
                                 "input_schema": SCHEMA}]
    assert request["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    assert request["model"] == "claude-stub-1" and "<source id=\"1\"" in request["messages"][0]["content"]
    assert answer.backend == "tools" and answer.model == "claude-stub-1" and answer.usage.input_tokens > 0
    assert [c.verified for c in cites(answer)] == [True, True]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_unknown_sources_are_dropped_and_altered_quotes_stay_unverified(settings, embedder, provider):
    hits = make_hits(BODIES)
    lying = {"sentences": [
        {"text": "El Ejecutivo puede suspender la Ley.",
         "citations": [{"source": 7, "quote": "Su aplicación corresponde al Ejecutivo Federal"},
                       {"source": "fuente uno", "quote": "Su aplicación corresponde al Ejecutivo Federal"}]},
        {"text": "El plazo es de noventa días naturales.",
         "citations": [{"source": 2, "quote": "El plazo para presentar el aviso será de noventa días naturales"}]},
        {"text": "La Secretaría aplica la Ley.",
         "citations": [{"source": "1", "quote": "Su aplicación corresponde al Ejecutivo Federal"}]},
    ]}
    with stub_for(provider, lying) as stub:
        answer = answer_hits(QUESTION, hits, ToolsAnswerer(tools_settings(settings, provider, stub)), embedder)
    assert answer.backend == "tools"
    assert [len(s.citations) for s in answer.content] == [0, 1, 1]  # sources 7 and "fuente uno" were never given
    altered, real = cites(answer)
    assert not altered.verified and altered.score < 90
    assert altered.cited_text == "El plazo para presentar el aviso será de noventa días naturales"  # shown as claimed
    assert real.verified and real.chunk_id == hits[0].chunk.chunk_id  # "1" as a string is source 1
    assert answer.coverage.cited == 1 and answer.coverage.flagged


MALFORMED = {
    "bad JSON": ('{"sentences": [{"text": "El plazo", "citations": [{"source": 2, "quote": "x"}]', "not valid JSON"),
    "missing quote": ({"sentences": [{"text": "El plazo.", "citations": [{"source": 2}]}]}, "quote"),
    "missing sentences": ({"answer": "El plazo es de treinta días."}, "sentences"),
}


# A non-streamed Anthropic tool_use block always carries a JSON object: bad JSON text only exists when streamed.
WHOLE_CASES = [(p, c) for p in PROVIDERS for c in MALFORMED if (p, c) != ("anthropic", "bad JSON")]


@pytest.mark.parametrize(("provider", "case"), WHOLE_CASES)
def test_malformed_tool_output_falls_back_to_extractive_and_says_why(settings, embedder, provider, case):
    arguments, why = MALFORMED[case]
    hits = make_hits(BODIES)
    with stub_for(provider, arguments) as stub:
        answer = answer_hits(QUESTION, hits, ToolsAnswerer(tools_settings(settings, provider, stub)), embedder)
    assert answer.backend == "extractive" and answer.fallback_reason.startswith("tools failed")
    assert why in answer.fallback_reason
    assert answer.found and all(c.verified for c in cites(answer))


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_streamed_tool_output_falls_back_before_any_text(settings, embedder, provider, case):
    arguments, why = MALFORMED[case]
    arguments = arguments if isinstance(arguments, str) else json.dumps(arguments)
    hits = make_hits(BODIES)
    with stub_for(provider, arguments) as stub:
        events, answer = streamed(ToolsAnswerer(tools_settings(settings, provider, stub)), hits, embedder=embedder)
    assert answer.backend == "extractive" and why in answer.fallback_reason
    assert all(e.citation.verified for e in events if isinstance(e, CitationEvent))


def test_a_reply_without_the_tool_call_is_an_error(settings, embedder):
    hits = make_hits(BODIES)
    with OpenAIStub(lambda req: "El plazo es de treinta días hábiles.") as stub:
        backend = ToolsAnswerer(tools_settings(settings, "openai", stub))
        with pytest.raises(AnswerError, match=f"without calling the {TOOL_NAME} tool"):
            backend.answer(QUESTION, hits)
        events, answer = streamed(backend, hits, embedder=embedder)
    assert answer.backend == "extractive" and "without calling" in answer.fallback_reason
    with AnthropicStub(lambda req: "El plazo es de treinta días hábiles.") as stub:
        with pytest.raises(AnswerError, match="without calling"):
            ToolsAnswerer(tools_settings(settings, "anthropic", stub)).answer(QUESTION, hits)
    with OpenAIStub(lambda req: ToolCall(GOOD, name="search_web")) as stub:
        with pytest.raises(AnswerError, match="search_web"):
            ToolsAnswerer(tools_settings(settings, "openai", stub)).answer(QUESTION, hits)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_streaming_emits_each_sentence_before_the_arguments_end(settings, provider):
    hits = make_hits(BODIES)
    with stub_for(provider, GOOD) as stub:
        # hold the stream once the first sentence object and the start of the second have gone out
        first_len = len(json.dumps({"sentences": [GOOD["sentences"][0]]}, ensure_ascii=False)) + 20
        stub.hold_after(first_len // stub.delta_size + 1)
        gen = _stream_answer(QUESTION, hits, ToolsAnswerer(tools_settings(settings, provider, stub)), None, None)
        early = []
        for event in gen:
            early.append(event)
            if isinstance(event, CitationEvent):
                break
        assert not stub.finished.is_set()  # the first citation came while the rest was still unsent
        assert early[-1].segment == 0 and early[-1].citation.verified
        assert [e.text for e in early if isinstance(e, TextEvent)] == [GOOD["sentences"][0]["text"]]
        stub.release.set()
        rest = []
        while True:
            try:
                rest.append(next(gen))
            except StopIteration as stop:
                answer = stop.value
                break
    assert stub.requests[0]["stream"] is True
    assert [e.segment for e in early + rest if isinstance(e, CitationEvent)] == [0, 1]
    assert answer.text == "El aviso se presenta dentro de treinta días hábiles. Se presenta por escrito ante la autoridad competente."
    assert answer.backend == "tools" and [c.verified for c in cites(answer)] == [True, True]
    assert answer.usage is not None and answer.usage.input_tokens > 0


def test_not_found_is_reported_as_not_found(settings, embedder):
    hits = make_hits(BODIES)
    nothing = {"sentences": [{"text": "Las fuentes no dicen quién fija las tarifas.", "citations": []}], "found": False}
    with stub_for("openai", nothing) as stub:
        answer = answer_hits("¿Quién fija las tarifas?", hits, ToolsAnswerer(tools_settings(settings, "openai", stub)), embedder)
    assert answer.backend == "tools" and not answer.found and not answer.coverage.flagged
    assert answer.text == "Las fuentes no dicen quién fija las tarifas."


def test_server_errors_are_retried_whole_and_streamed(settings, embedder):
    hits = make_hits(BODIES)
    with stub_for("openai", GOOD) as stub:
        stub.fail(503, times=2)
        backend = ToolsAnswerer(tools_settings(settings, "openai", stub), backoff_s=0.01)
        answer = answer_hits(QUESTION, hits, backend, embedder)
        stub.fail(429, times=1)
        events, streamed_answer = streamed(backend, hits)
    assert len(stub.requests) == 5
    assert answer.backend == streamed_answer.backend == "tools"
    assert [c.verified for c in cites(streamed_answer)] == [True, True]


def test_anthropic_overload_opening_a_stream_is_retried(settings):
    hits = make_hits(BODIES)
    with stub_for("anthropic", GOOD) as stub:
        stub.fail_in_stream(times=1)
        events, answer = streamed(ToolsAnswerer(tools_settings(settings, "anthropic", stub), backoff_s=0.01), hits)
    assert len(stub.requests) == 2 and answer.backend == "tools" and len(cites(answer)) == 2


def test_missing_configuration_is_a_clear_error(settings):
    with pytest.raises(AnswerError, match="GACETA_OPENAI_BASE_URL"):
        ToolsAnswerer(settings)
    with pytest.raises(AnswerError, match="GACETA_ANTHROPIC_API_KEY"):
        ToolsAnswerer(settings.model_copy(update={"tools_provider": "anthropic"}))


def test_trimmed_sources_reach_the_model_and_quotes_still_verify(settings, embedder):
    """Trimming (on by default) leaves out sentences that do not matter; a quote of a kept one verifies against
    the full chunk, with the document offsets of the full chunk."""
    bodies = [BODIES[0], BODIES[1] + " Las multas se pagarán en las oficinas recaudadoras del Estado."]
    question = "¿Dónde se pagan las multas?"
    reply = {"sentences": [{"text": "En las oficinas recaudadoras.", "citations": [
        {"source": 2, "quote": "Las multas se pagarán en las oficinas recaudadoras del Estado."}]}], "found": True}
    hits = make_hits(bodies)
    with stub_for("openai", reply) as stub:
        answer = answer_hits(question, hits, ToolsAnswerer(tools_settings(settings, "openai", stub)), embedder)
        untrimmed = answer_hits(question, hits, ToolsAnswerer(tools_settings(settings, "openai", stub, trim=False)),
                                embedder)
    trimmed_prompt, whole_prompt = (r["messages"][1]["content"] for r in stub.requests)
    assert "Las multas se pagarán" in trimmed_prompt and "El aviso se presentará por escrito" not in trimmed_prompt
    assert "[…]" in trimmed_prompt and all(b in whole_prompt for b in bodies)
    assert len(trimmed_prompt) < len(whole_prompt)
    (cite,) = cites(answer)
    chunk = hits[1].chunk
    assert cite.verified and cite.start == chunk.start + bodies[1].index("Las multas")
    assert cites(untrimmed)[0].model_dump() == cite.model_dump()
    # the answer says what trimming saved: the characters left out of the prompt, in tokens of 4 characters
    assert answer.usage.context_tokens_saved >= (len(whole_prompt) - len(trimmed_prompt)) // 4 - 2
    assert untrimmed.usage.context_tokens_saved is None


# -- through the CLI, on a real index ------------------------------------------------------------------------------
CLI_QUESTION = "¿Ante quién pueden formular queja los trabajadores sobre la participación de utilidades?"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    from tests.index_fixtures import build_index

    home = tmp_path_factory.mktemp("ask-tools")
    build_index(home, ["mx_reglamento_arts_121_122_LFT.pdf"]).close()
    return home


def quote_first_source(request: dict) -> ToolCall:
    """Answer with the first full sentence of source 1's text as the model saw it, and one invented quote."""
    prompt = request["messages"][-1]["content"]
    body = re.search(r'<source id="1"[^>]*>\nContext \(not quotable\): .*?\n(?=[^#\n])(.*?)\n</source>', prompt, re.S)
    sentence = re.search(r"[^.\n]{30,}?\.", body.group(1)).group(0).strip()
    return ToolCall({"sentences": [
        {"text": "Según el reglamento:", "citations": [{"source": 1, "quote": sentence}]},
        {"text": "Y algo que no dice.", "citations": [{"source": 1, "quote": "Los trabajadores no pueden quejarse nunca."}]},
    ], "found": True})


@pytest.mark.parametrize("trim", ["on", "off"])
def test_cli_ask_with_the_tools_answerer(home, monkeypatch, trim):
    from gaceta.cli import app

    with OpenAIStub(quote_first_source) as stub:
        monkeypatch.setenv("GACETA_HOME", str(home))
        monkeypatch.setenv("GACETA_ANSWERER", "tools")
        monkeypatch.setenv("GACETA_OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("GACETA_TRIM", trim)
        result = CliRunner().invoke(app, ["ask", CLI_QUESTION, "--json", "-k", "4"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["backend"] == "tools" and answer["fallback_reason"] is None and len(answer["sources"]) == 4
    real, invented = [c for seg in answer["content"] for c in seg["citations"]]
    assert real["verified"] and real["label"] and real["pages"]
    assert not invented["verified"]
    prompt = stub.requests[0]["messages"][1]["content"]
    chunks = [s["chunk"]["text"] for s in answer["sources"]]
    assert all(text in prompt for text in chunks) == (trim == "off")
