"""`gaceta serve`: the HTTP API and the web page, on uvicorn.

Over the embedded index (the default) this one process is the index's owner: it opens the index before the port is
bound (a second owner fails here, naming the first), serves every request itself (async, concurrent searches
batched: `Index.batching_searches()`), ingests what `gaceta ingest` sends it, and announces itself in
`$GACETA_HOME/owner.json` so every other command goes through it. `--workers N` above 1 is for a Qdrant server
(GACETA_QDRANT_URL): uvicorn's own worker processes, each opening the collection itself.

Trust boundaries (issue 23): without GACETA_API_KEY it binds loopback only (anything else is refused: anyone who could
reach it could replace a law); the API answers only the Host names of the address it binds (`allowed_hosts`: DNS
rebinding), plus `--allowed-host` names (a proxy's). uvicorn runs its h11 protocol, whose header limit
(`h11_max_incomplete_event_size`, HEADER_LIMIT) refuses an oversize request head with a 400 (httptools has no such
limit: ten 50 MB headers cost 563 MB), with a deadline on each request's head (`gaceta.api.app.HeadTimeoutH11`: a head
still incomplete after HEAD_TIMEOUT_S closes its connection), `timeout_keep_alive` and `limit_concurrency` (a 503 beyond
it).
"""

from __future__ import annotations

import ipaddress
import json
import os
import signal
import socket
import sys

import typer

from gaceta.cli.common import console, fail, settings

LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"]  # as Starlette reads a Host header (IPv6 in brackets)
WILDCARDS = ("0.0.0.0", "::", "")
HEADER_LIMIT = 64 * 1024  # request line + headers; a browser's are a few KB
KEEP_ALIVE_S = 5
MAX_CONNECTIONS = 512  # open connections and tasks at once (uvicorn answers 503 beyond)


def uvicorn_limits() -> dict:
    """uvicorn's own settings that bound a request's head (its size; its time, `HeadTimeoutH11`) and a connection's
    idle life."""
    from gaceta.api.app import HeadTimeoutH11

    return {"http": HeadTimeoutH11, "h11_max_incomplete_event_size": HEADER_LIMIT,
            "timeout_keep_alive": KEEP_ALIVE_S, "limit_concurrency": MAX_CONNECTIONS}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, extra: list[str], api_key: str | None) -> list[str]:
    """The Host names this server answers: loopback's, the bound address, the names given. A wildcard bind (with
    an API key, the only way to have one) answers any name unless names are given."""
    if host in WILDCARDS and not extra:
        return ["*"]
    bound = [] if host in WILDCARDS or is_loopback(host) else [f"[{host}]" if ":" in host else host]
    return list(dict.fromkeys([*LOOPBACK_NAMES, *bound, *extra]))


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
        allowed_host: list[str] = typer.Option(
            [], "--allowed-host", help="Another Host name the API answers (a proxy's); repeatable. By default the "
            "bound address's names only (DNS rebinding)."
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
        from retrieval.doctor import engine_panics_quiet
        from retrieval.embedders import EmbedderError
        from retrieval.index import Index
        from retrieval.store import StoreError

        config = settings()
        if config.api_key is None and not is_loopback(host):
            fail(f"refusing to serve on {host} without GACETA_API_KEY: anyone who could reach it could ingest or "
                 f"delete documents; set GACETA_API_KEY, or serve on 127.0.0.1")
        if config.allowed_hosts is None:
            config = config.model_copy(update={"allowed_hosts": allowed_hosts(host, allowed_host, config.api_key)})
        if config.qdrant_url and workers > 1:
            os.environ["GACETA_ALLOWED_HOSTS"] = json.dumps(config.allowed_hosts)  # uvicorn's workers read it
            console.print(f"gaceta on {_url(host, port)}/  (API docs at /docs, {workers} workers on {config.qdrant_url})")
            # uvicorn's own supervisor; each worker builds the app from the environment and opens the collection.
            uvicorn.run("gaceta.api.app:create_app", factory=True, host=host, port=port, workers=workers,
                        log_level="info", access_log=access_log, **uvicorn_limits())
            return
        if workers > 1:
            fail(f"--workers {workers} needs a Qdrant server (GACETA_QDRANT_URL): the embedded index is served by one "
                 f"process, which batches concurrent searches")
        owner = find_owner(config)
        if owner is not None:
            fail(f"this index is already served by pid {owner.pid} at {owner.url} (since {owner.started})")
        try:
            with engine_panics_quiet():  # a panicking segment is IndexDamaged's one line, not Rust's report too
                index = Index.open(config)
        except (StoreError, EmbedderError) as exc:  # index in use by another process, model mismatch, server down
            fail(str(exc))
        try:
            sock = _listen(host, port)
            url = _url(host, sock.getsockname()[1])
            console.print(f"gaceta on {url}/  (API docs at /docs)")
            app = create_app(config, index, owner_url=None if config.qdrant_url else url)
            server = uvicorn.Server(uvicorn.Config(app, log_level="info", access_log=access_log,
                                                   timeout_graceful_shutdown=10, **uvicorn_limits()))
            # uvicorn shuts down gracefully on SIGTERM, then raises the signal again: with this handler that ends
            # here, so the index is still closed (optimized, flushed, its lock released) and the exit status is 0.
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
            server.run(sockets=[sock])
        finally:
            index.close()
