"""A provision by its citation: an article of a law — or one paragraph or fracción of it — verbatim, in the version of
the law in force on a day, with its amendment notes, its page and the label a lawyer cites it by; of a law the index
holds only through the decrees that amend it, the article as the newest decree that prints it reads.

    find_provision(index, "CPEUM", "27", paragraph=1)                       # "…, art. 27, párr. 1, p. 33"
    find_provision(index, "Ley de Amparo", "17", fraction="II", as_of=dt.date(2025, 6, 1))

The law is named as a lawyer names it (its name, short name, acronym, "la Constitución" or its law id: the index's
own name matching, `retrieval.article_history.find_law`); a document that is not a law with versions (a decree, an
agreement) is read by the name it resolves to. The article is the law's own (`Index.articles`: its body, never its
index, transitory articles or the reform decrees a consolidated text appends), from its heading line to the end of
its last chunk; a paragraph or fracción runs from the chunks' first paragraph mark that matches to the next mark
that does not. Served by `GET /laws/{law}/articles/{article}` and the MCP tool `get_provision`.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from ingest.models import AmendmentNote, Chunk, DocumentInfo
from ingest.sentences import LEADING_HEADINGS
from retrieval import labels
from retrieval.article_history import (LawVersion, NotInIndex, article_start, checked_key, find_law, first_run,
                                       law_version, version_on)
from retrieval.law_lookup import names_a_law
from retrieval.question_laws import understood

if TYPE_CHECKING:
    from retrieval.index import Index

MAX_PROVISION_CHARS = 100_000  # characters of provision text a result carries (the cut is marked `truncated`)


class Provision(BaseModel):
    """An article of a law, or one paragraph / fracción of it, as the official text has it."""

    law: str = Field(description="The document the law resolved to (its title).")
    law_id: str | None = Field(None, description="The law this document is a version of (\"mx/ley-de-amparo\").")
    version: LawVersion = Field(description="Which version of the law was read (the one in force on the day asked "
                                            "about; default today).")
    doc_id: str
    article: str = Field(description="The article's key as the law numbers it: \"27\", \"3 Bis\", \"330-A\".")
    paragraph: int | None = None
    fraction: str | None = None
    label: str = Field(description="As a lawyer cites it: \"Constitución Política de los Estados Unidos Mexicanos, "
                                   "art. 27, párr. 1, p. 31\".")
    text: str = Field(description="The provision verbatim (the document's Markdown between `start` and `end`, "
                                  "amendment notes included where the law prints them).")
    truncated: bool = Field(False, description=f"The text was cut at {MAX_PROVISION_CHARS:,} characters.")
    notes: list[AmendmentNote] = Field([], description="The amendment notes printed in the provision (\"Párrafo "
                                                       "reformado DOF 06-01-1992\").")
    page: int = Field(description="The PDF page the provision starts on.")
    printed_page: str | None = None
    pages: list[int] = Field(description="Every PDF page the provision touches.")
    start: int = Field(description="Offsets into the document's Markdown.")
    end: int
    chunk_id: str = Field(description="The chunk the provision starts in (GET /chunks/{id}).")


def provision_document(index: Index, law: str, as_of: dt.date | None = None, article: str = "1") -> DocumentInfo:
    """The document article `article` of `law` is read from: the version of the law in force on `as_of` (default
    today); for a document that is not a law with versions (a decree, an agreement), the one its name resolves to;
    for a law the index holds only through decrees that amend it, the newest that prints the article
    (`LawCatalog.amending`: its title names the decree the text comes from)."""
    try:
        _, versions = find_law(index, law)
    except NotInIndex:
        catalog = index.catalog()
        refs = understood(f"artículo {article} de {' '.join(law.split())}", catalog)
        named = [d for _, docs in refs for d in docs]
        if named:
            return named[0]
        for ref, _ in refs:
            for decree in catalog.amending(ref) if names_a_law(ref) else []:
                if index.articles(decree.doc_id, [article]):
                    return decree
        raise
    return version_on(versions, as_of or dt.date.today())


def find_provision(index: Index, law: str, article: str, paragraph: int | None = None, fraction: str | None = None,
                   as_of: dt.date | None = None) -> Provision:
    """The article `article` of `law` (or its paragraph / fracción) in the version in force on `as_of`; what the index
    does not hold is `NotInIndex`, said in one line."""
    key = checked_key(article)
    doc = provision_document(index, law, as_of, key)
    found = index.articles(doc.doc_id, [key])
    if not found:
        raise NotInIndex(f"article {key} not found in {doc.title}")
    chunks = first_run(found)
    start, end = article_start(chunks[0]), chunks[-1].end
    fraction = fraction.strip().upper() if fraction and fraction.strip() else None
    part = paragraph is not None or fraction is not None
    if part:
        span = paragraph_span(chunks, paragraph, fraction)
        if span is None:
            what = ", ".join(p for p in (paragraph and f"párrafo {paragraph}", fraction and f"fracción {fraction}")
                             if p)
            raise NotInIndex(f"{what} of article {key} not found in {doc.title}")
        start, end = span
    text = _text(index, doc.doc_id, chunks, start, end)
    if part:  # the paragraph without the article's heading lines above it
        kept = LEADING_HEADINGS.sub("", text, count=1)
        start, text = start + len(text) - len(kept), kept
    start += len(text) - len(text.lstrip())
    text = text.strip()
    truncated = len(text) > MAX_PROVISION_CHARS
    text = text[:MAX_PROVISION_CHARS]
    end = start + len(text)
    opening = next(c for c in chunks if c.start <= start < c.end or c.start >= start)
    at = max(start, opening.start)
    page, printed = opening.page_at(at)
    versioned = doc.law_id is not None and doc.law_id in index.versioned_laws()
    return Provision(
        law=doc.title, law_id=doc.law_id, version=law_version(doc), doc_id=doc.doc_id, article=key,
        paragraph=paragraph, fraction=fraction, label=labels.label(doc, opening, at, versioned=versioned), text=text,
        truncated=truncated, notes=[n for c in chunks for n in c.notes if start <= n.start < end], page=page,
        printed_page=printed, pages=sorted({p for c in chunks if c.start < end and c.end > start for p in c.pages}),
        start=start, end=end, chunk_id=opening.chunk_id)


def paragraph_span(chunks: list[Chunk], paragraph: int | None, fraction: str | None) -> tuple[int, int] | None:
    """[start, end) of the paragraph (and/or fracción) in the article, from the chunks' paragraph marks: from the
    first mark that matches to the first later mark that does not."""
    marks = sorted({m.offset: m for c in chunks for m in c.paragraphs}.values(), key=lambda m: m.offset)

    def wanted(mark) -> bool:
        return (paragraph is None or mark.paragraph == paragraph) and (fraction is None or mark.fraccion == fraction)

    def same(mark, first) -> bool:  # a fracción's incisos belong to it; a paragraph's fracciones to it
        if fraction is not None:
            return mark.fraccion == first.fraccion and mark.paragraph == first.paragraph
        return mark.paragraph == first.paragraph

    begin = next((i for i, m in enumerate(marks) if wanted(m)), None)
    if begin is None:
        return None
    stop = next((m.offset for m in marks[begin + 1:] if not same(m, marks[begin])), chunks[-1].end)
    return marks[begin].offset, stop


def _text(index: Index, doc_id: str, chunks: list[Chunk], start: int, end: int) -> str:
    """The document's Markdown [start, end): from the chunks when they follow each other without a gap, else from the
    document record (the whitespace between two chunks is in neither; `Index.markdown` keeps the last few read)."""
    if all(a.end == b.start for a, b in zip(chunks, chunks[1:])):
        base = chunks[0].start
        return "".join(c.text for c in chunks)[start - base:end - base]
    markdown = index.markdown(doc_id)
    if markdown is None:
        raise NotInIndex(f"document {doc_id!r} left the index while it was read: try again")
    return markdown[start:end]
