"""`parse_pdf(path) -> ParseResult`: a PDF file into legal documents with Markdown, headings and page spans.

The path per page is one text extraction (or OCR where a page is a scan without text, or a scan whose text layer is
junk by `ingest.text_quality`; the pages to OCR are read together on a process pool), a cheap ruling test before any
table search, then everything else runs on the extracted lines in Python. Bad input never raises: it ends in a status.
"""

from __future__ import annotations

import hashlib
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from ingest import INGEST_VERSION, ocr, text_quality
from ingest.gc_pause import collector_paused
from ingest.headings import (ARTICLE_KINDS, ARTICULO, BODY_KINDS, GENERIC_KINDS, HEADING_MINOR, NUMERAL, TITLE,
                             Context, body_size, classify, continues_heading, levels_for, names_division,
                             numbered_sections, outline_by_page, spelled, title_below, title_wraps)
from ingest.identity import Evidence, Identity, identify
from ingest.layout import Line, extract_lines, invisible_share, reading_order
from ingest.markdown_build import build
from ingest.models import LegalDocument, ParseResult, ParseStatus, SourceFile
from ingest.pdf_open import OpenedPdf, is_garbled, open_pdf
from ingest.running_headers import RunningHeaders, detect
from ingest.split_documents import DocumentItems, Item, single_document, split_annexed_law, split_edition
from ingest.tables import TableBlock, page_tables

MAX_GENERIC_HEADING = 200  # a bold run longer than this is an emphasised paragraph
_EDITION = re.compile(r"(?:^|[_\-])(MAT|VES|EXT)(?:[_\-.]|$)", re.I)


@dataclass
class _Pages:
    lines: dict[int, list[Line]] = field(default_factory=dict)
    tables: dict[int, list[TableBlock]] = field(default_factory=dict)
    heights: dict[int, float] = field(default_factory=dict)
    widths: dict[int, float] = field(default_factory=dict)
    ocr: set[int] = field(default_factory=set)
    scanned_no_ocr: list[int] = field(default_factory=list)
    junk_kept: list[int] = field(default_factory=list)  # junk text layers OCR could not better
    ocr_unavailable: bool = False
    garbled: list[int] = field(default_factory=list)
    blank: int = 0


def parse_pdf(path: str | Path, ocr_workers: int | None = None) -> ParseResult:
    """Parse one file. The result's status says why a file yields no documents; no exception for bad input.

    `ocr_workers`: processes that OCR scanned pages in parallel (default: every core; the output is the same for
    any number)."""
    opened = open_pdf(path)
    base = dict(source=opened.source, status=opened.status, message=opened.message, repaired=opened.repaired,
                warnings=opened.warnings)
    if opened.doc is None:
        return ParseResult(**base)
    try:
        with collector_paused():
            return _parse(opened, ocr_workers)
    except (RuntimeError, ValueError) as exc:  # MuPDF errors on damaged content streams surface as RuntimeError
        base.update(status=ParseStatus.unreadable, message=f"MuPDF failed while reading pages: {exc}")
        return ParseResult(**base)
    finally:
        opened.doc.close()


def _read_pages(doc: pymupdf.Document, src: SourceFile, ocr_workers: int | None) -> _Pages:
    """Every page's lines: its text layer, or OCR where the page is a scan without text or with a junk text layer.
    The pages to OCR are found first, then read together on `ocr_workers` processes."""
    pages = _Pages()
    lines_of: dict[int, list[Line]] = {}
    texts: dict[int, str] = {}  # each page's text layer, measured once
    to_ocr: list[int] = []
    ocr_file = text_quality.ocr_producer(src.producer, src.creator)
    for index in range(doc.page_count):
        page, pno = doc[index], index + 1
        pages.heights[pno], pages.widths[pno] = page.rect.height, page.rect.width
        lines = lines_of[pno] = extract_lines(page, pno)
        text = texts[pno] = _text(lines)
        if lines and not text_quality.layer_is_junk(text, 1.0, True):
            continue  # good text even by the strictest measure: no need to look for a scan
        if ocr.looks_scanned(page) and (not lines or text_quality.layer_is_junk(
                text, invisible_share(page), ocr_file)):
            to_ocr.append(pno)
    if to_ocr:
        _ocr(doc, src, to_ocr, lines_of, pages, ocr_workers)
    for pno, lines in lines_of.items():
        if not lines:
            if pno not in pages.scanned_no_ocr:
                pages.blank += 1
            continue
        if pno not in pages.ocr and is_garbled(texts[pno]):
            pages.garbled.append(pno)
            continue
        tables, in_cells = ([], set()) if pno in pages.ocr else page_tables(doc[pno - 1], pno, lines)
        if tables:
            lines = [ln for ln in lines if id(ln) not in in_cells]
            pages.tables[pno] = tables
        pages.lines[pno] = lines
    return pages


def _text(lines: list[Line]) -> str:
    return "\n".join(ln.text for ln in lines)


def _ocr(doc: pymupdf.Document, src: SourceFile, page_nos: list[int], lines_of: dict[int, list[Line]],
         pages: _Pages, workers: int | None) -> None:
    """OCR `page_nos`; a page's OCR text replaces its text layer only when it is better by the text measure."""
    setup = ocr.ocr_setup()
    if not setup:
        pages.scanned_no_ocr = [pno for pno in page_nos if not lines_of[pno]]
        pages.junk_kept = [pno for pno in page_nos if lines_of[pno]]
        pages.ocr_unavailable = True
        return
    for pno, lines in ocr.ocr_pages(doc, page_nos, setup, workers, lambda: _file_bytes(doc, src)).items():
        old = lines_of[pno]
        if not old or text_quality.better(_text(lines), _text(old)):
            lines_of[pno] = lines
            pages.ocr.add(pno)
        else:
            pages.junk_kept.append(pno)


def _file_bytes(doc: pymupdf.Document, src: SourceFile) -> bytes:
    """The bytes the document was opened from (re-read, checked against the hash), for OCR workers to open."""
    try:
        data = Path(src.path).read_bytes()
    except OSError:
        data = b""
    return data if hashlib.sha256(data).hexdigest() == src.sha256 else doc.tobytes()


def _page_items(pages: _Pages, headers: RunningHeaders) -> list[tuple[int, Line | TableBlock]]:
    flat: list[tuple[int, Line | TableBlock]] = []
    for pno in sorted(set(pages.lines) | set(pages.tables)):
        body = [ln for ln in pages.lines.get(pno, []) if not headers.is_header(ln)]
        ordered = reading_order(body, pages.widths[pno])
        tables = sorted(pages.tables.get(pno, []), key=lambda t: t.bbox[1])
        for ln in ordered:
            while tables and tables[0].bbox[1] <= ln.y0:
                flat.append((pno, tables.pop(0)))
            flat.append((pno, ln))
        flat.extend((pno, t) for t in tables)
    return flat


def _classify(flat: list[tuple[int, Line | TableBlock]], ctx: Context) -> list[Item]:
    """Headings of the line stream, multi-line headings merged into their first line.

    In an edition, a title that directly follows an issuing body teaches the title font; a later title-like line
    ("IVA acreditable…" in an annex table) counts as a document title only in that font.
    """
    items: list[Item] = []
    title_fonts: set[tuple[str, float]] = set()
    i = 0
    while i < len(flat):
        pno, obj = flat[i]
        i += 1
        if isinstance(obj, TableBlock):
            items.append(Item(pno, table=obj))
            continue
        found = classify(obj, ctx)
        if found and found.kind == TITLE and ctx.dof:
            after_body = bool(items) and items[-1].heading is not None and items[-1].heading.kind in BODY_KINDS
            if after_body:
                title_fonts.add((obj.font, obj.size))
            elif (obj.font, obj.size) not in title_fonts:
                found = None
        merged = [obj]
        if found and found.kind == ARTICULO and not found.rest and not found.title and i < len(flat) \
                and isinstance(flat[i][1], Line) and title_below(obj, flat[i][1], ctx):
            found.title = flat[i][1].text.strip()
            found.label = f"{found.label} {found.title}"
            merged.append(flat[i][1])
            i += 1
        while found and found.kind == ARTICULO and found.title and not found.title.endswith(".") and i < len(flat) \
                and isinstance(flat[i][1], Line) and title_wraps(merged[-1], flat[i][1]):
            more = flat[i][1].text.strip()  # the title goes on in italics on the next line ("…de voto / doble.")
            found.title, found.label = f"{found.title} {more}", f"{found.label} {more}"
            merged.append(flat[i][1])
            i += 1
        if found and found.kind not in ARTICLE_KINDS:
            while i < len(flat) and isinstance(flat[i][1], Line) and continues_heading(found.kind, merged[-1],
                                                                                      flat[i][1], ctx):
                nxt = classify(flat[i][1], ctx)
                if nxt is not None and nxt.kind != found.kind:
                    break
                merged.append(flat[i][1])
                i += 1
            found.label = " ".join(spelled(ln.text.strip()) for ln in merged)
            if found.kind in GENERIC_KINDS and len(found.label) > MAX_GENERIC_HEADING:
                items.extend(Item(ln.page, line=ln) for ln in merged)  # a bold paragraph, not a heading
                continue
        named = items[-1] if items else None
        if found and named is not None and named.heading is not None and named.line is not None \
                and names_division(named.heading, named.line, found.kind, merged[0]):
            named.heading.title = found.label  # "TÍTULO II" named "Del juicio ordinario"; the name keeps its line
            if found.kind == TITLE:  # an annex's name set as a title opens no document of its own
                found.kind = HEADING_MINOR
        items.append(Item(pno, line=merged[-1], heading=found, first_line=merged[0]))
    return items


def _confirm_numerals(d: DocumentItems, ctx: Context) -> None:
    """The lines that open a numbered section stay headings only where the document's numbering confirms them
    (`numbered_sections`); any other is read again as if no numeral opened it (body text, or a bold heading)."""
    kept = numbered_sections([it.heading for it in d.items])
    for i, it in enumerate(d.items):
        if it.heading is not None and it.heading.kind == NUMERAL and i not in kept:
            it.heading = classify(it.line, ctx, numerals=False)


TABLE_TOP_ROWS = 6  # a table-only document's rows read as its first page's top rows (title, volume, date, number)


def _evidence(d: DocumentItems, flat_lines: list[Line], where: dict[int, int], headers: RunningHeaders,
              dof: bool, edition: str | None, source_name: str = "") -> Evidence:
    """What identity reads for one document: its first and last lines (with layout), headings and headers."""
    own = [it for it in d.items if not it.synthetic and (it.line is not None or it.table is not None)]
    starts = [where[id(it.first_line or it.line)] for it in own if (it.first_line or it.line) is not None
              and id(it.first_line or it.line) in where]
    ends = [where[id(it.line)] for it in own if it.line is not None and id(it.line) in where]
    lo, hi = (min(starts), max(ends) + 1) if starts and ends else (0, 0)
    first_page = own[0].page if own else (d.items[0].page if d.items else 1)
    page_headers = headers.page_texts.get(first_page) or headers.page_texts.get(first_page + 1, [])
    top = headers.tops.get(first_page, [])
    if hi == lo and not top:  # every page a table (a bulletin framed by rules): its first rows are its top rows
        first = next((it.table for it in d.items if it.table is not None), None)
        top = [" ".join(c.strip() for c in row if c.strip()) for row in (first.rows[:TABLE_TOP_ROWS] if first else [])]
        top = [t for t in top if t]
    return Evidence(
        lines=flat_lines[lo:min(hi, lo + 120)],
        headings=[it.heading for it in d.items if it.heading is not None and not it.synthetic],
        tail=" ".join(ln.text.strip() for ln in flat_lines[max(lo, hi - 60):hi]),
        headers=headers.texts, page_headers=page_headers, top=top,
        front_matter=d.front_matter, edition_title=d.title, edition_body=d.body or d.poder, dof=dof,
        dof_date=headers.date if dof else None, dof_section=headers.section if dof else None,
        dof_edition=edition, source_name=source_name,
    )


def _short(text: str, words: int = 8, chars: int = 60) -> str:
    short = " ".join(text.split()[:words])
    return short if len(short) <= chars else short[: chars - 1].rstrip() + "…"


def _parse(opened: OpenedPdf, ocr_workers: int | None = None) -> ParseResult:
    doc, src = opened.doc, opened.source
    result = ParseResult(source=src, status=ParseStatus.ok, message=opened.message, repaired=opened.repaired,
                         warnings=list(opened.warnings))
    pages = _read_pages(doc, src, ocr_workers)
    result.ocr_pages = sorted(pages.ocr)
    if pages.scanned_no_ocr:
        result.warnings.append(f"pages without text layer not OCR'd (Tesseract language data missing): "
                               f"{pages.scanned_no_ocr}")
    if pages.junk_kept:
        why = "Tesseract language data missing" if pages.ocr_unavailable else "OCR read them no better"
        result.warnings.append(f"pages whose text layer looks like OCR junk kept as they are ({why}): "
                               f"{pages.junk_kept}")
    if pages.garbled:
        result.warnings.append(f"pages whose text decodes to garbage (unmapped fonts) left out: {pages.garbled}")
    if not pages.lines and not pages.tables:
        if pages.garbled:
            result.status, result.message = ParseStatus.garbled, "text layer decodes to garbage (font without ToUnicode)"
        elif pages.scanned_no_ocr:
            result.status = ParseStatus.scanned_no_ocr
            result.message = "scanned pages and no Tesseract language data (install tesseract-ocr-spa, tesseract-ocr-eng)"
        elif pages.ocr:
            result.status, result.message = ParseStatus.no_text, "OCR found no text"
        else:
            result.status, result.message = ParseStatus.empty, "no text and no scanned images on any page"
        return result
    headers = detect(pages.lines, pages.heights, pages.widths)
    result.running_headers = headers.texts
    flat = _page_items(pages, headers)
    all_lines = [ln for lines in pages.lines.values() for ln in lines]
    try:
        toc = doc.get_toc()
    except (RuntimeError, ValueError):
        toc = []
    ctx = Context(body=body_size(all_lines), page_width=statistics.median(pages.widths.values()), dof=headers.is_dof,
                  outline=outline_by_page(toc))
    items = _classify(flat, ctx)
    docs = split_annexed_law(split_edition(items) if headers.is_dof else single_document(items))
    edition = None
    if headers.is_dof:
        m = _EDITION.search(Path(src.path).stem)
        edition = m.group(1).upper() if m else "MAT"
    flat_lines = [obj for _, obj in flat if isinstance(obj, Line)]
    where = {id(ln): i for i, ln in enumerate(flat_lines)}
    identities: dict[int, Identity] = {}  # id(DocumentItems) -> its identity: an annexed law is named after its decree
    for d in docs:
        _confirm_numerals(d, ctx)
        kinds = [it.heading.kind for it in d.items if it.heading]
        built = build(d, levels_for(kinds), headers.printed, pages.ocr)
        if not built.markdown.strip():
            continue
        position = len(result.documents)
        span_pages = [s.page for s in built.page_spans] or [d.items[0].page]
        ev = _evidence(d, flat_lines, where, headers, headers.is_dof, edition, Path(src.path).stem)
        ev.enacted_by = identities.get(id(d.annexed_to)) if d.annexed_to is not None else None
        ident = identities[id(d)] = identify(ev)
        title = " ".join(ident.title.split())
        if headers.is_dof:
            label = f"DOF {headers.date.isoformat()} {edition}" if headers.date else f"DOF {edition}"
        else:
            label = _short(ident.short_title or title)
        result.documents.append(LegalDocument(
            doc_id=f"{src.sha256[:12]}-{position:03d}", title=title, issuing_body=ident.issuing_body,
            doc_type=ident.doc_type, short_title=ident.short_title, aliases=ident.aliases, number=ident.number,
            gazette=ident.gazette, issue=ident.issue, publication_date=ident.publication_date,
            last_reform_date=ident.last_reform_date, amends=ident.amends, edition=ident.edition,
            section=ident.section, citation_form=ident.citation_form, source_path=src.path, source_sha256=src.sha256,
            position=position, pdf_pages=(min(span_pages), max(span_pages)),
            printed_pages=(headers.printed.get(min(span_pages)), headers.printed.get(max(span_pages))), label=label,
            law_id=ident.law_id, version_date=ident.version_date,
            ingest_version=INGEST_VERSION,
            markdown=built.markdown, headings=built.headings, page_spans=built.page_spans, tables=built.tables,
            amendments=built.amendments,
            ocr_pages=sorted(p for p in pages.ocr if min(span_pages) <= p <= max(span_pages)),
        ))
    if not result.documents:
        result.status, result.message = ParseStatus.no_text, "no usable text after removing headers and footers"
    return result
