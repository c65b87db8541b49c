"""PDF page images with a cited span highlighted, rendered by PyMuPDF and kept in an LRU cache.

The PDF is found only through the index's own record of the document, never through the request: first the original
the index kept by content (`retrieval.originals`, `$GACETA_HOME/originals/ab/<sha256>.pdf`), so pages show from any
working directory and after the inbox is emptied; else (an index built before originals were kept) the file at the
recorded `source_path`. Either is checked against the recorded sha256: a file that has changed since it was indexed is
refused rather than shown with wrong highlights.

Bounded work (issue 23): a page is rendered at `dpi` unless that would pass `MAX_PIXELS` pixels or `MAX_SIDE` pixels
on a side; then it is scaled down to fit (a 14,400 pt page is a readable strip, not 22,000 px and a MuPDF refusal).
At most `RENDERS_AT_ONCE` pages render at a time; a request that waits `WAIT_S` for its turn is `Busy` (a 503).
So the memory of rendering is bounded: RENDERS_AT_ONCE × MAX_PIXELS × 3 bytes of pixmap, plus the PNGs kept.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pymupdf

import ingest.pdf_open  # noqa: F401  (MuPDF's messages go to the log, never to the server's stdout)
from gaceta.api.highlight import line_rects, span_words
from ingest.models import LegalDocument
from retrieval.files import intact
from retrieval.originals import Originals


MAX_PIXELS = 4_000_000  # an A4 page at 110 dpi is ≈ 1.2 M; a legal-size one ≈ 1.6 M: both at full resolution
MAX_SIDE = 8_000  # a very long, thin page is scaled down to this many pixels on its long side
RENDERS_AT_ONCE = 2
WAIT_S = 30.0


class SourceUnavailable(Exception):
    """The indexed PDF is missing or no longer the file that was indexed."""


class Busy(Exception):
    """Every bounded slot stayed taken for as long as a request waits for one."""


def render_zoom(width_pt: float, height_pt: float, dpi: float) -> float:
    """The zoom (pixels per point) for a page of this size: `dpi` / 72, scaled down to MAX_PIXELS and MAX_SIDE."""
    zoom = dpi / 72
    width_pt, height_pt = max(width_pt, 1.0), max(height_pt, 1.0)
    zoom = min(zoom, math.sqrt(MAX_PIXELS / (width_pt * height_pt)), MAX_SIDE / max(width_pt, height_pt))
    return zoom


@dataclass(frozen=True)
class PageImage:
    png: bytes
    highlighted_words: int
    box: tuple[float, float, float, float] | None = None  # the highlight's bounds as fractions of the page size


@dataclass(frozen=True)
class _Request:
    """Cache key: the document's identity and bytes, the page, the span. The document rides along unhashed."""

    doc_id: str
    sha256: str
    page: int
    span: tuple[int, int] | None
    doc: LegalDocument = field(compare=False, hash=False, repr=False)
    originals: Originals | None = field(default=None, compare=False, hash=False, repr=False)


class PageRenderer:
    def __init__(self, dpi: int = 110, cache_size: int = 128, at_once: int = RENDERS_AT_ONCE, wait_s: float = WAIT_S):
        self.dpi = dpi
        self._render = lru_cache(maxsize=cache_size)(self._render_uncached)
        self._slots = threading.BoundedSemaphore(at_once)
        self._wait_s = wait_s

    def render(self, doc: LegalDocument, page: int, span: tuple[int, int] | None = None,
               originals: Originals | None = None) -> PageImage:
        """PNG of PDF page `page` (1-based, within the document) with the words of `span` highlighted, read from the
        kept original in `originals` (the index's) when there is one."""
        return self._render(_Request(doc.doc_id, doc.source_sha256, page, span, doc, originals))

    def cache_info(self):
        return self._render.cache_info()

    def _render_uncached(self, req: _Request) -> PageImage:
        if not self._slots.acquire(timeout=self._wait_s):
            raise Busy(f"every page renderer stayed busy for {self._wait_s:.0f} s: try again shortly")
        try:
            return self._render_now(req)
        finally:
            self._slots.release()

    def _render_now(self, req: _Request) -> PageImage:
        path = self._verified_source(req.doc, req.originals)
        with pymupdf.open(path) as pdf:
            page = pdf[req.page - 1]
            words = span_words(page, req.doc, *req.span) if req.span else []
            box = None
            if words:
                rects = line_rects(words)
                annot = page.add_highlight_annot(rects)
                annot.set_colors(stroke=(1.0, 0.85, 0.1))
                annot.update()
                bounds, size = pymupdf.Rect(rects[0]), page.rect
                for rect in rects[1:]:
                    bounds |= rect
                box = (bounds.x0 / size.width, bounds.y0 / size.height, bounds.x1 / size.width, bounds.y1 / size.height)
            zoom = render_zoom(page.rect.width, page.rect.height, self.dpi)
            png = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), annots=True).tobytes("png")
        return PageImage(png=png, highlighted_words=len(words), box=box)

    def _verified_source(self, doc: LegalDocument, originals: Originals | None = None) -> Path:
        """The indexed bytes: the kept original, else the recorded path; checked against the sha256 of ingest."""
        kept = originals.kept(doc.source_sha256) if originals is not None else None
        path = kept or Path(doc.source_path)
        if not path.exists():
            raise SourceUnavailable(
                f"the source PDF of document {doc.doc_id} is no longer where it was indexed and no copy of it is "
                f"kept; re-ingest it"
            )
        if not intact(path, doc.source_sha256):
            raise SourceUnavailable(
                f"the source PDF of document {doc.doc_id} has changed since it was indexed; re-ingest it"
            )
        return path


def page_in_document(doc: LegalDocument, page: int) -> bool:
    """Whether PDF page `page` belongs to this document (an edition PDF holds many documents)."""
    first, last = doc.pdf_pages
    return first <= page <= last

