"""What the ingest process itself spends per chunk when embedding costs next to nothing (as on a GPU).

The synthetic archive of `benchmarks/archive.py` is indexed in this process with `flows.indexing.run` (what
`gaceta ingest` runs without a Prefect API; parsing and chunking in its worker processes) by a sentence-transformers
encoder of one layer, 32 wide, with random weights around the packaged MiniLM tokenizer (`benchmarks/gpu_ingest.py`),
one torch thread. It prints the process's own CPU per chunk and each thread's CPU (`time.thread_time`) and wall
around the model call, the write and its parts. Measurement only: the functions are wrapped here, nothing is changed.

    GACETA_SHARED=../shared .venv/bin/python benchmarks/ingest_process_cpu.py --files 400
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

TINY = (1, 32, 64, 2)  # layers, width, feed-forward width, heads


def wrap(cls, name: str, cpu: dict, wall: dict, calls: dict) -> None:
    """Time every call of `cls.name` (a generator is drained inside the timing)."""
    original = getattr(cls, name)
    label = f"{cls.__name__}.{name}"

    @functools.wraps(original)
    def timed(*args, **kwargs):
        c, w = time.thread_time(), time.perf_counter()
        out = original(*args, **kwargs)
        if name == "_scroll":
            out = iter(list(out))
        cpu[label] += time.thread_time() - c
        wall[label] += time.perf_counter() - w
        calls[label] += 1
        return out

    setattr(cls, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--pages", type=int, default=2)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gaceta-ingest-cpu-"))
    try:
        measure(tmp, args.files, args.pages)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure(tmp: Path, files: int, pages: int) -> None:
    import archive
    import gpu_ingest

    gpu_ingest.SHAPES["tiny"] = TINY
    model = gpu_ingest.build_model("tiny", gpu_ingest.packaged_tokenizer(), tmp / "model")
    folder = tmp / "archive"
    archive.generate(folder, files, pages)
    os.environ.update(GACETA_HOME=str(tmp / "home"), GACETA_EMBEDDING_MODEL=str(model), GACETA_DEVICE="cpu",
                      GACETA_OPENINGS="off", OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1")

    from flows import indexing
    from retrieval.documents import DocumentRecords
    from retrieval.index import Index
    from retrieval.originals import Originals
    from retrieval.settings import Settings
    from retrieval.store.base import Store
    from retrieval.store.edge import EdgeStore

    cpu, wall, calls = defaultdict(float), defaultdict(float), defaultdict(int)
    for cls, name in [(Index, "embed"), (Index, "upsert_documents"), (Index, "_write_document"),
                      (Store, "upsert_document"), (EdgeStore, "_upsert"), (EdgeStore, "_scroll"),
                      (EdgeStore, "_delete"), (EdgeStore, "_set_payload"), (EdgeStore, "_save_meta"),
                      (DocumentRecords, "save"), (Originals, "keep"), (Originals, "begin"), (Originals, "add_ref")]:
        wrap(cls, name, cpu, wall, calls)
    indexing.warm_up(Settings())
    before = resource.getrusage(resource.RUSAGE_SELF)
    try:
        summary = indexing.run([str(folder)])
    finally:
        indexing.close_indexes()
    after = resource.getrusage(resource.RUSAGE_SELF)
    own = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    n = summary.chunks
    print(f"{summary.files_ok} files, {n} chunks in {summary.seconds:.1f} s; the ingest process's own CPU {own:.1f} s "
          f"= {1000 * own / n:.2f} ms a chunk\n")
    print("| part | CPU s | calls | ms of CPU a chunk | wall ms a call |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label in sorted(cpu, key=lambda k: -cpu[k]):
        print(f"| {label} | {cpu[label]:.2f} | {calls[label]} | {1000 * cpu[label] / n:.2f} "
              f"| {1000 * wall[label] / calls[label]:.2f} |")


if __name__ == "__main__":  # the parsing processes are spawned: they import this file without running it
    main()
