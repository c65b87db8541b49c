"""HTTP API (FastAPI) over retrieval: search, cited answers (JSON and SSE), documents and highlighted page images."""

from gaceta.api.app import create_app

__all__ = ["create_app"]
