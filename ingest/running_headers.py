"""Running headers and footers: found by repetition at the same place across pages, stripped, mined for metadata.

Besides the top and bottom rows, the side margins: text turned 90° along the page's edge (the BOE prints
"Verificable en https://www.boe.es" and "cve: BOE-A-2024-7296" up the right margin of every page) is a page's margin
note, not its body, when it repeats like a header does; left in, it landed mid-sentence wherever a paragraph crossed
a page.

The DOF alternates them ("2 DIARIO OFICIAL Domingo 15 de diciembre de 2024" on even pages, "Domingo 15 de diciembre
de 2024 DIARIO OFICIAL 3" on odd ones), so repetition is counted both over all pages and per page parity, with digits
masked so the page number repeats too. What they carry is kept as metadata: the printed page number, and for the
DOF the publication date and section ("Primera Sección").
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from ingest.dates import DATE_ES, MONTHS, date_or_none
from ingest.layout import Line

TOP_ZONE = 0.14  # share of page height searched for headers
BOTTOM_ZONE = 0.10
SIDE_ZONE = 0.08  # share of page width, each side, searched for margin notes turned 90°
_SECTION = re.compile(r"\(?\b((?:Primera|Segunda|Tercera|Cuarta|Quinta|Sexta|Séptima|Octava|Novena|Décima)"
                      r"\s+Secci[oó]n)\b\)?", re.I)
_PAGE_NO = re.compile(r"^(?:p[áa]g(?:ina)?\.?\s*|page\s+|-\s*)?(\d{1,5})(?:\s*-)?(?:\s+(?:de|of)\s+\d+)?$", re.I)


def normalise(text: str) -> str:
    """Whitespace-collapsed text, the form listed in `ParseResult.running_headers`."""
    return " ".join(text.split())


def _key(text: str) -> str:
    folded = text.lower()
    if not folded.isascii():  # accents folded away
        folded = unicodedata.normalize("NFKD", folded)
        folded = "".join(c for c in folded if not unicodedata.combining(c))
    return re.sub(r"\d+", "#", " ".join(folded.split()))


@dataclass
class RunningHeaders:
    """Per page: the lines to strip and the printed page number; for the file: header texts and DOF metadata."""

    strip: dict[int, set[int]] = field(default_factory=dict)  # page -> ids (id(line)) of header/footer lines
    printed: dict[int, str] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    page_texts: dict[int, list[str]] = field(default_factory=dict)  # page -> its header/footer texts, top to bottom
    tops: dict[int, list[str]] = field(default_factory=dict)  # page -> texts of its top rows, repeated or not
    is_dof: bool = False
    date: dt.date | None = None
    section: str | None = None

    def is_header(self, line: Line) -> bool:
        return id(line) in self.strip.get(line.page, ())


def _zone_lines(lines: list[Line], height: float, width: float) -> list[Line]:
    """Lines in the outermost rows of the page: the first 6 rows within the top zone (a Diputados law prints its name,
    the Chamber, its last reform and two secretariats there), the last 3 in the bottom one; and the vertical lines
    within the side zones (margin notes)."""
    top = sorted((ln for ln in lines if ln.y1 <= TOP_ZONE * height), key=lambda ln: ln.y0)
    bottom = sorted((ln for ln in lines if ln.y0 >= (1 - BOTTOM_ZONE) * height), key=lambda ln: -ln.y1)
    picked: list[Line] = []
    for zone, rows in ((top, 6), (bottom, 3)):
        seen: list[float] = []
        for ln in zone:
            if not any(abs(ln.y0 - y) < 3 for y in seen):
                if len(seen) == rows:
                    break
                seen.append(ln.y0)
            picked.append(ln)
    chosen = {id(ln) for ln in picked}
    picked.extend(ln for ln in lines if ln.vertical and id(ln) not in chosen
                  and (ln.x1 <= SIDE_ZONE * width or ln.x0 >= (1 - SIDE_ZONE) * width))
    return picked


def _place(line: Line, height: float) -> int:
    """Where a line sits, to the nearest 6 points: a row by its top; a margin note turned 90° by how far it ends from
    the page's bottom edge (negative), which holds on portrait and landscape pages alike (the BOE's note ends 62
    points above the edge of both)."""
    return -round((height - line.y1) / 6) - 1 if line.vertical else round(line.y0 / 6)


def _consistent(occurrences: list[tuple[int, str]]) -> bool:
    """Same text everywhere, or texts differing only by a number that moves with the page (the page number)."""
    if len({text for _, text in occurrences}) == 1:
        return True
    offsets: set[int] | None = None
    for page, text in occurrences:
        mine = {int(n) - page for n in re.findall(r"\d{1,6}", text)}
        offsets = mine if offsets is None else offsets & mine
        if not offsets:
            return False
    return True


def detect(pages: dict[int, list[Line]], heights: dict[int, float], widths: dict[int, float]) -> RunningHeaders:
    """Find lines repeated at the same vertical position on enough pages (per parity, or overall)."""
    result = RunningHeaders()
    zones = {p: _zone_lines(lines, heights[p], widths[p]) for p, lines in pages.items()}
    seen_at: dict[tuple[str, int], list[tuple[int, str]]] = {}
    for p, lines in zones.items():
        for ln in lines:
            occ = seen_at.setdefault((_key(ln.text), _place(ln, heights[p])), [])
            if not occ or occ[-1][0] != p:
                occ.append((p, ln.text))
    n = len(pages)
    parity_pages = Counter(p % 2 for p in pages)

    verdicts: dict[tuple[tuple[str, int], int], bool] = {}

    def repeated(key: tuple[str, int], p: int) -> bool:
        if (key, p % 2) not in verdicts:
            verdicts[(key, p % 2)] = _repeated(key, p)
        return verdicts[(key, p % 2)]

    def _repeated(key: tuple[str, int], p: int) -> bool:
        occ = seen_at[key]
        same = sum(1 for q, _ in occ if q % 2 == p % 2)
        enough = (len(occ) >= 2 and len(occ) >= 0.4 * n) or (same >= 2 and same >= 0.4 * parity_pages[p % 2])
        return enough and _consistent(occ)

    texts: dict[str, None] = {}
    for p, lines in zones.items():
        for ln in lines:
            if n < 2 or not repeated((_key(ln.text), _place(ln, heights[p])), p):
                continue
            result.strip.setdefault(p, set()).add(id(ln))
            m = _PAGE_NO.match(ln.text.strip())
            if m:
                result.printed.setdefault(p, m.group(1))
                continue
            result.page_texts.setdefault(p, []).append(normalise(ln.text))
            texts[normalise(ln.text)] = None
            _read_metadata(result, ln.text)
    result.texts = list(texts)
    for p, lines in zones.items():  # evidence for identity: what the top of each page prints (masthead, law name)
        top = sorted((ln for ln in lines if ln.y1 <= TOP_ZONE * heights[p]), key=lambda ln: (ln.y0, ln.x0))
        result.tops[p] = [normalise(ln.text) for ln in top]
    known = {_key(t) for t in texts}
    for p, lines in zones.items():  # the same header a few points off its usual place (OCR'd pages) goes too
        for ln in lines:
            if _key(ln.text) in known:
                result.strip.setdefault(p, set()).add(id(ln))
    for p, lines in zones.items():  # a lone number in the margin is the printed page even when it did not repeat
        if p not in result.printed:
            for ln in lines:
                m = _PAGE_NO.match(ln.text.strip())
                if m and len(ln.text.strip()) <= 12:
                    result.printed[p] = m.group(1)
                    result.strip.setdefault(p, set()).add(id(ln))
                    break
    return result


def _read_metadata(result: RunningHeaders, text: str) -> None:
    if "DIARIO OFICIAL" in text.upper() and "FEDERACI" not in text.upper():
        result.is_dof = True
    if result.date is None and (m := DATE_ES.search(text)):
        result.date = date_or_none(int(m.group(3)), MONTHS[m.group(2).lower()], int(m.group(1)))
    if result.section is None and (m := _SECTION.search(text)):
        result.section = m.group(1)[0].upper() + m.group(1)[1:].lower()
