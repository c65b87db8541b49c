"""`POST /attribute`: check a text (an answer, a memo, a brief) against the official text — each sentence's support,
each quote exact / altered / misattributed / not found. A thin call into `retrieval.attribution`.

Bounded: at most `app.ATTRIBUTIONS_AT_ONCE` attributions run at a time (each is a search per sentence plus a support
judgement: eight maximal ones at once held `/search` up to 4 s); a request that waits `WAIT_S` for its turn is a 503."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, HTTPException, Request
from starlette.concurrency import run_in_threadpool

from gaceta.api.deps import get_index, get_settings
from gaceta.api.pages import Busy
from gaceta.api.schemas import AttributeRequest, AttributionResponse, errors, hit_chars
from retrieval.attribution import AttributionInputError, UnknownDocuments, attribute
from retrieval.settings import Settings

router = APIRouter(tags=["attribution"])
WAIT_S = 60.0


@router.post("/attribute", response_model=AttributionResponse, responses=errors(400, 404, 413, 422, 503),
             summary="Attribute a text: each sentence's support, each quote exact / altered / misattributed")
async def attribute_route(body: AttributeRequest, request: Request, index=Depends(get_index),
                          settings: Settings = Depends(get_settings)) -> AttributionResponse:
    slots: asyncio.Semaphore = request.app.state.attributions
    try:
        await asyncio.wait_for(slots.acquire(), WAIT_S)
    except asyncio.TimeoutError:
        raise Busy(f"every attribution slot stayed busy for {WAIT_S:.0f} s: try again shortly") from None
    try:
        result = await run_in_threadpool(
            attribute, index, body.text, question=body.question, doc_ids=body.doc_ids,
            rerank=settings.rerank if body.rerank is None else body.rerank, llm=body.llm, settings=settings,
            as_of=body.as_of)
    except UnknownDocuments as exc:
        raise HTTPException(404, str(exc)) from None
    except AttributionInputError as exc:
        raise HTTPException(422, str(exc)) from None
    finally:
        slots.release()
    return AttributionResponse.of(result, hit_chars(None, settings.max_hit_chars))
