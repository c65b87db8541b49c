"""Text lines of a page with their typography and position, in reading order.

One `page.get_text("dict")` call per page feeds everything downstream (running headers, headings, paragraphs), so
this module keeps the attributes the heading classifier needs (font, size, bold, caps ratio, position) and puts the
lines in reading order: recursive XY-cut, where a vertical cut is taken only between *text columns* (several lines
each, lines filling their column), so ruled-less tables are read row by row while 2- and 3-column pages (Federal
Register, IRS) are read column by column. Vertical CJK text that MuPDF returns one glyph per line is rebuilt into
columns read right to left.
"""

from __future__ import annotations

import re
import statistics
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

import pymupdf

_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi", re.I)
_ITALIC_FONT = re.compile(r"italic|oblique", re.I)
_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
# Ligatures expanded to their letters ("ﬁ" → "fi"): "oﬁciales" as some producers' fonts set it is the word a user
# types, a BM25 term and a quote as the user writes it ("oficiales"). The highlighter reads the page's words folded
# by NFKD, which splits a ligature the same way.
TEXT_FLAGS = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_IMAGES & ~pymupdf.TEXT_PRESERVE_LIGATURES
# Space characters other than the space, read as one: a no-break space ("art.\u00a027"), an em or a narrow space (BOE
# typesetting), and the line and paragraph separators some producers put between every two words (a guide whose body
# PyMuPDF reads "When\u2029an\u2029agency…"). The ideographic space stays: it is part of CJK text.
_SPACES = str.maketrans(dict.fromkeys("\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
                                      "\u200a\u2028\u2029\u202f\u205f", " "))
_SPACE_RUN = re.compile(r" {2,}")


@dataclass(slots=True)
class Line:
    """A visual line: spans on one baseline merged; `bold` when (almost) all its letters are bold."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    font: str
    bold: bool
    lead_bold: bool  # the first span is bold ("Artículo 1o." bold, then regular text)
    italic: bool
    caps: float  # share of upper-case letters among letters
    page: int
    vertical: bool = False
    tail_italic: bool = False  # the last span is italic: a BOE article's title after its label ("Artículo 4. *Capital…*")

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0


# Latin-1 bytes that are not letters / not upper-case letters, as Python's str methods see them.
_NOT_ALPHA = bytes(i for i in range(256) if not chr(i).isalpha())
_NOT_UPPER = bytes(i for i in range(256) if not chr(i).isupper())


def _caps_ratio(text: str) -> float:
    try:  # most lines are Latin-1: count on bytes (ten times faster than a str method per character)
        data = text.encode("latin-1")
    except UnicodeEncodeError:
        letters = sum(map(str.isalpha, text))
        return sum(map(str.isupper, text)) / letters if letters else 0.0
    letters = len(data.translate(None, _NOT_ALPHA))
    return len(data.translate(None, _NOT_UPPER)) / letters if letters else 0.0


@lru_cache(maxsize=4096)
def _font_style(font: str) -> tuple[bool, bool]:
    """(bold, italic) as the font's name says: a page has a handful of fonts and thousands of spans."""
    return bool(_BOLD_FONT.search(font)), bool(_ITALIC_FONT.search(font))


def _is_bold(span: dict) -> bool:
    return bool(span["flags"] & 16) or _font_style(span["font"])[0]


def _spaced(text: str) -> str:
    """The text with its space characters spaces (`_SPACES`), one between two words, none at the ends."""
    if text.isascii():
        return text.strip()
    spaced = text.translate(_SPACES)
    return _SPACE_RUN.sub(" ", spaced).strip() if spaced != text else text.strip()


def _make_line(spans: list[dict], bbox, page: int, vertical: bool = False) -> Line | None:
    if len(spans) == 1:  # the common case, kept cheap
        span = spans[0]
        text = _spaced(span["text"])
        if not text:
            return None
        bold = _is_bold(span)
        italic = bool(span["flags"] & 2) or _font_style(span["font"])[1]
        return Line(text, bbox[0], bbox[1], bbox[2], bbox[3], round(span["size"], 1), span["font"], bold, bold,
                    italic, _caps_ratio(text), page, vertical, italic)
    text = _spaced("".join(s["text"] for s in spans))
    if not text:
        return None
    weights: dict[tuple[str, float], int] = {}
    bold_chars = total = 0
    first = last = None
    for s in spans:
        n = len(s["text"].strip())
        if not n:
            continue
        first, last = first or s, s
        total += n
        if _is_bold(s):
            bold_chars += n
        key = (s["font"], round(s["size"], 1))
        weights[key] = weights.get(key, 0) + n
    font, size = max(weights, key=weights.get)
    return Line(
        text=text, x0=bbox[0], y0=bbox[1], x1=bbox[2], y1=bbox[3], size=size, font=font,
        bold=bold_chars >= 0.9 * total, lead_bold=_is_bold(first),
        italic=_font_style(font)[1] or bool(first["flags"] & 2), caps=_caps_ratio(text), page=page,
        vertical=vertical, tail_italic=bool(last["flags"] & 2) or _font_style(last["font"])[1],
    )


def extract_lines(page: pymupdf.Page, page_no: int, textpage: pymupdf.TextPage | None = None) -> list[Line]:
    """Non-blank lines of `page` (1-based `page_no`) with typography, in MuPDF's order."""
    data = page.get_text("dict", flags=TEXT_FLAGS, textpage=textpage)
    lines: list[Line] = []
    for block in data["blocks"]:
        for raw in block.get("lines", ()):
            dx, dy = raw["dir"]
            line = _make_line(raw["spans"], raw["bbox"], page_no, vertical=abs(dx) < 0.5)
            if line is not None:
                lines.append(line)
    return _rebuild_vertical_cjk(lines)


def invisible_share(page: pymupdf.Page) -> float:
    """The share of the page's characters drawn invisibly (render mode 3, or fully transparent): the hidden text layer
    an OCR engine lays over a scanned image."""
    total = hidden = 0
    for span in page.get_texttrace():
        n = len(span["chars"])
        total += n
        if span["type"] == 3 or span.get("opacity", 1.0) == 0:
            hidden += n
    return hidden / total if total else 0.0


def _rebuild_vertical_cjk(lines: list[Line]) -> list[Line]:
    """Glyph-per-line vertical CJK (Japanese gazettes) → one line per column, columns right to left."""
    singles = [ln for ln in lines if len(ln.text) == 1 and _CJK.match(ln.text)]
    if len(singles) < 20 or len(singles) < 0.5 * len(lines):
        return lines
    columns: dict[int, list[Line]] = {}
    for ln in singles:
        columns.setdefault(round((ln.x0 + ln.x1) / 2), []).append(ln)
    rebuilt: list[Line] = []
    for _, glyphs in sorted(columns.items(), key=lambda kv: -kv[0]):
        glyphs.sort(key=lambda g: g.y0)
        run = [glyphs[0]]
        for g in glyphs[1:]:
            if g.y0 - run[-1].y1 > 2 * g.size:
                rebuilt.append(_join_vertical(run))
                run = []
            run.append(g)
        rebuilt.append(_join_vertical(run))
    others = [ln for ln in lines if not (len(ln.text) == 1 and _CJK.match(ln.text))]
    return others + rebuilt


def _join_vertical(run: list[Line]) -> Line:
    first = run[0]
    return Line(
        text="".join(g.text for g in run), x0=min(g.x0 for g in run), y0=first.y0, x1=max(g.x1 for g in run),
        y1=run[-1].y1, size=first.size, font=first.font, bold=first.bold, lead_bold=first.lead_bold,
        italic=first.italic, caps=0.0, page=first.page, vertical=True,
    )


# --- reading order ---------------------------------------------------------------------------------------------


def _gaps(intervals: list[tuple[float, float]], min_gap: float) -> list[tuple[float, float]]:
    """Empty stretches of at least `min_gap` between the union of `intervals`."""
    out: list[tuple[float, float]] = []
    intervals = sorted(intervals)
    reach = intervals[0][1]
    for a, b in intervals[1:]:
        if a - reach >= min_gap:
            out.append((reach, a))
        reach = max(reach, b)
    return out


def _is_text_column(lines: list[Line], page_width: float) -> bool:
    if len(lines) < 3:
        return False
    left = min(ln.x0 for ln in lines)
    right = max(ln.x1 for ln in lines)
    width = right - left
    median = statistics.median(ln.width for ln in lines)
    return width > 0 and median >= 0.55 * width and median >= 0.12 * page_width


def _vertical_split(lines: list[Line], page_width: float) -> list[list[Line]] | None:
    sizes = sorted(ln.size for ln in lines)
    gutter = max(4.0, 0.6 * sizes[len(sizes) // 2])
    gaps = _gaps([(ln.x0, ln.x1) for ln in lines], gutter)
    if not gaps:
        return None
    cuts = [(a + b) / 2 for a, b in gaps]

    def split(at: list[float]) -> list[list[Line]]:
        groups: list[list[Line]] = [[] for _ in range(len(at) + 1)]
        for ln in lines:
            groups[bisect_left(at, ln.x0)].append(ln)  # the number of cuts left of the line
        return groups

    groups = split(cuts)
    if all(_is_text_column(g, page_width) for g in groups):
        return groups
    for gap in sorted(gaps, key=lambda g: g[0] - g[1]):  # widest single gutter first
        groups = split([(gap[0] + gap[1]) / 2])
        if all(_is_text_column(g, page_width) for g in groups):
            return groups
    return None


def _horizontal_split(lines: list[Line]) -> list[list[Line]] | None:
    heights = sorted(ln.height for ln in lines)
    min_gap = 0.6 * heights[len(heights) // 2]
    gaps = _gaps([(ln.y0, ln.y1) for ln in lines], max(min_gap, 1.0))
    if not gaps:
        return None
    cuts = [(a + b) / 2 for a, b in gaps]
    bands: list[list[Line]] = [[] for _ in range(len(cuts) + 1)]
    for ln in lines:
        bands[bisect_left(cuts, ln.y0)].append(ln)
    return [b for b in bands if b]


def _xy_cut(lines: list[Line], page_width: float, out: list[Line], depth: int = 0) -> None:
    if len(lines) <= 1 or depth > 40:
        out.extend(_rows(lines))
        return
    parts = _vertical_split(lines, page_width) or _horizontal_split(lines)
    if not parts or len(parts) == 1:
        out.extend(_rows(lines))
        return
    for part in parts:
        _xy_cut(part, page_width, out, depth + 1)


def _rows(lines: list[Line]) -> list[Line]:
    """Top-to-bottom, left-to-right, where lines sharing a baseline count as one row."""
    ordered = sorted(lines, key=lambda ln: (ln.y0, ln.x0))
    rows: list[list[Line]] = []
    for ln in ordered:
        if rows:
            ref = rows[-1][0]
            overlap = min(ref.y1, ln.y1) - max(ref.y0, ln.y0)
            if overlap > 0.5 * min(ref.y1 - ref.y0, ln.y1 - ln.y0):
                rows[-1].append(ln)
                continue
        rows.append([ln])
    return [ln for row in rows for ln in (sorted(row, key=lambda r: r.x0) if len(row) > 1 else row)]


def _merge_row_pieces(lines: list[Line]) -> list[Line]:
    """Join consecutive pieces of one visual line ("I.1" + "Es una dependencia…") into one Line."""
    merged: list[Line] = []
    for ln in lines:
        if merged:
            prev = merged[-1]
            overlap = min(prev.y1, ln.y1) - max(prev.y0, ln.y0)
            gap = ln.x0 - prev.x1
            if (not ln.vertical and not prev.vertical and overlap > 0.6 * min(prev.y1 - prev.y0, ln.y1 - ln.y0)
                    and -1.0 <= gap <= 3.0 * max(prev.size, ln.size)):
                sep = " " if gap > 0.12 * ln.size and not prev.text.endswith(" ") else ""
                total = len(prev.text) + len(ln.text)
                merged[-1] = Line(
                    text=prev.text + sep + ln.text, x0=prev.x0, y0=min(prev.y0, ln.y0), x1=ln.x1,
                    y1=max(prev.y1, ln.y1), size=prev.size if len(prev.text) >= len(ln.text) else ln.size,
                    font=prev.font if len(prev.text) >= len(ln.text) else ln.font,
                    bold=prev.bold and ln.bold, lead_bold=prev.lead_bold, italic=prev.italic and ln.italic,
                    caps=(prev.caps * len(prev.text) + ln.caps * len(ln.text)) / max(total, 1), page=prev.page,
                    tail_italic=ln.tail_italic,
                )
                continue
        merged.append(ln)
    return merged


def reading_order(lines: list[Line], page_width: float) -> list[Line]:
    """Lines in reading order (columns left to right, rows top to bottom), row pieces merged."""
    if not lines:
        return []
    horizontal = [ln for ln in lines if not ln.vertical]
    vertical = [ln for ln in lines if ln.vertical]
    out: list[Line] = []
    if horizontal:
        _xy_cut(horizontal, page_width, out)
    if vertical:  # vertical runs: right to left, then top to bottom
        out.extend(sorted(vertical, key=lambda ln: (-round(ln.x1), ln.y0)))
    return _merge_row_pieces(out)
