"""A local OpenAI-compatible chat endpoint (POST /v1/chat/completions) on 127.0.0.1 for the `tags` and `tools`
answerers.

- `responder(request_json) -> str | ToolCall | dict` gives the assistant's message content (str), a function call
  (`ToolCall`: its name and arguments, a dict or raw JSON text — malformed text is sent as is), or a whole response
  body (dict, sent as is, never streamed).
- `stream: true` requests get SSE `chat.completion.chunk`s ending with `data: [DONE]`: content in `delta_size`
  pieces, or the tool call's id/name first and then its arguments in `delta_size` pieces; a usage chunk when
  `stream_options.include_usage` is set.
- Scripted trouble: `fail(status, times)` answers the next requests with HTTP errors; `delay_s` slows answers;
  `hold_after(n)` stops a stream after `n` content/argument deltas until `release` is set (or 10 s pass), so a test
  can see what a client made of the first deltas while the rest is still unsent (`finished` is set when a stream's
  last byte went out).
- `requests` records request bodies (`headers` their headers).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from tests.stubs import JSONHandler, LoopbackServer


@dataclass
class ToolCall:
    arguments: dict | str  # a dict is JSON-encoded; a str goes out verbatim (malformed JSON stays malformed)
    name: str = "answer_with_citations"

    @property
    def text(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments, ensure_ascii=False)


class OpenAIStub(LoopbackServer):
    def __init__(self, responder: Callable[[dict], "str | ToolCall | dict"], delta_size: int = 9):
        self.responder = responder
        self.delta_size = delta_size
        self.delay_s = 0.0
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.hold: int | None = None
        self.release = threading.Event()
        self.finished = threading.Event()
        self._failures: list[int] = []
        self._lock = threading.Lock()
        super().__init__(self._handler())

    @property
    def base_url(self) -> str:
        return self.origin + "/v1"

    def fail(self, status: int = 500, times: int = 1) -> None:
        self._failures.extend([status] * times)

    def hold_after(self, deltas: int) -> None:
        self.hold = deltas

    def _chunks(self, body: dict, reply: "str | ToolCall") -> list[dict]:
        """The SSE payloads of a streamed reply (without the final [DONE])."""
        base = {"id": f"chatcmpl-stub-{len(self.requests)}", "object": "chat.completion.chunk",
                "model": body.get("model", "stub")}

        def chunk(delta: dict, finish: str | None = None) -> dict:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        n = self.delta_size
        if isinstance(reply, ToolCall):
            text = reply.text
            out = [chunk({"role": "assistant", "content": None, "tool_calls": [
                {"index": 0, "id": "call_stub_0", "type": "function", "function": {"name": reply.name, "arguments": ""}}]})]
            out += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": text[i:i + n]}}]})
                    for i in range(0, len(text), n)]
            out.append(chunk({}, "tool_calls"))
        else:
            text = reply
            out = [chunk({"role": "assistant", "content": ""})]
            out += [chunk({"content": text[i:i + n]}) for i in range(0, len(text), n)]
            out.append(chunk({}, "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            prompt = _prompt_tokens(body)
            out.append({**base, "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": len(text) // 4,
                                                         "total_tokens": prompt + len(text) // 4}})
        return out

    def _handler(self):
        stub = self

        class Handler(JSONHandler):
            def do_POST(self) -> None:
                body, failure = self._record(stub)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._json(404, {"error": {"message": f"no route {self.path}"}})
                if stub.delay_s:
                    time.sleep(stub.delay_s)
                if failure:
                    return self._json(failure, {"error": {"message": f"stub error {failure}", "type": "server_error"}})
                reply = stub.responder(body)
                if isinstance(reply, dict):
                    return self._json(200, reply)
                if body.get("stream"):
                    return self._stream(body, reply)
                text = reply.text if isinstance(reply, ToolCall) else reply
                message = {"role": "assistant", "content": reply}
                finish = "stop"
                if isinstance(reply, ToolCall):
                    finish = "tool_calls"
                    message = {"role": "assistant", "content": None, "tool_calls": [
                        {"id": "call_stub_0", "type": "function",
                         "function": {"name": reply.name, "arguments": reply.text}}]}
                prompt = _prompt_tokens(body)
                self._json(200, {
                    "id": f"chatcmpl-stub-{len(stub.requests)}",
                    "object": "chat.completion",
                    "model": body.get("model", "stub"),
                    "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                    "usage": {"prompt_tokens": prompt, "completion_tokens": len(text) // 4,
                              "total_tokens": prompt + len(text) // 4},
                })

            def _stream(self, body: dict, reply) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                for i, payload in enumerate(stub._chunks(body, reply)):
                    if stub.hold is not None and i == stub.hold + 1:  # chunk 0 opens the message
                        stub.release.wait(10)
                    self.wfile.write(f"data: {json.dumps(payload, ensure_ascii=False)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                stub.finished.set()
                self.close_connection = True

        return Handler


def _prompt_tokens(body: dict) -> int:
    return sum(len(m.get("content") or "") for m in body.get("messages", [])) // 4
