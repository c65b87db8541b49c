"""Document records: each indexed LegalDocument as JSON under `settings.documents_dir`, keyed by doc_id.

The index holds chunks; citations, page images and `/documents/{id}` need the whole document (Markdown, page
spans, headings, source PDF path), which lives here — one small file per document, written before its chunks
become searchable. The PDF itself is kept by content under GACETA_HOME (`retrieval.originals`).
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
from pathlib import Path

from pydantic import BaseModel

from ingest.identity import bound
from ingest.models import DocumentInfo, LegalDocument
from retrieval.models import SearchFilters
from retrieval.store.base import REPAIR, IndexDamaged

MAX_DOCUMENTS_PAGE = 500  # documents one listing call returns at most
KEPT_MARKDOWN = 8  # documents whose Markdown a process keeps for the provisions it reads (`DocumentRecords.markdown`)

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,200}$")


def valid_id(doc_id: str) -> bool:
    """Could `doc_id` name a document (and a file under the data dir)? Anything else was never written."""
    return bool(_SAFE_ID.fullmatch(doc_id)) and ".." not in doc_id


class RecordDamaged(IndexDamaged, ValueError):
    """A document record that cannot be read: damage in one line naming the repair (a 503 under a request, like any
    store damage); a ValueError too, as an unreadable record always was to the doctor and the delete path."""


class DocumentRecords:
    def __init__(self, directory: Path):
        self.directory = directory

    def _path(self, doc_id: str) -> Path:
        if not valid_id(doc_id):
            raise ValueError(f"not a valid document id: {doc_id!r}")
        return self.directory / f"{doc_id.replace(':', '_')}.json"

    def save(self, doc: LegalDocument) -> None:
        path = self._path(doc.doc_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(doc.model_dump_json())
        os.replace(tmp, path)

    def load(self, doc_id: str) -> LegalDocument | None:
        try:
            path = self._path(doc_id)
        except ValueError:
            return None
        if not path.is_file():
            return None
        return _read(doc_id, path)

    def markdown(self, doc_id: str) -> str | None:
        """The document's Markdown alone (what a provision is cut from). The last KEPT_MARKDOWN read are kept while
        their record file is unchanged (its modification time and size are the key: a document written again is read
        again), so reading articles of one law in turn parses its record once, not per article (22 ms for the
        Constitution's)."""
        try:
            path = self._path(doc_id)
            stat = path.stat()
        except (ValueError, FileNotFoundError):
            return None
        return _markdown(doc_id, path, stat.st_mtime_ns, stat.st_size)

    def delete(self, doc_id: str) -> bool:
        path = self._path(doc_id)
        if path.is_file():
            path.unlink()
            return True
        return False


def _read(doc_id: str, path: Path) -> LegalDocument:
    try:
        return LegalDocument.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # UnicodeDecodeError and pydantic's ValidationError are ValueErrors
        raise RecordDamaged(f"the record of document {doc_id} is damaged ({type(exc).__name__}); {REPAIR}") from exc


@functools.lru_cache(maxsize=KEPT_MARKDOWN)
def _markdown(doc_id: str, path: Path, mtime_ns: int, size: int) -> str:
    return _read(doc_id, path).markdown


class DocumentSummary(BaseModel):
    """One line of a document listing (`GET /documents`, `gaceta documents`): no text, no file system paths."""

    doc_id: str
    title: str
    doc_type: str | None = None
    issuing_body: str | None = None
    publication_date: dt.date | None = None
    law_id: str | None = None  # the law it is a version of ("mx/ley-de-amparo"): versions of one law share it
    version_date: dt.date | None = None  # which version: its last reform as printed, else its publication
    label: str
    pages: int
    chunks: int

    @classmethod
    def of(cls, info: DocumentInfo, chunks: int) -> DocumentSummary:
        first, last = info.pdf_pages
        # a listing is an overview: names are cut at a word (`ingest.identity.bound`), the record keeps them whole
        return cls(doc_id=info.doc_id, title=bound(info.title),
                   doc_type=info.doc_type.value if info.doc_type is not None else None,
                   issuing_body=bound(info.issuing_body), publication_date=info.publication_date,
                   law_id=bound(info.law_id), version_date=info.version_date,
                   label=bound(info.label), pages=last - first + 1, chunks=chunks)


class DocumentPage(BaseModel):
    """A page of the listing: `total` documents match, these are `offset` … `offset + len(documents)`."""

    total: int
    offset: int
    limit: int
    documents: list[DocumentSummary]


def matches(info: DocumentInfo, filters: SearchFilters | None) -> bool:
    """The search filters' meaning on one document (as the store applies them to a chunk's payload)."""
    if filters is None:
        return True
    doc_type = info.doc_type.value if info.doc_type is not None else None
    if filters.doc_type and doc_type not in filters.doc_type:
        return False
    if filters.issuing_body and info.issuing_body not in filters.issuing_body:
        return False
    if filters.doc_ids and info.doc_id not in filters.doc_ids:
        return False
    if filters.date_from or filters.date_to:
        date = info.publication_date
        if date is None:
            return False
        if filters.date_from and date < filters.date_from:
            return False
        if filters.date_to and date > filters.date_to:
            return False
    return True
