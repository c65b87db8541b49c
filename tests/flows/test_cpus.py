"""Every pool of an ingest is sized from the CPUs the process may use (its affinity mask), not the machine's count
(issue 26): a process pinned to one CPU runs one file worker (in the process, one file in flight), one encoder
process, one torch thread, one OCR process; GACETA_INGEST_WORKERS overrides the file workers (parsing processes)
alone, with twice as many files in flight. The numpy encoder in the process keeps one BLAS thread
whatever the CPUs (its parallelism is the encoder processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

# A child process reports the pools as the product builds them: the flow's Prefect task runner (as a flow run
# duplicates it), the plain thread pool's count, the numpy encoder's processes and BLAS limit, torch's intra-op
# threads and OCR.
CHILD = r"""
import json, os, sys
os.sched_setaffinity(0, json.loads(sys.argv[1]))
import torch
from flows.indexing import file_workers
from flows.ingest_flow import FileWorkersRunner
from ingest.ocr import default_workers
from retrieval.embedders import load_embedder
use = load_embedder("use-v3")
load_embedder("minilm")
print(json.dumps({"runner": FileWorkersRunner().duplicate()._max_workers, "files": file_workers(),
                  "encoders": use.pool.workers, "blas": use.model.threads, "torch": torch.get_num_threads(), "ocr": default_workers(),
                  "machine": os.cpu_count()}))
"""


def pools(cpus: set[int], **env: str) -> dict:
    environ = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "GACETA_INGEST_WORKERS")}
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(sorted(cpus))], cwd=REPO, capture_output=True,
                          text=True, env={**environ, **env}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def allowed() -> set[int]:
    cpus = os.sched_getaffinity(0)
    assert cpus, "no CPU in this process's affinity mask"
    return cpus


def test_pinned_to_one_cpu_every_pool_has_one_thread(allowed):
    got = pools({min(allowed)})
    assert got == {"runner": 1, "files": 1, "encoders": 1, "blas": 1, "torch": 1, "ocr": 1,
                   "machine": os.cpu_count()}


def test_every_allowed_cpu_is_used(allowed):
    n = len(allowed)
    got = pools(allowed)
    assert (got["files"], got["encoders"], got["torch"], got["ocr"]) == (n, n, n, n)
    assert got["runner"] == (2 * n if n > 1 else 1)  # files in flight: twice the parsing processes
    assert got["blas"] == 1


def test_ingest_workers_setting_overrides_the_file_workers_only(allowed):
    got = pools({min(allowed)}, GACETA_INGEST_WORKERS="3")
    assert (got["runner"], got["files"]) == (6, 3)
    assert (got["encoders"], got["blas"], got["torch"], got["ocr"]) == (1, 1, 1, 1)


def test_ingest_workers_setting_rejects_zero():
    from pydantic import ValidationError

    from retrieval.settings import Settings

    with pytest.raises(ValidationError, match="ingest_workers"):
        Settings(ingest_workers=0)
