"""The legal structure of a document's text: the role of each provision and how a lawyer numbers its paragraphs.

Read once per document (`Provisions(doc)`), asked per chunk by the chunker:

- `role(stack, start)` — THE place where a chunk's `ProvisionRole` is decided, from the headings open at the chunk's
  start (`stack`, outermost first) and its offset. In order, the first rule that applies wins:
    1. `index`: the document is an index (doc_type ÍNDICE) or an ÍNDICE / CONTENIDO / SUMARIO part is open and its
       entries have not ended: an index ends at the first heading after it that is no entry of its own — no dot
       leaders or page number on the heading, nor in the text under it ("TEXTO CONSOLIDADO", an untitled preamble's
       first heading, the law's first TÍTULO) — or where its first entry comes round again, heading or not (an
       annex's "Contenido: A. Parques Nacionales. B. …" then "A. Parques Nacionales." over its table): the rest of
       the document is never the index, whatever stays open;
    2. `reform_decree`: the chunk lies in the reform decrees appended to a consolidated law. They start at a heading
       announcing them ("ARTÍCULOS TRANSITORIOS DE DECRETOS DE REFORMA") or, failing that, at the first document
       opener ("DECRETO por el que se reforman…", classified `title`) that comes after the text's own articles and
       transitorios; everything from there to the end of the document is reform decrees (their titles, articles
       and their own transitorios alike). A document that *is* a decree opens with its title before any article,
       so its text stays `text`;
    3. `repealed`: the open article (or clause) holds nothing but "Se deroga." / "(Se deroga)" / "Derogado." once
       its amendment notes are set aside;
    4. `transitory`: a TRANSITORIOS heading of the text itself is open;
    5. `preamble`: a CONSIDERANDO / ANTECEDENTES / RESULTANDO / EXPOSICIÓN DE MOTIVOS / PREÁMBULO heading (an EU
       act's "Whereas:") is open and the operative text has not begun: the first LIBRO, TÍTULO, CAPÍTULO or Artículo
       heading after it starts the body (a decree's "Artículo único", a law's "TÍTULO PRELIMINAR", an EU act's "Article 1"), as
       does a heading naming the operative part (CONDICIONES, CLÁUSULAS, ACUERDO, RESOLUTIVOS…), whatever heading
       level stays open. Also an *untitled* preamble: everything before the point where the document itself says
       its operative part begins (`_enacted_at`) — a heading naming that part ("A C U E R D O" after a Durango
       acuerdo's numbered recitals) or the enacting formula that ends the text before it ("Por todo lo anterior, en
       su virtud, dispongo:", "… DECRETA:", "… he tenido a bien expedir el siguiente:") right before the first
       article or numbered point — when no LIBRO, TÍTULO, CAPÍTULO or Artículo came before it; from the end of the
       block that prints the document's title, which names the document rather than motivating it;
    6. `text` otherwise.
- `article(stack, role)` — THE place where a chunk's article key is decided: the key of the article open at its
  start ("Artículo 27." → "27"), or of the clause open there when the clause is a provision of the text itself
  (`role` text or repealed: "DÉCIMO CUARTO.-" → "14"). A DOF acuerdo, its lineamientos or a convenio number their
  provisions in words and without "Artículo" ("PRIMERO.- Los presentes lineamientos…", "SEGUNDA.- OBJETO."): those
  are what a lawyer cites ("lineamiento Décimo Cuarto", "cláusula Segunda"). A clause under TRANSITORIOS, in the
  considerandos or in an appended reform decree keeps no key, as before: it is not the text's own provision. A
  section numbered in figures (`HeadingKind.numeral`: a NOM's "5.3", the NOM-001-SEDE's "110-26.", a guide's
  "2.3.1") is keyed by its number as printed, under the same conditions as a clause.
- `paragraphs(start, end)` — `ParagraphMark`s of the paragraphs starting inside [start, end): each text block of the
  Markdown is a paragraph of the open article (counted from 1 after its heading; outside articles, of the open
  section), except that an amendment note is no paragraph, a table continues the paragraph it sits in, and an
  enumerated block — fracción "IV. …", inciso "b) …", numeral "1. …" — belongs to the paragraph it enumerates
  (it carries `fraccion` / `inciso`); the next unnumbered block after an enumeration is the next paragraph. The
  first mark is the paragraph open at `start`, moved to `start`.
  A fracción may hold paragraphs of its own (printed indented under it; the Markdown keeps no indentation). Where the
  consolidated text says so — a "Fracción reformada DOF …" note after unnumbered paragraphs closes a fracción that
  began before them — those paragraphs are the fracción's (its paragraph number and `fraccion`), and counting
  resumes from the fracción's paragraph; likewise for incisos. Without such a note they count as the next paragraphs.
  Apartados are marked, not counted: a lettered run "A." / "Apartado B." (CPEUM art. 123 holds fracciones; art. 41's
  sit inside fracción III: `apartado_in_fraccion`) or a numbered run "1.", "2." that opens the article (BOE, EU); a
  "1." after a paragraph that announces a list stays a list item. A numbered apartado is the paragraph it numbers
  ("Article 17(2)": paragraph 2), the blocks under it included. An EU act's recitals "(1)", "(2)", … carry `recital`.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ingest.headings import fold
from ingest.models import (BODY_ROLES, AmendmentNote, DocType, Heading, HeadingKind, LegalDocument, ParagraphMark,
                           PROVISIONS, ProvisionRole)
from ingest.references import article_key

_INDEX_PARTS = ("indice", "contenido", "sumario")
_PREAMBLE_PARTS = ("considerando", "antecedentes", "resultando", "exposicion de motivos", "preambulo", "whereas")
# Headings that open an instrument's operative part after its preamble, at whatever level the classifier put them.
_OPERATIVE_PARTS = ("condiciones", "clausulas", "acuerdo", "acuerdos", "decreto", "resolutivos", "puntos resolutivos",
                    "dispongo", "resuelve", "resuelvo", "acuerda", "decreta", "have adopted this regulation")
# The formula that ends an instrument's preamble and enacts what follows, as the last words of a text block.
_ENACTING = re.compile(r"(?:\b(?:dispongo|decreta|decreto|resuelve|resuelvo|acuerda|acuerdo|ordena|ordeno|expide|"
                       r"emite)|(?:tenido|tiene|tengo) a bien (?:expedir|emitir|dictar)\b[^:]*)\s*:$")
_REFORM_MARKER = re.compile(r"^(?:(?:articulos\s+)?transitorios\s+de\s+(?:los\s+)?)?decretos\s+de\s+reformas?\b")
# An index entry: dot leaders, or an ellipsis, then a page number at the end of the line ("TÍTULO I. … . . . 12").
_TOC_ENTRY = re.compile(r"(?:(?:\.\s?){4,}|…+)\s*\d{0,4}\s*$|\s\.\s*\d{1,4}$", re.M)
_BODY_STARTS = (HeadingKind.libro, HeadingKind.titulo, HeadingKind.capitulo, HeadingKind.articulo)
_REPEALED = re.compile(r"^\(?\s*(?:se\s+deroga|derogad[oa])\s*\.?\s*\)?\s*\.?$", re.I)
_BLOCK = re.compile(r"[^\n]+(?:\n[^\n]+)*")
FRACCION = re.compile(r"^([IVXL]+(?:-[A-Z]{1,2}|\s+(?:Bis|Ter|Qu[aá]ter))?)\s*(?:\.-|\.|\)|-)(?=\s|$)")
INCISO = re.compile(r"^\(?([a-zñ])\)(?=\s|$)")  # "b)" (Mexico, Spain), "(b)" (an EU act's points)
NUMERAL = re.compile(r"^\d{1,2}\s*(?:\.-|\.|\))(?=\s)")
# An article's apartados: lettered ("A. Entre los obreros…", "Apartado B. Para fines electorales…": CPEUM arts. 2, 20,
# 41, 123) or numbered ("1. El capital…": BOE and EU articles). They run in sequence (A, B, C…; 1, 2, 3…).
APARTADO_LETTER = re.compile(r"^(?:Apartado\s+)?([A-Z])\s*(?:\.-|\.)(?=\s|$)")
APARTADO_NUMBER = re.compile(r"^(\d{1,3})\s*\.(?=\s)")
RECITAL = re.compile(r"^\((\d{1,3})\)(?=\s|$)")  # an EU act's recitals, numbered (1), (2), … through its preamble


@dataclass(frozen=True, slots=True)
class _Event:
    offset: int
    paragraph: int  # 0: a heading, which closes the open paragraph
    fraccion: str | None = None
    inciso: str | None = None
    apartado: str | None = None
    apartado_in_fraccion: bool = False
    recital: int | None = None


@dataclass(slots=True)
class _Count:
    """Paragraph counting inside one article: the open fracción / inciso (event indices) and the blocks after them."""

    paragraph: int = 0
    label: str | None = None  # the fracción the next enumerated block belongs to (None after an unnumbered block)
    fraccion: int | None = None
    inciso: int | None = None
    after_fraccion: list[int] = field(default_factory=list)
    after_inciso: list[int] = field(default_factory=list)
    apartado: str | None = None  # the open apartado ("A", "2")
    apartado_in: str | None = None  # the fracción a lettered apartado sits in (CPEUM art. 41, fr. III, Apartado A)
    last_fraccion: str | None = None  # the last fracción opened in the article

    @property
    def nested(self) -> bool:
        return self.apartado is not None and self.apartado_in is not None

    def next_apartado(self, text: str) -> str | None:
        """The apartado `text` opens, if it continues the article's sequence: a lettered one starts at "A" (inside
        the last fracción, if the article's fracciones have begun); a numbered one starts at "1" as the article's
        first block ("Artículo 4. … 1. El capital…"; a "1." after "…los siguientes principios:" or under a fracción
        or an inciso is a list item)."""
        if m := APARTADO_LETTER.match(text):
            expected = "A" if self.apartado is None or self.apartado.isdigit() else chr(ord(self.apartado) + 1)
            return m.group(1) if m.group(1) == expected else None
        if m := APARTADO_NUMBER.match(text):
            n = int(m.group(1))
            if self.apartado is None:
                return "1" if n == 1 and self.paragraph == 0 else None
            return str(n) if self.apartado.isdigit() and n == int(self.apartado) + 1 else None
        return None

    def close(self, events: list[_Event], which: str) -> None:
        """The blocks after the open fracción (inciso) were its own: give them its paragraph and label."""
        head = events[self.fraccion if which == "fraccion" else self.inciso]
        after = self.after_fraccion if which == "fraccion" else self.after_inciso
        for k in after:
            e = events[k]
            inciso = e.inciso if which == "fraccion" else head.inciso
            events[k] = _Event(e.offset, head.paragraph, head.fraccion, inciso, e.apartado, e.apartado_in_fraccion,
                               e.recital)
        after.clear()
        self.paragraph, self.label = head.paragraph, head.fraccion


class Provisions:
    def __init__(self, doc: LegalDocument) -> None:
        self.doc = doc
        self.headings = sorted(doc.headings, key=lambda h: h.start)
        self.notes = sorted(doc.amendments, key=lambda n: n.start)
        self.note_starts = [n.start for n in self.notes]
        self.is_index = doc.doc_type == DocType.indice
        self.reform_start = _reform_start(self.headings)
        self.enacted = _enacted_at(doc.markdown, self.headings)
        self.titled = _title_end(doc.markdown, doc.title, self.enacted) if self.enacted is not None else 0
        self.part_ends = self._part_ends()
        self.repealed = self._repealed_articles()
        self.events = self._paragraph_events()
        self.event_offsets = [e.offset for e in self.events]

    # -- roles ---------------------------------------------------------------------------------------------
    def role(self, stack: Sequence[Heading], start: int) -> ProvisionRole:
        """The role of text starting at `start` under the open headings `stack` (rules in the module docstring)."""
        folded = [fold(h.text).strip(" :.") for h in stack]
        if self.is_index or any(
            h.kind in (HeadingKind.part, HeadingKind.heading) and f in _INDEX_PARTS and start < self.part_ends[h.start]
            for h, f in zip(stack, folded)
        ):
            return ProvisionRole.index
        if self.reform_start is not None and start >= self.reform_start:
            return ProvisionRole.reform_decree
        provision = next((h for h in reversed(stack) if h.kind in PROVISIONS), None)
        if provision is not None and provision.start in self.repealed:
            return ProvisionRole.repealed
        if any(h.kind is HeadingKind.transitorios for h in stack):
            return ProvisionRole.transitory
        if any(h.kind in (HeadingKind.part, HeadingKind.heading) and f.startswith(_PREAMBLE_PARTS)
               and start < self.part_ends[h.start] for h, f in zip(stack, folded)):
            return ProvisionRole.preamble
        if self.enacted is not None and self.titled <= start < self.enacted:
            return ProvisionRole.preamble
        return ProvisionRole.text

    def article(self, stack: Sequence[Heading], role: ProvisionRole) -> str | None:
        """The key of the provision open in `stack` (rules in the module docstring)."""
        provision = next((h for h in reversed(stack) if h.kind in PROVISIONS), None)
        if provision is None:
            return None
        if provision.kind is not HeadingKind.articulo and (role not in BODY_ROLES or any(
                h.kind is HeadingKind.transitorios for h in stack)):  # a repealed transitorio is still transitory
            return None
        if provision.kind is HeadingKind.numeral:
            return provision.text  # "110-26": its number as printed (`headings` keeps it without the stop)
        return article_key(provision.text)

    def _part_ends(self) -> dict[int, int]:
        """Where each index or preamble part ends (keyed by its heading's start; rules 1 and 5 above)."""
        md, ends = self.doc.markdown, {}
        starts = [h.start for h in self.headings[1:]] + [len(md)]
        for i, h in enumerate(self.headings):
            if h.kind not in (HeadingKind.part, HeadingKind.heading):
                continue
            folded = fold(h.text).strip(" :.")
            if folded in _INDEX_PARTS:
                entries_end = next((after.start for after, under in zip(self.headings[i + 1:], starts[i + 1:])
                                    if not _TOC_ENTRY.search(after.text)
                                    and not _TOC_ENTRY.search(md[after.end:under])), len(md))
                ends[h.start] = _entries_repeated(md, h.end, entries_end)
            elif folded.startswith(_PREAMBLE_PARTS):
                ends[h.start] = next((after.start for after in self.headings[i + 1:] if after.kind in _BODY_STARTS
                                      or fold(after.text).strip(" :.") in _OPERATIVE_PARTS), len(md))
        return ends

    def _repealed_articles(self) -> set[int]:
        """Starts of the article / clause headings whose whole text, notes aside, is a repeal."""
        md, out = self.doc.markdown, set()
        bounds = [h.start for h in self.headings[1:]] + [len(md)]
        for h, end in zip(self.headings, bounds):
            if h.kind not in PROVISIONS:
                continue
            body = md[h.end : end]
            for note in self.notes[bisect.bisect_left(self.note_starts, h.end) :]:
                if note.start >= end:
                    break
                body = body.replace(note.text, " ")
            if _REPEALED.match(" ".join(body.split())):
                out.add(h.start)
        return out

    # -- paragraphs ----------------------------------------------------------------------------------------
    def _paragraph_events(self) -> list[_Event]:
        md = self.doc.markdown
        heading_starts = {h.start for h in self.headings}
        notes = {n.start: n for n in self.notes}
        tables = sorted((t.start, t.end) for t in self.doc.tables)
        table_starts = [t[0] for t in tables]
        events: list[_Event] = []
        count = _Count()
        recitals = recital = 0  # the last recital number seen; the recital open (0: none) until the next heading
        for m in _BLOCK.finditer(md):
            start = m.start() + len(m.group()) - len(m.group().lstrip())
            if start in heading_starts:
                count, recital = _Count(), 0
                events.append(_Event(start, 0))
                continue
            if (r := RECITAL.match(md[start : start + 8])) and int(r.group(1)) == recitals + 1:
                recitals = recital = int(r.group(1))
            note = notes.get(start)
            if note is not None:
                if note.target == "fracción" and count.fraccion is not None:
                    count.close(events, "fraccion")
                elif note.target == "inciso" and count.inciso is not None:
                    count.close(events, "inciso")
                continue
            k = bisect.bisect_right(table_starts, start) - 1
            if k >= 0 and tables[k][0] <= start < tables[k][1]:
                continue
            text = md[start : m.end()]
            if (apartado := count.next_apartado(text)) is not None:  # counted as before; opens the apartado
                if apartado.isdigit():  # the numbered paragraph a lawyer cites: "Article 17(2)", "art. 4.2"
                    count.paragraph = int(apartado)
                    count.inciso = None
                else:
                    if apartado == "A":
                        count.apartado_in = count.last_fraccion
                    if count.apartado_in is None:  # an apartado of the article: its fracciones start afresh
                        count.fraccion, count.last_fraccion = None, None
                    count.paragraph, count.label, count.inciso = count.paragraph + 1, count.apartado_in, None
                count.apartado = apartado
                count.after_fraccion.append(len(events))
                count.after_inciso.append(len(events))
                events.append(_Event(start, count.paragraph, count.label, None, apartado, count.nested))
            elif f := FRACCION.match(text):
                label = " ".join(f.group(1).split())
                if count.fraccion is not None and label != "I":  # the list goes on: its paragraph, not the count
                    count.close(events, "fraccion")
                if count.apartado_in is not None:  # the next fracción closes the apartados inside the last one
                    count.apartado = count.apartado_in = None
                count.paragraph, count.label = max(count.paragraph, 1), label
                count.fraccion, count.inciso = len(events), None
                count.last_fraccion = label
                count.after_fraccion, count.after_inciso = [], []
                events.append(_Event(start, count.paragraph, label, None, count.apartado))  # apartados of the article
            elif i := INCISO.match(text):
                if count.inciso is not None and i.group(1) != "a":
                    count.close(events, "inciso")
                count.paragraph = max(count.paragraph, 1)
                count.inciso, count.after_inciso = len(events), []
                count.after_fraccion.append(len(events))
                events.append(_Event(start, count.paragraph, count.label, i.group(1), count.apartado, count.nested))
            elif NUMERAL.match(text):
                count.paragraph = max(count.paragraph, 1)
                count.after_fraccion.append(len(events))
                count.after_inciso.append(len(events))
                events.append(_Event(start, count.paragraph, count.label, None, count.apartado, count.nested))
            else:
                numbered = count.apartado is not None and count.apartado.isdigit()  # its apartado's paragraph
                count.paragraph = count.paragraph if numbered else count.paragraph + 1
                count.label = count.apartado_in if count.apartado else None
                count.after_fraccion.append(len(events))
                count.after_inciso.append(len(events))
                events.append(_Event(start, count.paragraph, count.label, None, count.apartado, count.nested))
            if recital and events[-1].offset == start:
                events[-1] = dataclasses.replace(events[-1], recital=recital)
        return events

    def paragraphs(self, start: int, end: int) -> list[ParagraphMark]:
        """Paragraph marks of [start, end): the paragraph open at `start` first (at `start`), then each one that
        starts inside."""
        first = bisect.bisect_right(self.event_offsets, start) - 1
        last = bisect.bisect_left(self.event_offsets, end)
        marks: list[ParagraphMark] = []
        for e in self.events[max(first, 0) : last]:
            if e.paragraph == 0:
                continue
            offset = start if not marks or e.offset < start else e.offset
            marks.append(ParagraphMark(offset=offset, paragraph=e.paragraph, fraccion=e.fraccion, inciso=e.inciso,
                                       apartado=e.apartado, apartado_in_fraccion=e.apartado_in_fraccion,
                                       recital=e.recital))
        return marks

    def notes_in(self, start: int, end: int) -> list[AmendmentNote]:
        """The amendment notes inside [start, end)."""
        i = bisect.bisect_left(self.note_starts, start)
        out: list[AmendmentNote] = []
        for note in self.notes[i:]:
            if note.start >= end:
                break
            if note.end <= end:
                out.append(note)
        return out


def _entries_repeated(md: str, start: int, end: int) -> int:
    """Where an index's first entry comes round again between `start` (the end of its heading) and `end` (where its
    entries end otherwise): the body it lists begins there, whatever heading the classifier saw or not ("Contenido /
    A. Parques Nacionales. / B. Reservas de la Biosfera. / … / A. Parques Nacionales." and the table under it). `end`
    when it does not."""
    first = None
    for block in _BLOCK.finditer(md, start, end):
        entry = " ".join(_TOC_ENTRY.sub("", fold(block.group()).lstrip("# ")).strip(" .:;-–").split())
        if not entry:
            continue
        if first is None:
            first = entry
        elif entry == first:
            return block.start()
    return end


def _enacted_at(md: str, headings: list[Heading]) -> int | None:
    """Where the document says its operative part begins, when a preamble without a heading of its own comes before
    it (rule 5): a heading naming the operative part, or the enacting formula ending the text right before the first
    article or numbered point. None when a LIBRO, TÍTULO, CAPÍTULO or Artículo comes first (a law's body, or a
    document that states no such point)."""
    for h in headings:
        if h.kind in _BODY_STARTS:
            break
        if h.kind in (HeadingKind.part, HeadingKind.heading) and fold(h.text).strip(" :.") in _OPERATIVE_PARTS:
            return h.start
    previous = 0
    for h in headings:
        if h.kind in _BODY_STARTS or h.kind is HeadingKind.clause:
            before = md[previous:h.start].rstrip()
            return h.start if _ENACTING.search(fold(before[before.rfind("\n") + 1:])) else None
        previous = h.end
    return None


def _title_end(md: str, title: str, before: int) -> int:
    """Where the text block that prints the document's title ends, if it does before `before`: the title names the
    document, it is no part of the preamble after it ("7296 Orden EFD/322/2024, de 8 de abril, por la que se
    establece…" answers "¿Qué establece la Orden EFD/322/2024?"). 0 when the title is not found there."""
    words = re.findall(r"\w+", title)[:8]
    found = re.search(r"\W+".join(map(re.escape, words)), md[:before], re.I) if words else None
    if found is None:
        return 0
    end = md.find("\n\n", found.end())
    return before if end < 0 else min(end, before)


def _reform_start(headings: list[Heading]) -> int | None:
    """Offset where the reform decrees appended to a consolidated text begin (see `Provisions.role`)."""
    seen_article = seen_transitorios = False
    for h in headings:
        if _REFORM_MARKER.search(fold(h.text)) and h.kind is not HeadingKind.title:
            return h.start
        if h.kind is HeadingKind.title and seen_article and seen_transitorios:
            return h.start
        seen_article = seen_article or h.kind in PROVISIONS
        seen_transitorios = seen_transitorios or (seen_article and h.kind is HeadingKind.transitorios)
    return None
