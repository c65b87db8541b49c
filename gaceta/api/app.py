"""The FastAPI application: routers, the optional API key, clear 422s, and the static web page at `/`.

`create_app(settings, index)` takes an index that is already open (the `serve` command opens it first, so a locked
store fails before the port is bound) or opens one at start-up (`open_index`, by default from the settings) and
closes it at shutdown. With `owner_url` (`gaceta serve` over the embedded index) the app announces itself as the
index's owner once it is ready to answer (`gaceta.client.write_owner`), and withdraws when it stops: other commands
then go through it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from gaceta.api.deps import require_api_key
from gaceta.api.pages import PageRenderer
from gaceta.api.routes import attribute, documents, ingest, query
from gaceta.api.schemas import Health
from retrieval.settings import Settings

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
                    write_owner(settings.home, owner_url)
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

    app = FastAPI(
        title="gaceta",
        version=_version(),
        summary="Hybrid search and cited answers over official gazettes and legal PDFs.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.index = index
    app.state.renderer = PageRenderer()
    app.add_exception_handler(RequestValidationError, _validation_error)

    @app.get("/healthz", response_model=Health, tags=["health"], summary="Liveness (no API key needed)")
    def healthz() -> Health:
        return Health(version=app.version)

    # Without a key the routes carry no auth dependency at all (resolving it was 5% of a worker's /search time).
    protected = [Depends(require_api_key)] if settings.api_key else []
    app.include_router(query.router, dependencies=protected)
    app.include_router(documents.router, dependencies=protected)
    app.include_router(ingest.router, dependencies=protected)
    app.include_router(attribute.router, dependencies=protected)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        # The page holds no data (every data call carries the key), so it loads without one.
        return FileResponse(WEB_DIR / "index.html", headers=_PAGE_HEADERS)

    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")
    return app
