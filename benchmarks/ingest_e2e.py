"""End-to-end `gaceta ingest` of the DOF files: pages/s, chunks/s and where the time goes.

Runs the real CLI in a subprocess on a fresh GACETA_HOME (so Prefect's ephemeral API start-up, model loading and
everything else a user waits for are counted), then again on the same home (all cached). Prints a Markdown table
for docs/benchmarks.md.

    .venv/bin/python benchmarks/ingest_e2e.py                 # the DOF editions (not the 779-page annex)
    .venv/bin/python benchmarks/ingest_e2e.py --all           # every dof_*.pdf
    .venv/bin/python benchmarks/ingest_e2e.py --files a.pdf b.pdf
    .venv/bin/python benchmarks/ingest_e2e.py --server        # plus a run against a running `prefect server`
    .venv/bin/python benchmarks/ingest_e2e.py --cpus 0 0,1    # fresh-home ingests pinned (`taskset -c`) to each CPU
                                                              # list: wall times, their ratio, same index contents
    ... --cpus 0 0,1 --code /tmp/old-checkout                 # the same with another checkout's code (before/after)
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PDFS = Path(os.environ.get("GACETA_SHARED", REPO.parent / "shared")) / "data" / "pdfs"
ANNEX = "dof_2025-01-20_RMF2025_anexo16_779pp.pdf"


def run_cli(folder: Path, home: Path, api_url: str | None = None, cpus: str | None = None,
            code: Path = REPO) -> tuple[float, dict, float]:
    """(wall seconds, the run's JSON summary, 1-minute load average just before it). `cpus`: a `taskset -c` list
    the run is pinned to (no thread settings by hand: what a container's CPU set does); `code`: the checkout whose
    code runs (`python -c` imports from its working directory first)."""
    env = {**os.environ, "GACETA_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    env.pop("PREFECT_API_URL", None)  # the user's default: Prefect's ephemeral API
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "GACETA_INGEST_WORKERS"):
        env.pop(name, None)
    if api_url:
        env["PREFECT_API_URL"] = api_url
    pin = ["taskset", "-c", cpus] if cpus else []
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run([*pin, sys.executable, "-c", "from gaceta.cli import main; main()", "ingest", str(folder),
                           "--json"], env=env, cwd=code, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"gaceta ingest failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, json.loads(done.stdout), load


# The index's chunks as (chunk id, text), sorted, read by the checkout that wrote them: their count and a digest.
CONTENTS = r"""
import hashlib, json
from retrieval.index import Index
from retrieval.settings import Settings
from retrieval.store.base import Where
index = Index.open(Settings())
rows = sorted((p["chunk_id"], p["text"]) for p in index.store._scroll(Where(), ["chunk_id", "text"]))
index.close()
print(json.dumps({"chunks": len(rows), "digest": hashlib.sha256(json.dumps(rows).encode()).hexdigest()}))
"""


def contents(home: Path, code: Path) -> dict:
    env = {**os.environ, "GACETA_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", CONTENTS], env=env, cwd=code, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"reading the index failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def pinned(folder: Path, tmp: Path, cpu_lists: list[str], code: Path) -> None:
    """A fresh-home ingest pinned to each CPU list, one after another: wall seconds, ratio to the first, contents."""
    print(f"code: {code} ({_commit(code)}); machine: {os.cpu_count()} CPUs\n")
    print("| CPUs (taskset -c) | load before | files | chunks | wall s | in-flow s | embed s | x first | "
          "index chunks | contents digest |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    first, digests = None, set()
    for cpus in cpu_lists:
        home = tmp / f"home-cpus-{cpus.replace(',', '_')}"
        wall, s, load = run_cli(folder, home, cpus=cpus, code=code)
        first = first or wall
        got = contents(home, code)
        digests.add(got["digest"])
        print(f"| {cpus} | {load:.1f} | {s['files_ok']} | {s['chunks']} | {wall:.1f} | {s['seconds']:.1f} "
              f"| {s['stages']['embed']:.1f} | {first / wall:.2f} | {got['chunks']} | {got['digest'][:12]} |",
              flush=True)
        print("  stage seconds, summed over files: " + ", ".join(f"{k} {v:.1f}" for k, v in s["stages"].items()),
              file=sys.stderr)
    print(f"\nindex contents (chunk ids and texts) {'identical' if len(digests) == 1 else 'DIFFER'} across the runs")


def _commit(code: Path) -> str:
    done = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "?"


@contextmanager
def prefect_server(tmp: Path) -> Iterator[str]:
    """A `prefect server start` on 127.0.0.1 (what a long-running deployment has), yielding its API URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "PREFECT_HOME": str(tmp / "server-home"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "DO_NOT_TRACK": "1", "PREFECT_UI_ENABLED": "false"}
    server = subprocess.Popen([str(Path(sys.executable).with_name("prefect")), "server", "start", "--host",
                               "127.0.0.1", "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/api"
    try:
        for _ in range(1800):
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("prefect server start did not answer in 3 minutes")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def row(label: str, wall: float, s: dict, load: float) -> str:
    stages = s["stages"]
    staged = sum(stages.values())
    pages, chunks = s["pages"], s["chunks"]
    rate = (f"{pages / wall:.2f} | {chunks / wall:.2f}" if pages else "- | -")
    return (f"| {label} (load {load:.1f}) | {s['files_ok'] + s['files_cached']} | {pages} | {chunks} | {wall:.1f} "
            f"| {s['seconds']:.1f} | {rate} | {stages['parse']:.1f} | {stages['chunk']:.1f} | {stages['embed']:.1f} "
            f"| {stages['upsert']:.1f} | {stages.get('optimize', 0):.1f} | {wall - staged:.1f} "
            f"| {wall - s['seconds']:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="include the 779-page annex")
    parser.add_argument("--files", nargs="*", help="file names under the shared PDFs folder")
    parser.add_argument("--server", action="store_true",
                        help="also run on a fresh home against a running `prefect server start` (no ephemeral API)")
    parser.add_argument("--cpus", nargs="+", metavar="LIST",
                        help="instead: one fresh-home ingest pinned to each `taskset -c` CPU list (e.g. 0 0,1)")
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout whose code runs (default: this one)")
    args = parser.parse_args()
    names = args.files or sorted(p.name for p in PDFS.glob("dof_*.pdf") if args.all or p.name != ANNEX)
    if args.cpus:
        with tempfile.TemporaryDirectory(prefix="gaceta-bench-") as tmp:
            folder = Path(tmp) / "in"
            folder.mkdir()
            for name in names:
                (folder / name).symlink_to(PDFS / name)
            print(f"files: {', '.join(names)}")
            pinned(folder, Path(tmp), args.cpus, args.code.resolve())
        return

    rows = []
    with tempfile.TemporaryDirectory(prefix="gaceta-bench-") as tmp:
        folder = Path(tmp) / "in"
        folder.mkdir()
        for name in names:
            (folder / name).symlink_to(PDFS / name)
        home = Path(tmp) / "home"
        wall, first, load = run_cli(folder, home)
        rows.append(row("first, fresh home", wall, first, load))
        rows.append(row("re-run, all cached", *run_cli(folder, home)))
        if args.server:
            with prefect_server(Path(tmp)) as url:
                rows.append(row("first, fresh home, running `prefect server`",
                                *run_cli(folder, Path(tmp) / "home-server", url)))

    print(f"files: {', '.join(names)}; cores: {os.cpu_count()}\n")
    print("| run | files | pages | chunks | wall s | in-flow s | pages/s (wall) | chunks/s (wall) | parse s | chunk s "
          "| embed s | upsert s | optimize s | Prefect + start-up + other s | outside the flow s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    fixed = wall - first["seconds"]
    if first["pages"]:
        per_page = first["seconds"] / first["pages"]
        print(f"\nin-flow seconds a page: {per_page:.2f}; outside the flow (imports, Prefect API start-up, exit): "
              f"{fixed:.1f} s; a 100-page edition at this rate: {fixed + per_page * 100:.0f} s end to end")
    for f in first["files"]:
        print(f"  {Path(f['path']).name}: {f['status']} {f['pages']} pages, {f['chunks']} chunks, {f['seconds']:.1f} s "
              + " ".join(f"{k} {v:.1f}" for k, v in f["stages"].items()))


if __name__ == "__main__":
    main()
