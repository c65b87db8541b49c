"""Suite-wide fixtures: where the shared real data lives (never copied into the repo)."""

from __future__ import annotations

import os
from pathlib import Path

import pymupdf
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GACETA_SHARED", REPO.parent / "shared"))
PDFS = SHARED / "data" / "pdfs"
EVAL = SHARED / "eval"


def pdf(name: str) -> Path:
    """Path of a real PDF from ../shared/data/pdfs; fails loudly if the shared data is missing."""
    path = PDFS / name
    if not path.exists():
        raise FileNotFoundError(f"shared test data missing: {path} (set GACETA_SHARED)")
    return path


def cut_pdf(source: Path, ranges: list[tuple[int, int]], out: Path) -> Path:
    """`out`: the pages of the real PDF `source` in `ranges` (0-based, inclusive), in order."""
    with pymupdf.open(source) as src, pymupdf.open() as cut:
        for first, last in ranges:
            cut.insert_pdf(src, from_page=first, to_page=last)
        cut.save(out)
    return out


@pytest.fixture(scope="session")
def pdfs_dir() -> Path:
    assert PDFS.is_dir(), f"shared PDFs not found at {PDFS} (set GACETA_SHARED)"
    return PDFS


@pytest.fixture(scope="session")
def eval_dir() -> Path:
    assert EVAL.is_dir(), f"shared eval sets not found at {EVAL} (set GACETA_SHARED)"
    return EVAL


AMPARO_BEFORE = SHARED / "data" / "laws" / "mx_ley_de_amparo_DOF_2025-03-13.pdf"  # before the reform of 16-10-2025
AMPARO_AFTER = PDFS / "mx_ley_de_amparo.pdf"


@pytest.fixture(scope="session")
def amparo_versions(tmp_path_factory) -> Path:
    """A data dir whose index holds the Ley de Amparo as it stood on 13-03-2025 and after the reform of 16-10-2025
    (issue 24; read-only for its users: each opens it in turn, the embedded index admits one holder)."""
    from ingest.parse import parse_pdf
    from retrieval.index import Index
    from retrieval.settings import Settings

    home = tmp_path_factory.mktemp("amparo-versions")
    with Index.open(Settings(home=home)) as index:
        for path in (AMPARO_BEFORE, AMPARO_AFTER):
            index.add_documents(parse_pdf(path).documents)
        index.optimize()
    return home
