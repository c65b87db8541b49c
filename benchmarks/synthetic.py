"""Synthetic chunks at scale for the store benchmarks: realistic shapes, not realistic meaning.

- Terms: the real BM25 terms of the XQuAD-es paragraphs and ObliQA passages (so real Spanish/English questions hit
  real posting lists), extended with a synthetic tail to `VOCAB` terms, drawn with a Zipf law like natural text.
- Dense vectors: L2-normalised points around a few hundred random centres (clustered like real embeddings, which
  random uniform vectors are not).
- Each chunk is a real `Chunk` with a template body, so payload size and hit building match production.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ingest.models import Chunk, LegalDocument
from retrieval import bm25
from retrieval.index import Embedded
from retrieval.text_analysis import analyze

SHARED = Path(__file__).resolve().parents[2] / "shared" / "eval"
VOCAB = 200_000
TERMS_PER_CHUNK = 140  # analysed terms of a ~256-token chunk
CENTRES = 256
CHUNKS_PER_DOC = 1000


def real_texts() -> tuple[list[str], list[str]]:
    """(passages, questions) from XQuAD-es: the corpus vocabulary and the queries the benchmarks run."""
    data = json.loads((SHARED / "xquad_es" / "xquad.es.json").read_text(encoding="utf-8"))["data"]
    paragraphs = [p for article in data for p in article["paragraphs"]]
    passages = [p["context"] for p in paragraphs]
    questions = [qa["question"] for p in paragraphs for qa in p["qas"]]
    regulatory = SHARED / "obliqa_regulatory_en" / "StructuredRegulatoryDocuments"
    for file in sorted(regulatory.glob("*.json"))[:10]:
        passages += [item["Passage"] for item in json.loads(file.read_text(encoding="utf-8"))]
    return passages, questions


class SyntheticCorpus:
    def __init__(self, dim: int, seed: int = 7):
        self.rng = np.random.default_rng(seed)
        passages, self.questions = real_texts()
        counts: dict[str, int] = {}
        for text in passages:
            for term in analyze(text):
                counts[term] = counts.get(term, 0) + 1
        real = sorted(counts, key=counts.get, reverse=True)
        self.vocab = np.array(real + [f"t{i:06d}" for i in range(VOCAB - len(real))], dtype=object)
        ranks = np.arange(1, VOCAB + 1, dtype=np.float64)
        weights = 1.0 / (ranks + 2.7) ** 1.07
        self.term_p = weights / weights.sum()
        centres = self.rng.standard_normal((CENTRES, dim)).astype(np.float32)
        self.centres = centres / np.linalg.norm(centres, axis=1, keepdims=True)
        self.dim = dim
        self.template = passages[0]

    def dense(self, n: int) -> np.ndarray:
        noise = self.rng.standard_normal((n, self.dim)).astype(np.float32) * (0.9 / np.sqrt(self.dim))
        vectors = self.centres[self.rng.integers(0, CENTRES, n)] + noise
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def terms(self, n: int) -> list[list[str]]:
        flat = self.rng.choice(VOCAB, size=n * TERMS_PER_CHUNK, p=self.term_p)
        return [list(self.vocab[flat[i * TERMS_PER_CHUNK : (i + 1) * TERMS_PER_CHUNK]]) for i in range(n)]

    def documents(self, total: int) -> Iterator[tuple[LegalDocument, list[Chunk], Embedded, list[list[str]]]]:
        """`total` chunks as documents of CHUNKS_PER_DOC chunks, with their vectors and BM25 term lists."""
        for number, start in enumerate(range(0, total, CHUNKS_PER_DOC)):
            n = min(CHUNKS_PER_DOC, total - start)
            doc_id = f"synthetic{number:06d}"
            text = self.template
            doc = LegalDocument(
                doc_id=doc_id, title=f"Documento sintético {number}", source_path=f"synthetic/{doc_id}.pdf",
                source_sha256=doc_id, pdf_pages=(1, 1), label=f"SYN {number}", markdown=text,
            )
            chunks = [
                Chunk(chunk_id=f"{doc_id}:{i:05d}", doc_id=doc_id, index=i, header=f"# Document: SYN {number}",
                      text=text, pages=[1], start=0, end=len(text))
                for i in range(n)
            ]
            terms = self.terms(n)
            sparse = [bm25.document_vector(t, float(TERMS_PER_CHUNK)) for t in terms]
            yield doc, chunks, Embedded(self.dense(n), sparse, [len(t) for t in terms]), terms
