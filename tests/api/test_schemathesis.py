"""Schemathesis against /openapi.json of a live uvicorn server on 127.0.0.1, with every check (`--checks all`):
generated requests, valid and invalid, never get a 5xx; every response — errors included (400, 404, 410, 413, 422) —
has a status code, content type and body the schema declares; invalid requests are refused and valid ones accepted;
a 405 names every method of its path. The two request rules JSON Schema cannot say (a date range, a highlight span
in order) are given to the fuzzer as hooks (`tests/api/schemathesis_hooks.py`). A fixed seed makes it reproducible;
the budget is bounded: every operation gets the coverage phase (boundary and invalid values) except the answer and
attribution routes, whose valid requests each run a whole answer (up to k=100 chunks), so they get a few fuzzed
examples instead.

Schemathesis runs as its CLI: its lazy pytest loader (`from_fixture`) does not work with pytest 9."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from gaceta.api.app import create_app
from retrieval.settings import Settings
from tests.api.conftest import DOF_TABLES, REGLAMENTO, LiveServer
from tests.index_fixtures import build_index

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
HOOKS = Path(__file__).with_name("schemathesis_hooks.py")


@pytest.fixture(scope="module")
def fuzz_url(tmp_path_factory):
    """A server over an index of its own: the fuzzer calls every operation, `DELETE /documents/{id}` and
    `POST /ingest` included, so it must not share the session index the other API tests read."""
    home = tmp_path_factory.mktemp("fuzz-home")
    index = build_index(home, [REGLAMENTO, DOF_TABLES])
    try:
        with LiveServer(create_app(Settings(home=home, answerer="extractive", api_key=None), index)) as server:
            # FastAPI builds the schema on its first request; schemathesis gives loading it only 10 s.
            httpx.get(f"{server.url}/openapi.json", timeout=120).raise_for_status()
            yield server.url
    finally:
        index.close()


@pytest.mark.parametrize(
    ("operations", "phases", "examples"),
    [(["--exclude-path-regex", "^/(ask|attribute)"], "coverage,fuzzing", "10"),
     (["--include-path-regex", "^/ask"], "fuzzing", "6"),
     (["--include-path-regex", "^/attribute"], "fuzzing", "6")],
    ids=["search-documents-ingest-health", "ask", "attribute"],
)
def test_generated_requests_get_declared_responses_and_no_server_errors(fuzz_url, tmp_path, operations, phases,
                                                                        examples):
    cmd = [
        str(SCHEMATHESIS), "run", f"{fuzz_url}/openapi.json", *operations,
        "--checks", "all", "--phases", phases, "--mode", "all", "--max-examples", examples,
        "--seed", "20250101", "--workers", "1", "--request-timeout", "60",
        "--suppress-health-check", "all", "--generation-database", "none", "--no-color",
    ]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path,
                         env={**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS)})
    report = run.stdout[-6000:] + run.stderr[-2000:]
    assert run.returncode == 0, report  # a 5xx or any other failed check is a non-zero exit
    assert "passed" in run.stdout and "Server error" not in run.stdout, report
