"""SIGKILL the ingest (a real `gaceta ingest` subprocess) during parse, embed and upsert, re-run each time, and
require the final index to equal a clean run's: same point ids, same payloads, nothing pending, and at no
point a search hit from a document whose indexing had not completed; and no process the killed run started (its
parsing and embedding workers) outlives it."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from tests.flows.conftest import GACETA_CLI, gaceta_env, link_pdfs, subprocess_env
from tests.processes import still_running

FILES = ["dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf", "mx_reglamento_arts_121_122_LFT.pdf"]
RUN_TIMEOUT_S = 400


def dump_points(index) -> dict[str, dict]:
    """Every point of the (embedded) store, pending ones included: id → payload."""
    import qdrant_edge as q

    points, offset = {}, None
    while True:
        records, offset = index.store.shard.scroll(q.ScrollRequest(offset=offset, limit=256, with_payload=True))
        points.update({str(r.id): dict(r.payload or {}) for r in records})
        if offset is None:
            return points


def ingest_until(folder: Path, home: Path, api_url: str, marker: str | None) -> tuple[int, list[int]]:
    """Run `gaceta ingest`; SIGKILL it as soon as a log line contains `marker` (None: let it finish). Its exit code,
    and the processes it had started when it was killed."""
    env = subprocess_env(home, api_url, PREFECT_LOGGING_LEVEL="INFO")
    proc = subprocess.Popen([*GACETA_CLI, "ingest", str(folder), "--json"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    children: list[int] = []
    try:
        for line in proc.stderr:
            if marker and marker in line:
                time.sleep(0.2)  # land inside the stage, not at its first instruction
                children = [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
                proc.send_signal(signal.SIGKILL)
                break
        return proc.wait(timeout=RUN_TIMEOUT_S), children
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return link_pdfs(tmp_path_factory.mktemp("crash-inbox"), FILES)


@pytest.fixture(scope="module")
def clean_points(folder, tmp_path_factory):
    from flows.ingest_flow import run_ingest
    from flows.indexing import open_index
    from retrieval.settings import Settings

    with gaceta_env(tmp_path_factory.mktemp("clean-home")):
        summary, state = run_ingest([str(folder)])
        assert state == "Completed" and summary.files_ok == len(FILES)
        return dump_points(open_index(Settings()))


def assert_nothing_half_indexed_is_searchable(home: Path) -> None:
    from flows.indexing import open_index
    from retrieval.settings import Settings

    with gaceta_env(home):
        index = open_index(Settings())
        for query in ("artículo", "tabla", "trabajo"):
            for hit in index.search(query, k=50):
                assert index.has_document(hit.document.doc_id)
                assert hit.chunk.chunk_id  # a complete point, rebuilt from its payload


def test_sigkill_at_each_stage_then_rerun_equals_clean_run(folder, clean_points, prefect_api, tmp_path):
    from flows.indexing import open_index
    from retrieval.settings import Settings

    home = tmp_path / "home"
    started = 0
    for marker in ("stage parse:", "stage embed:", "stage upsert:"):
        rc, children = ingest_until(folder, home, prefect_api, marker)
        assert rc == -signal.SIGKILL, f"the run ended ({rc}) before reaching {marker!r}"
        started += len(children)
        left = still_running(children, within_s=30)  # its parsing and embedding workers end with it
        assert not left, f"still running after the ingest was killed at {marker!r}: {left}"
        assert_nothing_half_indexed_is_searchable(home)
    assert started, "the killed runs started no worker process: nothing was checked"
    assert ingest_until(folder, home, prefect_api, None)[0] == 0

    with gaceta_env(home):
        index = open_index(Settings())
        points = dump_points(index)
        assert index.status().pending == 0
    assert sorted(points) == sorted(clean_points)
    for point_id, payload in clean_points.items():
        assert points[point_id] == payload, point_id
