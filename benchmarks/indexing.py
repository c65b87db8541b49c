"""Indexing throughput: chunks/s of the bare model vs our pipeline (embed = dense + BM25, then upsert) on the same texts.

    .venv/bin/python benchmarks/indexing.py [--chunks 2000] [--model NAME]

Texts are real: XQuAD-es paragraphs and ObliQA regulation passages as `Chunk`s with their structured headers
(retrieval/evaluation/corpus.py), i.e. exactly what ingest embeds. The bare rate is `embed_documents` alone, timed
before and after the pipeline (the mean, to even out a shared machine). Goal: pipeline ≥ 90% of the bare rate.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "eval"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--model", default=None, help="embedder (default: GACETA_EMBEDDING_MODEL)")
    args = parser.parse_args()

    from retrieval.embedders import load_embedder
    from retrieval.evaluation.corpus import build_corpus
    from retrieval.evaluation.datasets import load_dataset
    from retrieval.index import Embedded, Index
    from retrieval.settings import Settings

    settings = Settings()
    embedder = load_embedder(args.model or settings.embedding_model)
    documents = []
    for name in ("xquad_es", "obliqa_regulatory_en"):
        documents += build_corpus(load_dataset(SHARED / name)).documents
    picked, total = [], 0
    for document, chunks in documents:
        take = chunks[: args.chunks - total]
        picked.append((document, take))
        total += len(take)
        if total >= args.chunks:
            break
    texts = [c.embedding_text() for _, chunks in picked for c in chunks]
    embedder.embed_documents(texts[:64])  # load weights, warm caches

    def bare() -> float:
        t = time.perf_counter()
        embedder.embed_documents(texts)
        return time.perf_counter() - t

    bare_before = bare()
    home = Path(tempfile.mkdtemp(prefix="gaceta-indexing-"))
    try:
        index = Index.open(settings.model_copy(update={"home": home, "qdrant_url": None}), embedder=embedder)
        t = time.perf_counter()
        embedded = index.embed([c for _, chunks in picked for c in chunks])
        embed_s = time.perf_counter() - t
        t, start = time.perf_counter(), 0
        for document, chunks in picked:
            end = start + len(chunks)
            index.upsert(document, chunks,
                         Embedded(embedded.dense[start:end], embedded.sparse[start:end], embedded.lengths[start:end]))
            start = end
        upsert_s = time.perf_counter() - t
        index.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    bare_after = bare()

    n = len(texts)
    bare_rate = n / ((bare_before + bare_after) / 2)
    pipeline_rate = n / (embed_s + upsert_s)
    print(f"{n} chunks, model {embedder.model_id}")
    print(f"  bare encode        {bare_rate:8.1f} chunks/s  (runs: {n / bare_before:.1f}, {n / bare_after:.1f})")
    print(f"  pipeline embed     {n / embed_s:8.1f} chunks/s  ({embed_s:.1f} s, dense + BM25)")
    print(f"  pipeline upsert    {n / upsert_s:8.1f} chunks/s  ({upsert_s:.1f} s)")
    print(f"  pipeline total     {pipeline_rate:8.1f} chunks/s  = {100 * pipeline_rate / bare_rate:.0f}% of bare")


if __name__ == "__main__":
    main()
