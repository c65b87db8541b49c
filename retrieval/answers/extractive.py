"""The offline answerer: no LLM, the answer is the retrieved sentences that best answer the question, each cited.

Every candidate sentence of the retrieved chunks is scored by the embedding similarity to the question plus a
lexical score (share of the question's IDF-weighted terms it contains). The best ones are kept, near-duplicates
dropped (gazettes repeat boilerplate), and shown in document order, each with an exact citation of itself. When no
sentence shares a content word with the question and clears the similarity floor, it says so plainly instead of
citing noise.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz

from ingest.models import Sentence
from retrieval.answers.base import Draft, DraftEvent, claim, replay, sentences_of
from retrieval.answers.models import TextSegment
from retrieval.models import SearchHit
from retrieval.text_analysis import analyze

NOT_FOUND = "No encontré en los documentos recuperados información que responda a esta pregunta."
MAX_SENTENCES = 3
MIN_WORDS = 4
DENSE_WEIGHT = 0.4
MIN_SCORE = 0.3  # combined score below which a sentence is noise
KEEP_RATIO = 0.8  # later picks must score at least this share of the best one
DUPLICATE = 90  # rapidfuzz ratio above which two sentences are the same sentence

_TOKEN = re.compile(r"\w+")
# Question words carry no content (the BM25 analyzer keeps some of them: "cuántos", "cuál", "qué").
_QUESTION_TERMS = frozenset(analyze("qué cuál cuáles cuándo cuánto cuánta cuántos cuántas dónde quién quiénes cómo "
                                    "por qué indica señala establece dice dispone"))


def content_terms(text: str) -> set[str]:
    """The BM25 analyzer's terms (folded, stemmed, stopwords out) minus question words."""
    return set(analyze(text)) - _QUESTION_TERMS


@dataclass
class Candidate:
    hit: SearchHit
    rank: int  # position of the hit among the sources
    span: Sentence
    text: str
    score: float = 0.0


class ExtractiveAnswerer:
    """Selects and cites sentences; keeps an embedding cache so repeated passages (evaluation) embed once."""

    name = "extractive"

    def __init__(self, embedder, max_sentences: int = MAX_SENTENCES):
        self.embedder = embedder
        self.max_sentences = max_sentences
        self._cache: dict[str, np.ndarray] = {}

    def answer(self, question: str, hits: list[SearchHit]) -> Draft:
        chosen = self.select(question, hits)
        if not chosen:
            return Draft(content=[TextSegment(text=NOT_FOUND)], model=None, found=False)
        content: list[TextSegment] = []
        for i, cand in enumerate(chosen):
            if i:
                content.append(TextSegment(text="\n\n"))
            content.append(TextSegment(text=cand.text, citations=[claim(cand.hit, cand.text, cand.span.start, cand.span.end)]))
        return Draft(content=content, model=getattr(self.embedder, "model_id", None))

    def stream(self, question: str, hits: list[SearchHit]) -> Iterator[DraftEvent]:
        yield from replay(self.answer(question, hits))

    def select(self, question: str, hits: list[SearchHit]) -> list[Candidate]:
        """The best supporting sentences, de-duplicated, in document order (empty when nothing is relevant)."""
        cands = [c for rank, hit in enumerate(hits) for c in _candidates(hit, rank)]
        if not cands:
            return []
        q_terms = content_terms(question)
        cand_terms = [content_terms(c.text) for c in cands]
        df = {t: sum(t in terms for terms in cand_terms) for t in q_terms}
        weight = {t: math.log(1 + len(cands) / (1 + df[t])) for t in q_terms}
        total = sum(weight.values())
        dense = self._similarities(question, [c.text for c in cands])
        for cand, terms, sim in zip(cands, cand_terms, dense):
            lexical = sum(weight[t] for t in q_terms & terms) / total if total else 0.0
            cand.score = (DENSE_WEIGHT * max(float(sim), 0.0) + (1 - DENSE_WEIGHT) * lexical) if lexical else 0.0
        ranked = sorted(cands, key=lambda c: (-c.score, c.rank, c.span.start))
        best = ranked[0].score
        if best < MIN_SCORE:
            return []
        chosen: list[Candidate] = []
        for cand in ranked:
            if len(chosen) == self.max_sentences or cand.score < best * KEEP_RATIO:
                break
            if any(fuzz.ratio(cand.text, c.text) >= DUPLICATE for c in chosen):
                continue
            chosen.append(cand)
        first_rank: dict[str, int] = {}
        for cand in sorted(chosen, key=lambda c: c.rank):
            first_rank.setdefault(cand.hit.chunk.doc_id, cand.rank)
        return sorted(chosen, key=lambda c: (first_rank[c.hit.chunk.doc_id], c.span.start))

    def _similarities(self, question: str, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            vectors = np.asarray(self.embedder.embed_documents(missing), dtype=np.float32)
            for text, vec in zip(missing, vectors):
                self._cache[text] = vec / (np.linalg.norm(vec) or 1.0)
        q = np.asarray(self.embedder.embed_query(question), dtype=np.float32)
        q = q / (np.linalg.norm(q) or 1.0)
        return np.stack([self._cache[t] for t in texts]) @ q


def _candidates(hit: SearchHit, rank: int) -> list[Candidate]:
    """The chunk's sentences long enough to state something (headings name a topic, they do not answer)."""
    chunk = hit.chunk
    out = []
    for span in sentences_of(chunk):
        text = chunk.sentence_text(span)
        if not text.startswith("#") and len(_TOKEN.findall(text)) >= MIN_WORDS:
            out.append(Candidate(hit=hit, rank=rank, span=span, text=text))
    return out
