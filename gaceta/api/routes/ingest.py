"""`POST /ingest` (a PDF uploaded as the request body; answered when it is indexed) and `GET /status`: how
`gaceta ingest` and `gaceta status` reach an index this server owns."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response
from starlette.requests import ClientDisconnect

from gaceta.api.deps import get_index
from gaceta.api.schemas import IngestResponse

router = APIRouter(tags=["ingest"])

MAX_UPLOAD_BYTES = 2 << 30  # 2 GiB: the DOF's biggest annex is 4 MB; this only stops a runaway sender


async def get_ingester(request: Request):
    return request.app.state.ingester


@router.post(
    "/ingest", response_model=IngestResponse, summary="Index one PDF (the request body); answered once it is searchable",
    openapi_extra={"requestBody": {"required": True, "content": {"application/octet-stream": {"schema": {
        "type": "string", "format": "binary"}}}}},
)
async def ingest(
    request: Request,
    name: Annotated[str, Query(min_length=1, max_length=300, description="The file's name (a DOF edition's date "
                                                                         "is read from it).")],
    context: Annotated[bool | None, Query(description="Contextual blurbs (unset: the server's GACETA_CONTEXT).")] = None,
    index=Depends(get_index),
    ingester=Depends(get_ingester),
) -> Response:
    """Parse → chunk → (blurbs) → embed at low CPU priority, then the document's chunks become searchable at once.
    One file at a time; the reply is the file's outcome (`ok`, `cached` or `failed` with its reason)."""
    tmp, fh = ingester.receive(name)
    digest, size = hashlib.sha256(), 0
    try:
        with fh:
            async for block in request.stream():
                size += len(block)
                if size > MAX_UPLOAD_BYTES:
                    raise HTTPException(413, f"upload larger than {MAX_UPLOAD_BYTES} bytes")
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
        raise HTTPException(422, "empty upload: send the PDF's bytes as the request body")
    sha256 = digest.hexdigest()
    path = ingester.keep(tmp, sha256, name)
    # The job runs to its end even if this request is cancelled (a client that hangs up after the upload).
    outcome = await asyncio.shield(asyncio.wrap_future(ingester.submit(path, sha256, context)))
    from gaceta.api.ingest import chunker_version

    body = IngestResponse(outcome=outcome, embedding_model=index.embedder.model_id, chunker_version=chunker_version(),
                          revision=index.store.revision)
    return Response(body.model_dump_json(), media_type="application/json")
