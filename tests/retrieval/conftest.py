"""Fixtures shared by the retrieval tests that need one law in two versions (issue 24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.parse import parse_pdf
from retrieval.index import Index
from retrieval.settings import Settings
from tests.conftest import PDFS, SHARED

AMPARO_BEFORE = SHARED / "data" / "laws" / "mx_ley_de_amparo_DOF_2025-03-13.pdf"  # before the reform of 16-10-2025
AMPARO_AFTER = PDFS / "mx_ley_de_amparo.pdf"


@pytest.fixture(scope="session")
def amparo_versions(tmp_path_factory) -> Path:
    """A data dir whose index holds the Ley de Amparo as it stood on 13-03-2025 and after the reform of 16-10-2025
    (read-only for its users: each opens it in turn, the embedded index admits one holder)."""
    home = tmp_path_factory.mktemp("amparo-versions")
    with Index.open(Settings(home=home)) as index:
        for path in (AMPARO_BEFORE, AMPARO_AFTER):
            index.add_documents(parse_pdf(path).documents)
        index.optimize()
    return home
