"""Assemble one document's Markdown: `#` heading lines, paragraphs, Markdown tables, with every offset recorded.

Offsets are taken while writing (never searched for afterwards), so a heading's `start`/`end` and a page's span
slice the final string exactly. Lines are joined into paragraphs by spacing, indentation and style; a sentence
running over a page break stays one paragraph (the page span starts inside it), and a table continued on the next
page is written as one table, its repeated header row dropped.

Every table written is recorded as a `TableSpan` (the chunker reads those, it never re-detects tables), and every
amendment note of a consolidated text ("Párrafo reformado DOF …", grammar in `ingest.amendments`) is written as a
block of its own — never glued onto the provision's sentence before it or after it — and recorded as an
`AmendmentNote` attached to the article it follows. Heading kinds leave here as `HeadingKind`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ingest.amendments import continues_note, opens_note, parse_note, starts_note
from ingest.headings import DIVISION_KINDS, GENERIC_KINDS, SECCION, fold, rank
from ingest.layout import Line
from ingest.models import MARKDOWN_MAX_LEVEL, AmendmentNote, Heading, HeadingKind, PageSpan, TableSpan
from ingest.references import article_key
from ingest.split_documents import DocumentItems, Item
from ingest.tables import TableBlock, to_markdown

CAPTION_WORDS = 15  # a caption is a label: a line of a few words, not a paragraph

_TERMINAL = (".", ":", ";", "!", "?", "”", '"', ")")
_PARAGRAPH_GAP = 0.4  # line heights between two lines of single-spaced text that start a paragraph
_INDEX_ENTRY = re.compile(r"(?:\.\s?){4,}\s*\d{1,4}\s*$")  # "CAPÍTULO I. De los delitos . . . . 12"
_ENUMERATED = re.compile(r"^(?:[A-Z]|[IVXL]+|\d{1,3}|[a-zñ])\s?[.)]\s")  # "A. …", "IV. …", "3. …", "b) …"
_WRAPPED = 0.85  # share of the document's long lines (90th percentile of widths) that a wrapped line reaches
_UNIFORM = 0.6  # share of a document's line gaps that one leading must make to be its own (see `paragraph_gap`)
_LEADING_MARGIN = 0.25  # … and then its paragraphs are set this much further apart than its lines


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
    note: str | None = None  # the text so far of the open block when it is an amendment note
    blocks: list[tuple[int, str]] = field(default_factory=list)  # (start, "text" | "heading" | "table")
    tables: list[TableSpan] = field(default_factory=list)
    leading: Leading = field(default_factory=lambda: Leading())  # when a gap between lines starts a paragraph

    def write(self, text: str) -> int:
        start = self.pos
        self.parts.append(text)
        self.pos += len(text)
        return start

    def text(self, start: int, end: int) -> str:
        """What was written from `start` to `end`, read back from the last parts (a recent, short span)."""
        tail, held = [], 0
        for part in reversed(self.parts):
            if held >= self.pos - start:
                break
            tail.append(part)
            held += len(part)
        written = "".join(reversed(tail))
        return written[len(written) - (self.pos - start):][: end - start]

    def new_block(self, kind: str = "text") -> None:
        if self.pos:
            self.write("\n\n")
        self.last_line = None
        self.open_table = None
        self.note = None
        self.blocks.append((self.pos, kind))

    def mark(self, page: int, start: int) -> None:
        self.page_start.setdefault(page, start)
        self.page_end[page] = self.pos


def _heading_kind(kind: str, label: str) -> HeadingKind:
    """The classifier's kind (`ingest.headings`) as the model's `HeadingKind`."""
    if kind in ("heading_major", "heading_minor", "outline", "caption"):
        return HeadingKind.heading
    if kind == "part" and fold(label).rstrip(" :.").endswith(("transitorio", "transitorios")):
        return HeadingKind.transitorios
    try:
        return HeadingKind(kind)
    except ValueError:
        return HeadingKind.heading


@dataclass(frozen=True, slots=True)
class Leading:
    gap: float = _PARAGRAPH_GAP  # a gap between lines, in line heights, that starts a paragraph
    wrapped: float = 0.0  # with wide leading, a line at least this wide was wrapped: a shorter one ends its block


def paragraph_gap(lines: list[Line]) -> Leading:
    """The gap between two lines, in line heights, that starts a paragraph in this document: `_PARAGRAPH_GAP`, or
    for a document set with wide leading — one gap between lines, wider than `_PARAGRAPH_GAP`, makes
    `_UNIFORM` of all its gaps: a court's ruling at 1.5 or 2 lines — `_LEADING_MARGIN` more than that leading, so
    its lines stay one paragraph (each line was a paragraph of its own, and a quote stopped mid-sentence)."""
    leading: Counter = Counter()
    for prev, ln in zip(lines, lines[1:]):
        gap = ln.y0 - prev.y1
        if ln.page == prev.page and gap > 0 and abs(ln.size - prev.size) <= 1.0:
            leading[round(gap / max(ln.height, prev.height), 1)] += 1
    if sum(leading.values()) < 20:
        return Leading()
    usual, count = leading.most_common(1)[0]
    if usual <= _PARAGRAPH_GAP or count < _UNIFORM * sum(leading.values()):
        return Leading()
    widths = sorted(ln.width for ln in lines)
    return Leading(usual + _LEADING_MARGIN, _WRAPPED * widths[int(0.9 * (len(widths) - 1))])


def _breaks(prev: Line, ln: Line, leading: Leading = Leading()) -> bool:
    """Does `ln` start a new paragraph after `prev`? (`leading`: `paragraph_gap` of the document)"""
    ended = prev.text.rstrip().endswith(_TERMINAL)
    if ln.page != prev.page or ln.y0 < prev.y0 - 2:  # page turn or next column: continue an unfinished sentence
        return ended
    if abs(ln.size - prev.size) > 1.0 or ln.bold != prev.bold:
        return True
    height = max(ln.height, prev.height)
    if ln.y0 - prev.y1 > leading.gap * height:
        return True
    if leading.wrapped and ln.y0 - prev.y1 > _PARAGRAPH_GAP * height and (
            prev.width < leading.wrapped or _INDEX_ENTRY.search(prev.text) or (ended and _ENUMERATED.match(ln.text))):
        return True  # wide leading: a line that was not wrapped, an index entry, a list's item end their block
    return ended and ln.x0 > prev.x0 + 0.8 * ln.size


def _same_style(prev: Line, ln: Line) -> bool:
    return abs(ln.size - prev.size) <= 1.0 and ln.bold == prev.bold and ln.italic == prev.italic


def _joins(w: _Writer, prev: Line | None, ln: Line, text: str) -> bool:
    """Does `ln` continue the open block? An amendment note takes only its own wrapped lines, and a line that opens
    a note never continues a paragraph."""
    if prev is None:
        return False
    if w.note is not None:
        return _same_style(prev, ln) and continues_note(w.note, text)
    return not _breaks(prev, ln, w.leading) and not starts_note(text)


def _write_line(w: _Writer, ln: Line, text: str) -> None:
    prev = w.last_line
    if _joins(w, prev, ln, text):
        if w.note is not None:
            w.note += " " + text
        if w.parts and w.parts[-1].endswith("-") and len(w.parts[-1]) > 1 and w.parts[-1][-2].isalpha() \
                and text[:1].islower():
            w.parts[-1] = w.parts[-1][:-1]  # "pala-" + "bra": de-hyphenate
            w.pos -= 1
            start = w.write(text)
        else:
            start = w.write(" " + text) + 1
    else:
        style_break = prev is not None and not _same_style(prev, ln)
        w.new_block()
        start = w.write(text)
        if starts_note(text) or (style_break and opens_note(text)):
            w.note = text
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
        span = w.tables[-1]
        w.tables[-1] = span.model_copy(update={"end": w.pos, "pages": [*span.pages, item.page]})
        return
    caption = _caption(w)
    w.new_block("table")
    text = to_markdown(table.rows)
    start = w.write(text)
    w.mark(item.page, start)
    w.open_table = TableBlock(page=table.page, bbox=table.bbox, rows=table.rows, pages=[item.page])
    header_end = start + len("\n".join(text.split("\n", 2)[:2]))  # header row + separator row
    cap_start, cap_end = caption or (None, None)
    words = ([w.text(cap_start, cap_end)] if caption else []) + table.rows[0]
    w.tables.append(TableSpan(start=start, end=w.pos, header_end=header_end, pages=[item.page],
                              caption_start=cap_start, caption_end=cap_end, title=" ".join(" ".join(words).split())))


def _caption(w: _Writer) -> tuple[int, int] | None:
    """The block written right before a table, when it is a line that names it rather than text: one paragraph of
    at most `CAPTION_WORDS` words (Anexo 13's "A. Parques Nacionales.", "B. Reservas de la Biosfera.")."""
    if not w.blocks or w.blocks[-1][1] != "text" or not 0 < w.pos - w.blocks[-1][0] <= 40 * CAPTION_WORDS:
        return None
    text = w.text(w.blocks[-1][0], w.pos)
    return (w.blocks[-1][0], w.pos) if text.strip() and len(text.split()) <= CAPTION_WORDS else None


def build(doc: DocumentItems, levels: dict[int, int], printed: dict[int, str], ocr: set[int]) -> BuiltMarkdown:
    """Markdown, headings and page spans of one document."""
    w = _Writer(leading=paragraph_gap([it.line for it in doc.items if it.line is not None and it.heading is None]))
    headings: list[Heading] = []
    divisions: list[int] = []  # the levels of the divisions open (LIBRO, TÍTULO, CAPÍTULO, SECCIÓN, ANEXO)
    for item in doc.items:
        if item.table is not None:
            _write_table(w, item)
        elif item.heading is not None:
            h = item.heading
            level = levels[rank(h.kind)]
            if h.kind in GENERIC_KINDS and divisions and level == divisions[-1] and (
                    rank(h.kind) == rank(SECCION) or (headings and headings[-1].title == h.label)):
                # a heading set like the division open above it stands inside it, not in its place: its name printed
                # below its label ("Sección Tercera" / "Suspensión del Acto Reclamado"), a bold line inside a SECCIÓN
                # ("Primera Parte Reglas Generales"). A heading of a TÍTULO's rank ("Disposición adicional
                # primera.") still closes the divisions below it; only the legal grammar closes a SECCIÓN.
                level += 1
            divisions = [lv for lv in divisions if lv < level] + ([level] if h.kind in DIVISION_KINDS else [])
            w.new_block("heading")
            start = w.write("#" * min(level, MARKDOWN_MAX_LEVEL) + " " + h.label)
            headings.append(Heading(level=level, text=h.label, kind=_heading_kind(h.kind, h.label), page=item.page,
                                    start=start, end=w.pos, title=h.title))
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
    return BuiltMarkdown(markdown, headings, spans, w.tables, _notes(markdown, w.blocks, headings))


def _notes(markdown: str, blocks: list[tuple[int, str]], headings: list[Heading]) -> list[AmendmentNote]:
    """The amendment notes among the text blocks, each attached to the article open before it: the last article
    heading, until a heading at its level or above (the next clause, a chapter, a decree's title) closes it."""
    notes: list[AmendmentNote] = []
    ends = [start for start, _ in blocks[1:]] + [len(markdown)]
    h = 0
    article: tuple[int, str | None] | None = None  # (level, key) of the open article
    for (start, kind), end in zip(blocks, ends):
        while h < len(headings) and headings[h].start <= start:
            heading = headings[h]
            if heading.kind is HeadingKind.articulo:
                article = (heading.level, article_key(heading.text))
            elif article is not None and heading.level <= article[0]:
                article = None
            h += 1
        if kind != "text":
            continue
        note = parse_note(markdown[start:end], start, article[1] if article else None)
        if note is not None:
            notes.append(note)
    return notes
