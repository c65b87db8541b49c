"""Flow tests share one Prefect test harness (a temporary API server and database; ~15 s to enter) and give
each test its own GACETA_HOME, so indexes, caches and downloads never leak between tests."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

# Prefect reads its home when first imported: keep the session's Prefect state out of ~/.prefect (and removed after
# the session: every run made one more folder in /tmp before).
os.environ["PREFECT_HOME"] = tempfile.mkdtemp(prefix="gaceta-test-prefect-")
atexit.register(shutil.rmtree, os.environ["PREFECT_HOME"])
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tests.conftest import pdf  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session", autouse=True)
def prefect_api() -> Iterator[str]:
    """The harness's API URL (subprocesses get it as PREFECT_API_URL, so they skip the ephemeral start-up)."""
    import flows  # noqa: F401  (offline settings before Prefect)
    from prefect.settings import PREFECT_API_URL
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=None):
        yield PREFECT_API_URL.value()


@contextmanager
def gaceta_env(home: Path, **extra: str) -> Iterator[Path]:
    """GACETA_HOME (and any GACETA_* extras) for the flows run inside the block; indexes closed after."""
    from flows.indexing import close_indexes

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GACETA_HOME", str(home))
        for key, value in extra.items():
            mp.setenv(key, value)
        try:
            yield home
        finally:
            close_indexes()


def link_pdfs(folder: Path, names: list[str]) -> Path:
    """A folder of symlinks to shared real PDFs (never copies)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).symlink_to(pdf(name))
    return folder


def subprocess_env(home: Path, api_url: str, **extra: str) -> dict[str, str]:
    env = {**os.environ, "GACETA_HOME": str(home), "PREFECT_API_URL": api_url, "PYTHONPATH": str(REPO),
           "PYTHONUNBUFFERED": "1", **extra}
    return env


GACETA_CLI = [sys.executable, "-c", "from gaceta.cli import main; main()"]
