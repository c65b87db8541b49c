"""`evaluate_retrieval`: index a dataset's corpus in a throw-away index through the production path, run its queries
in every search mode, and score them next to the dataset's published numbers."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from retrieval.evaluation.corpus import EvalCorpus, build_corpus
from retrieval.evaluation.datasets import load_dataset
from retrieval.evaluation.metrics import dedupe, score_rankings
from retrieval.evaluation.query_cache import QueryCache
from retrieval.evaluation.report import ModeRow, RetrievalReport
from retrieval.models import Fusion, SearchMode
from retrieval.settings import Settings

DEFAULT_MODES = (SearchMode.dense, SearchMode.bm25, SearchMode.hybrid)
DEPTH = 20  # the deepest cut-off we score (R@20, Pass@20)
FETCH = 3 * DEPTH  # chunks fetched per query: a long passage is several chunks, and ranks where its best one does

Progress = Callable[[str, int, int], None]  # (stage, done, total)


def evaluate_retrieval(
    dataset_path: str | Path,
    embedder_name: str | None = None,
    modes: Iterable[SearchMode | str] = DEFAULT_MODES,
    limit: int | None = None,
    settings: Settings | None = None,
    fusion: Fusion = Fusion.rrf,
    prefetch: int | None = None,
    progress: Progress | None = None,
    rerank: bool = False,
) -> RetrievalReport:
    """Load the dataset (format detected), index its whole corpus, score its first `limit` queries (all if None).

    `fusion` and `prefetch` (candidates per side before fusion; the index's default when None) tune hybrid search.
    `rerank` adds a row "hybrid+rerank": the legal search (`retrieval.legal_search`) the faces and answers use.
    The index always lives in a temporary directory on the embedded store, whatever `settings` says, so an
    evaluation never touches the user's index or server.
    """
    from retrieval.embedders import load_embedder
    from retrieval.index import DEFAULT_PREFETCH, Index

    dataset = load_dataset(dataset_path)
    queries = dataset.queries[:limit] if limit else dataset.queries
    settings = (settings or Settings()).model_copy(update={"qdrant_url": None})
    embedder = QueryCache(load_embedder(embedder_name or settings.embedding_model, settings.device))
    embed_ms = embedder.warm([q.text for q in queries])
    # the store prefetches at least as many candidates per side as it returns
    search = {"fusion": Fusion(fusion), "prefetch": max(prefetch or DEFAULT_PREFETCH, FETCH)}
    with tempfile.TemporaryDirectory(prefix="gaceta-eval-") as home:
        index = Index.open(settings.model_copy(update={"home": Path(home)}), embedder=embedder)
        try:
            corpus = build_corpus(dataset, embedder.count_tokens, embedder.max_tokens)
            index_seconds, embed_seconds = index_corpus(index, corpus, progress)
            rows = [_run_mode(index, corpus, queries, SearchMode(mode), search, progress) for mode in modes]
            if rerank:
                rows.append(_run_mode(index, corpus, queries, SearchMode.hybrid, search, progress, rerank=True))
        finally:
            index.close()
    return RetrievalReport(
        dataset=dataset.name, format=dataset.format, language=dataset.language, embedder=embedder.model_id,
        query_embed_ms_p50=statistics.median(embed_ms),
        fusion=search["fusion"].value, prefetch=search["prefetch"], passages=len(dataset.passages),
        chunks=corpus.chunk_count, queries=len(queries), limited=len(queries) < len(dataset.queries),
        columns=dataset.columns, rows=rows, published=dataset.published, index_seconds=index_seconds,
        embed_seconds=embed_seconds, note=dataset.note,
    )


def index_corpus(index, corpus: EvalCorpus, progress: Progress | None) -> tuple[float, float]:
    """Embed the whole corpus in one batch (BM25's avgdl is then the corpus mean, as in BM25Okapi), upsert document
    by document, build the ANN index as ingest does; returns (total seconds, seconds spent embedding)."""
    from retrieval.index import Embedded

    start = time.perf_counter()
    embedded = index.embed([chunk for _, chunks in corpus.documents for chunk in chunks])
    embed_seconds = time.perf_counter() - start
    offset = 0
    for document, chunks in corpus.documents:
        end = offset + len(chunks)
        part = Embedded(embedded.dense[offset:end], embedded.sparse[offset:end], embedded.lengths[offset:end])
        index.upsert(document, chunks, part)
        offset = end
        if progress:
            progress("index", offset, corpus.chunk_count)
    index.optimize()
    return time.perf_counter() - start, embed_seconds


def _run_mode(index, corpus: EvalCorpus, queries, mode: SearchMode, search: dict, progress: Progress | None,
              rerank: bool = False) -> ModeRow:
    from retrieval.legal_search import legal_search

    rankings, timings = [], []
    for number, query in enumerate(queries, start=1):
        t0 = time.perf_counter()
        if rerank:
            hits = legal_search(index, query.text, k=FETCH, mode=mode, rerank=True, **search).hits
        else:
            hits = index.search(query.text, k=FETCH, mode=mode, **search)
        timings.append((time.perf_counter() - t0) * 1000)
        rankings.append(dedupe([corpus.passage_of[hit.chunk.chunk_id] for hit in hits])[:DEPTH])
        if progress:
            progress(mode.value, number, len(queries))
    return ModeRow(
        mode=mode.value + ("+rerank" if rerank else ""),
        metrics=score_rankings(rankings, [q.gold for q in queries]),
        queries=len(queries),
        query_ms_p50=statistics.median(timings),
        query_ms_mean=statistics.fmean(timings),
    )
