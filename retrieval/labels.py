"""Citation labels in the form each document's readers cite it, built from the document record (its name, gazette,
issue, date, `citation_form`) and the chunk's typed structure (article, paragraph marks with apartado / fracción /
inciso, the printed page); nothing is re-parsed from text.

- Mexican law: "Constitución Política de los Estados Unidos Mexicanos, art. 123, apartado A, fr. I, p. 143"; a
  transitory provision numbered in words "Ley de Amparo, art. Tercero transitorio, p. 84";
  "…, art. 41, fr. III, apartado B, p. 55"; "…, art. 27, párr. 1, p. 33"; a quote of two fracciones "fr. I–II";
- DOF edition: "DOF 15-12-2024 (Matutina), SECRETARÍA DE MARINA, ACUERDO …, p. 4";
- a point numbered in words or a section numbered in figures: "…, numeral Quinto, párr. 1", "…, cláusula Segunda",
  "…, numeral 110-26, párr. 1, p. 11"; in English "…, section 2.3.1, p. 8";
- BOE law / act: "Ley de Sociedades de Capital, art. 4, apdo. 2, p. 12"; "BOE núm. 91, Real Decreto 353/2024, art. 3";
- EU act: "Reglamento (UE) 2016/679, art. 17, apdo. 1, letra a), p. …"; in English "Art. 17(1)(a)"; a recital
  "recital 59" / "considerando 59";
- Federal Register: "85 FR 47698" (volume, series, the document's first page), "85 FR 47698, 47699" (pin page);
- court decision: "Corte Suprema (Chile), Rol 161.630-2023, p. 12";
  "United States Court of Appeals for the First Circuit, No. 20-1507, p. 3";
- a division of a law: "Código Penal, LIBRO II, TÍTULO I «Del homicidio y sus formas», arts. 138 a 143 Bis".
"""

from __future__ import annotations

import re

from ingest.headings import division_name, fold
from ingest.models import (AmendmentNote, Chunk, DocumentInfo, HeadingKind, LegalReference, ParagraphMark,
                           ProvisionRole)
from retrieval.models import Division
from retrieval.text_analysis import detect_languages

MAX_NAME = 90  # characters of a document name in a label (the full title stays on the record)
_EDITIONS = {"MAT": "Matutina", "VES": "Vespertina", "EXT": "Extraordinaria"}
DASH = "–"  # a span of two provisions: "fr. I–II"


# A title's closing full stop is no part of its name in a citation: "DECRETO por el que se reforman … de la Ley
# General de Salud, art. 13", not "… Salud., art. 13". An abbreviation's stop stays ("… S.A. de C.V.").
_CLOSING_STOP = re.compile(r"(?<=[a-záéíóúñü\d)]{2})\.$")


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + " …"


def _gazette_cite(doc: DocumentInfo) -> str | None:
    """"85 FR 47698": a gazette cited by volume, series and the document's first printed page."""
    form = doc.citation_form
    if form is not None and form.series and form.volume and doc.printed_pages[0]:
        return f"{form.volume} {form.series} {doc.printed_pages[0]}"
    return None


def document_name(doc: DocumentInfo) -> str:
    """How a citation names the document: its gazette cite ("85 FR 47698"), its court and case number, its short
    title, or for a gazette edition the gazette, date and issuer."""
    if cite := _gazette_cite(doc):
        return cite
    form = doc.citation_form
    if form is not None and form.court:
        court = f"{form.court} ({form.jurisdiction})" if form.jurisdiction else form.court
        parts = [shorten(court, MAX_NAME)]
        if form.case_number:
            parts.append(f"{form.case_label or 'No.'} {form.case_number}")
        return ", ".join(parts)
    name = _CLOSING_STOP.sub("", shorten(doc.short_title or doc.title, MAX_NAME))
    if doc.gazette == "DOF" and doc.edition and doc.publication_date:
        date = doc.publication_date.strftime("%d-%m-%Y")
        parts = [f"DOF {date} ({_EDITIONS.get(doc.edition, doc.edition)})"]
        if doc.issuing_body:
            parts.append(shorten(doc.issuing_body, 60))
        parts.append(_CLOSING_STOP.sub("", shorten(doc.short_title or doc.title, 60)))
        return ", ".join(parts)
    if doc.gazette and doc.issue:
        return f"{doc.gazette} {doc.issue}, {name}"
    return name


def paragraph_at(chunk: Chunk, offset: int) -> ParagraphMark | None:
    """The article paragraph holding document offset `offset` of this chunk."""
    found = None
    for mark in chunk.paragraphs:
        if mark.offset <= offset:
            found = mark
        else:
            break
    return found


def in_part(mark: ParagraphMark | None, ref: LegalReference) -> bool:
    """Does the paragraph `mark` lie in the part of an article `ref` names: its apartado, fracción and inciso ("la
    fracción III del apartado A del artículo 123")? True when `ref` names none of them."""
    wanted = {f: getattr(ref, f) for f in ("apartado", "fraccion", "inciso") if getattr(ref, f)}
    return not wanted or (mark is not None and all(getattr(mark, f) == v for f, v in wanted.items()))


def notes_after(chunk: Chunk, end: int) -> list[AmendmentNote]:
    """The amendment notes that annotate the paragraph ending the span `…end` (before the next paragraph starts)."""
    following = [m.offset for m in chunk.paragraphs if m.offset >= end]
    limit = min(following) if following else chunk.end
    return [n for n in chunk.notes if end <= n.start < limit]


def _marks(chunk: Chunk, offset: int, end: int | None) -> list[ParagraphMark]:
    """The paragraph marks a span covers: the one open at `offset`, then each starting before `end`."""
    first = paragraph_at(chunk, offset)
    later = [m for m in chunk.paragraphs if end is not None and offset < m.offset < end]
    return ([first] if first is not None else []) + later


def _span(values: list[str | None]) -> str | None:
    """"I" for one value, "I–II" for the first and last of several (in order, repeats and gaps dropped)."""
    seen = [v for i, v in enumerate(values) if v is not None and v not in values[:i]]
    if not seen:
        return None
    return seen[0] if len(seen) == 1 else f"{seen[0]}{DASH}{seen[-1]}"


def _english(chunk: Chunk) -> bool:
    """The open article is printed in English ("Article 17 …"), so it is cited "Art. 17(1)(a)"."""
    heading = next((text for text, kind in zip(reversed(chunk.heading_path), reversed(chunk.heading_kinds))
                    if kind is HeadingKind.articulo), "")
    return fold(heading).startswith("article")


# A provision numbered in words without "Artículo" ("DÉCIMO CUARTO.-", "SEGUNDA.- OBJETO."), as printed.
_CLAUSE_WORDS = re.compile(r"^[^\W\d_]+(?:\s+[^\W\d_]+)?(?=\s*[.:\-–])")


# The heading a convenio, a concession or rules print above their points names what each point is.
_POINTS = {"clausulas": "cláusula", "condiciones": "condición", "bases": "base", "reglas": "regla",
           "lineamientos": "lineamiento", "resolutivos": "resolutivo", "puntos resolutivos": "resolutivo"}


def _clause(chunk: Chunk) -> str | None:
    """"cláusula Segunda" / "numeral Décimo Cuarto" / "numeral 5.3": how a lawyer cites the chunk's provision when it
    is a point numbered in words (an acuerdo's points, lineamientos, a convenio's cláusulas) or a section numbered in
    figures (a NOM's "5.3", the NOM-001-SEDE's "110-26"; in English "section 2.3.1"), else None. Its noun is the one
    the heading above the points prints ("CLÁUSULAS", "CONDICIONES", "REGLAS"); else a feminine ordinal numbers
    cláusulas and a masculine one or a figure numerales."""
    path = list(zip(chunk.heading_path, chunk.heading_kinds))
    for at in range(len(path) - 1, -1, -1):
        text, kind = path[at]
        if kind is HeadingKind.articulo:
            return None
        if kind in (HeadingKind.clause, HeadingKind.numeral):
            if kind is HeadingKind.numeral:
                printed = chunk.article or text
            elif words := _CLAUSE_WORDS.match(text.strip()):
                printed = words.group(0).title()
            else:
                return None
            noun = next((_POINTS[f] for above, _ in reversed(path[:at])
                         if (f := fold(above).strip(" .:")) in _POINTS), None)
            if noun is None and kind is HeadingKind.numeral and detect_languages(chunk.text) == ("english",):
                noun = "section"
            return f"{noun or ('cláusula' if printed.endswith('a') else 'numeral')} {printed}"
    return None


def _transitory(chunk: Chunk) -> str | None:
    """"art. Tercero transitorio": a transitory provision numbered in words under the text's "TRANSITORIOS"
    ("TERCERO.-"), as a lawyer cites it; None when its heading prints no such word."""
    for text, kind in zip(reversed(chunk.heading_path), reversed(chunk.heading_kinds)):
        if kind is HeadingKind.clause and (words := _CLAUSE_WORDS.match(text.strip())):
            return f"art. {words.group(0).title()} transitorio"
        if kind is HeadingKind.transitorios:
            return None
    return None


def _provision(chunk: Chunk, marks: list[ParagraphMark]) -> list[str]:
    """"art. 123", "apartado A", "fr. I–II" … for the marks a span covers (the article is the chunk's)."""
    article = chunk.article
    if clause := _clause(chunk):
        if clause.startswith("section "):  # English cites a section by its number alone: "section 2.3.1"
            return [clause]
        paragraph = _span([str(m.paragraph) for m in marks])
        fraccion = _span([m.fraccion for m in marks])
        return [clause] + ([f"fr. {fraccion}"] if fraccion else [f"párr. {paragraph}"] if paragraph else [])
    if not marks:
        return [f"Art. {article}" if _english(chunk) else f"art. {article}"]
    first = marks[0]
    same_apartado = [m for m in marks if m.apartado == first.apartado]
    apartado = _span([m.apartado for m in marks]) if first.apartado and first.apartado.isdigit() else first.apartado
    fraccion = _span([m.fraccion for m in same_apartado])
    inciso = _span([m.inciso for m in same_apartado if m.fraccion == first.fraccion])
    if _english(chunk):  # "Art. 17(1)(a)"
        head = f"Art. {article}"
        if apartado:
            head += f"({apartado})"
            if inciso:
                head += f"({inciso})"
        return [head]
    parts = [f"art. {article}"]
    numbered = bool(apartado and first.apartado and first.apartado.isdigit())
    if numbered:  # BOE / EU in Spanish: "art. 17, apdo. 1, letra a)"
        parts.append(f"{'apdos.' if DASH in apartado else 'apdo.'} {apartado}")
        if inciso:
            parts.append(f"letra {inciso})")
        return parts
    if apartado and not first.apartado_in_fraccion:
        parts.append(f"apartado {apartado}")
    elif not apartado:
        paragraph = _span([str(m.paragraph) for m in marks])
        if paragraph:
            parts.append(f"párr. {paragraph}")
    if fraccion:
        parts.append(f"fr. {fraccion}")
    if apartado and first.apartado_in_fraccion:
        parts.append(f"apartado {apartado}")
    if inciso:
        parts.append(f"inc. {inciso})")
    return parts


_MASCULINE = re.compile(r"^(?:c[óo]digo|real decreto|decreto|reglamento|estatuto|texto refundido|convenio|"
                        r"tratado|acuerdo)\b", re.I)


def the(name: str) -> str:
    """"la Ley de Amparo" / "el Código Penal": the article Spanish puts before the law's name."""
    return f"el {name}" if _MASCULINE.match(name) else f"la {name}"


def of_the(name: str) -> str:
    """"de la Ley de Amparo" / "del Código Penal": the preposition and article Spanish puts before the law's name."""
    return f"del {name}" if _MASCULINE.match(name) else f"de la {name}"


def version_name(doc: DocumentInfo, chunk: Chunk | None = None) -> str:
    """The document's name with the version it is: "Ley de Amparo (texto vigente al 16-10-2025)" — how a citation
    names a law whose index holds several versions (its version date: last reform, else publication)."""
    name = document_name(doc)
    if doc.version_date is None:
        return name
    if chunk is not None and _english(chunk):
        return f"{name} (as in force on {doc.version_date:%d-%m-%Y})"
    return f"{name} (texto vigente al {doc.version_date:%d-%m-%Y})"


def label(doc: DocumentInfo, chunk: Chunk, offset: int | None = None, end: int | None = None,
          versioned: bool = False) -> str:
    """The citation of the span [offset, end) of this chunk (default: its start; without `end`, the provision open
    at `offset`): "<document>, art. N, párr. M, fr. IV, p. P" and the other forms in the module docstring;
    `versioned` (the index holds more than one version of the law): the name says which one it is."""
    offset = chunk.start if offset is None else offset
    page, printed = chunk.page_at(offset)
    gazette = _gazette_cite(doc)
    parts = [version_name(doc, chunk) if versioned else document_name(doc)]
    if gazette and printed and printed != doc.printed_pages[0]:  # a pin cite: "85 FR 47698, 47701"
        parts[0] = f"{gazette}, {printed}"
    if chunk.role is ProvisionRole.reform_decree:  # a decree appended to a consolidated law: name the decree
        decree = next((text for text, kind in zip(chunk.heading_path, chunk.heading_kinds)
                       if kind is HeadingKind.title), None)
        if decree:
            parts.append(shorten(decree, MAX_NAME).rstrip(",;: "))
    if chunk.article:
        parts.extend(_provision(chunk, _marks(chunk, offset, end)))
    elif chunk.role is ProvisionRole.transitory and (transitory := _transitory(chunk)):
        parts.append(transitory)
    elif chunk.role is ProvisionRole.preamble and (recital := _span([str(m.recital) if m.recital else None
                                                                     for m in _marks(chunk, offset, end)])):
        english = any(fold(text).startswith("whereas") for text in chunk.heading_path)  # an EU act's "Whereas:"
        word = ("recitals" if DASH in recital else "recital") if english else \
            ("considerandos" if DASH in recital else "considerando")
        parts.append(f"{word} {recital}")
    if not gazette:
        parts.append(f"p. {printed or page}")
    return ", ".join(parts)


def division(d: Division) -> str:
    """A division of a law as a lawyer points to it: the law, the labels of the divisions it stands in, its own with
    its name, the articles it holds ("Ley de Amparo, TÍTULO SEGUNDO, CAPÍTULO I, Sección Tercera «Suspensión del
    Acto Reclamado», arts. 125 a 169")."""
    parts = [d.law] if d.law else []
    for i, entry in enumerate(d.path):
        name = division_name(entry)
        label = entry[:len(entry) - len(name)].rstrip(" .:-–") if name and entry.endswith(name) else entry
        parts.append(f"{label} «{name}»" if i == len(d.path) - 1 and name and label else label or entry)
    if d.first_article and d.last_article and d.last_article != d.first_article:
        parts.append(f"arts. {d.first_article} a {d.last_article}")
    elif d.first_article:
        parts.append(f"art. {d.first_article}")
    return ", ".join(parts)
