"""End-to-end `gaceta ingest` of the DOF files: pages/s, chunks/s and where the time goes.

Runs the real CLI in a subprocess on a fresh GACETA_HOME (so Prefect's ephemeral API start-up, model loading and
everything else a user waits for are counted), then again on the same home (all cached). Prints a Markdown table
for docs/benchmarks.md.

    .venv/bin/python benchmarks/ingest_e2e.py                 # the DOF editions (not the 779-page annex)
    .venv/bin/python benchmarks/ingest_e2e.py --all           # every dof_*.pdf
    .venv/bin/python benchmarks/ingest_e2e.py --files a.pdf b.pdf
    .venv/bin/python benchmarks/ingest_e2e.py --server        # plus a run against a running `prefect server`
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


def run_cli(folder: Path, home: Path, api_url: str | None = None) -> tuple[float, dict, float]:
    """(wall seconds, the run's JSON summary, 1-minute load average just before it)."""
    env = {**os.environ, "GACETA_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    env.pop("PREFECT_API_URL", None)  # the user's default: Prefect's ephemeral API
    if api_url:
        env["PREFECT_API_URL"] = api_url
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "from gaceta.cli import main; main()", "ingest", str(folder), "--json"],
                          env=env, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"gaceta ingest failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, json.loads(done.stdout), load


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
    args = parser.parse_args()
    names = args.files or sorted(p.name for p in PDFS.glob("dof_*.pdf") if args.all or p.name != ANNEX)

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
