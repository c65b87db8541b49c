"""Our BM25 (Qdrant sparse vectors + IDF modifier) against `rank_bm25.BM25Okapi` on the same synthetic chunks.

    .venv/bin/python benchmarks/bm25_vs_rank_bm25.py --size 1000000 [--queries 20]

Both sides index the same term lists (benchmarks/synthetic.py: real Spanish/English BM25 terms, Zipf-distributed)
and answer the same real XQuAD-es questions, analysed by our analyzer (Spanish for these texts). Prints per-query latency of each,
the speed-up (goal ≥ 50× at 1M chunks; DESIGN.md measured rank-bm25 at 1.8 s/query there) and the top-10 overlap
(the two rank alike; the test suite checks that on real text). rank-bm25 holds the whole corpus in Python objects:
about 4-5 GB at 1M chunks. A BM25 query never touches the dense vectors, so the points carry 4-d stand-ins (the
HNSW build of real 512-d vectors would cost the run an hour on 2 cores and change nothing here).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


class _Stub:
    """Stands in for the embedder: BM25 queries only, 4-d dense vectors."""

    model_id, dim, max_seq_length, special_tokens = "bm25-benchmark-stub", 4, 256, 0

    def embed_query(self, text: str) -> np.ndarray:
        raise AssertionError("a BM25 query never embeds")


def rank_bm25_alone(size: int, n_queries: int) -> None:
    """BM25Okapi over the same synthetic term lists and questions, without building our store (at 1M chunks that
    build is the search_latency.py run, which reports our BM25 query latency on this very corpus)."""
    from rank_bm25 import BM25Okapi

    from benchmarks.synthetic import SyntheticCorpus
    from retrieval.text_analysis import analyze

    corpus = SyntheticCorpus(4)
    all_terms = [terms for *_, doc_terms in corpus.documents(size) for terms in doc_terms]
    t0 = time.perf_counter()
    okapi = BM25Okapi(all_terms)
    build = time.perf_counter() - t0
    timings = []
    for question in corpus.questions[:n_queries]:
        t = time.perf_counter()
        np.argpartition(-okapi.get_scores(analyze(question)), 10)[:10]
        timings.append((time.perf_counter() - t) * 1000)
    print(f"chunks {size}, {len(timings)} queries (k=10)")
    print(f"  rank_bm25.BM25Okapi  build {build:7.1f} s   query p50 {statistics.median(timings):9.1f} ms   "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} GB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument(
        "--rank-bm25-only", action="store_true",
        help="time rank-bm25 alone (our side at this size: the bm25 column of search_latency.py, same corpus)",
    )
    args = parser.parse_args()
    if args.rank_bm25_only:
        rank_bm25_alone(args.size, args.queries)
        return

    from rank_bm25 import BM25Okapi

    from benchmarks.synthetic import SyntheticCorpus
    from retrieval.index import Index
    from retrieval.models import SearchMode
    from retrieval.settings import Settings
    from retrieval.text_analysis import analyze

    settings = Settings()
    embedder = _Stub()
    corpus = SyntheticCorpus(embedder.dim)
    questions = corpus.questions[: args.queries]
    home = Path(tempfile.mkdtemp(prefix="gaceta-bm25-"))
    try:
        index = Index.open(settings.model_copy(update={"home": home, "qdrant_url": None}), embedder=embedder)
        all_terms: list[list[str]] = []
        ids: list[str] = []
        t0 = time.perf_counter()
        for doc, chunks, embedded, terms in corpus.documents(args.size):
            index.upsert(doc, chunks, embedded)
            all_terms += terms
            ids += [c.chunk_id for c in chunks]
        index.optimize()
        ours_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        okapi = BM25Okapi(all_terms)
        okapi_build = time.perf_counter() - t0

        index.search(questions[0], k=10, mode=SearchMode.bm25)  # warm
        ours_ms, okapi_ms, overlaps = [], [], []
        for question in questions:
            t = time.perf_counter()
            hits = index.search(question, k=10, mode=SearchMode.bm25)
            ours_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            scores = okapi.get_scores(analyze(question))
            top = np.argpartition(-scores, 10)[:10]
            okapi_ms.append((time.perf_counter() - t) * 1000)
            ours = {h.chunk.chunk_id for h in hits}
            overlaps.append(len(ours & {ids[i] for i in top}) / 10)
        index.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)

    ours_p50, okapi_p50 = statistics.median(ours_ms), statistics.median(okapi_ms)
    print(f"chunks {args.size}, {len(questions)} queries (k=10)")
    print(f"  ours (qdrant-edge sparse + IDF)  build {ours_build:7.1f} s   query p50 {ours_p50:9.1f} ms")
    print(f"  rank_bm25.BM25Okapi               build {okapi_build:7.1f} s   query p50 {okapi_p50:9.1f} ms")
    print(f"  speed-up {okapi_p50 / ours_p50:.0f}x   top-10 overlap mean {statistics.fmean(overlaps):.2f}   "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} GB")


if __name__ == "__main__":
    main()
