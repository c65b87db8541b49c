"""A local stand-in for the Anthropic Messages API (POST /v1/messages) on 127.0.0.1, for the real `anthropic` SDK.

- `responder(request_json) -> dict | str` decides the reply: a str is one text block; a dict is a message body
  (at least `content`); the stub fills id, model, stop_reason and usage. The default responder cites the first
  sentence of the first document block. A content block may be a tool call, `tool_use(input, name)`: its `input`
  object goes out whole, or streamed as `input_json_delta`s; `tool_use(raw_json=…)` streams that text verbatim
  (malformed JSON stays malformed; a non-streamed reply then carries `input` {}).
- `stream: true` requests get SSE: message_start, per block content_block_start / deltas / stop, message_delta,
  message_stop. Text goes out in small `text_delta`s; each citation as a `citations_delta`, before the block's
  text, or after it when `citations_after_text` is set (both orders are legal for a client to handle).
- Scripted trouble: `fail(status, times, error_type)` answers the next `times` requests with that HTTP error
  (retry-after-ms: 1 so SDK retries are instant); `fail_in_stream(times, error_type)` opens the stream with HTTP 200
  and then an SSE `error` event; `delay_s` sleeps before answering (timeouts); `hold_after(n)` stops a stream after
  its first `n` content_block_delta events until `release` is set (or 10 s pass); `finished` is set when a stream's
  last event went out.
- `requests` records every request body (and `headers` its headers). Authentication is not checked: the SDK may
  send x-api-key or a Bearer token.
- Prompt caching: when a request's content block carries `cache_control`, the prefix up to it is "cached"; the
  same prefix in a later request is reported as `cache_read_input_tokens`, the first time as
  `cache_creation_input_tokens` (tokens counted as characters / 4).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from tests.stubs import JSONHandler, LoopbackServer

Responder = Callable[[dict], "dict | str"]


def _tokens(obj: Any) -> int:
    return max(1, len(json.dumps(obj, ensure_ascii=False)) // 4)


def document_blocks(request: dict) -> list[dict]:
    """The document blocks of a request's last user message, in order (their index is the citation's)."""
    content = request["messages"][-1]["content"]
    return [b for b in content if isinstance(b, dict) and b.get("type") == "document"] if isinstance(content, list) else []


def char_citation(request: dict, doc_index: int, start: int, end: int) -> dict:
    """A well-formed char_location citation of request document `doc_index`, characters [start, end)."""
    doc = document_blocks(request)[doc_index]
    return {
        "type": "char_location",
        "cited_text": doc["source"]["data"][start:end],
        "document_index": doc_index,
        "document_title": doc.get("title"),
        "start_char_index": start,
        "end_char_index": end,
    }


def tool_use(input: dict | None = None, name: str = "answer_with_citations", raw_json: str | None = None) -> dict:
    """A tool_use content block for a responder's reply (`raw_json`: the exact argument text to stream)."""
    block = {"type": "tool_use", "name": name, "input": input if input is not None else {}}
    if raw_json is not None:
        block["raw_json"] = raw_json
    return block


def cite_first_sentence(request: dict) -> dict:
    """Default reply: a lead-in, then the first sentence of document 0 as a cited block."""
    docs = document_blocks(request)
    if not docs:
        return {"content": [{"type": "text", "text": "No documents were provided."}]}
    data = docs[0]["source"]["data"]
    m = re.search(r"[.!?](\s|$)", data)
    end = m.end() if m else len(data)
    citation = char_citation(request, 0, 0, end)
    return {
        "content": [
            {"type": "text", "text": "Según el documento, "},
            {"type": "text", "text": citation["cited_text"].strip(), "citations": [citation]},
        ]
    }


class AnthropicStub(LoopbackServer):
    def __init__(self, responder: Responder | None = None, citations_after_text: bool = False, delta_size: int = 7):
        self.responder = responder or cite_first_sentence
        self.citations_after_text = citations_after_text
        self.delta_size = delta_size
        self.delay_s = 0.0
        self.hold: int | None = None
        self.release = threading.Event()
        self.finished = threading.Event()
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._failures: list[tuple[str, int, str]] = []  # (where, status, error_type)
        self._cache: set[str] = set()
        self._lock = threading.Lock()
        super().__init__(self._handler())

    # -- lifecycle -------------------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return self.origin

    # -- scripting -------------------------------------------------------------------------------------------
    def fail(self, status: int = 429, times: int = 1, error_type: str | None = None) -> None:
        kind = error_type or {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        self._failures.extend([("http", status, kind)] * times)

    def fail_in_stream(self, times: int = 1, error_type: str = "overloaded_error") -> None:
        self._failures.extend([("sse", 200, error_type)] * times)

    def hold_after(self, deltas: int) -> None:
        self.hold = deltas

    # -- behaviour -------------------------------------------------------------------------------------------
    def _usage(self, request: dict) -> dict:
        blocks: list[Any] = []
        system = request.get("system")
        blocks.extend(system if isinstance(system, list) else [system] if system else [])
        for message in request.get("messages", []):
            content = message.get("content")
            blocks.extend(content if isinstance(content, list) else [content])
        total = _tokens(blocks)
        last_cached = max((i for i, b in enumerate(blocks) if isinstance(b, dict) and b.get("cache_control")), default=-1)
        created = read = 0
        if last_cached >= 0:
            prefix = blocks[: last_cached + 1]
            key = hashlib.sha256(json.dumps(prefix, sort_keys=True).encode()).hexdigest()
            with self._lock:
                hit = key in self._cache
                self._cache.add(key)
            read, created = (_tokens(prefix), 0) if hit else (0, _tokens(prefix))
        return {"input_tokens": max(1, total - created - read), "cache_creation_input_tokens": created,
                "cache_read_input_tokens": read}

    def _message(self, request: dict) -> dict:
        reply = self.responder(request)
        if isinstance(reply, str):
            reply = {"content": [{"type": "text", "text": reply}]}
        content = []
        for i, b in enumerate(reply["content"]):
            if b.get("type") == "text":
                b = {**b, "citations": b.get("citations") or None}
            elif b.get("type") == "tool_use":
                b = {"id": f"toolu_stub_{i}", **b}
            content.append(b)
        output = sum(len(b.get("text", "")) + len(_arguments(b)) for b in content) // 4 + 1
        tool = any(b.get("type") == "tool_use" for b in content)
        return {
            "id": f"msg_stub_{len(self.requests)}",
            "type": "message",
            "role": "assistant",
            "model": request.get("model", "stub-model"),
            "content": content,
            "stop_reason": reply.get("stop_reason", "tool_use" if tool else "end_turn"),
            "stop_sequence": None,
            "usage": {**self._usage(request), "output_tokens": output},
        }

    def _sse(self, message: dict) -> list[tuple[str, dict]]:
        usage = message["usage"]
        start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
        events = [("message_start", {"type": "message_start", "message": start})]
        for i, block in enumerate(message["content"]):
            if block.get("type") == "tool_use":
                opening = {k: v for k, v in block.items() if k != "raw_json"} | {"input": {}}
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": opening}))
                text = _arguments(block)
                for j in range(0, len(text), self.delta_size):
                    events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                        "type": "input_json_delta", "partial_json": text[j : j + self.delta_size]}}))
                events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
                continue
            if block.get("type") != "text":
                continue
            events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "text", "text": "", "citations": []}}))
            text = block.get("text", "")
            texts = [{"type": "text_delta", "text": text[j : j + self.delta_size]} for j in range(0, len(text), self.delta_size)]
            cites = [{"type": "citations_delta", "citation": c} for c in block.get("citations") or []]
            for delta in (texts + cites) if self.citations_after_text else (cites + texts):
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                         "usage": {"output_tokens": usage["output_tokens"]}}))
        events.append(("message_stop", {"type": "message_stop"}))
        return events

    def _handler(self):
        stub = self

        class Handler(JSONHandler):
            def do_POST(self) -> None:
                body, failure = self._record(stub)
                if not self.path.rstrip("/").endswith("/v1/messages"):
                    return self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
                if stub.delay_s:
                    time.sleep(stub.delay_s)
                error = {"type": "error", "error": {"type": failure[2], "message": f"stub {failure[2]}"}} if failure else None
                if failure and failure[0] == "http":
                    return self._json(failure[1], error, {"retry-after-ms": "1", "x-should-retry": "true"})
                message = stub._message(body)
                if not body.get("stream"):
                    whole = [{k: v for k, v in b.items() if k != "raw_json"} for b in message["content"]]
                    return self._json(200, {**message, "content": whole})
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                events = [("error", error)] if failure else stub._sse(message)
                deltas = 0
                for name, data in events:
                    if name == "content_block_delta":
                        if deltas == stub.hold:
                            stub.release.wait(10)
                        deltas += 1
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                stub.finished.set()
                self.close_connection = True

        return Handler


def _arguments(block: dict) -> str:
    """A tool_use block's argument text as streamed: its raw_json, else its input as JSON; '' for other blocks."""
    if block.get("type") != "tool_use":
        return ""
    return block["raw_json"] if "raw_json" in block else json.dumps(block.get("input") or {}, ensure_ascii=False)
