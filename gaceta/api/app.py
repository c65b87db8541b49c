"""The FastAPI application: routers, the optional API key, clear 422s, and the static web page at `/`.

`create_app(settings, index)` takes an index that is already open (the `serve` command opens it first, so a locked
store fails before the port is bound) or opens one at start-up (`open_index`, by default from the settings) and
closes it at shutdown.

Request bodies are bounded before they are read (`BodyLimits`: GACETA_MAX_REQUEST_BYTES, GACETA_MAX_UPLOAD_BYTES for
`POST /ingest`). With GACETA_API_KEY set, every route but `/healthz`, the page `/` and `/static` needs the key — the
schema pages `/openapi.json`, `/docs` and `/redoc` too, which also take it as the password of HTTP Basic (the login a
browser prompts for, any user name), so the docs still open in a browser. With `owner_url` (`gaceta serve` over the embedded index) the app announces itself as the
index's owner once it is ready to answer (`gaceta.client.write_owner`), and withdraws when it stops: other commands
then go through it.

Trust boundaries (issue 23): a web page the user visits must not write to this index. Every state-changing request
(any method but GET, HEAD, OPTIONS) whose `Origin` is not this server's own (the `Host` it was sent to) is a 403
(`SameOriginWrites`), so a cross-site form or fetch cannot ingest or delete; with GACETA_ALLOWED_HOSTS (`gaceta serve`
sets it from the address it binds) any other `Host` is a 400 (Starlette's `TrustedHostMiddleware`), which closes DNS
rebinding. HEAD is answered wherever GET is (`HeadAsGet`). A body that stops arriving for `BODY_READ_TIMEOUT_S` is a
408, a request head not whole after `HEAD_TIMEOUT_S` closes its connection (`HeadTimeoutH11`, the uvicorn protocol
`gaceta serve` runs), and work that waits on a bounded pool (page rendering, attribution) past its wait is a 503 with
`Retry-After`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from collections.abc import Callable
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import h11
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import HTTPException, RequestValidationError
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.middleware.body_limit import MAX_BODY_SIZE_SCOPE_KEY, RequestBodyLimitResponder
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from gaceta.api.deps import require_api_key, require_schema_key
from gaceta.api.pages import Busy, PageRenderer
from gaceta.api.routes import attribute, documents, ingest, laws, query
from gaceta.api.schemas import Health, errors, without_home
from retrieval.owner import owner_id
from retrieval.settings import Settings
from retrieval.store import StoreError

log = logging.getLogger(__name__)
ATTRIBUTIONS_AT_ONCE = 2  # /attribute runs (each a search per sentence and a support judgement) at once; others wait
WEB_DIR = Path(__file__).resolve().parent.parent / "web"

# The page loads only its own script and style; images may be blob: URLs made from authorised fetches.
_PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' blob: data:; object-src 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _version() -> str:
    try:
        return version("gaceta")
    except PackageNotFoundError:
        return "unknown"


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's 422 body, plus one readable line; the rejected input is not echoed (it may not even be encodable)."""
    errors = [{"type": e["type"], "loc": list(e["loc"]), "msg": e["msg"]} for e in exc.errors()]
    message = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors)
    return JSONResponse({"detail": errors, "message": message}, status_code=422)


_ABSOLUTE_PATH = re.compile(r"(?<![\w$])/(?:[^\s/:;,()'\"]+/)+[^\s/:;,()'\"]*")  # any other absolute path
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
BODY_READ_TIMEOUT_S = 60.0  # the longest pause between two pieces of a request body (a half-sent body is a 408)
HEAD_TIMEOUT_S = 10.0  # the longest a request's head (request line and headers) may take to arrive


def _forbidden(message: str) -> JSONResponse:
    return JSONResponse({"detail": message}, status_code=403)


class SameOriginWrites:
    """A state-changing request from a browser must come from this server's own page: its `Origin` (which browsers
    send with every cross-origin request and every POST/DELETE) must name the `Host` it was sent to; `Origin: null`
    (a sandboxed or file: page) and `Sec-Fetch-Site: cross-site` are refused too. Clients that are not browsers
    (curl, httpx, `gaceta`) send neither header and pass: they are what the API key and the bound address are for."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if origin is not None:
            # Behind a proxy the name the browser used may come as X-Forwarded-Host: a page cannot set that header
            # without a preflight, which no route grants.
            own = {headers.get("host", "").lower(), headers.get("x-forwarded-host", "").split(",")[0].strip().lower()}
            try:
                theirs = urlsplit(origin).netloc.lower() if origin != "null" else ""
            except ValueError:
                theirs = ""
            if not theirs or theirs not in own:
                return await _forbidden(f"cross-origin {scope['method']} refused: this server answers writes from "
                                        f"its own page only")(scope, receive, send)
        elif headers.get("sec-fetch-site") == "cross-site":
            return await _forbidden(f"cross-site {scope['method']} refused")(scope, receive, send)
        await self.app(scope, receive, send)


class HeadAsGet:
    """HEAD answered as GET without its body (FastAPI's routes list GET only, so HEAD was a 405)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            return await self.app(scope, receive, send)

        async def headers_only(message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class HeadTimeoutH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's head. uvicorn times a kept-alive connection's idle
    wait only until the next request's first byte, and a new connection's not at all: a head that never ends (or
    trickles in a byte at a time) held its connection, one of `limit_concurrency`, for good. Here a connection
    whose request line and headers are not whole HEAD_TIMEOUT_S after it opened, or after its last response, is
    closed (the body's own pace is `BodyLimits`': BODY_READ_TIMEOUT_S). `gaceta serve` runs it
    (`serve_cmd.uvicorn_limits`)."""

    head_timeout_s: float = HEAD_TIMEOUT_S

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        self._await_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._head_timer is not None and self.conn.their_state is not h11.IDLE:  # the head is whole
            self._head_timer.cancel()
            self._head_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()  # the next request's head, on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().connection_lost(exc)

    def _await_head(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def _too_large_message(limit: int | None) -> str:
    return f"request body larger than {limit} bytes, the most this server accepts here"


class BodyLimits:
    """A request body over its limit is a 413 before it is read: at once when its Content-Length says so, else as
    soon as the bytes streamed in pass the limit (Starlette's `RequestBodyLimitResponder` counts them). `POST /ingest`
    (a PDF) has its own, larger limit."""

    def __init__(self, app: ASGIApp, default: int, per_path: dict[str, int]):
        self.app, self.default, self.per_path = app, default, per_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.per_path.get(scope["path"], self.default)
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await JSONResponse({"detail": _too_large_message(limit)}, status_code=413)(scope, receive, send)
            return
        await RequestBodyLimitResponder(self.app, limit)(scope, _timed(receive), send)


class BodyStalled(HTTPException):
    """The sender stopped sending a request body (a half-sent body is not waited on forever): a 408. An
    HTTPException, so FastAPI's body parsing lets it through as it is (any other error there becomes a 400)."""

    def __init__(self, detail: str):
        super().__init__(408, detail, {"Connection": "close"})


def _timed(receive: Receive) -> Receive:
    """`receive` with a deadline on each piece of the body, until the body is whole (a streamed response then
    listens on it for the client's disconnect, for as long as it streams)."""
    whole = False

    async def timed():
        nonlocal whole
        if whole:
            return await receive()
        try:
            message = await asyncio.wait_for(receive(), BODY_READ_TIMEOUT_S)
        except asyncio.TimeoutError:
            raise BodyStalled(f"no part of the request body arrived for {BODY_READ_TIMEOUT_S:.0f} s") from None
        whole = message["type"] != "http.request" or not message.get("more_body", False)
        return message

    return timed


async def _method_not_allowed(request: Request, exc: HTTPException) -> JSONResponse:
    """405 with every method the path answers to in `Allow` (Starlette names only the first route that matched it:
    `GET` and `DELETE /documents/{id}` are two routes)."""
    allowed = {m for route in request.app.state.routes if isinstance(route, Route) and route.methods
               and route.matches(request.scope)[0] is not Match.NONE for m in route.methods}
    return JSONResponse({"detail": f"{request.method} is not allowed here"}, status_code=405,
                        headers={"Allow": ", ".join(sorted(allowed))})


async def _too_large(request: Request, exc: HTTPException) -> JSONResponse:
    """The 413 raised while a body streams in, with the limit it passed."""
    return JSONResponse({"detail": _too_large_message(request.scope.get(MAX_BODY_SIZE_SCOPE_KEY))}, status_code=413)


async def _busy(request: Request, exc: Busy) -> JSONResponse:
    """A bounded pool (page rendering, attribution) stayed full for as long as a request waits: try again later."""
    log.warning("%s %s: %s", request.method, request.url.path, exc)
    return JSONResponse({"detail": str(exc)}, status_code=503, headers={"Retry-After": "5"})


async def _store_failed(request: Request, exc: Exception) -> JSONResponse:
    """The store failed under a request (damage met after start-up, a Qdrant server gone): 503 with the store's own
    one-line message (it names the repair), logged; never a 500 with a traceback for an expected failure."""
    log.error("%s %s: %s", request.method, request.url.path, exc)
    # The log keeps the path; the reply names the data dir as $GACETA_HOME (no server path leaves the server).
    detail = without_home(str(exc), request.app.state.settings.home)
    return JSONResponse({"detail": _ABSOLUTE_PATH.sub("…", detail)}, status_code=503)


def create_app(settings: Settings | None = None, index=None, open_index: Callable[[], Any] | None = None,
               owner_url: str | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        from gaceta.api.ingest import Ingester
        from gaceta.client import remove_owner, write_owner

        owned = app.state.index is None
        if owned:
            from retrieval.index import Index

            app.state.index = open_index() if open_index else Index.open(settings)
        app.state.ingester = Ingester(app.state.index, settings)
        try:
            with app.state.index.batching_searches():
                app.state.index.embedder.embed_query("¿qué dispone?")  # load the weights now, not in a request
                if owner_url:
                    write_owner(settings.home, owner_url, app.state.owner_token)
                try:
                    yield
                finally:
                    if owner_url:
                        remove_owner(settings.home)
                    app.state.ingester.close()
        finally:
            if owned:
                app.state.index.close()
                app.state.index = None

    # With a key, the schema pages are this app's own routes (below), behind the key; without one, FastAPI's.
    schema_open = not settings.api_key
    app = FastAPI(
        title="gaceta",
        version=_version(),
        summary="Hybrid search and cited answers over official gazettes and legal PDFs.",
        lifespan=lifespan,
        openapi_url="/openapi.json" if schema_open else None,
        docs_url="/docs" if schema_open else None,
        redoc_url="/redoc" if schema_open else None,
    )
    app.state.settings = settings
    app.state.index = index
    app.state.renderer = PageRenderer()
    app.state.attributions = asyncio.Semaphore(ATTRIBUTIONS_AT_ONCE)
    # Who announces itself in owner.json proves it over HTTP: /healthz shows this token's sha256, owner.json (mode
    # 0600) holds the token; a local process that reads it may replace a source (`POST /ingest?source=`).
    app.state.owner_token = secrets.token_urlsafe(32)
    app.state.owner_id = owner_id(app.state.owner_token) if owner_url else None
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(405, _method_not_allowed)
    app.add_exception_handler(413, _too_large)
    app.add_exception_handler(StoreError, _store_failed)
    app.add_exception_handler(Busy, _busy)
    # Outermost last: the Host, then the Origin, then HEAD, then the body's size and pace.
    app.add_middleware(BodyLimits, default=settings.max_request_bytes,
                       per_path={"/ingest": settings.max_upload_bytes})
    app.add_middleware(HeadAsGet)
    app.add_middleware(SameOriginWrites)
    if settings.allowed_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=settings.allowed_hosts, www_redirect=False)

    @app.get("/healthz", response_model=Health, tags=["health"], summary="Liveness (no API key needed)")
    def healthz() -> Health:
        return Health(version=app.version, owner=app.state.owner_id)

    # Without a key the routes carry no auth dependency at all (resolving it was 5% of a worker's /search time).
    protected = [Depends(require_api_key)] if settings.api_key else []
    unauthorised = errors(401) if settings.api_key else {}
    routers = (query.router, documents.router, ingest.router, attribute.router, laws.router)
    for router in routers:
        app.include_router(router, dependencies=protected, responses=unauthorised)

    if not schema_open:
        locked = [Depends(require_schema_key)]

        @app.get("/openapi.json", include_in_schema=False, dependencies=locked)
        def openapi() -> JSONResponse:
            return JSONResponse(app.openapi())

        @app.get("/docs", include_in_schema=False, dependencies=locked)
        def docs() -> HTMLResponse:
            return get_swagger_ui_html(openapi_url="/openapi.json", title=f"{app.title} — API")

        @app.get("/redoc", include_in_schema=False, dependencies=locked)
        def redoc() -> HTMLResponse:
            return get_redoc_html(openapi_url="/openapi.json", title=f"{app.title} — API")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        # The page holds no data (every data call carries the key), so it loads without one.
        return FileResponse(WEB_DIR / "index.html", headers=_PAGE_HEADERS)

    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")
    # What a 405 lists in `Allow`: the app's own routes and the included routers'.
    app.state.routes = [r for r in app.routes if isinstance(r, Route)] + [r for rt in routers for r in rt.routes]
    return app
