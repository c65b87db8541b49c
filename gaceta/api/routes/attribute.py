"""`POST /attribute`: check a text (an answer, a memo, a brief) against the official text — each sentence's support,
each quote exact / altered / misattributed / not found. A thin call into `retrieval.attribution`."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException

from gaceta.api.deps import get_index, get_settings
from gaceta.api.schemas import AttributeRequest, AttributionResponse, errors, hit_chars
from retrieval.attribution import AttributionInputError, UnknownDocuments, attribute
from retrieval.settings import Settings

router = APIRouter(tags=["attribution"])


@router.post("/attribute", response_model=AttributionResponse, responses=errors(400, 404, 413, 422),
             summary="Attribute a text: each sentence's support, each quote exact / altered / misattributed")
def attribute_route(body: AttributeRequest, index=Depends(get_index),
                    settings: Settings = Depends(get_settings)) -> AttributionResponse:
    try:
        result = attribute(index, body.text, question=body.question, doc_ids=body.doc_ids,
                           rerank=settings.rerank if body.rerank is None else body.rerank, llm=body.llm,
                           settings=settings)
    except UnknownDocuments as exc:
        raise HTTPException(404, str(exc)) from None
    except AttributionInputError as exc:
        raise HTTPException(422, str(exc)) from None
    return AttributionResponse.of(result, hit_chars(None, settings.max_hit_chars))
