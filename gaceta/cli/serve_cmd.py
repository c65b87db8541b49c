"""`gaceta serve`: the HTTP API and the web page, on uvicorn.

The index is opened before the port is bound: with the embedded store this process becomes its only owner, and a
second process pointed at the same data dir fails here with the store's own message naming the owner.
"""

from __future__ import annotations

import os

import typer

from gaceta.cli.common import console, fail, settings


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        host: str = typer.Option("127.0.0.1", help="Interface to listen on (0.0.0.0 exposes it to the network)."),
        port: int = typer.Option(8000, min=1, max=65535, help="TCP port."),
    ) -> None:
        """Serve the HTTP API (/search, /ask, /ask/stream, /documents, /healthz, /docs) and the web page at /."""
        # Concurrent requests are the parallelism: one math thread per request. With torch's default (a thread per
        # core in every request) concurrent query embeddings oversubscribe the cores: 27 ms became 700 ms under load.
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        import uvicorn

        from gaceta.api import create_app
        from retrieval.embedders import EmbedderError
        from retrieval.index import Index
        from retrieval.store import StoreError

        config = settings()
        try:
            index = Index.open(config)
        except (StoreError, EmbedderError) as exc:  # index in use by another process, model mismatch, server down
            fail(str(exc))
        if config.api_key is None and host not in ("127.0.0.1", "localhost", "::1"):
            console.print(f"[yellow]warning:[/] {host} without GACETA_API_KEY: anyone who can reach it can query")
        console.print(f"gaceta on http://{host}:{port}/  (API docs at /docs)")
        try:
            uvicorn.run(create_app(config, index), host=host, port=port, log_level="info")
        finally:
            index.close()
