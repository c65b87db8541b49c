"""`POST /search`, `POST /ask`, `POST /ask/stream` (Server-Sent Events) and `GET /status`: thin calls into
retrieval."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

from fastapi import APIRouter, Depends, HTTPException, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from gaceta.api.deps import get_index, get_settings
from gaceta.api.schemas import AskRequest, SearchRequest, SearchResponse
from retrieval.answers import AnswerError, ask, ask_stream
from retrieval.answers.models import Answer
from retrieval.index import IndexStatus
from retrieval.legal_search import complete, first_stage
from retrieval.settings import Settings

router = APIRouter(tags=["query"])

_STREAM_DOC = """Server-Sent Events, in this order: `sources` (the retrieved chunks), then `text` deltas and `citation`
events interleaved (a citation names the segment it belongs to and may arrive after that segment's text), then
`coverage`, then `done` carrying the whole answer; `error` may end the stream at any point. Each event's `data` is the
JSON of the event model in `retrieval.answers.models`."""


@router.post("/search", response_model=SearchResponse, summary="Hybrid (or dense / BM25) search over chunks")
async def search(body: SearchRequest, index=Depends(get_index)) -> Response:
    # The first stage is awaited, not run on a worker thread: concurrent searches queue for the index's batch worker
    # (one model call, one Qdrant batch); the lookup and the reranker that complete it take about a millisecond.
    # The response is serialised once, by pydantic; FastAPI would validate it all over again.
    first = first_stage(body.query, k=body.k, mode=body.mode, filters=body.search_filters(), rerank=body.rerank,
                        fusion=body.fusion, prefetch=body.prefetch)
    hits = await asyncio.wrap_future(index.search_future(first))
    result = complete(index, first, hits, body.k, body.rerank)
    response = SearchResponse(query=body.query, mode=body.mode, k=body.k, hits=result.hits,
                              references=result.references)
    return Response(response.model_dump_json(), media_type="application/json")


@router.get("/status", response_model=IndexStatus, summary="What the index holds: documents, chunks, model, store")
def status_route(index=Depends(get_index)) -> IndexStatus:
    return index.status()


@router.post("/ask", response_model=Answer, summary="A cited answer (verified citations, coverage)")
def ask_route(body: AskRequest, index=Depends(get_index), settings: Settings = Depends(get_settings)) -> Answer:
    try:
        return ask(index, body.question, k=body.k, filters=body.search_filters(), answerer=body.answerer,
                   settings=settings, rerank=body.rerank)
    except AnswerError as exc:  # an answerer not configured here, or its API down: the reason, not a bare 500
        raise HTTPException(503, str(exc)) from None


@router.post(
    "/ask/stream", response_class=EventSourceResponse, summary="A cited answer, streamed", description=_STREAM_DOC
)
def ask_stream_route(
    body: AskRequest, index=Depends(get_index), settings: Settings = Depends(get_settings)
) -> Iterator[ServerSentEvent]:
    # ask_stream reports its own failures as a final `error` event (headers are already sent by then).
    events = ask_stream(
        index, body.question, k=body.k, filters=body.search_filters(), answerer=body.answerer, settings=settings,
        rerank=body.rerank,
    )
    for event in events:
        yield ServerSentEvent(event=event.event, data=event)
