"""Assemble one document's Markdown: `#` heading lines, paragraphs, Markdown tables, with every offset recorded.

Offsets are taken while writing (never searched for afterwards), so a heading's `start`/`end` and a page's span
slice the final string exactly. Lines are joined into paragraphs by spacing, indentation and style; a sentence
running over a page break stays one paragraph (the page span starts inside it), and a table continued on the next
page is written as one table, its repeated header row dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingest.headings import fold, rank
from ingest.layout import Line
from ingest.models import AmendmentNote, Heading, PageSpan, TableSpan
from ingest.split_documents import DocumentItems, Item
from ingest.tables import TableBlock, to_markdown

_TERMINAL = (".", ":", ";", "!", "?", "”", '"', ")")


@dataclass
class BuiltMarkdown:
    markdown: str
    headings: list[Heading]
    page_spans: list[PageSpan]
    tables: list[TableSpan] = field(default_factory=list)
    amendments: list[AmendmentNote] = field(default_factory=list)


@dataclass
class _Writer:
    parts: list[str] = field(default_factory=list)
    pos: int = 0
    last_line: Line | None = None  # last line of the open paragraph
    open_table: TableBlock | None = None
    page_start: dict[int, int] = field(default_factory=dict)
    page_end: dict[int, int] = field(default_factory=dict)

    def write(self, text: str) -> int:
        start = self.pos
        self.parts.append(text)
        self.pos += len(text)
        return start

    def new_block(self) -> None:
        if self.pos:
            self.write("\n\n")
        self.last_line = None
        self.open_table = None

    def mark(self, page: int, start: int) -> None:
        self.page_start.setdefault(page, start)
        self.page_end[page] = self.pos


def _heading_kind(kind: str, label: str) -> str:
    if kind in ("heading_major", "heading_minor", "outline"):
        return "heading"
    if kind == "part" and fold(label).endswith(("transitorio", "transitorios")):
        return "transitorios"
    return kind


def _breaks(prev: Line, ln: Line) -> bool:
    """Does `ln` start a new paragraph after `prev`?"""
    ended = prev.text.rstrip().endswith(_TERMINAL)
    if ln.page != prev.page or ln.y0 < prev.y0 - 2:  # page turn or next column: continue an unfinished sentence
        return ended
    if abs(ln.size - prev.size) > 1.0 or ln.bold != prev.bold:
        return True
    if ln.y0 - prev.y1 > 0.4 * max(ln.height, prev.height):
        return True
    return ended and ln.x0 > prev.x0 + 0.8 * ln.size


def _write_line(w: _Writer, ln: Line, text: str) -> None:
    prev = w.last_line
    if prev is not None and not _breaks(prev, ln):
        if w.parts and w.parts[-1].endswith("-") and len(w.parts[-1]) > 1 and w.parts[-1][-2].isalpha() \
                and text[:1].islower():
            w.parts[-1] = w.parts[-1][:-1]  # "pala-" + "bra": de-hyphenate
            w.pos -= 1
            start = w.write(text)
        else:
            start = w.write(" " + text) + 1
    else:
        w.new_block()
        start = w.write(text)
    w.last_line = ln
    w.mark(ln.page, start)


def _write_table(w: _Writer, item: Item) -> None:
    table = item.table
    prev = w.open_table
    if prev is not None and prev.columns == table.columns and item.page == prev.pages[-1] + 1 \
            and item.page not in w.page_start:
        rows = table.rows[1:] if table.rows[0] == prev.rows[0] else table.rows
        if rows:
            start = w.write("\n") + 1
            w.write(to_markdown([prev.rows[0]] + rows).split("\n", 2)[2])
            w.mark(item.page, start)
        prev.pages.append(item.page)
        return
    w.new_block()
    start = w.write(to_markdown(table.rows))
    w.mark(item.page, start)
    w.open_table = TableBlock(page=table.page, bbox=table.bbox, rows=table.rows, pages=[item.page])


def build(doc: DocumentItems, levels: dict[int, int], printed: dict[int, str], ocr: set[int]) -> BuiltMarkdown:
    """Markdown, headings and page spans of one document."""
    w = _Writer()
    headings: list[Heading] = []
    for item in doc.items:
        if item.table is not None:
            _write_table(w, item)
        elif item.heading is not None:
            h = item.heading
            level = levels[rank(h.kind)]
            w.new_block()
            start = w.write("#" * level + " " + h.label)
            headings.append(Heading(level=level, text=h.label, kind=_heading_kind(h.kind, h.label), page=item.page,
                                    start=start, end=w.pos))
            if not item.synthetic:
                w.mark(item.page, start)
            if h.rest:
                w.new_block()
                start = w.write(h.rest)
                w.last_line = item.line
                w.mark(item.page, start)
        elif item.line is not None:
            _write_line(w, item.line, item.line.text)
    markdown = "".join(w.parts)
    spans = [PageSpan(page=p, start=s, end=w.page_end[p], printed=printed.get(p), ocr=p in ocr)
             for p, s in sorted(w.page_start.items())]
    return BuiltMarkdown(markdown, headings, spans)
