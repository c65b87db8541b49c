"""`POST /attribute`: check a text (an answer, a memo, a brief) against the official text — each sentence's support,
each quote exact / altered / misattributed / not found. A thin call into `retrieval.attribution`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StringConstraints

from gaceta.api.deps import get_index, get_settings
from gaceta.api.schemas import Hit, Name, Text, bounded_citation, bounded_references, errors, hit_chars, no_nul
from retrieval.attribution import MAX_DOC_IDS, MAX_TEXT_CHARS, AttributionResult, UnknownDocuments, attribute
from retrieval.settings import Settings

router = APIRouter(tags=["attribution"])


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("the text is empty")
    return value


class AttributeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_CHARS), AfterValidator(no_nul),
                    AfterValidator(_not_blank)] = Field(
        description=f"The text to check (at most {MAX_TEXT_CHARS:,} characters, not blank, no NUL); offsets in the "
                    "result point into it as sent.",
        json_schema_extra={"pattern": r"^[^\x00]*[^\x00\s][^\x00]*$"})
    question: Text | None = Field(None, description="A question to retrieve sources with, besides each sentence.")
    doc_ids: Annotated[list[Name], Field(max_length=MAX_DOC_IDS)] = Field(
        [], description=f"Check only against these documents (at most {MAX_DOC_IDS}); empty: the whole index.")
    rerank: StrictBool | None = Field(None, description="Re-rank each sentence's sources; unset = the server's GACETA_RERANK.")
    llm: StrictBool = Field(False, description="Re-judge the sentences without quotes with the server's chat model "
                      "(GACETA_OPENAI_BASE_URL); when none is configured or it fails, the offline verdicts stand "
                      "and `fallback_reason` says why.")


class AttributionResponse(AttributionResult):
    """`retrieval.attribution.AttributionResult` as the API returns it: sources as `/search` hits, names bounded
    (the CLI prints this shape too, with or without a server)."""

    sources: list[Hit] = []

    @classmethod
    def of(cls, result: AttributionResult, max_chars: int) -> AttributionResponse:
        def cites(citations):
            return [bounded_citation(c) for c in citations]

        fields = {name: getattr(result, name) for name in AttributionResult.model_fields}
        return cls(**{
            **fields,
            "content": [s.model_copy(update={"citations": cites(s.citations)}) for s in result.content],
            "sentences": [s.model_copy(update={"citations": cites(s.citations)}) for s in result.sentences],
            "quotes": [q.model_copy(update={"citations": cites(q.citations)}) for q in result.quotes],
            "sources": [Hit.of(h, max_chars) for h in result.sources],
            "references": bounded_references(result.references),
        })


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
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    return AttributionResponse.of(result, hit_chars(None, settings.max_hit_chars))
