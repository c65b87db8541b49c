"""A cited span's rectangles on its PDF page: document offsets → the page's words → one rectangle per line.

The page's Markdown (`LegalDocument.page_spans`) and the page's words (`page.get_text("words")`) are the same text
tokenised twice, with differences: running headers stripped, Markdown marks and table pipes added, hyphenation undone.
Aligning the two token sequences as a whole (rapidfuzz Indel opcodes) anchors every token to its place on the page,
so a short quote that also occurs elsewhere on the page still lights up where it was cited.
"""

from __future__ import annotations

import re
import unicodedata

import pymupdf
from rapidfuzz.distance import Indel

from ingest.models import LegalDocument

_TOKEN = re.compile(r"\w+")


def _fold(token: str) -> str:
    """Lowercase without accents, so "Artículo" in Markdown meets "ARTICULO" or "artículo" on the page."""
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _markdown_tokens(text: str, base: int) -> list[tuple[str, int, int]]:
    """(folded token, start, end) with offsets into the document Markdown."""
    return [(_fold(m.group()), base + m.start(), base + m.end()) for m in _TOKEN.finditer(text)]


def _word_tokens(words: list[tuple]) -> list[tuple[str, int]]:
    """(folded token, index of the PDF word it came from); a word like "27.-" or "Constitución," yields its parts."""
    return [(_fold(m.group()), i) for i, word in enumerate(words) for m in _TOKEN.finditer(word[4])]


def span_words(page: pymupdf.Page, doc: LegalDocument, start: int, end: int) -> list[tuple]:
    """The page's words (PyMuPDF word tuples) that carry the document span [start, end) on this page."""
    page_no = page.number + 1
    span = next((s for s in doc.page_spans if s.page == page_no), None)
    if span is None:
        return []
    lo, hi = max(start, span.start), min(end, span.end)
    if lo >= hi:
        return []
    md = _markdown_tokens(doc.markdown[span.start : span.end], span.start)
    words = page.get_text("words")
    pdf = _word_tokens(words)
    matched: set[int] = set()
    for op in Indel.opcodes([t for t, _, _ in md], [t for t, _ in pdf]):
        if op.tag != "equal":
            continue
        for k in range(op.src_end - op.src_start):
            _, tok_start, tok_end = md[op.src_start + k]
            if tok_start < hi and tok_end > lo:
                matched.add(pdf[op.dest_start + k][1])
    return [words[i] for i in sorted(matched)]


def line_rects(words: list[tuple]) -> list[pymupdf.Rect]:
    """One rectangle per text line (block, line) enclosing its highlighted words: a marker-pen look, not confetti."""
    lines: dict[tuple[int, int], pymupdf.Rect] = {}
    for x0, y0, x1, y1, _text, block, line, _n in words:
        key = (block, line)
        rect = pymupdf.Rect(x0, y0, x1, y1)
        lines[key] = lines[key] | rect if key in lines else rect
    return list(lines.values())
