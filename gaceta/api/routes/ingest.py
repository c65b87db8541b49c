"""`GET /ingest/{sha256}` (is this file already indexed?), `POST /ingest` (a PDF uploaded as the request body;
answered when it is indexed) and `GET /status`: how `gaceta ingest`, the ingest flow (`retrieval.owner.Owner.
ingest`) and `gaceta status` reach an index this server owns.

`POST /ingest` takes a PDF body only (`Content-Type: application/pdf` or `application/octet-stream`; anything else is a
415 before a byte is read: `text/plain` is what a web page can send cross-site without asking). `source=` names the
document's source: only a caller that holds the API key (GACETA_API_KEY) or the owner's token (`X-Gaceta-Owner`, from
the mode-0600 owner.json: a local `gaceta ingest`) may use it as the key that replaces the source's current version;
anyone else's `source` lives in a namespace of its own (`upload:<source>`), so it can never replace a document that
was ingested from a file."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from starlette.requests import ClientDisconnect

from gaceta.api.deps import get_index, get_settings
from gaceta.api.schemas import ErrorResponse, IngestResponse, errors, without_home
from retrieval.settings import Settings

router = APIRouter(tags=["ingest"])
PDF_TYPES = ("application/pdf", "application/octet-stream")
OWNER_HEADER = "X-Gaceta-Owner"
UNTRUSTED_SOURCE = "upload:"  # the source keys of callers that hold neither the API key nor the owner's token


def trusted(request: Request, settings: Settings) -> bool:
    """Whether this caller may name a source that replaces a document: it passed the API key (with a key set every
    route requires it), or it sent the owner's token (only a reader of owner.json has it)."""
    if settings.api_key:
        return True
    token = getattr(request.app.state, "owner_token", None)
    given = request.headers.get(OWNER_HEADER)
    return bool(token and given) and secrets.compare_digest(given.encode(), token.encode())


def source_key(source: str | None, request: Request, settings: Settings) -> str | None:
    """The ledger key of `source=` for this caller (None: the kept upload's own path)."""
    if source is None or trusted(request, settings):
        return source
    return UNTRUSTED_SOURCE + source


async def get_ingester(request: Request):
    return request.app.state.ingester


def _response(index, outcome, name: str, settings: Settings) -> Response:
    """The outcome under the name the file was sent as: the server's upload folder never leaves it."""
    from flows.indexing import chunker_version

    public = outcome.model_copy(update={"path": name, "reason": without_home(outcome.reason, settings.home)})
    body = IngestResponse(outcome=public, embedding_model=index.embedder.model_id, chunker_version=chunker_version(),
                          revision=index.store.revision)
    return Response(body.model_dump_json(), media_type="application/json")


@router.get(
    "/ingest/{sha256}", response_model=IngestResponse,
    summary="The `cached` outcome of a file this index already holds (by its bytes' sha256); 404 when it must be sent",
    responses={**errors(422), 404: {"model": ErrorResponse,
                                    "description": "Not indexed (or not as it would be indexed now): POST the file."}},
)
def ingest_known(
    request: Request,
    sha256: Annotated[str, Path(pattern="^[0-9a-f]{64}$", description="The file's sha256, lowercase hex.")],
    name: Annotated[str, Query(max_length=300, description="The file's name, for the outcome's path.")] = "",
    context: Annotated[bool | None, Query(description="Contextual blurbs (unset: the server's GACETA_CONTEXT).")] = None,
    source: Annotated[str | None, Query(min_length=1, max_length=4096, description=(
        "The file's identity at the sender: an indexed file becomes that source's current version too (a twin "
        "file keeps its documents). Heeded only from a caller holding the API key or the owner's token."))] = None,
    index=Depends(get_index),
    ingester=Depends(get_ingester),
    settings: Settings = Depends(get_settings),
) -> Response:
    """Asked before an upload: the index's own answer (`Index.indexed_documents`), so an unchanged file costs its
    hash and this look-up, not its bytes."""
    # A GET changes nothing for an untrusted caller (any web page may send one).
    key = source if source is not None and trusted(request, settings) else None
    outcome = ingester.indexed(name, sha256, context, key)
    if outcome is None:
        raise HTTPException(404, "not indexed: send the file with POST /ingest")
    return _response(index, outcome, name, settings)


@router.post(
    "/ingest", response_model=IngestResponse, summary="Index one PDF (the request body); answered once it is searchable",
    openapi_extra={"requestBody": {"required": True, "content": {t: {"schema": {
        "type": "string", "format": "binary", "minLength": 1}} for t in PDF_TYPES}}},
    responses=errors(413, 415, 422),
)
async def ingest(
    request: Request,
    name: Annotated[str, Query(min_length=1, max_length=300, description="The file's name (a DOF edition's date "
                                                                         "is read from it).")],
    context: Annotated[bool | None, Query(description="Contextual blurbs (unset: the server's GACETA_CONTEXT).")] = None,
    source: Annotated[str | None, Query(min_length=1, max_length=4096, description=(
        "The file's identity at the sender (its resolved path): a new version of the same source replaces the "
        "old one — for a caller holding the API key or the owner's token; anyone else's source is a name of its "
        "own that never replaces a document ingested otherwise. Unset: the kept upload's path."))] = None,
    index=Depends(get_index),
    ingester=Depends(get_ingester),
    settings: Settings = Depends(get_settings),
) -> Response:
    """Parse → chunk → (blurbs) → embed at low CPU priority, then the document's chunks become searchable at once.
    One file at a time; the reply is the file's outcome (`ok`, `cached` or `failed` with its reason). A body over
    GACETA_MAX_UPLOAD_BYTES is refused with 413 as it streams in (at once when its Content-Length says so)."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type not in PDF_TYPES:
        raise HTTPException(415, f"POST /ingest takes the PDF's bytes as the body, sent as {' or '.join(PDF_TYPES)}"
                                 f" (not {media_type or 'no Content-Type'})")
    key = source_key(source, request, settings)
    tmp, fh = ingester.receive(name)
    digest, size = hashlib.sha256(), 0
    try:
        with fh:
            async for block in request.stream():
                size += len(block)
                digest.update(block)
                fh.write(block)
    except ClientDisconnect:  # the sender went away mid-upload: nothing was indexed, nothing is kept
        ingester.discard(tmp)
        return Response(status_code=499)
    except BaseException:
        ingester.discard(tmp)
        raise
    if size == 0:
        ingester.discard(tmp)
        raise RequestValidationError([{"type": "missing", "loc": ("body",),
                                       "msg": "empty upload: send the PDF's bytes as the request body"}])
    sha256 = digest.hexdigest()
    path = ingester.keep(tmp, sha256, name)
    # The job runs to its end even if this request is cancelled (a client that hangs up after the upload).
    outcome = await asyncio.shield(asyncio.wrap_future(ingester.submit(path, sha256, context, key)))
    return _response(index, outcome, name, settings)
