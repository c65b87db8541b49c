"""Local HTTP stand-ins (127.0.0.1) for the LLM APIs, driven through the real clients in tests."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 (random port) for the life of a `with` block."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


class JSONHandler(BaseHTTPRequestHandler):
    """Quiet request handler with a JSON reply helper, shared by the stubs."""

    def log_message(self, *args) -> None:
        pass

    def _record(self, stub) -> tuple[dict, object]:
        """Read the JSON body, record it and its headers on `stub`, and pop the next scripted failure (or None)."""
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        with stub._lock:
            stub.requests.append(body)
            stub.headers.append(dict(self.headers))
            failure = stub._failures.pop(0) if stub._failures else None
        return body, failure

    def _json(self, status: int, body: dict, headers: dict | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
