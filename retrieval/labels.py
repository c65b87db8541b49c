"""Citation labels a lawyer can read: "Constitución Política de los Estados Unidos Mexicanos, art. 27, párr. 1, p. 33",
"DOF 15-12-2024 (Matutina), SECRETARÍA DE MARINA, ACUERDO …, p. 4", "BOE núm. 91, Real Decreto 353/2024, art. 3".

Built from the document record (its name, gazette, issue, date) and the chunk's typed structure (article, the
paragraph marks, the printed page); nothing is re-parsed from text.
"""

from __future__ import annotations

from ingest.models import AmendmentNote, Chunk, DocumentInfo, HeadingKind, ParagraphMark, ProvisionRole

MAX_NAME = 90  # characters of a document name in a label (the full title stays on the record)
_EDITIONS = {"MAT": "Matutina", "VES": "Vespertina", "EXT": "Extraordinaria"}


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + " …"


def document_name(doc: DocumentInfo) -> str:
    """How a citation names the document: its short title, or for a gazette edition the gazette, date and issuer."""
    name = shorten(doc.short_title or doc.title, MAX_NAME)
    if doc.gazette == "DOF" and doc.edition and doc.publication_date:
        date = doc.publication_date.strftime("%d-%m-%Y")
        parts = [f"DOF {date} ({_EDITIONS.get(doc.edition, doc.edition)})"]
        if doc.issuing_body:
            parts.append(shorten(doc.issuing_body, 60))
        parts.append(shorten(doc.short_title or doc.title, 60))
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


def notes_after(chunk: Chunk, end: int) -> list[AmendmentNote]:
    """The amendment notes that annotate the paragraph ending the span `…end` (before the next paragraph starts)."""
    following = [m.offset for m in chunk.paragraphs if m.offset >= end]
    limit = min(following) if following else chunk.end
    return [n for n in chunk.notes if end <= n.start < limit]


def label(doc: DocumentInfo, chunk: Chunk, offset: int | None = None) -> str:
    """"<document>, art. N, párr. M, fr. IV, p. P" for the span starting at `offset` (default: the chunk's start)."""
    offset = chunk.start if offset is None else offset
    parts = [document_name(doc)]
    if chunk.role is ProvisionRole.reform_decree:  # a decree appended to a consolidated law: name the decree
        decree = next((text for text, kind in zip(chunk.heading_path, chunk.heading_kinds)
                       if kind is HeadingKind.title), None)
        if decree:
            parts.append(shorten(decree, MAX_NAME))
    if chunk.article:
        parts.append(f"art. {chunk.article}")
        mark = paragraph_at(chunk, offset)
        if mark is not None:
            parts.append(f"párr. {mark.paragraph}")
            if mark.fraccion:
                parts.append(f"fr. {mark.fraccion}")
            if mark.inciso:
                parts.append(f"inc. {mark.inciso})")
    page, printed = chunk.page_at(offset)
    parts.append(f"p. {printed or page}")
    return ", ".join(parts)
