"""`gaceta serve`: the HTTP API and the web page, on uvicorn, in one process per core by default.

The index is opened before the port is bound: with the embedded store this process becomes its only owner, and a
second process pointed at the same data dir fails here with the store's own message naming the owner. With
`--workers N` above 1 (the default on a multi-core machine) N worker processes serve the requests
(`gaceta.api.workers`); over the embedded store this process stays its owner and serves it to them
(`retrieval.store.shared`), over a Qdrant URL each worker opens the collection itself.
"""

from __future__ import annotations

import os

import typer

from gaceta.cli.common import console, fail, settings


def _cores() -> int:
    return len(os.sched_getaffinity(0))


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        host: str = typer.Option("127.0.0.1", help="Interface to listen on (0.0.0.0 exposes it to the network)."),
        port: int = typer.Option(8000, min=1, max=65535, help="TCP port."),
        workers: int = typer.Option(
            _cores(), min=1, max=64, help="Worker processes (default: one per core); 1 serves from this process."
        ),
        access_log: bool = typer.Option(
            False, "--access-log/--no-access-log", help="Log every request (off: a proxy in front usually does)."
        ),
    ) -> None:
        """Serve the HTTP API (/search, /ask, /ask/stream, /documents, /healthz, /docs) and the web page at /."""
        # Concurrent requests are the parallelism: one math thread per request. With torch's default (a thread per
        # core in every request) concurrent query embeddings oversubscribe the cores: 27 ms became 700 ms under load.
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        import uvicorn

        from gaceta.api import create_app
        from gaceta.api.workers import STORE_ADDRESS_ENV, STORE_KEY_ENV, run_workers
        from retrieval.embedders import EmbedderError
        from retrieval.index import Index
        from retrieval.store import StoreError
        from retrieval.store.shared import StoreHost

        config = settings()
        try:
            index = Index.open(config)
        except (StoreError, EmbedderError) as exc:  # index in use by another process, model mismatch, server down
            fail(str(exc))
        if config.api_key is None and host not in ("127.0.0.1", "localhost", "::1"):
            console.print(f"[yellow]warning:[/] {host} without GACETA_API_KEY: anyone who can reach it can query")
        console.print(f"gaceta on http://{host}:{port}/  (API docs at /docs, {workers} worker process(es))")
        store_host = None
        try:
            if workers == 1:
                uvicorn.run(create_app(config, index), host=host, port=port, log_level="info", access_log=access_log)
                return
            if index.store.exclusive:  # the embedded store: this process owns it and serves it to the workers
                store_host = StoreHost(index.store)
                os.environ[STORE_ADDRESS_ENV] = store_host.address
                os.environ[STORE_KEY_ENV] = store_host.authkey.hex()
            if not run_workers(host, port, workers, access_log):
                fail("a worker could not start the app (its reason is logged above)")
        finally:
            if store_host is not None:
                store_host.close()
            index.close()
