"""Suite-wide fixtures: where the shared real data lives (never copied into the repo)."""

from __future__ import annotations

import os
from pathlib import Path

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


@pytest.fixture(scope="session")
def pdfs_dir() -> Path:
    assert PDFS.is_dir(), f"shared PDFs not found at {PDFS} (set GACETA_SHARED)"
    return PDFS


@pytest.fixture(scope="session")
def eval_dir() -> Path:
    assert EVAL.is_dir(), f"shared eval sets not found at {EVAL} (set GACETA_SHARED)"
    return EVAL
