"""Ruled tables → Markdown tables, with a table continued across pages kept as one.

`page.find_tables()` costs about ten page extractions, so it runs only where the content stream draws enough
rectangles or line segments to hold a ruled table (a regex over the raw stream, ~1 ms a page): on the DOF this
skips the 779-page annex and the Constitution entirely and finds the ruled candidate lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pymupdf

# A path-drawing rectangle that is filled or stroked (not a clip: "re W n") or a line segment.
_RULING_OP = re.compile(rb"\d\s+(?:re\s+[^Wn\s]|l\s)")
MIN_RULING_OPS = 8


@dataclass
class TableBlock:
    """A table on one page (or several, once continued tables are merged)."""

    page: int
    bbox: tuple[float, float, float, float]
    rows: list[list[str]]
    pages: list[int] = field(default_factory=list)

    @property
    def columns(self) -> int:
        return len(self.rows[0]) if self.rows else 0


def has_ruling(page: pymupdf.Page) -> bool:
    """Cheap test: does the page draw enough rules to possibly hold a table?"""
    try:
        stream = page.read_contents()
    except (RuntimeError, ValueError):
        return False
    return len(_RULING_OP.findall(stream, 0, 4 << 20)) >= MIN_RULING_OPS


def _clean(cell: str | None) -> str:
    return " ".join((cell or "").split()).replace("|", "\\|")


def find_tables(page: pymupdf.Page, page_no: int) -> list[TableBlock]:
    """Ruled tables of the page with at least 2 columns and 2 rows holding text."""
    if not has_ruling(page):
        return []
    found: list[TableBlock] = []
    for tab in page.find_tables().tables:
        rows = [[_clean(c) for c in row] for row in tab.extract()]
        rows = [r for r in rows if any(r)]
        if len(rows) < 2 or len(rows[0]) < 2:
            continue
        filled = sum(bool(c) for r in rows for c in r)
        if filled < 0.3 * len(rows) * len(rows[0]):
            continue
        found.append(TableBlock(page=page_no, bbox=tuple(tab.bbox), rows=rows, pages=[page_no]))
    return found


def continues(prev: TableBlock, cur: TableBlock) -> bool:
    """`cur` continues `prev` on the next page: same column count, and nothing but headers between them."""
    return cur.page == prev.pages[-1] + 1 and cur.columns == prev.columns


def merge(prev: TableBlock, cur: TableBlock) -> None:
    """Append `cur`'s rows to `prev`, dropping a repeated header row."""
    rows = cur.rows[1:] if cur.rows and cur.rows[0] == prev.rows[0] else cur.rows
    prev.rows.extend(rows)
    prev.pages.append(cur.page)


def to_markdown(rows: list[list[str]]) -> str:
    """A GitHub-flavoured Markdown table; the first row is the header."""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines.extend("| " + " | ".join(r) + " |" for r in rows[1:])
    return "\n".join(lines)
