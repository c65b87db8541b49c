"""What a retrieval evaluation returns: one row per search mode, the published rows beside them, and the timings."""

from __future__ import annotations

from pydantic import BaseModel

from retrieval.evaluation.datasets import PublishedRow


class ModeRow(BaseModel):
    mode: str  # dense | bm25 | hybrid
    metrics: dict[str, float]  # R@1/5/10/20, MRR in [0, 1]; Pass@5/10/20 in percent
    queries: int
    query_ms_p50: float  # search alone; the query's embedding is timed once, in RetrievalReport.query_embed_ms_p50
    query_ms_mean: float


class RetrievalReport(BaseModel):
    dataset: str
    format: str
    language: str
    embedder: str  # the model id recorded in the index
    fusion: str  # hybrid fusion (rrf | dbsf)
    prefetch: int  # candidates each side hands to fusion
    passages: int
    chunks: int
    queries: int
    limited: bool  # True when --limit cut the query set (the corpus is always indexed whole)
    columns: list[str]
    rows: list[ModeRow]
    published: list[PublishedRow]
    query_embed_ms_p50: float
    index_seconds: float
    embed_seconds: float
    note: str = ""

    def row(self, mode: str) -> ModeRow:
        for row in self.rows:
            if row.mode == mode:
                return row
        raise KeyError(mode)
