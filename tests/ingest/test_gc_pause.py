"""Parsing and chunking pause Python's cyclic collector (ingest/gc_pause.py) and leave it as they found it."""

from __future__ import annotations

import gc

from ingest.chunker import chunk_document
from ingest.parse import parse_pdf
from tests.conftest import pdf


def _parse_and_chunk(name: str) -> int:
    result = parse_pdf(pdf(name))
    return sum(len(chunk_document(doc, lambda s: len(s.split()), 256)) for doc in result.documents)


def test_the_collector_runs_again_after_a_file_is_read_and_chunked():
    assert gc.isenabled()
    assert _parse_and_chunk("dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf") > 0
    assert gc.isenabled()


def test_a_caller_that_turned_the_collector_off_keeps_it_off():
    gc.disable()
    try:
        assert _parse_and_chunk("dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf") > 0
        assert not gc.isenabled()
    finally:
        gc.enable()
