"""Request and response bodies of the HTTP API. Limits live here, so a bad request is a 422 before any work starts."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, model_validator

from flows.models import FileOutcome
from ingest.models import Chunk, DocumentInfo
from retrieval.models import Fusion, ResolvedReference, SearchFilters, SearchHit, SearchMode

MAX_QUESTION_CHARS = 2000
MAX_K = 100


def _no_nul(value: str) -> str:
    """JSON may carry NUL characters; legal text never does, and C-backed tokenizers and stores choke on them.
    (Lone surrogates pydantic already refuses.)"""
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return value


Text = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_QUESTION_CHARS), AfterValidator(_no_nul)
]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300), AfterValidator(_no_nul)]
K = Annotated[int, Field(ge=1, le=MAX_K, description=f"How many chunks to retrieve (1–{MAX_K}).")]


class FiltersIn(SearchFilters):
    """`SearchFilters` with the limits a public endpoint needs: bounded lists, no unknown keys, dates in order."""

    model_config = ConfigDict(extra="forbid")

    issuing_body: Annotated[list[Name], Field(max_length=50)] | None = None
    doc_type: Annotated[list[Name], Field(max_length=50)] | None = None
    doc_ids: Annotated[list[Name], Field(max_length=MAX_K * 10)] | None = None

    @model_validator(mode="after")
    def _dates_in_order(self) -> FiltersIn:
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise ValueError(f"date_from ({self.date_from}) is after date_to ({self.date_to})")
        return self



class _Filtered(BaseModel):
    model_config = ConfigDict(extra="forbid")

    filters: FiltersIn | None = None

    def search_filters(self) -> SearchFilters | None:
        """The filters as retrieval's contract model (the API's limits already checked)."""
        return SearchFilters.model_validate(self.filters.model_dump()) if self.filters else None


class SearchRequest(_Filtered):
    query: Text
    k: K = 10
    mode: SearchMode = SearchMode.hybrid
    rerank: bool = Field(True, description="Re-rank the first-stage hits (legal role, named provision, terms); "
                         "false: the hybrid order, after any provision the query names.")
    fusion: Fusion = Field(Fusion.rrf, description="How hybrid fuses dense and BM25.")
    prefetch: int | None = Field(None, ge=1, le=1000, description="Candidates per side before fusion (unset: the "
                                 "index's default).")


class SearchResponse(BaseModel):
    query: str
    mode: SearchMode
    k: int
    hits: list[SearchHit]
    references: list[ResolvedReference] = Field(
        [], description="Legal references read in the query ('art. 27 constitucional') and what they resolved to.")


class AskRequest(_Filtered):
    question: Text
    k: K = 8
    answerer: Literal["extractive", "claude", "tags"] | None = Field(
        None, description="Answer backend; unset = the server's configured answerer (GACETA_ANSWERER)."
    )
    rerank: bool | None = Field(None, description="Re-rank the sources; unset = the server's GACETA_RERANK.")


class ChunkResponse(BaseModel):
    chunk: Chunk
    document: DocumentInfo


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str


class IngestResponse(BaseModel):
    """`POST /ingest`: what became of the uploaded file (the same `FileOutcome` a local `gaceta ingest` reports),
    with what decides re-indexing, so the client can write the same run summary."""

    outcome: FileOutcome
    embedding_model: str
    chunker_version: str
    revision: int = Field(description="The store's write revision after this file (searches see it from now on).")
