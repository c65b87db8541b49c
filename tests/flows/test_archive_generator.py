"""The synthetic archive of benchmarks/archive.py: distinct files built from the shared DOF editions, pages that
open, and a changed line that text extraction finds."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

import pymupdf

from tests.conftest import PDFS, REPO

_spec = importlib.util.spec_from_file_location("benchmarks_archive", REPO / "benchmarks" / "archive.py")
archive = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = archive  # a dataclass looks its module up there
_spec.loader.exec_module(archive)


def test_generated_files_are_distinct_pdfs_with_the_changed_text(tmp_path: Path) -> None:
    n, per_file = 12, 2
    paths = archive.generate(tmp_path / "a", n, per_file, folder=PDFS)
    assert len(paths) == n
    digests = {hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}
    assert len(digests) == n  # no two files hash alike
    editions = {e.name for e in archive.editions(PDFS)}
    assert len(editions) >= 2 and all(name.startswith("dof_") for name in editions)
    first_pages = set()
    for i, path in enumerate(paths):
        with pymupdf.open(path) as doc:
            assert doc.page_count == per_file
            for k, page in enumerate(doc):
                text = page.get_text()
                assert f"Folio sintético {i}-{k + 1} del " in text
                assert len(text) > 200  # the edition's own text came along
            first_pages.add(doc[0].get_text())
    assert len(first_pages) == n  # the extractable text differs too, not only the bytes


def test_generation_is_deterministic(tmp_path: Path) -> None:
    one = archive.generate(tmp_path / "one", 6, 1, folder=PDFS)
    two = archive.generate(tmp_path / "two", 6, 1, folder=PDFS)
    assert [p.name for p in one] == [p.name for p in two]
    assert [p.read_bytes() for p in one] == [p.read_bytes() for p in two]
    assert archive.matches(tmp_path / "one", 6, 1, 26)
