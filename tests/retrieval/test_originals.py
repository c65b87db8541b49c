"""Kept originals and source replacement (retrieval/originals.py through Index), on a real regulation.

The update test is the one of issue 16: a PDF changed in place ("mayo" → "agosto" in one sentence) and ingested
again from the same path leaves one document, whose old sentence is neither found nor cited.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pymupdf
import pytest

from ingest.parse import parse_pdf
from retrieval.embedders import load_embedder
from retrieval.index import Index
from retrieval.models import SearchFilters, SearchMode
from retrieval.originals import Originals, source_key
from retrieval.settings import Settings
from tests.conftest import pdf

REGLAMENTO = "mx_reglamento_arts_121_122_LFT.pdf"
OLD = "2 de mayo de 1975"
NEW = "2 de agosto de 1975"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def change_mayo_to_agosto(path: Path) -> None:
    """The transitory article's date "mayo" becomes "agosto": its line is redacted and written again with the new
    word (PyMuPDF), saved over the same path; checked with PyMuPDF's own text extraction (reading order)."""
    with pymupdf.open(path) as doc:
        page = doc[5]
        span = next(s for b in page.get_text("dict")["blocks"] for line in b.get("lines", []) for s in line["spans"]
                    if "mayo de 1975" in s["text"])
        page.add_redact_annot(pymupdf.Rect(span["bbox"]))
        page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE)
        page.insert_text(span["origin"], span["text"].replace("mayo", "agosto"), fontname="helv",
                         fontsize=span["size"])
        data = doc.tobytes(garbage=3, deflate=True)
    path.write_bytes(data)  # in place: the same path (and inode) now holds other bytes
    with pymupdf.open(path) as doc:
        text = " ".join(doc[5].get_text(sort=True).split())
    assert f"Federación el {NEW}." in text and OLD not in text


@pytest.fixture(scope="module")
def embedder():
    return load_embedder(Settings().embedding_model)


@pytest.fixture
def open_index(tmp_path, embedder):
    opened = []

    def make(home: Path | None = None) -> Index:
        index = Index.open(Settings(home=home or tmp_path / "home"), embedder=embedder)
        opened.append(index)
        return index

    yield make
    for index in opened:
        index.store.close()


def ingest(index: Index, path: Path) -> list[str]:
    result = parse_pdf(path)
    assert result.documents, result.message
    index.add_documents(result.documents)
    return [d.doc_id for d in result.documents]


def test_original_is_kept_by_content_once(tmp_path, open_index):
    source = tmp_path / "inbox" / "reglamento.pdf"
    source.parent.mkdir()
    shutil.copy(pdf(REGLAMENTO), source)
    index = open_index()
    doc_ids = ingest(index, source)
    digest = sha256(source)
    kept = index.originals.kept(digest)
    assert kept == tmp_path / "home" / "originals" / digest[:2] / f"{digest}.pdf"
    assert sha256(kept) == digest
    assert os.stat(kept).st_ino != os.stat(source).st_ino  # not a hard link: see the overwrite below
    refs = index.originals.refs(digest)
    assert refs.doc_ids == set(doc_ids) and refs.sources == {source_key(source)}
    before = os.stat(kept)
    ingest(index, source)  # the same bytes again: nothing rewritten
    assert os.stat(kept).st_mtime_ns == before.st_mtime_ns and index.status().documents == 1
    # The inbox file overwritten in place (what `cp new.pdf inbox/reglamento.pdf` does) leaves the kept bytes alone
    # (a hard link would share the inode and now hold the new bytes); emptying the inbox does too.
    change_mayo_to_agosto(source)
    assert sha256(kept) == digest
    source.unlink()
    assert sha256(kept) == digest


def test_bytes_that_do_not_match_are_not_kept(tmp_path):
    originals = Originals(tmp_path / "home")
    other = tmp_path / "other.pdf"
    shutil.copy(pdf(REGLAMENTO), other)
    assert originals.keep(other, "0" * 64) is None
    assert originals.keep(tmp_path / "missing.pdf", sha256(other)) is None
    assert originals.keep(other, "../../etc/passwd") is None
    assert not list((tmp_path / "home" / "originals").rglob("*.pdf"))
    # a kept file damaged in place (a hard link whose inbox file was overwritten) is kept again
    kept = originals.keep(other, sha256(other))
    kept.unlink()
    kept.write_bytes(b"%PDF-1.7 overwritten")
    assert originals.keep(other, sha256(other)) == kept and sha256(kept) == sha256(other)


def test_changed_source_replaces_its_document(tmp_path, open_index):
    """Issue 16: change the file in place, ingest it again from the same path → one document, the new text only."""
    from retrieval.answers import ask

    source = tmp_path / "inbox" / "reglamento.pdf"
    source.parent.mkdir()
    shutil.copy(pdf(REGLAMENTO), source)
    index = open_index()
    old_ids = ingest(index, source)
    old_sha = sha256(source)
    assert any(OLD in h.chunk.text for h in index.search(OLD, k=5, mode=SearchMode.bm25))

    change_mayo_to_agosto(source)
    new_sha = sha256(source)
    new_ids = ingest(index, source)
    assert set(new_ids).isdisjoint(old_ids)

    status = index.status()
    assert status.documents == 1 and status.pending == 0
    for doc_id in old_ids:
        assert index.document(doc_id) is None and not index.has_document(doc_id)
    assert index.originals.kept(old_sha) is None  # nothing else refers to the old bytes
    assert sha256(index.originals.kept(new_sha)) == new_sha
    assert index.originals.current(source_key(source)) == new_sha

    for mode in SearchMode:
        hits = index.search(f"Reglamento publicado el {OLD}", k=20, mode=mode)
        assert hits and all(OLD not in h.chunk.text for h in hits)
        assert {h.document.doc_id for h in hits} == set(new_ids)
    assert any(NEW in h.chunk.text for h in index.search(NEW, k=5, mode=SearchMode.bm25))
    answer = ask(index, f"¿Qué reglamento publicado el {OLD} se abroga?", k=5, answerer="extractive",
                 settings=index.settings)
    cited = [c for segment in answer.content for c in segment.citations]
    assert cited and all(OLD not in c.cited_text for c in cited)
    assert OLD not in answer.text
    assert all(c.doc_id in new_ids for c in cited)
    assert all(s.document.doc_id in new_ids for s in answer.sources)
    assert index.documents().total == 1


def test_a_second_copy_of_the_same_bytes_keeps_the_documents(tmp_path, open_index):
    """Two paths with the same bytes share documents: replacing one source does not remove what the other has."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    first, second = inbox / "a.pdf", inbox / "b.pdf"
    shutil.copy(pdf(REGLAMENTO), first)
    shutil.copy(pdf(REGLAMENTO), second)
    index = open_index()
    ids = ingest(index, first)
    assert ingest(index, second) == ids
    shared = sha256(first)
    change_mayo_to_agosto(first)
    new_ids = ingest(index, first)
    assert index.status().documents == 2  # b.pdf still has the old bytes: its document stays
    assert all(index.has_document(d) for d in ids + new_ids)
    assert index.originals.kept(shared) is not None
    assert index.originals.refs(shared).sources == {source_key(second)}


def test_delete_removes_points_record_and_unreferenced_original(tmp_path, open_index):
    source = tmp_path / "reglamento.pdf"
    shutil.copy(pdf(REGLAMENTO), source)
    index = open_index()
    result = parse_pdf(source)
    doc = result.documents[0]
    # A second document parsed from the same bytes (an edition holds many): the kept file is shared.
    twin = doc.model_copy(update={"doc_id": doc.doc_id[:-3] + "999", "position": 999})
    index.add_documents([doc, twin])
    digest = sha256(source)
    assert index.status().documents == 2

    assert index.delete_document(twin.doc_id)
    assert not index.has_document(twin.doc_id) and index.document(twin.doc_id) is None
    assert index.originals.kept(digest) is not None  # still referred to by `doc`
    assert index.originals.refs(digest).doc_ids == {doc.doc_id}

    assert index.delete_document(doc.doc_id)
    assert index.status().documents == 0 and index.status().chunks == 0
    assert index.originals.kept(digest) is None
    assert not list((tmp_path / "home" / "originals").rglob("*.*"))
    assert index.originals.current(source_key(source)) is None  # the source is forgotten: re-ingest adds it anew
    assert not index.delete_document(doc.doc_id) and not index.delete_document("../etc")


def test_listing_filters_and_pages(tmp_path, open_index):
    source = tmp_path / "reglamento.pdf"
    shutil.copy(pdf(REGLAMENTO), source)
    index = open_index()
    (doc_id,) = ingest(index, source)
    info = index.document(doc_id)
    page = index.documents()
    assert page.total == 1
    (row,) = page.documents
    assert row.doc_id == doc_id and row.title == info.title and row.chunks == index.status().chunks
    assert row.pages == info.pdf_pages[1] - info.pdf_pages[0] + 1
    assert index.documents(SearchFilters(doc_type=[info.doc_type.value])).total == 1
    assert index.documents(SearchFilters(doc_type=["NOM"])).total == 0
    if info.publication_date:
        assert index.documents(SearchFilters(date_from=info.publication_date)).total == 1
        assert index.documents(SearchFilters(date_to=info.publication_date.replace(year=1900))).total == 0
    assert index.documents(offset=1).documents == []
    assert index.documents(limit=10_000).limit == 500


def _half_replaced(tmp_path, open_index, commit: bool):
    """Ingest a file, then replace it but stop (as a crash would) just before or just after the switch."""
    source = tmp_path / "inbox" / "reglamento.pdf"
    source.parent.mkdir()
    shutil.copy(pdf(REGLAMENTO), source)
    index = open_index()
    old_ids = ingest(index, source)
    old_sha = sha256(source)
    change_mayo_to_agosto(source)
    new_sha = sha256(source)
    result = parse_pdf(source)
    key = source_key(source)
    originals = index.originals
    assert originals.keep(source, new_sha)
    assert originals.begin(key, new_sha) == old_sha
    for doc in result.documents:
        originals.add_ref(new_sha, doc.doc_id, key)
        chunks = index.chunk_document(doc)
        index._write_document(doc, chunks, index.embed(chunks))
    if commit:
        originals.commit(key, new_sha, old_sha)
    index.store.close()  # the crash: nothing more happens in this process
    return source, old_ids, old_sha, [d.doc_id for d in result.documents], new_sha


@pytest.mark.parametrize("commit", [False, True], ids=["crash-before-switch", "crash-after-switch"])
def test_an_interrupted_replacement_leaves_one_version(tmp_path, open_index, commit):
    source, old_ids, old_sha, new_ids, new_sha = _half_replaced(tmp_path, open_index, commit)
    index = open_index()
    index.delete_document("not-a-document")  # any write through the index first finishes what the crash left
    kept_ids, gone_ids = (new_ids, old_ids) if commit else (old_ids, new_ids)
    kept_sha, gone_sha = (new_sha, old_sha) if commit else (old_sha, new_sha)
    assert index.status().documents == 1
    assert all(index.has_document(d) for d in kept_ids) and not any(index.has_document(d) for d in gone_ids)
    assert index.originals.current(source_key(source)) == kept_sha
    assert sha256(index.originals.kept(kept_sha)) == kept_sha and index.originals.kept(gone_sha) is None
    assert not list(index.originals.inflight_dir.iterdir())
    # and a re-run of the ingest ends on the file's current bytes
    ingest(index, source)
    assert index.status().documents == 1 and all(index.has_document(d) for d in new_ids)
