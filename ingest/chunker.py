"""Cut a LegalDocument into sentence-bounded chunks whose hierarchical header + body fit the embedder's limit.

Why each rule:
- Headings form a stack keyed by level: a heading replaces its level and closes every deeper one, so a chunk's
  header names exactly the sections open where it starts (a sibling never piles onto its sibling). Headings that open
  a chunk (a run of heading lines before its first sentence) are in its header too.
- A heading starts a new chunk whenever the current one already holds body text: a section's text is not glued onto
  the tail of the previous section. Heading offsets from the parser are hard sentence boundaries.
- Chunks end at sentence boundaries. A sentence longer than a whole chunk's budget is split at word boundaries (a
  single over-long word at character boundaries), offsets still exact: nothing is ever silently truncated.
- Tables are the document's `TableSpan`s (the parser records them; the Markdown is never re-read for "|" lines):
  a table that does not fit in what is left of the current chunk starts a new one; a chunk that starts inside a
  table repeats the table's caption (`TableSpan.caption_start`: the short line above it that names it, "B. Reservas
  de la Biosfera.") and header row (+ separator) in its `header`, never in `text`, which stays a verbatim slice.
  Fallback: a header row (+ separator) longer than a third of `max_tokens` is not repeated (it would crowd out the
  rows); the table's first chunk still carries it verbatim.
- Header lines are never deeper than `######` (Markdown has six levels): a heading at level 7+ is written with six
  `#`; its real level stays in `Heading.level`, its kind in `Chunk.heading_kinds`.
- Legal structure (`ingest.provisions`): each chunk carries the kinds of its open headings, the canonical key of the
  provision open at its start (`Provisions.article`), its provision role, the amendment notes inside it
  and the paragraph marks a citation needs ("art. 27, párr. 1").
- Heading lines in a header share a quarter of `max_tokens`; when they need more, the longest are cut at a word
  boundary and end in " …" (the full texts stay in `heading_path`).
- Tokens are counted once per sentence and summed (minus the counter's fixed special tokens, plus a small margin);
  each finished chunk's header + text is counted once more to verify, and a chunk that overshoots is re-packed
  smaller. O(sentences) counter calls, not O(sentences²).
- A `max_tokens` too small to hold the header and some text is a ValueError, never a silent cut.
"""

from __future__ import annotations

import bisect
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from ingest.gc_pause import collector_paused
from ingest.models import DIVISIONS, Chunk, Heading, LegalDocument, PageBreak, Sentence, TableRows
from ingest.provisions import Provisions
from ingest.sentences import sentence_spans

TokenCounter = Callable[[str], int]
WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class _Table:
    head_start: int  # the header row (+ separator) as a span of the Markdown
    head_end: int
    head_tokens: int  # of the caption and the header row
    first_data_row: int  # 2 after a separator row, else 1
    repeat: bool  # False: the fallback for a header row too long to repeat
    caption: str = ""  # the line right above the table that names it ("B. Reservas de la Biosfera.")
    title: str = ""  # `TableSpan.title`: what names every row (`TableRows.title`)


@dataclass(slots=True)
class _Unit:
    """A sentence (or a piece of an over-long one) with its token count and structural role."""

    start: int
    end: int
    tokens: int
    heading: int | None = None  # index into doc.headings
    opens_heading: bool = False  # first piece of a heading line: applies it to the stack
    table: _Table | None = None
    row: int = -1  # 0 = the table's header row, 1 = separator (when present), then the data rows
    table_tokens: int = 0  # on a table's first row: tokens of the whole table

    @property
    def is_body(self) -> bool:
        return self.heading is None

    @property
    def inside_table(self) -> bool:
        """A data row (or a piece of one): a chunk starting here repeats the table's header row."""
        return self.table is not None and self.row >= self.table.first_data_row


def chunk_document(doc: LegalDocument, count_tokens: TokenCounter, max_tokens: int) -> list[Chunk]:
    """Chunks of `doc` in order, each with `count_tokens(header + "\\n\\n" + text) <= max_tokens`.

    `count_tokens` must count the whole text (no truncation at the model's limit, or over-long text would look like
    it fits); special tokens it adds to every text ([CLS], [SEP]) are measured once on "" and counted once per chunk.
    """
    with collector_paused():
        return _Chunker(doc, count_tokens, max_tokens).run()


class _Chunker:
    def __init__(self, doc: LegalDocument, count_tokens: TokenCounter, max_tokens: int) -> None:
        self.doc, self.md, self.max_tokens = doc, doc.markdown, max_tokens
        self.overhead = count_tokens("")  # special tokens a counter adds to every text ([CLS], [SEP])
        self._count = count_tokens
        self.margin = 2 + max_tokens // 64
        self.heading_cap = max_tokens // 4
        self.headings = _checked_headings(doc)
        self.spans = sorted(doc.page_spans, key=lambda s: s.start)
        self.span_starts = [s.start for s in self.spans]
        self._heading_lines_cache: dict[tuple[int, ...], tuple[list[str], int]] = {}
        self._doc_line_cache: dict[int, tuple[str, int]] = {}
        self.provisions = Provisions(doc)

    def tokens(self, text: str) -> int:
        return max(self._count(text) - self.overhead, 0)

    # -- units ---------------------------------------------------------------------------------------------
    def units(self) -> list[_Unit]:
        units: list[_Unit] = []
        pos = 0
        for index, heading in enumerate(self.headings):
            units.extend(self._sentence_units(pos, heading.start))
            start, end = strip_span(self.md, heading.start, heading.end)
            units.append(_Unit(start, end, self.tokens(self.md[start:end]), heading=index, opens_heading=True))
            pos = heading.end
        units.extend(self._sentence_units(pos, len(self.md)))
        return self._mark_tables(units)

    def _sentence_units(self, start: int, end: int) -> list[_Unit]:
        md = self.md
        return [
            _Unit(start + s, start + e, self.tokens(md[start + s : start + e]))
            for s, e in sentence_spans(md[start:end])
        ]

    def _mark_tables(self, units: list[_Unit]) -> list[_Unit]:
        """Tag the units of each `TableSpan` of the document with their table and row."""
        starts = [u.start for u in units]
        for span in sorted(self.doc.tables, key=lambda t: t.start):
            lo, hi = bisect.bisect_left(starts, span.start), bisect.bisect_left(starts, span.end)
            rows = [u for u in units[lo:hi] if u.is_body]
            if not rows:
                continue
            head = [u for u in rows if u.start < span.header_end]
            head_start, head_end = strip_span(self.md, span.start, span.header_end)
            head_tokens = sum(u.tokens for u in head)
            caption = " ".join(self.md[span.caption_start:span.caption_end].split()) \
                if span.caption_start is not None else ""
            with_caption = head_tokens + self.tokens(caption) if caption else head_tokens
            if with_caption <= self.max_tokens // 3:  # the caption too, when both fit
                head_tokens = with_caption
            else:
                caption = ""
            table = _Table(head_start, head_end, head_tokens, len(head), head_tokens <= self.max_tokens // 3, caption,
                           span.title)
            for k, u in enumerate(rows):
                u.table, u.row = table, k
            rows[0].table_tokens = sum(u.tokens for u in rows)
        return units

    # -- headers -------------------------------------------------------------------------------------------
    def heading_lines(self, stack: tuple[int, ...]) -> tuple[list[str], int]:
        if stack not in self._heading_lines_cache:
            lines = [f"{self.headings[i].marks} {' '.join(self.headings[i].text.split())}"
                     for i in stack]
            counts = [self.tokens(line) for line in lines]
            if sum(counts) > self.heading_cap:
                lines, counts = self._shorten(lines, counts)
            self._heading_lines_cache[stack] = (lines, sum(counts))
        return self._heading_lines_cache[stack]

    def _shorten(self, lines: list[str], counts: list[int]) -> tuple[list[str], list[int]]:
        """Water-fill the heading budget: every line gets at most `limit` tokens, the largest limit that fits."""
        lo, hi = max(self.heading_cap // len(lines), 4), max(counts)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if sum(min(c, mid) for c in counts) <= self.heading_cap else (lo, mid - 1)
        limit = lo
        out = [(line, c) if c <= limit else self._cut(line, limit) for line, c in zip(lines, counts)]
        return [line for line, _ in out], [c for _, c in out]

    def _cut(self, line: str, limit: int) -> tuple[str, int]:
        words = line.split(" ")
        lo, hi = 2, len(words) - 1  # keep the "#…#" marker and at least one word
        best = (" ".join(words[:2]) + " …", self.tokens(" ".join(words[:2]) + " …"))
        while lo <= hi:
            mid = (lo + hi) // 2
            text = " ".join(words[:mid]) + " …"
            n = self.tokens(text)
            if n <= limit:
                best, lo = (text, n), mid + 1
            else:
                hi = mid - 1
        return best

    def doc_line(self, page: int) -> tuple[str, int]:
        if page not in self._doc_line_cache:
            line = f"# Document: {self.doc.label} | page: {page}"
            self._doc_line_cache[page] = (line, self.tokens(line))
        return self._doc_line_cache[page]

    def header(self, stack: tuple[int, ...], table: _Table | None, page: int) -> str:
        parts = [self.doc_line(page)[0], *self.heading_lines(stack)[0]]
        if table is not None and table.repeat:
            parts += [table.caption, self.md[table.head_start : table.head_end]] if table.caption else \
                [self.md[table.head_start : table.head_end]]
        return "\n".join(parts)

    def header_tokens(self, stack: tuple[int, ...], table: _Table | None, page: int) -> int:
        n = self.doc_line(page)[1] + self.heading_lines(stack)[1]
        if table is not None and table.repeat:
            n += table.head_tokens
        return n

    # -- pages ---------------------------------------------------------------------------------------------
    def span_at(self, offset: int) -> int:
        return bisect.bisect_right(self.span_starts, offset) - 1

    def page_at(self, offset: int) -> int:
        i = self.span_at(offset)
        return self.spans[i].page if i >= 0 else self.doc.pdf_pages[0]

    def pages(self, start: int, end: int) -> tuple[list[int], list[PageBreak]]:
        first = self.span_at(start)
        spans = self.spans
        printed = spans[first].printed if first >= 0 else None
        breaks = [PageBreak(offset=start, page=self.page_at(start), printed=printed)]
        k = first + 1
        while k < len(spans) and spans[k].start < end:
            span = spans[k]
            if span.page == breaks[-1].page:  # text before a page's first span (e.g. a synthetic heading)
                breaks[-1] = breaks[-1].model_copy(update={"printed": breaks[-1].printed or span.printed})
            elif span.start > start:
                breaks.append(PageBreak(offset=span.start, page=span.page, printed=span.printed))
            k += 1
        return sorted({b.page for b in breaks}), breaks

    # -- packing -------------------------------------------------------------------------------------------
    def run(self) -> list[Chunk]:
        return _Packer(self).pack(self.units())


class _Packer:
    """Greedy packing with rollback: a chunk that overshoots on verification is re-packed with a penalty."""

    def __init__(self, c: _Chunker) -> None:
        self.c = c
        self.stack: dict[int, int] = {}  # level -> heading index
        self.chunks: list[Chunk] = []
        self.current: list[_Unit] = []
        self.body_tokens = 0
        self.frozen: tuple[tuple[int, ...], _Table | None] | None = None  # header context once body text arrived
        self.opened_with: dict[int, int] = {}
        self.penalty = 0

    def stack_key(self, stack: dict[int, int] | None = None) -> tuple[int, ...]:
        stack = self.stack if stack is None else stack
        return tuple(stack[level] for level in sorted(stack))

    def applied(self, unit: _Unit) -> dict[int, int]:
        if not unit.opens_heading:
            return self.stack
        level = self.c.headings[unit.heading].level
        stack = {lv: i for lv, i in self.stack.items() if lv < level}
        stack[level] = unit.heading
        return stack

    def header_tokens(self, unit: _Unit) -> int:
        """Header tokens of the current chunk if `unit` joins it."""
        if self.frozen is not None:
            key, table = self.frozen
        else:
            key = self.stack_key(self.applied(unit))
            table = unit.table if unit.is_body and unit.inside_table else None
        start = self.current[0].start if self.current else unit.start
        return self.c.header_tokens(key, table, self.c.page_at(start))

    def budget(self, unit: _Unit) -> int:
        """Body tokens still available if `unit` is the next one in the current chunk."""
        fixed = self.c.overhead + self.header_tokens(unit) + self.c.margin + self.penalty
        return self.c.max_tokens - fixed - self.body_tokens

    def has_body(self) -> bool:
        return self.frozen is not None

    def pack(self, units: list[_Unit]) -> list[Chunk]:
        queue = deque(units)
        while queue or self.current:
            if not queue:
                self.close(queue)
                continue
            unit = queue[0]
            if self.has_body() and (unit.opens_heading or self._table_would_split(unit)):
                self.close(queue)
                continue
            room = self.budget(unit)
            if unit.tokens <= room:
                self.take(queue.popleft())
            elif self.current and (self.has_body() or unit.is_body or room < 4):
                self.close(queue)
            else:  # an over-long sentence in a fresh chunk, or a long heading after the chunk's leading headings
                if room < 1:
                    raise ValueError(
                        f"max_tokens={self.c.max_tokens} leaves no room for text after the chunk header "
                        f"of {self.c.doc.doc_id}"
                    )
                queue.popleft()
                queue.extendleft(reversed(self.split(unit, room)))
        return self.chunks

    def _table_would_split(self, unit: _Unit) -> bool:
        return unit.row == 0 and unit.table_tokens > self.budget(unit)

    def take(self, unit: _Unit) -> None:
        if not self.current:
            self.opened_with = dict(self.stack)
        if unit.opens_heading:
            self.stack = self.applied(unit)
        if unit.is_body and self.frozen is None:
            self.frozen = (self.stack_key(), unit.table if unit.inside_table else None)
        self.current.append(unit)
        self.body_tokens += unit.tokens

    def close(self, queue: deque[_Unit]) -> None:
        if not self.current:
            return
        c, units = self.c, self.current
        key, table = self.frozen if self.frozen is not None else (self.stack_key(), None)
        start, end = units[0].start, units[-1].end
        header = c.header(key, table, c.page_at(start))
        text = c.md[start:end]
        total = c._count(header + "\n\n" + text)
        self.current, self.body_tokens, self.frozen = [], 0, None
        if total > c.max_tokens:  # the sum under-estimated: roll back and re-pack this chunk tighter
            self.stack = self.opened_with
            queue.extendleft(reversed(units))
            self.penalty += total - c.max_tokens
            return
        self.penalty = 0
        pages, breaks = c.pages(start, end)
        index = len(self.chunks)
        stack = [c.headings[i] for i in key]
        role = c.provisions.role(stack, start)
        self.chunks.append(
            Chunk(
                chunk_id=f"{c.doc.doc_id}:{index:05d}",
                doc_id=c.doc.doc_id,
                index=index,
                header=header,
                text=text,
                heading_path=[_path_entry(h) for h in stack],
                heading_kinds=[h.kind for h in stack],
                article=c.provisions.article(stack, role),
                role=role,
                notes=c.provisions.notes_in(start, end),
                paragraphs=c.provisions.paragraphs(start, end),
                pages=pages,
                start=start,
                end=end,
                sentences=[Sentence(start=u.start, end=u.end) for u in units],
                page_breaks=breaks,
                is_table=any(u.table is not None for u in units),
                tables=_table_rows(units),
            )
        )

    def split(self, unit: _Unit, room: int) -> list[_Unit]:
        """Pieces of an over-long unit, each at most `room` tokens, cut at word (else character) boundaries."""
        c = self.c
        pieces: list[_Unit] = []
        words = [(m.start(), m.end(), c.tokens(m.group())) for m in WORD.finditer(c.md, unit.start, unit.end)]
        piece_start, piece_end, n = None, None, 0
        for ws, we, wn in words:
            if wn > room:
                if piece_start is not None:
                    pieces.append((piece_start, piece_end, n))
                    piece_start = None
                pieces.extend(self._split_word(ws, we, room))
                continue
            if piece_start is not None and n + wn > room:
                pieces.append((piece_start, piece_end, n))
                piece_start = None
            if piece_start is None:
                piece_start, n = ws, 0
            piece_end, n = we, n + wn
        if piece_start is not None:
            pieces.append((piece_start, piece_end, n))
        return [
            replace(unit, start=s, end=e, tokens=n, opens_heading=unit.opens_heading and k == 0, table_tokens=0)
            for k, (s, e, n) in enumerate(pieces)
        ]

    def _split_word(self, start: int, end: int, room: int) -> list[tuple[int, int, int]]:
        """Character pieces of one over-long word, each the longest prefix of what is left that fits `room`.

        The cut is found by galloping (the probed length doubles until a probe overflows) and then bisection between
        the last two probes, so every count is over text about the piece's own length: a 1 MB "word" costs a number
        of counted characters linear in its length, never a count of the whole rest per piece."""
        pieces = []
        tokens = self.c.tokens
        md = self.c.md
        while start < end:
            fits, step, over = start, max(room, 1), end + 1
            while fits < end:
                probe = min(start + step, end)
                if tokens(md[start:probe]) > room:
                    over = probe
                    break
                fits, step = probe, step * 2
            lo, hi = fits + 1, min(over, end + 1) - 1
            while lo <= hi:
                mid = (lo + hi) // 2
                if tokens(md[start:mid]) <= room:
                    fits, lo = mid, mid + 1
                else:
                    hi = mid - 1
            if fits == start:
                raise ValueError(f"{self.c.doc.doc_id}: the character at {start} alone exceeds the {room} tokens left")
            pieces.append((start, fits, tokens(md[start:fits])))
            start = fits
        return pieces


def _path_entry(heading: Heading) -> str:
    """A heading as the chunk's `heading_path` names it: a division with its name ("TÍTULO II Del juicio
    ordinario", `Heading.title`), which its own line under the label stops being as soon as a chapter opens."""
    if heading.kind in DIVISIONS and heading.title:
        return f"{heading.text} {heading.title}"
    return heading.text


def _table_rows(units: list[_Unit]) -> list[TableRows]:
    """The data rows of each table among a chunk's units, with the table's title."""
    out: dict[int, TableRows] = {}
    for u in units:
        if u.inside_table:
            held = out.get(id(u.table))
            out[id(u.table)] = TableRows(start=held.start if held else u.start, end=u.end, title=u.table.title)
    return list(out.values())


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """`(start, end)` narrowed to exclude surrounding whitespace, so spans slice exactly the visible text."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _checked_headings(doc: LegalDocument) -> list[Heading]:
    """Headings in order; offsets that overlap, fall outside the Markdown or hold no text are a parser bug."""
    headings = sorted(doc.headings, key=lambda h: h.start)
    previous_end = 0
    for h in headings:
        if not (previous_end <= h.start < h.end <= len(doc.markdown)) or not doc.markdown[h.start : h.end].strip():
            raise ValueError(
                f"{doc.doc_id}: heading {h.text!r} has bad offsets [{h.start}, {h.end}) "
                f"(previous heading ends at {previous_end}, markdown length {len(doc.markdown)})"
            )
        previous_end = h.end
    return headings
