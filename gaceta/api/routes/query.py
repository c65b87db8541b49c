"""`POST /search`, `POST /ask`, `POST /ask/stream` (Server-Sent Events) and `GET /status`: thin calls into
retrieval, their results shaped by `gaceta.api.schemas` (bounded hits, no server paths)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

from fastapi import APIRouter, Depends, HTTPException, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from gaceta.api.deps import get_index, get_settings
from gaceta.api.schemas import (AnswerResponse, AskRequest, SearchRequest, SearchResponse, errors, hit_chars,
                                public_location, stream_event)
from retrieval.answers import AnswerError, ask, ask_stream
from retrieval.index import IndexStatus
from retrieval.legal_search import complete, first_stage
from retrieval.settings import Settings

router = APIRouter(tags=["query"])

_STREAM_DOC = """Server-Sent Events, in this order: `sources` (the retrieved chunks, as `/search` hits), then `text`
deltas and `citation` events interleaved (a citation names the segment it belongs to and may arrive after that
segment's text), then `coverage`, then `done` carrying the whole answer (as `POST /ask` returns it); `error` may end
the stream at any point. Each event's `data` is the JSON of the event model in `retrieval.answers.models`, sources
shaped as in `/search`."""


@router.post("/search", response_model=SearchResponse, summary="Hybrid (or dense / BM25) search over chunks",
             responses=errors(400, 413, 422))
async def search(body: SearchRequest, index=Depends(get_index), settings: Settings = Depends(get_settings)) -> Response:
    # The first stage is awaited, not run on a worker thread: concurrent searches queue for the index's batch worker
    # (one model call, one Qdrant batch); the lookup and the reranker that complete it take about a millisecond.
    # The response is serialised once, by pydantic; FastAPI would validate it all over again.
    first = first_stage(body.query, k=body.k, mode=body.mode, filters=body.search_filters(), rerank=body.rerank,
                        fusion=body.fusion, prefetch=body.prefetch, catalog=index.catalog())
    hits = await asyncio.wrap_future(index.search_future(first))
    result = complete(index, first, hits, body.k, body.rerank)
    response = SearchResponse.of(body.query, body.mode, body.k, result,
                                 hit_chars(body.max_chars, settings.max_hit_chars))
    return Response(response.model_dump_json(), media_type="application/json")


@router.get("/status", response_model=IndexStatus, summary="What the index holds: documents, chunks, model, store")
def status_route(index=Depends(get_index), settings: Settings = Depends(get_settings)) -> IndexStatus:
    status = index.status()
    return status.model_copy(update={"location": public_location(status.location, settings.home)})


@router.post("/ask", response_model=AnswerResponse, summary="A cited answer (verified citations, coverage)",
             responses=errors(400, 413, 422, 503))
def ask_route(body: AskRequest, index=Depends(get_index), settings: Settings = Depends(get_settings)) -> AnswerResponse:
    try:
        answer = ask(index, body.question, k=body.k, filters=body.search_filters(), answerer=body.answerer,
                     settings=settings, rerank=body.rerank)
    except AnswerError as exc:  # an answerer not configured here, or its API down: the reason, not a bare 500
        raise HTTPException(503, str(exc)) from None
    return AnswerResponse.of(answer, hit_chars(body.max_chars, settings.max_hit_chars))


@router.post(
    "/ask/stream", response_class=EventSourceResponse, summary="A cited answer, streamed", description=_STREAM_DOC,
    responses=errors(400, 413, 422, streaming=True),
)
def ask_stream_route(
    body: AskRequest, index=Depends(get_index), settings: Settings = Depends(get_settings)
) -> Iterator[ServerSentEvent]:
    # ask_stream reports its own failures as a final `error` event (headers are already sent by then).
    events = ask_stream(
        index, body.question, k=body.k, filters=body.search_filters(), answerer=body.answerer, settings=settings,
        rerank=body.rerank,
    )
    max_chars = hit_chars(body.max_chars, settings.max_hit_chars)
    for event in events:
        yield ServerSentEvent(event=event.event, data=stream_event(event, max_chars))
