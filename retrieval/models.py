"""Search requests and results: the contract between retrieval and the faces."""

from __future__ import annotations

import datetime as dt
from enum import Enum

from pydantic import BaseModel, Field

from ingest.models import Chunk, DocumentInfo


class SearchMode(str, Enum):
    hybrid = "hybrid"
    dense = "dense"
    bm25 = "bm25"


class Fusion(str, Enum):
    rrf = "rrf"
    dbsf = "dbsf"


class SearchFilters(BaseModel):
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    issuing_body: list[str] | None = None
    doc_type: list[str] | None = None
    doc_ids: list[str] | None = None


class SearchHit(BaseModel):
    chunk: Chunk
    document: DocumentInfo
    score: float
    rank: int = Field(ge=1)
