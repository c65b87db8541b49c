"""/ask and /ask/stream with the extractive answerer: cited, verified, offsets that point into the document."""

from __future__ import annotations

import json

QUESTION = "¿Dentro de qué plazo puede el sindicato formular objeciones a la declaración anual del patrón?"


def parse_sse(raw: str) -> list[tuple[str, dict]]:
    events = []
    for frame in raw.replace("\r\n", "\n").split("\n\n"):
        lines = [line for line in frame.split("\n") if line and not line.startswith(":")]
        name = next((line[6:].strip() for line in lines if line.startswith("event:")), "message")
        data = "\n".join(line[5:].lstrip() for line in lines if line.startswith("data:"))
        if data:
            events.append((name, json.loads(data)))
    return events


def test_ask_extractive_cites_the_article(client, reglamento_doc_id):
    r = client.post("/ask", json={"question": QUESTION, "k": 5})
    assert r.status_code == 200
    answer = r.json()
    assert answer["backend"] == "extractive" and answer["found"]
    citations = [c for seg in answer["content"] for c in seg["citations"]]
    assert citations and all(c["verified"] for c in citations)
    doc = client.get(f"/documents/{reglamento_doc_id}").json()
    ours = [c for c in citations if c["doc_id"] == reglamento_doc_id]
    assert any("treinta días hábiles" in c["cited_text"] for c in ours)
    for c in ours:
        assert doc["markdown"][c["start"] : c["end"]] == c["cited_text"]
    assert 0.0 <= answer["coverage"]["ratio"] <= 1.0


def test_ask_with_unconfigured_llm_falls_back_and_says_why(client):
    r = client.post("/ask", json={"question": QUESTION, "k": 3, "answerer": "claude"})
    assert r.status_code == 200
    answer = r.json()
    assert answer["backend"] == "extractive"
    assert "claude" in answer["fallback_reason"]


def test_stream_events_arrive_in_order_and_rebuild_the_answer(client):
    with client.stream("POST", "/ask/stream", json={"question": QUESTION, "k": 5}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = parse_sse(r.read().decode())
    names = [name for name, _ in events]
    assert names[0] == "sources" and names[-2:] == ["coverage", "done"]
    assert set(names[1:-2]) <= {"text", "citation"} and "text" in names and "citation" in names
    assert all(data["event"] == name for name, data in events)

    answer = events[-1][1]["answer"]
    texts: dict[int, str] = {}
    cited: dict[int, list[dict]] = {}
    for name, data in events[1:-2]:
        if name == "text":
            texts[data["segment"]] = texts.get(data["segment"], "") + data["text"]
        else:
            cited.setdefault(data["segment"], []).append(data["citation"])
    assert [texts.get(i, "") for i in range(len(answer["content"]))] == [s["text"] for s in answer["content"]]
    assert {i: cs for i, cs in cited.items()} == {i: s["citations"] for i, s in enumerate(answer["content"]) if s["citations"]}
    assert events[-2][1]["coverage"] == answer["coverage"]
    assert [h["chunk"]["chunk_id"] for h in events[0][1]["sources"]] == [h["chunk"]["chunk_id"] for h in answer["sources"]]


def test_stream_with_nothing_indexed_for_the_filter_says_not_found(client):
    body = {"question": QUESTION, "filters": {"doc_ids": ["absent-000"]}}
    with client.stream("POST", "/ask/stream", json=body) as r:
        events = parse_sse(r.read().decode())
    assert [n for n, _ in events][0] == "sources" and events[0][1]["sources"] == []
    assert events[-1][0] == "done" and events[-1][1]["answer"]["found"] is False


def test_stream_attaches_late_citations_to_their_segment(claude_settings, api_index):
    """Claude (a local stub, through the real SDK) sends each citation after its text block's text."""
    from fastapi.testclient import TestClient

    from gaceta.api import create_app
    from tests.api.conftest import UNCITED

    with TestClient(create_app(claude_settings, api_index)) as claude_client:
        with claude_client.stream("POST", "/ask/stream", json={"question": QUESTION, "k": 4}) as r:
            events = parse_sse(r.read().decode())
    answer = events[-1][1]["answer"]
    assert answer["backend"] == "claude" and answer["fallback_reason"] is None
    citation_at = next(i for i, (name, _) in enumerate(events) if name == "citation")
    segment = events[citation_at][1]["segment"]
    text_ats = [i for i, (name, data) in enumerate(events) if name == "text" and data["segment"] == segment]
    assert text_ats and max(text_ats) < citation_at, "the citation should arrive after its segment's text"
    assert answer["content"][segment]["citations"][0]["verified"]
    assert UNCITED[0] not in answer["content"][segment]["text"]
    coverage = events[-2][1]["coverage"]
    assert coverage["flagged"] and set(UNCITED) <= set(coverage["uncited"])
