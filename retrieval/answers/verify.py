"""Quote verification: every citation, from every backend, is re-found in its source chunk before it is trusted.

A model's offsets and quotes are claims. We align the quote against the chunk text with rapidfuzz
(`partial_ratio_alignment`) after normalising whitespace, quotes, dashes and Markdown emphasis, so a model that
re-flowed a line break or curled a quote still matches; the aligned span's *real* offsets (mapped back through the
normalisation to the raw chunk text, then to the document Markdown) replace the model's. A quote that does not reach
`PASS_SCORE` is kept but stays unverified; a citation to a chunk that was not retrieved is rejected outright.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz

from retrieval import labels
from retrieval.answers.models import Citation
from retrieval.models import SearchHit

PASS_SCORE = 90.0

_QUOTES = {
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"', "\u2033": '"',
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u2032": "'", "`": "'", "\u00b4": "'",
    "\u2013": "-", "\u2014": "-", "\u2012": "-", "\u2212": "-", "\u2010": "-", "\u2011": "-",
    "\u2026": ".",
}
_DROPPED = {"*", "_", "\u00ad", "\u200b", "\ufeff", "#", "|"}  # Markdown emphasis/table/heading marks, invisibles


def normalize(text: str) -> tuple[str, list[int]]:
    """Normalised text and, for each of its characters, the index of the raw character it came from.

    Whitespace runs become one space; curly quotes and dashes become ASCII; Markdown emphasis and invisible
    characters vanish; letters are lower-cased when that keeps them one character long (so the map stays 1:1).
    """
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
                index.append(i)
            continue
        if ch in _DROPPED:
            continue
        ch = _QUOTES.get(ch, ch)
        low = ch.lower()
        out.append(low if len(low) == 1 else ch)
        index.append(i)
    if out and out[-1] == " ":
        out.pop()
        index.pop()
    return "".join(out), index


@dataclass(frozen=True)
class Alignment:
    score: float
    start: int  # offsets into the raw text that was searched
    end: int


def align(quote: str, text: str) -> Alignment:
    """Best alignment of `quote` inside `text`; offsets are raw `text` offsets of the matched span."""
    nq, _ = normalize(quote)
    nt, tmap = normalize(text)
    if not nq or not nt:
        return Alignment(0.0, 0, 0)
    if len(nq) > len(nt):
        # A quote longer than its source cannot lie inside it: score it as a whole against the whole.
        return Alignment(fuzz.ratio(nq, nt), tmap[0], tmap[-1] + 1)
    found = nt.find(nq)
    if found >= 0:
        return Alignment(100.0, tmap[found], tmap[found + len(nq) - 1] + 1)
    al = fuzz.partial_ratio_alignment(nq, nt)
    if al is None or al.dest_end <= al.dest_start:
        return Alignment(0.0, 0, 0)
    return Alignment(al.score, tmap[al.dest_start], tmap[al.dest_end - 1] + 1)


class Verifier:
    """Verifies citations against the retrieved hits (the only chunks an answer may cite)."""

    def __init__(self, hits: list[SearchHit]):
        self.hits = hits
        self._by_chunk = {h.chunk.chunk_id: (i, h) for i, h in enumerate(hits)}

    def verify(self, citation: Citation) -> Citation | None:
        """The citation with real offsets, pages and `verified` set; None when its chunk was not retrieved."""
        found = self._by_chunk.get(citation.chunk_id)
        if found is None:
            return None
        source_index, hit = found
        chunk = hit.chunk
        claimed = self._claimed_span(citation, hit)
        if claimed is not None and normalize(claimed[2])[0] == normalize(citation.cited_text)[0] and claimed[2]:
            score, start, end = 100.0, claimed[0], claimed[1]
        else:
            al = align(citation.cited_text, chunk.text)
            score, start, end = al.score, chunk.start + al.start, chunk.start + al.end
        verified = score >= PASS_SCORE
        if not verified:
            start, end = claimed[:2] if claimed is not None else (chunk.start, chunk.end)
        first_page, printed = chunk.page_at(start)
        last_page, _ = chunk.page_at(max(start, end - 1))
        mark = labels.paragraph_at(chunk, start)
        return citation.model_copy(
            update={
                "cited_text": chunk.text[start - chunk.start : end - chunk.start] if verified else citation.cited_text,
                "doc_id": chunk.doc_id,
                "document_title": hit.document.title,
                "start": start,
                "end": end,
                "pages": list(range(first_page, last_page + 1)),
                "printed_page": printed,
                "verified": verified,
                "score": round(float(score), 2),
                "source_index": source_index,
                "label": labels.label(hit.document, chunk, start, end if verified else None, hit.versioned),  # "fr. I–II"
                "article": chunk.article,
                "paragraph": mark.paragraph if mark is not None and chunk.article else None,
                "notes": labels.notes_after(chunk, end) if verified else [],
            }
        )

    @staticmethod
    def _claimed_span(citation: Citation, hit: SearchHit) -> tuple[int, int, str] | None:
        """The model's own span when it lies inside the chunk (document offsets and its text)."""
        chunk = hit.chunk
        if chunk.start <= citation.start < citation.end <= chunk.end:
            return citation.start, citation.end, chunk.text[citation.start - chunk.start : citation.end - chunk.start]
        return None
