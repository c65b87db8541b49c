"""`GET /documents` (the listing), `GET /documents/{doc_id}`, `DELETE /documents/{doc_id}`, `GET /chunks/{chunk_id}`
and the highlighted page image: what a reader checks a citation against. Every file read goes through the index's
record of the document, never through the request. DELETE, like every route, needs the API key when one is set (the
app installs it on the whole router)."""

from __future__ import annotations

import re
from html import escape
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Response
from fastapi.responses import HTMLResponse
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from gaceta.api.deps import get_index, get_renderer
from gaceta.api.pages import PageRenderer, SourceUnavailable, page_in_document
from gaceta.api.schemas import (ChunkResponse, DocumentListing, DocumentResponse, FiltersIn, HitDocument, IsoDate, Name, bounded_chunk,
                                errors)
from ingest.models import LegalDocument
from retrieval.documents import MAX_DOCUMENTS_PAGE
from retrieval.models import SearchFilters

router = APIRouter(tags=["documents"])

Id = Annotated[str, Path(min_length=1, max_length=300)]
_SPAN = re.compile(r"^(\d{1,9})-(\d{1,9})$")


def _document(index, doc_id: str) -> LegalDocument:
    doc = index.document(doc_id)
    if doc is None:
        raise HTTPException(404, f"no document {doc_id!r} in the index")
    return doc


FilterName = Annotated[list[Name] | None, Query(max_length=50)]


class Deleted(BaseModel):
    doc_id: str
    deleted: bool


@router.get("/documents", response_model=DocumentListing, summary="The indexed documents, filtered and paginated",
            responses=errors(422))
def list_documents(
    doc_type: FilterName = None,
    issuing_body: FilterName = None,
    date_from: IsoDate | None = None,
    date_to: IsoDate | None = None,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_DOCUMENTS_PAGE)] = 50,
    as_of: IsoDate | None = None,
    index=Depends(get_index),
) -> DocumentListing:
    """Newest publication first; the same filters as `/search` (repeat `doc_type` / `issuing_body` for several).
    `laws` groups the laws held in several versions, marking the one in force on `as_of` (default today)."""
    try:
        given = FiltersIn(doc_type=doc_type, issuing_body=issuing_body, date_from=date_from, date_to=date_to)
    except ValidationError as exc:
        raise RequestValidationError([{**e, "loc": ("query", *e["loc"])} for e in exc.errors()]) from None
    filters = SearchFilters.model_validate(given.model_dump())
    page = index.documents(filters, offset=offset, limit=limit)  # names already bounded (DocumentSummary.of)
    return DocumentListing.of(page, index.document_infos(), as_of)


@router.delete("/documents/{doc_id}", response_model=Deleted,
               summary="Remove a document: its chunks, its record, and its kept PDF when nothing else uses it",
               responses=errors(404, 422))
def delete_document(doc_id: Id, index=Depends(get_index)) -> Deleted:
    if not index.delete_document(doc_id):
        raise HTTPException(404, f"no document {doc_id!r} in the index")
    return Deleted(doc_id=doc_id, deleted=True)


@router.get("/documents/{doc_id}", response_model=DocumentResponse, summary="A document: metadata, headings, Markdown",
            responses=errors(404, 422))
def get_document(doc_id: Id, index=Depends(get_index)) -> DocumentResponse:
    return DocumentResponse.of(_document(index, doc_id))


@router.get("/chunks/{chunk_id}", response_model=ChunkResponse, summary="A chunk (its whole text) and its document",
            responses=errors(404, 422))
def get_chunk(chunk_id: Id, index=Depends(get_index)) -> ChunkResponse:
    chunk = index.chunk(chunk_id)
    if chunk is None:
        raise HTTPException(404, f"no chunk {chunk_id!r} in the index")
    return ChunkResponse(chunk=bounded_chunk(chunk), document=HitDocument.of(_document(index, chunk.doc_id)))


def _parse_span(highlight: str | None, doc: LegalDocument) -> tuple[int, int] | None:
    """START-END read as a slice of the document Markdown: an END past its end stops there, an empty span (START =
    END, or past the end) highlights nothing; a reversed span (START > END) is a 422."""
    if highlight is None:
        return None
    start, end = (int(g) for g in _SPAN.match(highlight).groups())
    if start > end:
        raise RequestValidationError([{
            "type": "value_error", "loc": ("query", "highlight"),
            "msg": f"START ({start}) is after END ({end}): give START-END offsets into the document Markdown",
        }])
    end = min(end, len(doc.markdown))
    return (start, end) if start < end else None


@router.get(
    "/documents/{doc_id}/pages/{n}.png",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}, "description": (
                "The page as PNG. X-Highlighted-Words counts the highlighted words; X-Highlight-Box gives their bounds "
                "as x0,y0,x1,y1 fractions of the page (to scroll a viewer to them)."
            )}, **errors(404, 410, 422)},
    summary="A PDF page as PNG, with a cited span highlighted",
)
def page_image(
    doc_id: Id,
    n: Annotated[int, Path(ge=1, le=100_000, description="PDF page number (1-based) within the document's pages")],
    highlight: Annotated[
        str | None,
        Query(pattern=_SPAN.pattern, description="START-END: document Markdown offsets of the span to highlight (a "
              "slice: an END past the document's end stops there; an empty span highlights nothing)"),
    ] = None,
    index=Depends(get_index),
    renderer: PageRenderer = Depends(get_renderer),
) -> Response:
    doc = _document(index, doc_id)
    if not page_in_document(doc, n):
        first, last = doc.pdf_pages
        raise HTTPException(404, f"page {n} is not in document {doc_id!r} (PDF pages {first}–{last})")
    span = _parse_span(highlight, doc)
    try:
        image = renderer.render(doc, n, span, getattr(index, "originals", None))
    except SourceUnavailable as exc:
        raise HTTPException(410, str(exc)) from None
    headers = {"Cache-Control": "private, max-age=3600", "X-Highlighted-Words": str(image.highlighted_words)}
    if image.box:
        headers["X-Highlight-Box"] = ",".join(f"{v:.4f}" for v in image.box)
    return Response(image.png, media_type="image/png", headers=headers)


_VIEW_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; img-src 'self'; style-src 'self'; base-uri 'none'; "
                               "form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
MAX_VIEW_QUOTE = 2_000  # characters of the highlighted span the page view prints under the image


def _plain(markdown: str) -> str:
    """A span of the document's Markdown as a reader sees it: heading marks and emphasis out, spacing squashed."""
    text = re.sub(r"(?m)^\s{0,3}#{1,6}\s+", "", markdown)
    text = re.sub(r"\*\*|__", "", text)
    return " ".join(text.split())


@router.get("/documents/{doc_id}/pages/{n}", response_class=HTMLResponse, include_in_schema=False)  # a page, like `/`
def page_view(
    doc_id: Id,
    n: Annotated[int, Path(ge=1, le=100_000, description="PDF page number (1-based) within the document's pages")],
    highlight: Annotated[
        str | None, Query(pattern=_SPAN.pattern, description="START-END: document Markdown offsets to highlight"),
    ] = None,
    index=Depends(get_index),
) -> HTMLResponse:
    """The page a citation's link opens (in a tab, pasted into a brief): the highlighted page image
    (`/documents/{doc_id}/pages/{n}.png`), what document and page it is, the cited words as text, the next and
    previous pages of the same document. Everything from the document is escaped text."""
    doc = _document(index, doc_id)
    first, last = doc.pdf_pages
    if not page_in_document(doc, n):
        raise HTTPException(404, f"page {n} is not in document {doc_id!r} (PDF pages {first}–{last})")
    span = _parse_span(highlight, doc)
    named = HitDocument.of(doc)  # the bounded names a hit carries
    title = named.title
    query = f"?highlight={span[0]}-{span[1]}" if span else ""
    base = f"/documents/{quote(doc_id, safe='')}/pages"
    facts = [f"Página {n} del PDF (páginas {first}–{last} del documento)"]
    for value in (named.doc_type and str(getattr(named.doc_type, "value", named.doc_type)), named.issuing_body,
                  named.publication_date and named.publication_date.isoformat()):
        if value:
            facts.append(str(value))
    nav = []
    if n > first:
        nav.append(f'<a rel="prev" href="{base}/{n - 1}">← página {n - 1}</a>')
    if n < last:
        nav.append(f'<a rel="next" href="{base}/{n + 1}">página {n + 1} →</a>')
    quoted = ""
    if span:
        words = _plain(doc.markdown[span[0]:span[1]])
        if len(words) > MAX_VIEW_QUOTE:
            words = words[:MAX_VIEW_QUOTE - 1] + "…"
        quoted = f'<h2>Texto resaltado</h2>\n<blockquote class="cite-quote">{escape(words)}</blockquote>\n'
    body = f"""<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} — p. {n}</title>
<link rel="stylesheet" href="/static/style.css">
</head>
<body class="page-view">
<header><a class="home" href="/">gaceta</a></header>
<main>
<h1>{escape(title)}</h1>
<p class="source-meta">{escape(" · ".join(facts))}</p>
{quoted}<nav class="pages">{" ".join(nav)}</nav>
<img id="page-image" src="{base}/{n}.png{query}" alt="Página {n} del PDF{' con el texto citado resaltado' if span else ''}">
</main>
</body>
</html>
"""
    return HTMLResponse(body, headers=_VIEW_HEADERS)
