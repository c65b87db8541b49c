"""A local OpenAI-compatible chat endpoint (POST /v1/chat/completions) on 127.0.0.1 for the `tags` answerer.

`responder(request_json) -> str | dict` gives the assistant's message content (str) or a whole response body
(dict); `fail(status, times)` scripts HTTP errors; `delay_s` slows answers; `requests` records request bodies.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from tests.stubs import JSONHandler, LoopbackServer


class OpenAIStub(LoopbackServer):
    def __init__(self, responder: Callable[[dict], "str | dict"]):
        self.responder = responder
        self.delay_s = 0.0
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._failures: list[int] = []
        self._lock = threading.Lock()
        super().__init__(self._handler())

    @property
    def base_url(self) -> str:
        return self.origin + "/v1"

    def fail(self, status: int = 500, times: int = 1) -> None:
        self._failures.extend([status] * times)

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
                prompt = sum(len(m.get("content") or "") for m in body.get("messages", [])) // 4
                self._json(200, {
                    "id": f"chatcmpl-stub-{len(stub.requests)}",
                    "object": "chat.completion",
                    "model": body.get("model", "stub"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply}}],
                    "usage": {"prompt_tokens": prompt, "completion_tokens": len(reply) // 4,
                              "total_tokens": prompt + len(reply) // 4},
                })

        return Handler
