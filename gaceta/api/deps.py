"""What every route depends on: the open index, the settings, the page renderer, and the optional API key.

All `async def`: FastAPI runs a plain `def` dependency on a worker thread, a thread hop per dependency per request
for what are attribute reads (it was a quarter of the server's time under load on /search).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBasic, HTTPBasicCredentials, HTTPBearer

from gaceta.api.pages import PageRenderer
from retrieval.settings import Settings

if TYPE_CHECKING:
    from retrieval.index import Index

_CHALLENGE = {"WWW-Authenticate": "Bearer"}
_bearer = HTTPBearer(auto_error=False, description="Needed on every route but /healthz when GACETA_API_KEY is set.")
_basic = HTTPBasic(auto_error=False)
# The schema pages answer a request without the key with both challenges: a browser then asks for a login.
_SCHEMA_CHALLENGE = {"WWW-Authenticate": 'Basic realm="gaceta API", charset="UTF-8", Bearer'}


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_index(request: Request) -> Index:
    return request.app.state.index


async def get_renderer(request: Request) -> PageRenderer:
    return request.app.state.renderer


async def require_api_key(
    settings: Settings = Depends(get_settings),
    credentials: HTTPAuthorizationCredentials | None = Depends(_bearer),
) -> None:
    """Constant-time comparison of the bearer token with GACETA_API_KEY (installed only when a key is configured)."""
    expected = settings.api_key or ""
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing API key: send 'Authorization: Bearer <key>'", _CHALLENGE)
    if not secrets.compare_digest(credentials.credentials.encode(), expected.encode()):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "invalid API key", _CHALLENGE)


async def require_schema_key(
    settings: Settings = Depends(get_settings),
    bearer: HTTPAuthorizationCredentials | None = Depends(_bearer),
    basic: HTTPBasicCredentials | None = Depends(_basic),
) -> None:
    """`/openapi.json`, `/docs`, `/redoc` when GACETA_API_KEY is set: the key as a bearer token, or as the password of
    HTTP Basic (any user name) — the login a browser prompts for, and then sends with the page's fetch of the schema.
    Never in the URL, where access logs would keep it."""
    given = bearer.credentials if bearer is not None else basic.password if basic is not None else None
    if given is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "the API schema needs the API key: send 'Authorization: "
                            "Bearer <key>', or log in with the key as password", _SCHEMA_CHALLENGE)
    if not secrets.compare_digest(given.encode(), (settings.api_key or "").encode()):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "invalid API key", _SCHEMA_CHALLENGE)
