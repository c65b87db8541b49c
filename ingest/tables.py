"""Ruled tables → Markdown tables, read from the page's ruling lines and the lines already extracted.

Measured on the DOF 2024-12-15 edition (33 pages of ruled candidate lists): `page.find_tables()` takes 2.5 s a page
(86 s for the file; its per-character Python `make_chars`/`extract` dominate), against 5 ms for the one
`get_text("dict")` this parser makes per page. So the grid is rebuilt here from the thin rectangles and line segments
the page draws (`get_cdrawings`, called only when a ~1 ms regex over the content stream finds enough ruling
operators), and cells are filled from the text lines the parser already holds. A table continued on the next page is
joined into one by `ingest.markdown_build` (same column count, first thing on the page, repeated header dropped).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import islice

import pymupdf

from ingest.layout import Line

# A filled or stroked rectangle (not a clip: "re W n") or a line segment after its last coordinate, in the raw
# content stream. The pattern starts on the operator's letter, rare in a stream of numbers, and looks back for the
# coordinate: twice as fast over the shared PDFs' 53 MB of streams as starting on the digit, with the same pages found.
_RULING_OP = re.compile(rb"[rl](?<=\d\s[rl])(?:e\s+[^Wn\s]|\s)")
MIN_RULING_OPS = 8
RULE_THICKNESS = 2.5  # a rectangle thinner than this is a rule
SNAP = 2.0  # rule positions closer than this are one boundary


@dataclass
class TableBlock:
    """A table on one page: cell texts by row, the first row being the header."""

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
    found = _RULING_OP.finditer(stream, 0, 4 << 20)
    return sum(1 for _ in islice(found, MIN_RULING_OPS)) >= MIN_RULING_OPS


def _rules(page: pymupdf.Page) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """Horizontal rules (y, x0, x1) and vertical rules (x, y0, y1) drawn on the page."""
    horizontal, vertical = [], []
    for path in page.get_cdrawings():
        for item in path["items"]:
            if item[0] == "re":
                x0, y0, x1, y1 = item[1]
            elif item[0] == "l":
                (x0, y0), (x1, y1) = item[1], item[2]
            else:
                continue
            x0, x1 = min(x0, x1), max(x0, x1)
            y0, y1 = min(y0, y1), max(y0, y1)
            if y1 - y0 <= RULE_THICKNESS and x1 - x0 > 4:
                horizontal.append(((y0 + y1) / 2, x0, x1))
            elif x1 - x0 <= RULE_THICKNESS and y1 - y0 > 4:
                vertical.append(((x0 + x1) / 2, y0, y1))
    return horizontal, vertical


def _snap(values: list[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > SNAP:
            out.append(v)
    return out


def _regions(vertical: list[tuple[float, float, float]]) -> list[tuple[float, float]]:
    """Vertical extents covered by touching vertical rules: one per table."""
    spans = sorted((y0, y1) for _, y0, y1 in vertical)
    regions: list[list[float]] = []
    for y0, y1 in spans:
        if regions and y0 <= regions[-1][1] + SNAP:
            regions[-1][1] = max(regions[-1][1], y1)
        else:
            regions.append([y0, y1])
    return [(a, b) for a, b in regions]


def page_tables(page: pymupdf.Page, page_no: int, lines: list[Line]) -> tuple[list[TableBlock], set[int]]:
    """Ruled tables of the page (≥ 2 columns, ≥ 2 non-empty rows) and the ids of the lines placed in their cells."""
    if not has_ruling(page):
        return [], set()
    horizontal, vertical = _rules(page)
    tables: list[TableBlock] = []
    used: set[int] = set()
    for top, bottom in _regions(vertical):
        xs = _snap([x for x, y0, y1 in vertical if y0 >= top - SNAP and y1 <= bottom + SNAP])
        if len(xs) < 3:
            continue
        ys = _snap([top, bottom] + [y for y, x0, x1 in horizontal
                                    if top - SNAP <= y <= bottom + SNAP and x0 < xs[-1] and x1 > xs[0]])
        if len(ys) < 3:
            continue
        cells: dict[tuple[int, int], list[Line]] = {}
        for ln in lines:
            cx, cy = (ln.x0 + ln.x1) / 2, (ln.y0 + ln.y1) / 2
            if not (xs[0] < cx < xs[-1] and ys[0] < cy < ys[-1]):
                continue
            cells.setdefault((bisect_right(ys, cy) - 1, bisect_right(xs, cx) - 1), []).append(ln)
        rows_used = sorted({r for r, _ in cells})
        cols_used = sorted({c for _, c in cells})
        if len(rows_used) < 2 or len(cols_used) < 2:
            continue
        rows = [[_cell_text(cells.get((r, c), [])) for c in cols_used] for r in rows_used]
        tables.append(TableBlock(page=page_no, bbox=(xs[0], ys[0], xs[-1], ys[-1]), rows=rows, pages=[page_no]))
        used.update(id(ln) for group in cells.values() for ln in group)
    return tables, used


def _cell_text(lines: list[Line]) -> str:
    text = " ".join(ln.text.strip() for ln in sorted(lines, key=lambda ln: (round(ln.y0), ln.x0)))
    return " ".join(text.split()).replace("|", "\\|")


def to_markdown(rows: list[list[str]]) -> str:
    """A GitHub-flavoured Markdown table; the first row is the header."""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines.extend("| " + " | ".join(r) + " |" for r in rows[1:])
    return "\n".join(lines)
