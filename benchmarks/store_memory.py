"""Where an ingest's memory grows with the index written: qdrant-edge's own resident memory a point, by store setting.

`benchmarks/archive.py --files 10000` saw the ingest process grow by about 15 KB a chunk written. This replays the
points of an index that exists (its vectors and payloads, read back from its shard) into fresh qdrant-edge shards,
the way `EdgeStore` writes them (same vectors, payload indexes and HNSW settings; one document's points an update),
`--reps` times (new point ids each pass), and prints the process's anonymous and file-backed resident memory (from
/proc/self/status) a point written, under each setting:

- `gaceta`: the store as `retrieval.store.edge.EdgeStore` creates it (vectors in RAM, payloads cached);
- `on-disk`: dense and sparse vectors on disk, payloads and the id tracker cold;
- `sealed`: `on-disk`, plus segments of at most `--segment-kb` KB and an `optimize()` every `--every` points
  written, so that what is written goes into indexed, on-disk segments as the run goes.

Anonymous memory is what the process holds; file-backed memory is the page cache of the shard's own files (the
kernel takes it back under pressure). Linux only.

    .venv/bin/python benchmarks/store_memory.py --home H --reps 6
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import qdrant_edge as q

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from retrieval.store.base import DENSE, HNSW_EF_CONSTRUCT, HNSW_M, SPARSE  # noqa: E402
from retrieval.store.edge import INDEXING_THRESHOLD_KB, create_shard, edge_config  # noqa: E402


def resident_mb() -> tuple[float, float]:
    """(anonymous, file-backed) resident MB of this process."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["RssAnon"].split()[0]) / 1024, int(fields["RssFile"].split()[0]) / 1024


def read_points(shard_dir: Path) -> tuple[int, list[tuple[dict, dict]]]:
    """The dimension and every point (vectors, payload) of an existing shard, grouped by document."""
    shard = q.EdgeShard.load(str(shard_dir))
    points, offset = [], None
    try:
        while True:
            records, offset = shard.scroll(q.ScrollRequest(offset=offset, limit=1024, with_payload=True,
                                                           with_vector=True))
            points += [(r.vector, r.payload or {}) for r in records]
            if offset is None:
                break
    finally:
        shard.close()
    points.sort(key=lambda p: str(p[1].get("doc_id")))
    return len(points[0][0][DENSE]), points


def config(setting: str, dim: int, segment_kb: int) -> q.EdgeConfig:
    """The store's own config (`edge_config`), or the on-disk variants tried against it."""
    if setting == "gaceta":
        return edge_config(dim)
    return q.EdgeConfig(
        vectors={DENSE: q.EdgeVectorParams(size=dim, distance=q.Distance.Cosine, on_disk=True)},
        sparse_vectors={SPARSE: q.EdgeSparseVectorParams(modifier=q.Modifier.Idf, on_disk=True)},
        hnsw_config=q.HnswIndexConfig(m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT,
                                      full_scan_threshold=INDEXING_THRESHOLD_KB),
        optimizers=q.EdgeOptimizersConfig(indexing_threshold=INDEXING_THRESHOLD_KB,
                                          max_segment_size=segment_kb if setting == "sealed" else None),
        payload_memory=q.Memory.Cold,
        id_tracker_memory=q.Memory.Cold,
    )


def replay(setting: str, dim: int, points: list, reps: int, every: int, segment_kb: int, folder: Path) -> dict:
    shard = create_shard(folder, config(setting, dim, segment_kb))
    anon0, file0 = resident_mb()
    t0, optimizing, written, last = time.perf_counter(), 0.0, 0, 0
    for _ in range(reps):
        for _, group in itertools.groupby(points, key=lambda p: str(p[1].get("doc_id"))):
            batch = [q.Point(str(uuid.uuid4()), {DENSE: v[DENSE], SPARSE: v[SPARSE]}, payload) for v, payload in group]
            shard.update(q.UpdateOperation.upsert_points(batch))
            written += len(batch)
            if setting == "sealed" and written - last >= every:
                t1 = time.perf_counter()
                shard.optimize()
                optimizing += time.perf_counter() - t1
                last = written
    anon, file = resident_mb()
    t1 = time.perf_counter()
    shard.optimize()
    final = time.perf_counter() - t1
    anon_opt, file_opt = resident_mb()
    segments = shard.info().segments_count
    shard.close()
    return {"setting": setting, "points": written, "anon_kb_a_point": round((anon - anon0) * 1024 / written, 2),
            "file_kb_a_point": round((file - file0) * 1024 / written, 2), "write_s": round(t1 - t0, 1),
            "optimize_during_s": round(optimizing, 1), "final_optimize_s": round(final, 1),
            "anon_mb_after_optimize": round(anon_opt - anon0), "file_mb_after_optimize": round(file_opt - file0),
            "segments": segments}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="a GACETA_HOME holding an embedded index")
    ap.add_argument("--collection", default="gaceta")
    ap.add_argument("--reps", type=int, default=3, help="passes over the index's points (new ids each pass)")
    ap.add_argument("--every", type=int, default=10_000, help="sealed: optimize after this many points")
    ap.add_argument("--segment-kb", type=int, default=40_000, help="sealed: largest segment (KB)")
    ap.add_argument("--settings", nargs="+", default=["gaceta", "on-disk", "sealed"])
    ap.add_argument("--one", help=argparse.SUPPRESS)  # the child process measuring one setting
    args = ap.parse_args()
    if args.one is None:  # each setting in a fresh process: the allocator's free lists are not carried over
        for setting in args.settings:
            child = [sys.executable, __file__, "--home", str(args.home), "--collection", args.collection, "--reps",
                     str(args.reps), "--every", str(args.every), "--segment-kb", str(args.segment_kb), "--one", setting]
            row = json.loads(subprocess.run(child, check=True, capture_output=True, text=True).stdout)
            print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        return
    dim, points = read_points(args.home / "index" / args.collection / "shard")
    print(f"{len(points)} points of {dim} dimensions from {args.home}, {args.reps} passes", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="store-memory-") as tmp:
        row = replay(args.one, dim, points, args.reps, args.every, args.segment_kb, Path(tmp) / "shard")
    print(json.dumps(row))


if __name__ == "__main__":
    main()
