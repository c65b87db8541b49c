"""The LLM support judge (GACETA_JUDGE=llm) through the real HTTP path against the local OpenAI stub: one call an
answer, strict JSON verdicts, and the offline judgement standing on any failure."""

from __future__ import annotations

import json
import logging

from retrieval.answers.coverage import compute_coverage
from retrieval.answers.models import Citation, TextSegment
from retrieval.answers.pipeline import answer_hits, make_judge
from retrieval.answers.support import LLMJudge, Support
from retrieval.answers.tags import TagsAnswerer
from tests.answers.factory import make_hits
from tests.stubs.openai_stub import OpenAIStub

# Constitución Política de los Estados Unidos Mexicanos, art. 27, first paragraph (real text).
ART_27 = ("La propiedad de las tierras y aguas comprendidas dentro de los límites del territorio nacional, corresponde "
          "originariamente a la Nación, la cual ha tenido y tiene el derecho de transmitir el dominio de ellas a los "
          "particulares, constituyendo la propiedad privada.")
LABEL = "Constitución Política de los Estados Unidos Mexicanos, art. 27, párr. 1, p. 33"
QUESTION = "¿A quién corresponde originariamente la propiedad de las tierras y aguas?"
BACKED = "La propiedad de las tierras y aguas corresponde originariamente a la Nación."
NOT_BACKED = "La Nación no puede transmitir el dominio de las tierras y aguas a los particulares."  # the opposite


def cite() -> Citation:
    return Citation(cited_text=ART_27, doc_id="d", document_title="CPEUM", chunk_id="d:00000", start=0,
                    end=len(ART_27), pages=[33], verified=True, label=LABEL)


def content() -> list[TextSegment]:
    return [TextSegment(text=BACKED, citations=[cite()]), TextSegment(text=" " + NOT_BACKED, citations=[cite()])]


def judge_for(settings, stub) -> LLMJudge:
    return make_judge(settings.model_copy(update={"judge": "llm", "openai_base_url": stub.base_url,
                                                  "openai_model": "stub-judge"}))


def verdicts(*labels: str, relevant: bool = True) -> str:
    return json.dumps({"sentences": [{"id": i, "label": lab} for i, lab in enumerate(labels, start=1)],
                       "relevant": relevant})


def test_offline_by_default_and_the_offline_judge_misses_a_negation(settings):
    assert settings.judge == "offline" and make_judge(settings) is None
    cov = compute_coverage(content(), QUESTION)
    # Offline, the contradicting sentence shares nearly every term with its quote: not unsupported. That is what
    # an LLM judge is for.
    assert NOT_BACKED not in cov.unsupported


def test_one_call_judges_every_cited_sentence_and_relevance(settings):
    with OpenAIStub(lambda req: verdicts("supported", "unsupported")) as stub:
        segments = content()
        cov = compute_coverage(segments, QUESTION, judge=judge_for(settings, stub))
    assert len(stub.requests) == 1
    request = stub.requests[0]
    assert request["model"] == "stub-judge"
    prompt = request["messages"][-1]["content"]
    assert QUESTION in prompt and BACKED in prompt and NOT_BACKED in prompt and LABEL in prompt
    assert cov.supported == 1 and cov.unsupported == [NOT_BACKED] and cov.relevant and cov.relevance == 1.0
    assert [seg.support.label for seg in segments] == [Support.supported, Support.unsupported]
    assert all(seg.support.method == "llm" for seg in segments)
    assert cov.judge == "llm"
    assert segments[0].support.evidence == [0]  # the offline judgement's evidence is kept beside the LLM's label


def test_the_llm_can_find_the_sources_irrelevant(settings):
    with OpenAIStub(lambda req: verdicts("supported", "supported", relevant=False)) as stub:
        cov = compute_coverage(content(), "¿Cuál es la capital de Australia?", judge=judge_for(settings, stub))
    assert not cov.relevant and cov.relevance == 0.0 and cov.flag_reasons == ["not_relevant"]


def test_a_reply_off_the_asked_shape_leaves_the_offline_judgement(settings, caplog):
    offline = compute_coverage(content(), QUESTION)
    bad_replies = [
        "Both sentences are supported.",  # prose
        verdicts("supported"),  # a sentence without a verdict
        verdicts("supported", "maybe"),  # an unknown label
        json.dumps({"sentences": [{"id": "1", "label": "supported"}, {"id": 2, "label": "supported"}],
                    "relevant": True}),  # an id that is not a number
        json.dumps({"sentences": [{"id": 1, "label": "supported"}, {"id": 2, "label": "supported"}]}),  # no relevance
    ]
    for reply in bad_replies:
        with OpenAIStub(lambda req, reply=reply: reply) as stub, caplog.at_level(logging.WARNING):
            segments = content()
            cov = compute_coverage(segments, QUESTION, judge=judge_for(settings, stub))
        assert len(stub.requests) == 1, reply
        assert cov.model_dump(exclude={"judge"}) == offline.model_dump(exclude={"judge"}), reply
        assert cov.judge.startswith("offline (the LLM judge failed"), reply
        assert all(seg.support.method.startswith("offline (the LLM judge failed") for seg in segments), reply
    assert "the LLM judge failed" in caplog.text


def test_a_failing_endpoint_falls_back_to_the_offline_judgement(settings):
    with OpenAIStub(lambda req: verdicts("supported", "supported")) as stub:
        stub.fail(500, times=3)  # every attempt (RETRIES + 1)
        judge = judge_for(settings, stub)
        judge.backoff_s = 0.01
        segments = content()
        cov = compute_coverage(segments, QUESTION, judge=judge)
    assert len(stub.requests) == 3
    assert all(seg.support.method.startswith("offline (the LLM judge failed") for seg in segments)
    assert "HTTP 500" in segments[0].support.method
    assert cov.judge.startswith("offline (the LLM judge failed") and "HTTP 500" in cov.judge
    offline = compute_coverage(content(), QUESTION)
    assert offline.judge == "offline"
    assert cov.model_dump(exclude={"judge"}) == offline.model_dump(exclude={"judge"})


def test_llm_without_an_endpoint_says_so(settings):
    judge = make_judge(settings.model_copy(update={"judge": "llm", "openai_base_url": None}))
    segments = content()
    cov = compute_coverage(segments, QUESTION, judge=judge)
    assert "GACETA_OPENAI_BASE_URL" in segments[0].support.method and cov.cited == 2


def test_the_pipeline_judges_a_tags_answer_with_the_llm(settings, embedder):
    # The same endpoint answers (tags) and then judges: two calls, the second one the judge's.
    hits = make_hits(["Artículo 2.- El plazo para presentar el aviso será de treinta días hábiles. "
                      "El aviso se presentará por escrito."])
    answer_text = ('El plazo para presentar el aviso es de <cite chunk="1" sentences="1">treinta días hábiles'
                   '</cite>.')

    def reply(req):
        system = req["messages"][0]["content"]
        return verdicts("unsupported", relevant=True) if "cited sources back an answer" in system else answer_text

    with OpenAIStub(reply) as stub:
        llm = settings.model_copy(update={"judge": "llm", "openai_base_url": stub.base_url, "answerer": "tags"})
        answer = answer_hits("¿Cuál es el plazo para presentar el aviso?", hits, TagsAnswerer(llm), embedder,
                             make_judge(llm))
    assert len(stub.requests) == 2
    judged = [seg.support for seg in answer.content if seg.support is not None]
    assert judged and all(j.method == "llm" and j.label is Support.unsupported for j in judged)
    assert answer.coverage.cited == 1
    assert answer.coverage.unsupported and answer.coverage.flag_reasons == ["unsupported"]
