"""BM25 as a Qdrant sparse vector: documents carry the term-frequency half, Qdrant's IDF modifier the other.

Okapi BM25 scores a document d for query q as  Σ_t∈q  idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl)).
The second factor depends on the document alone, so it is what a document's sparse vector stores; the query
vector holds each query term's count; Qdrant multiplies the dot product term by term with
idf(t) = ln(1 + (N − n_t + 0.5)/(n_t + 0.5)) computed over the live collection. The result ranks like
`rank_bm25.BM25Okapi` (whose idf lacks the `1 +` and is floored at ε·mean-idf; both are monotone in n_t).

`avgdl` is the running mean length of the indexed chunks, tracked by the store; a weight is computed once
with the mean known at indexing time. Chunks are cut to a token budget, so that mean settles quickly.
Terms map to sparse indices through a stable 32-bit hash (Qdrant's sparse index space is u32).
"""

from __future__ import annotations

import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from retrieval.text_analysis import analyze

K1 = 1.2
B = 0.75
# What `analyze` makes of a text, versioned: an index records the version it was built with and opening it with
# another is an error, since its stored terms would no longer meet the queries'. Bump it when analysis changes.
ANALYZER_VERSION = "es-en-1"
LEGACY_ANALYZER_VERSION = "es-1"  # the Spanish-only analysis of indexes written before the version was recorded


@dataclass(frozen=True)
class SparseVector:
    indices: list[int]
    values: list[float]


@lru_cache(maxsize=500_000)
def term_index(term: str) -> int:
    """Stable id of a term in the u32 sparse space (same across processes, machines and Python versions)."""
    return zlib.crc32(term.encode("utf-8"))


def _vector(weights: dict[int, float]) -> SparseVector:
    items = sorted(weights.items())
    return SparseVector(indices=[i for i, _ in items], values=[w for _, w in items])


def _counts(terms: list[str]) -> dict[int, int]:
    """Term counts keyed by sparse index (a hash collision merges the two terms' counts)."""
    counts: dict[int, int] = {}
    for term, n in Counter(terms).items():
        index = term_index(term)
        counts[index] = counts.get(index, 0) + n
    return counts


def document_vector(terms: list[str], avgdl: float, k1: float = K1, b: float = B) -> SparseVector:
    """Document-side BM25 weights of an analysed chunk."""
    norm = k1 * (1.0 - b + b * len(terms) / avgdl)
    return _vector({i: tf * (k1 + 1.0) / (tf + norm) for i, tf in _counts(terms).items()})


def query_vector(text: str) -> SparseVector:
    """Query-side vector: each term's count in the query (BM25Okapi sums repeated query terms)."""
    return _vector({i: float(n) for i, n in _counts(analyze(text)).items()})


def document_vectors(texts: list[str], stored_terms: int, stored_docs: int) -> tuple[list[SparseVector], list[int]]:
    """Weights for a batch of chunk texts, with avgdl over what is stored plus this batch.

    Returns the vectors and each chunk's length in terms (the store adds them to its running totals).
    """
    analysed = [analyze(text) for text in texts]
    lengths = [len(terms) for terms in analysed]
    total_docs = stored_docs + len(texts)
    avgdl = max((stored_terms + sum(lengths)) / total_docs, 1.0) if total_docs else 1.0
    return [document_vector(terms, avgdl) for terms in analysed], lengths
