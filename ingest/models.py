"""The data contract between layers: what a parsed PDF becomes.

Offsets are character offsets into `LegalDocument.markdown`; pages are 1-based PDF page numbers.
Everything a citation needs (doc, chunk, span, page) is reachable from a `Chunk` alone, so retrieval
never has to reopen a PDF to cite it.
"""

from __future__ import annotations

import datetime as dt
from enum import Enum

from pydantic import BaseModel, Field


class ParseStatus(str, Enum):
    """Why a file did or did not yield documents. Every file ends with exactly one."""

    ok = "ok"
    encrypted = "encrypted"  # needs a password we do not have
    not_pdf = "not_pdf"  # the bytes are not a PDF at all
    unreadable = "unreadable"  # MuPDF could not repair the structure (no xref, broken objects)
    empty = "empty"  # zero pages, or pages with neither text nor images
    garbled = "garbled"  # a text layer that decodes to mojibake (unmapped fonts): not indexed
    scanned_no_ocr = "scanned_no_ocr"  # image-only pages and Tesseract is not installed
    no_text = "no_text"  # OCR ran but found no usable text


class SourceFile(BaseModel):
    path: str
    sha256: str
    bytes: int
    pages: int = 0
    producer: str | None = None
    creator: str | None = None
    title: str | None = None


class Heading(BaseModel):
    """A heading found in the document. `level` 2 is the outermost (level 1 is the synthetic Document line)."""

    level: int = Field(ge=2, le=9)
    text: str
    kind: str = "heading"  # issuing_body, title, titulo, capitulo, seccion, articulo, transitorios, clause, ...
    page: int
    start: int  # offset of the heading's Markdown line in LegalDocument.markdown
    end: int


class PageSpan(BaseModel):
    """Where a PDF page's text lies in the document Markdown, and the number printed on it."""

    page: int
    start: int
    end: int
    printed: str | None = None
    ocr: bool = False


class DocumentInfo(BaseModel):
    """Document metadata without its text: what a search hit or a citation carries."""

    doc_id: str
    title: str
    issuing_body: str | None = None
    doc_type: str | None = None  # DECRETO, ACUERDO, AVISO, NOM, LEY, RESOLUCION, SENTENCIA, ...
    publication_date: dt.date | None = None
    edition: str | None = None  # e.g. "MAT", "VES"
    section: str | None = None  # e.g. "Primera Sección"
    source_path: str
    source_sha256: str
    position: int = 0  # index of this document within its file
    pdf_pages: tuple[int, int]  # first and last PDF page (1-based, inclusive)
    printed_pages: tuple[str | None, str | None] = (None, None)
    label: str  # short name used in chunk headers, e.g. "DOF 2024-12-15 MAT"


class LegalDocument(DocumentInfo):
    markdown: str
    headings: list[Heading] = []
    page_spans: list[PageSpan] = []
    ocr_pages: list[int] = []

    def info(self) -> DocumentInfo:
        return DocumentInfo.model_validate(self.model_dump(include=set(DocumentInfo.model_fields)))

    def page_at(self, offset: int) -> int:
        """PDF page holding the character at `offset`."""
        page = self.pdf_pages[0]
        for span in self.page_spans:
            if span.start <= offset:
                page = span.page
            else:
                break
        return page


class Sentence(BaseModel):
    start: int  # offsets into LegalDocument.markdown, like Chunk.start/end
    end: int


class PageBreak(BaseModel):
    """A page that starts at `offset` (document Markdown); the first entry of a chunk is the page at its start."""

    offset: int
    page: int
    printed: str | None = None


class Chunk(BaseModel):
    chunk_id: str  # f"{doc_id}:{index:05d}"
    doc_id: str
    index: int
    header: str  # hierarchical Markdown header: "# Document: … | page: N\n## …\n### …"
    text: str  # verbatim LegalDocument.markdown[start:end]; the only citable part
    context: str | None = None  # optional LLM blurb (Contextual Retrieval); embedded, never cited
    heading_path: list[str] = []
    pages: list[int]  # PDF pages the chunk touches
    start: int
    end: int
    sentences: list[Sentence] = []
    page_breaks: list[PageBreak] = []
    is_table: bool = False

    def embedding_text(self) -> str:
        """What gets embedded and BM25-indexed: header + blurb + body (the header rescues orphan chunks)."""
        parts = [self.header]
        if self.context:
            parts.append(self.context)
        parts.append(self.text)
        return "\n\n".join(parts)

    def sentence_text(self, sentence: Sentence) -> str:
        return self.text[sentence.start - self.start : sentence.end - self.start]

    def page_at(self, offset: int) -> tuple[int, str | None]:
        """(PDF page, printed page) of the document offset `offset`, which lies inside this chunk."""
        page, printed = self.pages[0], None
        for brk in self.page_breaks:
            if brk.offset <= offset:
                page, printed = brk.page, brk.printed
            else:
                break
        return page, printed


class ParseResult(BaseModel):
    """One file's outcome: a status (never an exception) and the documents found."""

    source: SourceFile
    status: ParseStatus
    message: str = ""
    repaired: bool = False
    documents: list[LegalDocument] = []
    ocr_pages: list[int] = []
    running_headers: list[str] = []  # the repeated header/footer lines detected and stripped (normalised text)
    warnings: list[str] = []

    @property
    def ok(self) -> bool:
        return self.status is ParseStatus.ok
