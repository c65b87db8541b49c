"""Document records: each indexed LegalDocument as JSON under `settings.documents_dir`, keyed by doc_id.

The index holds chunks; citations, page images and `/documents/{id}` need the whole document (Markdown, page
spans, headings, source PDF path), which lives here — one small file per document, written before its chunks
become searchable.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ingest.models import LegalDocument

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,200}$")


class DocumentRecords:
    def __init__(self, directory: Path):
        self.directory = directory

    def _path(self, doc_id: str) -> Path:
        if not _SAFE_ID.fullmatch(doc_id) or ".." in doc_id:
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
        return LegalDocument.model_validate_json(path.read_text())

    def delete(self, doc_id: str) -> bool:
        path = self._path(doc_id)
        if path.is_file():
            path.unlink()
            return True
        return False
