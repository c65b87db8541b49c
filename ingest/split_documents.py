"""Split a gazette edition into its legal documents at issuing-body + title boundaries.

A DOF edition prints each document under its issuing body ("PODER EJECUTIVO", "SECRETARIA DE MARINA") and opens it
with a bold title ("DECRETO por el que…"); consecutive documents of the same body repeat only the title. So a
boundary is a run of consecutive headings holding a poder, an issuing body or a title; the body is inherited by the
documents after it until another appears. Anything before the first boundary (cover, CONTENIDO) is front matter.
Files that are not editions (a law, a BOE decree, a judgment) stay one document: their "DECRETO …" lines are
transitory reform decrees inside one text, not new documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingest.headings import BOUNDARY_KINDS, ISSUING_BODY, PODER, TITLE, Classified
from ingest.layout import Line
from ingest.tables import TableBlock


@dataclass
class Item:
    """One block of a page in reading order: a line (maybe a heading, already merged) or a table."""

    page: int
    line: Line | None = None
    table: TableBlock | None = None
    heading: Classified | None = None
    synthetic: bool = False  # an inherited issuing-body heading repeated at the top of a document
    first_line: Line | None = None  # a merged multi-line heading: its first line (`line` is its last)


@dataclass
class DocumentItems:
    items: list[Item]
    front_matter: bool = False
    poder: str | None = None
    body: str | None = None
    title: str | None = None
    kinds: list[str] = field(default_factory=list)


def _kind(item: Item) -> str | None:
    return item.heading.kind if item.heading else None


def split_edition(items: list[Item]) -> list[DocumentItems]:
    """Documents of an edition, each starting at its boundary run (inherited body headings prepended)."""
    starts: list[int] = []
    i = 0
    while i < len(items):
        if _kind(items[i]) in BOUNDARY_KINDS:
            j = i
            while j < len(items) and _kind(items[j]) in BOUNDARY_KINDS:
                j += 1
            starts.append(i)
            i = j
        else:
            i += 1
    docs: list[DocumentItems] = []
    if not starts or starts[0] > 0:
        front = items[: starts[0] if starts else len(items)]
        if any(it.line or it.table for it in front):
            docs.append(DocumentItems(front, front_matter=True))
    poder = body = None
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(items)
        chunk = items[start:end]
        run: list[Item] = []
        for it in chunk:
            if _kind(it) not in BOUNDARY_KINDS:
                break
            run.append(it)
        kinds = [it.heading.kind for it in run]
        if PODER in kinds:
            poder = next(it.heading.label for it in run if it.heading.kind == PODER)
            body = None
        if ISSUING_BODY in kinds:
            body = " ".join(it.heading.label for it in run if it.heading.kind == ISSUING_BODY)
        inherited: list[Item] = []
        page = chunk[0].page
        if PODER not in kinds and poder:
            inherited.append(Item(page, heading=Classified(PODER, poder), synthetic=True))
        if ISSUING_BODY not in kinds and PODER not in kinds and body:
            inherited.append(Item(page, heading=Classified(ISSUING_BODY, body), synthetic=True))
        title = next((it.heading.label for it in run if it.heading.kind == TITLE), None)
        docs.append(DocumentItems(inherited + chunk, poder=poder, body=body, title=title))
    return docs


def single_document(items: list[Item]) -> list[DocumentItems]:
    """The whole file as one document; its body and title from its first headings."""
    doc = DocumentItems(items)
    for it in items:
        if it.heading and it.heading.kind == ISSUING_BODY and doc.body is None:
            doc.body = it.heading.label
        if it.heading and it.heading.kind == PODER and doc.poder is None:
            doc.poder = it.heading.label
        if it.heading and it.heading.kind == TITLE and doc.title is None:
            doc.title = it.heading.label
    return [doc]
