"""Context trimming: before an LLM call, keep of each retrieved chunk only the sentences that matter to the question.

Offline and cheap: a sentence matters when it shares the question's content terms (the project's analyzer:
folded, stemmed, stopwords and question words out), each term weighted by how rare it is among the retrieved
sentences (IDF), so "tierras y aguas" counts more than "artículo". Kept, in document order:
- every sentence of a chunk that holds an article the question names ("artículo 27", or a chunk the legal search
  looked up by reference, `via == "reference"`): that text is never trimmed;
- each chunk's best sentence (a retrieved chunk always says something), and any sentence scoring at least
  `RELATIVE` of the best sentence in the whole context;
- sparingly, the neighbours structure asks for: the sentence announcing a list ("… se requiere:") before a kept
  list item ("II. …", "b) …"; amendment notes between them skipped), and the first item after a kept sentence that
  announces one.
The header line(s) of every chunk stay in the prompt (the backends print them). Trimmed text is verbatim: every
run of kept sentences is a slice of the chunk text, runs are joined by `GAP` (which also opens or closes the text
when sentences before the first run or after the last are left out), and `TrimmedSource.document_offset`
maps an offset of the trimmed text back to the document, so a quote copied from trimmed text still verifies
against the full chunk (the Verifier aligns quotes against `chunk.text`).

Tokens are counted without a tokenizer, as characters / 4 (the same measure for the trimmed and the full context).
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter

from pydantic import BaseModel

from ingest.references import parse_references
from retrieval.answers.base import Draft, DraftEvent, sentences_of
from retrieval.answers.models import Usage
from retrieval.models import SearchHit
from retrieval.text_analysis import analyze, content_terms

log = logging.getLogger(__name__)

RELATIVE = 0.5  # a sentence scoring this share of the context's best sentence is kept
CHARS_PER_TOKEN = 4
GAP = "\n[…]\n"  # stands where sentences were left out (never inside a kept run)

_ANNOUNCES = re.compile(r"[:：]\s*$")  # "… son los siguientes:" — a list follows
_LIST_ITEM = re.compile(r"^\s*(?:[#*_>\s]*)(?:[IVXLC]+\s*[.\-–)]|[a-zñ]\)|\d+[.)]\s)", re.I)


def counted(event: DraftEvent, trimmed: Trimmed | None) -> DraftEvent:
    """`event` as is, but a Draft (a whole answer, or a stream's last event) says in its usage how many prompt tokens
    trimming saved."""
    if isinstance(event, Draft) and trimmed is not None:
        event.usage = (event.usage or Usage()).model_copy(update={"context_tokens_saved": trimmed.tokens_saved})
    return event


def count_tokens(text: str) -> int:
    """Prompt tokens of `text` without a tokenizer: characters / 4 (rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


class Piece(BaseModel):
    """A run of `TrimmedSource.text`, copied verbatim from the document: text[at : at + end - start]."""

    at: int  # offset in the trimmed text
    start: int  # document offsets (like Chunk.start/end)
    end: int


class TrimmedSource(BaseModel):
    chunk_id: str
    text: str  # the kept sentences in document order; GAP ("[…]") wherever sentences were left out
    kept: list[int]  # indexes into sentences_of(chunk) of the sentences kept
    total: int  # sentences the chunk has
    pieces: list[Piece]
    whole: bool  # nothing was left out (text == chunk.text)

    def document_offset(self, offset: int) -> int:
        """The document offset of `offset` in the trimmed text (inside a GAP: the end of the run before it, or the
        first run's start)."""
        for piece in reversed(self.pieces):
            if offset >= piece.at:
                return min(piece.start + offset - piece.at, piece.end)
        return self.pieces[0].start if self.pieces else 0


class Trimmed(BaseModel):
    sources: list[TrimmedSource]  # one per hit, in the hits' order
    tokens_before: int  # headers + whole chunk texts, characters / 4
    tokens_after: int  # headers + trimmed texts, characters / 4

    @property
    def tokens_saved(self) -> int:
        return self.tokens_before - self.tokens_after


def named_articles(question: str) -> set[str]:
    """The article keys the question names ("artículo 27", "arts. 5o. a 9o." → 5…9)."""
    return {key for ref in parse_references(question) for key in ref.articles}


def trim_context(question: str, hits: list[SearchHit]) -> Trimmed:
    """Each hit's chunk reduced to the sentences that matter to `question`."""
    named = named_articles(question)
    spans = [sentences_of(hit.chunk) for hit in hits]
    texts = [[hit.chunk.sentence_text(s) for s in ss] for hit, ss in zip(hits, spans)]
    terms = [[set(analyze(t)) for t in ts] for ts in texts]
    asked = content_terms(question)
    weight = _idf(asked, [t for ts in terms for t in ts])
    scores = [[sum(weight[t] for t in asked & ts) for ts in chunk_terms] for chunk_terms in terms]
    best = max((s for ss in scores for s in ss), default=0.0)

    sources = []
    for hit, chunk_spans, chunk_texts, chunk_scores in zip(hits, spans, texts, scores):
        chunk = hit.chunk
        if hit.via == "reference" or (chunk.article is not None and chunk.article in named):
            keep = set(range(len(chunk_texts)))
        else:
            notes = {i for i, sp in enumerate(chunk_spans)
                     if any(n.start < sp.end and sp.start < n.end for n in chunk.notes)}
            keep = _selected(chunk_texts, chunk_scores, best, notes)
        sources.append(_trimmed(hit, sorted(keep)))
    before = sum(count_tokens(h.chunk.header) + count_tokens(h.chunk.text) for h in hits)
    after = sum(count_tokens(h.chunk.header) + count_tokens(s.text) for h, s in zip(hits, sources))
    return Trimmed(sources=sources, tokens_before=before, tokens_after=after)


def _idf(asked: set[str], sentence_terms: list[set[str]]) -> dict[str, float]:
    """Weight of each question term: log((N + 1) / (df + 0.5)) over the retrieved sentences (rare terms count more)."""
    df = Counter(t for ts in sentence_terms for t in asked & ts)
    n = len(sentence_terms)
    return {t: math.log((n + 1) / (df[t] + 0.5)) for t in asked}


def _selected(texts: list[str], scores: list[float], best: float, notes: set[int]) -> set[int]:
    """The sentences kept of one chunk (`notes`: the indexes of its amendment notes, which neighbours skip)."""
    if not texts:
        return set()
    keep = {max(range(len(texts)), key=lambda i: (scores[i], -i))}  # the chunk's best sentence, earliest on ties
    if best > 0:
        keep |= {i for i, s in enumerate(scores) if s >= RELATIVE * best}
    for i in sorted(keep):
        if _ANNOUNCES.search(texts[i]):
            first = next((j for j in range(i + 1, len(texts)) if j not in notes), None)
            if first is not None:
                keep.add(first)  # the first item of the list it announces
        if _LIST_ITEM.match(texts[i]):
            lead = next((j for j in range(i - 1, -1, -1) if j not in notes and not _LIST_ITEM.match(texts[j])), None)
            if lead is not None and _ANNOUNCES.search(texts[lead]):
                keep.add(lead)  # the sentence announcing the list this item belongs to
    return keep


def _trimmed(hit: SearchHit, kept: list[int]) -> TrimmedSource:
    chunk = hit.chunk
    spans = sentences_of(chunk)
    if len(kept) == len(spans):
        return TrimmedSource(chunk_id=chunk.chunk_id, text=chunk.text, kept=kept, total=len(spans),
                             pieces=[Piece(at=0, start=chunk.start, end=chunk.end)], whole=True)
    runs: list[list[int]] = []
    for i in kept:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    parts, pieces, at = [], [], 0
    if kept and kept[0] > 0:  # sentences left out before the first run
        parts.append(GAP.lstrip("\n"))
        at = len(parts[0])
    for run in runs:
        start, end = spans[run[0]].start, spans[run[-1]].end
        if pieces:
            parts.append(GAP)
            at += len(GAP)
        parts.append(chunk.text[start - chunk.start : end - chunk.start])
        pieces.append(Piece(at=at, start=start, end=end))
        at += end - start
    if kept and kept[-1] < len(spans) - 1:  # … and after the last
        parts.append(GAP.rstrip("\n"))
    return TrimmedSource(chunk_id=chunk.chunk_id, text="".join(parts), kept=kept, total=len(spans), pieces=pieces,
                         whole=False)


def trimmed_for(question: str, hits: list[SearchHit], enabled: bool) -> Trimmed | None:
    """The trimmed context when trimming is on (logging the prompt tokens it saves), else None."""
    if not enabled:
        return None
    trimmed = trim_context(question, hits)
    log.info("context trimmed from %d to %d tokens (chars/4): %d saved", trimmed.tokens_before,
             trimmed.tokens_after, trimmed.tokens_saved)
    return trimmed
