"""Query latency (p50/p95) and peak memory of the embedded store at 10k, 100k and 1M chunks.

    .venv/bin/python benchmarks/search_latency.py --sizes 10000 100000 1000000 [--queries 200] [--model NAME]

Each size runs in its own process (so its peak RSS is its own): it fills a fresh qdrant-edge index under a temporary
GACETA_HOME with synthetic chunks (benchmarks/synthetic.py) through `Index.upsert`, builds the HNSW index, then times
real XQuAD-es questions through `Index.search` (k=10): dense, bm25 and hybrid with the query already embedded, and
hybrid again including the query's embedding. Goals: hybrid p50 ≤ 20 ms at 100k, ≤ 100 ms at 1M; peak RSS < 8 GB.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODES = ("dense", "bm25", "hybrid")


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def _dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _rss_split_mb() -> dict[str, float]:
    """Resident memory now, split into anonymous (the heap: what the process needs) and file-backed (mmap'd store
    files the kernel can drop and re-read)."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return {key: int(fields[key].split()[0]) / 1024 for key in ("RssAnon", "RssFile")}


def run_size(size: int, n_queries: int, model: str | None) -> dict:
    import psutil

    from benchmarks.synthetic import SyntheticCorpus
    from retrieval.embedders import load_embedder
    from retrieval.evaluation.query_cache import QueryCache
    from retrieval.index import Index
    from retrieval.models import SearchMode
    from retrieval.settings import Settings

    settings = Settings()
    embedder = QueryCache(load_embedder(model or settings.embedding_model))
    corpus = SyntheticCorpus(embedder.dim)
    questions = corpus.questions[:n_queries]
    embedder.warm(questions)
    home = Path(tempfile.mkdtemp(prefix="gaceta-latency-"))
    try:
        index = Index.open(settings.model_copy(update={"home": home, "qdrant_url": None}), embedder=embedder)
        t0 = time.perf_counter()
        for doc, chunks, embedded, _ in corpus.documents(size):
            index.upsert(doc, chunks, embedded)
        upsert_s = time.perf_counter() - t0
        rss_after_upsert = _rss_split_mb()
        t0 = time.perf_counter()
        index.optimize()
        optimize_s = time.perf_counter() - t0
        result = {"size": size, "model": embedder.model_id, "upsert_s": upsert_s, "optimize_s": optimize_s,
                  "disk_mb": _dir_bytes(home) / 2**20, "rss_after_upsert_mb": rss_after_upsert,
                  "rss_after_optimize_mb": _rss_split_mb()}
        for question in questions[:10]:  # warm caches and lazy loads
            index.search(question, k=10)
        timings: dict[str, list[float]] = {mode: [] for mode in MODES}
        for question in questions:  # modes interleaved, so a busy moment of the machine hits them alike
            for mode in MODES:
                t = time.perf_counter()
                index.search(question, k=10, mode=SearchMode(mode))
                timings[mode].append((time.perf_counter() - t) * 1000)
        for mode in MODES:
            result[mode] = {"p50": _pct(timings[mode], 50), "p95": _pct(timings[mode], 95)}
        embedder.cache.clear()
        with_embedding = []
        for question in questions:
            t = time.perf_counter()
            index.search(question, k=10)
            with_embedding.append((time.perf_counter() - t) * 1000)
        result["hybrid+embed"] = {"p50": _pct(with_embedding, 50), "p95": _pct(with_embedding, 95)}
        result["rss_serving_mb"] = psutil.Process().memory_info().rss / 2**20
        result["rss_serving_split_mb"] = _rss_split_mb()
        result["rss_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        index.close()
        return result
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--model", default=None, help="embedder (default: GACETA_EMBEDDING_MODEL)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_size(args.child, args.queries, args.model)), flush=True)
        return
    print(f"{'chunks':>9} {'upsert s':>9} {'hnsw s':>7} {'disk MB':>8} "
          + " ".join(f"{m + ' p50/p95 ms':>22}" for m in (*MODES, "hybrid+embed")) + f" {'peak RSS MB':>12}")
    for size in args.sizes:
        command = [sys.executable, __file__, "--child", str(size), "--queries", str(args.queries)]
        if args.model:
            command += ["--model", args.model]
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        cells = " ".join(f"{r[m]['p50']:>10.1f} / {r[m]['p95']:>7.1f}   " for m in (*MODES, "hybrid+embed"))
        print(f"{size:>9} {r['upsert_s']:>9.1f} {r['optimize_s']:>7.1f} {r['disk_mb']:>8.0f} {cells} "
              f"{r['rss_peak_mb']:>12.0f}", flush=True)
        print(json.dumps(r), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
