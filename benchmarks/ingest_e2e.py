"""End-to-end `gaceta ingest` of the DOF files: pages/s, chunks/s and where the time goes.

Runs the real CLI in a subprocess on a fresh GACETA_HOME (so Prefect's ephemeral API start-up, model loading and
everything else a user waits for are counted), then again on the same home (all cached). Prints a Markdown table
for docs/benchmarks.md.

    .venv/bin/python benchmarks/ingest_e2e.py                 # the DOF editions (not the 779-page annex)
    .venv/bin/python benchmarks/ingest_e2e.py --all           # every dof_*.pdf
    .venv/bin/python benchmarks/ingest_e2e.py --files a.pdf b.pdf
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PDFS = Path(os.environ.get("GACETA_SHARED", REPO.parent / "shared")) / "data" / "pdfs"
ANNEX = "dof_2025-01-20_RMF2025_anexo16_779pp.pdf"


def run_cli(folder: Path, home: Path) -> tuple[float, dict]:
    env = {**os.environ, "GACETA_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    env.pop("PREFECT_API_URL", None)  # the user's default: Prefect's ephemeral API
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "from gaceta.cli import main; main()", "ingest", str(folder), "--json"],
                          env=env, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"gaceta ingest failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="include the 779-page annex")
    parser.add_argument("--files", nargs="*", help="file names under the shared PDFs folder")
    args = parser.parse_args()
    names = args.files or sorted(p.name for p in PDFS.glob("dof_*.pdf") if args.all or p.name != ANNEX)

    with tempfile.TemporaryDirectory(prefix="gaceta-bench-") as tmp:
        folder = Path(tmp) / "in"
        folder.mkdir()
        for name in names:
            (folder / name).symlink_to(PDFS / name)
        home = Path(tmp) / "home"
        wall, s = run_cli(folder, home)
        cached_wall, cached = run_cli(folder, home)

    stages = s["stages"]
    staged = sum(stages.values())
    print(f"files: {', '.join(names)}")
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.1f}\n")
    print("| run | files | pages | chunks | wall s | in-flow s | pages/s (wall) | chunks/s (wall) | parse s | chunk s "
          "| embed s | upsert s | optimize s | Prefect + start-up s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print(f"| first | {s['files_ok']} | {s['pages']} | {s['chunks']} | {wall:.1f} | {s['seconds']:.1f} "
          f"| {s['pages'] / wall:.2f} | {s['chunks'] / wall:.2f} | {stages['parse']:.1f} | {stages['chunk']:.1f} "
          f"| {stages['embed']:.1f} | {stages['upsert']:.1f} | {stages.get('optimize', 0):.1f} | {wall - staged:.1f} |")
    print(f"| re-run (cached) | {cached['files_cached']} | 0 | 0 | {cached_wall:.1f} | {cached['seconds']:.1f} "
          f"| - | - | 0 | 0 | 0 | 0 | 0 | {cached_wall:.1f} |")
    per_page = staged / s["pages"] if s["pages"] else float("nan")
    fixed = wall - s["seconds"]
    print(f"\nper page (stages, 2 files in flight): {per_page:.2f} s; fixed cost outside the flow (imports, "
          f"Prefect API start-up, model load): {fixed:.1f} s")
    print(f"a 100-page edition at this rate: {fixed + (s['seconds'] / s['pages']) * 100:.0f} s end to end")
    for f in s["files"]:
        print(f"  {Path(f['path']).name}: {f['status']} {f['pages']} pages, {f['chunks']} chunks, {f['seconds']:.1f} s "
              + " ".join(f"{k} {v:.1f}" for k, v in f["stages"].items()))


if __name__ == "__main__":
    main()
