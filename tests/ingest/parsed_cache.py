"""One parse per real PDF per test session, shared by every test module that imports it.

Parsing all of ../shared/data/pdfs costs minutes (OCR of the scanned files dominates); the parser's tests and the
chunk invariants read the same results instead of parsing twice.
"""

from __future__ import annotations

import functools

from ingest.models import ParseResult
from ingest.parse import parse_pdf
from tests.conftest import pdf


@functools.cache
def parsed(name: str) -> ParseResult:
    """`parse_pdf` of the shared PDF `name`, computed once per process."""
    return parse_pdf(pdf(name))
