"""Parsing and chunking in worker processes (issue 26, `flows.parse_pool`): a file read in a worker becomes the same
documents and chunks as in the ingest process, a killed worker costs no file, and an ingest on several file workers
writes the index a one-worker ingest writes."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import pytest

from flows.parse_pool import ParsePool, parse_and_chunk
from retrieval.embedders import load_embedder
from tests.conftest import pdf
from tests.flows.conftest import REPO

EDITION = "dof_2024-12-15_MAT_full_edition_34pp.pdf"  # an edition of two documents
LAW = "co_diario_oficial_ley_99_1993.pdf"  # a whole law of 59 pages


def _read(result) -> tuple:
    """What a file became: its parse (status, documents with their Markdown and headings) and every field of every
    chunk."""
    return result.parsed.model_dump(), [[c.model_dump() for c in doc] for doc in result.chunks]


@pytest.fixture(scope="module")
def embedder():
    return load_embedder("use-v3")


@pytest.fixture(scope="module")
def here(embedder) -> dict:
    return {name: _read(parse_and_chunk(str(pdf(name)), embedder.count_tokens, embedder.max_tokens, 1))
            for name in (EDITION, LAW)}


def test_a_file_read_in_a_worker_is_the_file_read_here(embedder, here):
    pool = ParsePool(2, embedder.token_counter(), embedder.max_tokens, 1)
    try:
        for name in (EDITION, LAW):
            got = _read(pool.parse(str(pdf(name))))
            assert got == here[name]
            assert sum(len(doc) for doc in got[1]) > 100
    finally:
        pool.close()


def _workers_up(before: set[int], n: int, timeout_s: float = 60) -> list[multiprocessing.Process]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        new = [p for p in multiprocessing.active_children() if p.pid not in before]
        if len(new) >= n:
            return new
        time.sleep(0.05)
    raise AssertionError(f"{n} parsing workers did not start in {timeout_s} s")


def test_killed_workers_cost_no_file_and_the_next_file_gets_fresh_ones(embedder, here):
    before = {p.pid for p in multiprocessing.active_children()}
    pool = ParsePool(2, embedder.token_counter(), embedder.max_tokens, 1)
    try:
        pool.start()
        first = _workers_up(before, 2)
        for worker in first:
            os.kill(worker.pid, signal.SIGKILL)  # as the OOM killer would, before the file reaches them
        for worker in first:
            worker.join(10)
        assert _read(pool.parse(str(pdf(EDITION)))) == here[EDITION]  # read again alone, in a process of its own
        assert _read(pool.parse(str(pdf(LAW)))) == here[LAW]
        alive = {p.pid for p in multiprocessing.active_children()} - before
        assert alive and not alive & {w.pid for w in first}  # a fresh pool read the next file
    finally:
        pool.close()


CONTENTS = r"""
import json
from retrieval.index import Index
from retrieval.settings import Settings
from retrieval.store.base import Where
index = Index.open(Settings())
print(json.dumps(sorted((p["chunk_id"], p["text"]) for p in index.store._scroll(Where(), ["chunk_id", "text"]))))
index.close()
"""


def _ingest(home, workers: int) -> list:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GACETA_", "PREFECT_API_URL"))}
    env.update(GACETA_HOME=str(home), GACETA_INGEST_WORKERS=str(workers), HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", "from gaceta.cli import main; main()", "ingest", str(pdf(EDITION)), str(pdf(LAW)),
                           str(pdf("malformed_encrypted_password_test.pdf")), "--json"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)
    summary = json.loads(done.stdout)
    assert [f["status"] for f in summary["files"]] == ["ok", "ok", "failed"], done.stderr[-2000:]
    rows = subprocess.run([sys.executable, "-c", CONTENTS], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert rows.returncode == 0, rows.stderr[-2000:]
    return json.loads(rows.stdout.strip().splitlines()[-1])


def test_an_ingest_on_two_parsing_workers_writes_what_one_worker_writes(tmp_path):
    one, two = _ingest(tmp_path / "one", 1), _ingest(tmp_path / "two", 2)
    assert len(one) > 100
    assert two == one
