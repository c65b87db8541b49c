"""What every route depends on: the open index, the settings, the page renderer, and the optional API key.

All `async def`: FastAPI runs a plain `def` dependency on a worker thread, a thread hop per dependency per request
for what are attribute reads (it was a quarter of the server's time under load on /search).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from gaceta.api.pages import PageRenderer
from retrieval.settings import Settings

if TYPE_CHECKING:
    from retrieval.index import Index

_CHALLENGE = {"WWW-Authenticate": "Bearer"}
_bearer = HTTPBearer(auto_error=False, description="Needed on every route but /healthz when GACETA_API_KEY is set.")


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
