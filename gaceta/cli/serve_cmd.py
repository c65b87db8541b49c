"""`gaceta serve`: the HTTP API and the web page, on uvicorn.

Over the embedded index (the default) this one process is the index's owner: it opens the index before the port is
bound (a second owner fails here, naming the first), serves every request itself (async, concurrent searches
batched: `Index.batching_searches()`), ingests what `gaceta ingest` sends it, and announces itself in
`$GACETA_HOME/owner.json` so every other command goes through it. `--workers N` above 1 is for a Qdrant server
(GACETA_QDRANT_URL): uvicorn's own worker processes, each opening the collection itself.
"""

from __future__ import annotations

import os
import signal
import socket
import sys

import typer

from gaceta.cli.common import console, fail, settings

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def _listen(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        fail(f"cannot listen on {host}:{port}: {exc.strerror}")
    sock.listen(2048)  # connections wait in the backlog until the app is up
    return sock


def _url(host: str, port: int) -> str:
    """The address other local processes use (a wildcard bind is reached through loopback)."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        host: str = typer.Option("127.0.0.1", help="Interface to listen on (0.0.0.0 exposes it to the network)."),
        port: int = typer.Option(8000, min=0, max=65535, help="TCP port (0: any free port, written to owner.json)."),
        workers: int = typer.Option(
            1, min=1, max=64, help="Worker processes: only with a Qdrant server (GACETA_QDRANT_URL); the embedded "
            "index is served by this one process."
        ),
        access_log: bool = typer.Option(
            False, "--access-log/--no-access-log", help="Log every request (off: a proxy in front usually does)."
        ),
    ) -> None:
        """Serve the HTTP API (/search, /ask, /ask/stream, /documents, /ingest, /status, /healthz, /docs) and the web
        page at /. Over the embedded index, other gaceta commands go through this server while it runs."""
        # Concurrent requests are the parallelism: one math thread per request. With torch's default (a thread per
        # core in every request) concurrent query embeddings oversubscribe the cores: 27 ms became 700 ms under load.
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        import uvicorn

        from gaceta.api import create_app
        from gaceta.client import find_owner
        from retrieval.embedders import EmbedderError
        from retrieval.index import Index
        from retrieval.store import StoreError

        config = settings()
        if config.api_key is None and host not in LOCAL_HOSTS:
            console.print(f"[yellow]warning:[/] {host} without GACETA_API_KEY: anyone who can reach it can query "
                          f"and ingest")
        if config.qdrant_url and workers > 1:
            console.print(f"gaceta on {_url(host, port)}/  (API docs at /docs, {workers} workers on {config.qdrant_url})")
            # uvicorn's own supervisor; each worker builds the app from the environment and opens the collection.
            uvicorn.run("gaceta.api.app:create_app", factory=True, host=host, port=port, workers=workers,
                        log_level="info", access_log=access_log)
            return
        if workers > 1:
            fail(f"--workers {workers} needs a Qdrant server (GACETA_QDRANT_URL): the embedded index is served by one "
                 f"process, which batches concurrent searches")
        owner = find_owner(config)
        if owner is not None:
            fail(f"this index is already served by pid {owner.pid} at {owner.url} (since {owner.started})")
        try:
            index = Index.open(config)
        except (StoreError, EmbedderError) as exc:  # index in use by another process, model mismatch, server down
            fail(str(exc))
        try:
            sock = _listen(host, port)
            url = _url(host, sock.getsockname()[1])
            console.print(f"gaceta on {url}/  (API docs at /docs)")
            app = create_app(config, index, owner_url=None if config.qdrant_url else url)
            server = uvicorn.Server(uvicorn.Config(app, log_level="info", access_log=access_log,
                                                   timeout_graceful_shutdown=10))
            # uvicorn shuts down gracefully on SIGTERM, then raises the signal again: with this handler that ends
            # here, so the index is still closed (optimized, flushed, its lock released) and the exit status is 0.
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
            server.run(sockets=[sock])
        finally:
            index.close()
