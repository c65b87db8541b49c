"""A synthetic DOF archive ingested end to end: files/s, pages/s, chunks/s, peak RSS, and 6.73 M chunks extrapolated.

Generates N distinct PDFs from pages of the shared DOF editions (each file: `--pages` consecutive pages of one
edition, with a line "Folio sintético …" stamped in every page's top margin, so no two files hash alike and their
text differs), then runs the real CLI on the folder the way a user does (`gaceta ingest FOLDER --json` in a
subprocess, a fresh GACETA_HOME, no thread settings from the caller) and reports throughput, the peak memory of
the whole process tree (PSS and RSS summed over the CLI and its workers), the stage seconds summed over files and
an extrapolation to the whole DOF archive (6.73 M chunks, the dof-rag project's count) on this machine's CPUs and
on a 16-core box, stage by stage, naming the stage that bounds it.

    .venv/bin/python benchmarks/archive.py --files 2000 --pages 2                     # generate + ingest
    .venv/bin/python benchmarks/archive.py --files 2000 --dir /tmp/archive2000 --generate-only
    .venv/bin/python benchmarks/archive.py --files 2000 --dir /tmp/archive2000 --home /tmp/archive-home --json

An existing --dir holding exactly the files this command would generate is reused (not regenerated); --home must
not hold an index yet (a cached run measures nothing).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import hashlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pymupdf

REPO = Path(__file__).resolve().parents[1]
PDFS = Path(os.environ.get("GACETA_SHARED", REPO.parent / "shared")) / "data" / "pdfs"
ARCHIVE_CHUNKS = 6_730_000  # the DOF 1999-2026 as the dof-rag project chunked it
BIG_BOX_CORES = 16
# How each stage is assumed to spread over cores (stated in the report): the file workers parse and chunk, the
# encoder runs one worker process per CPU, and one writer owns the index (upsert and the final optimize).
SCALES = {"parse": True, "chunk": True, "contextualize": True, "embed": True, "upsert": False, "optimize": False}
ASSUMPTION = ("parse and chunk run in the file workers (one per CPU) and embed in one encoder process per CPU, so "
              "they scale with cores; upsert and optimize have ONE writer and do not scale. A stage's wall on N "
              "cores = its seconds summed over files x (6.73 M / chunks) / N (x 1 for the writer stages): linear "
              "in chunks, so a writer that slows as the index grows is not captured.")
STAMP_FONTSIZE = 7
# How the ingest is started: the CLI as a user runs it, or the indexing module it calls when no Prefect API is set
# (`flows.ingest_flow.run_ingest`), for a machine where Prefect is not installed (benchmarks/gpu_ingest.py).
# FOLDER stands for the folder to ingest.
FOLDER = "{folder}"
ENTRIES = {
    "cli": ["from gaceta.cli import main; main()", "ingest", FOLDER, "--json"],
    "module": ["import sys\nfrom flows import indexing\nfrom retrieval.settings import Settings\n"
               "indexing.warm_up(Settings())\ntry:\n    print(indexing.run(sys.argv[1:]).to_json())\n"
               "finally:\n    indexing.close_indexes()", FOLDER],
}


# --- the archive --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Edition:
    name: str
    pages: int


def editions(folder: Path = PDFS) -> list[Edition]:
    """The DOF PDFs of the shared MANIFEST.tsv that have a text layer and open with text on their first page
    (scanned or broken ones are skipped), sorted by name."""
    manifest = folder / "MANIFEST.tsv"
    if not manifest.is_file():
        sys.exit(f"no MANIFEST.tsv in {folder} (set GACETA_SHARED to the shared data folder)")
    found = []
    with manifest.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            name = row["filename"]
            if not name.startswith("dof_") or row.get("has_text_layer", "").strip().lower() != "yes":
                continue
            try:
                with pymupdf.open(folder / name) as doc:
                    usable = doc.page_count and doc[0].get_text().strip()
                    pages = doc.page_count
            except Exception as exc:  # noqa: BLE001  (a broken file is skipped, and said so)
                print(f"skipping {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
                continue
            if usable:
                found.append(Edition(name, pages))
            else:
                print(f"skipping {name}: no text on its first page", file=sys.stderr)
    if not found:
        sys.exit(f"no usable dof_*.pdf with a text layer listed in {manifest}")
    return sorted(found, key=lambda e: e.name)


def plan(n: int, pages_per_file: int, eds: list[Edition], seed: int = 26) -> list[tuple[str, int, int, str]]:
    """(edition name, first page, last page, synthetic date) of each of the `n` files: file i takes
    `pages_per_file` consecutive pages of edition i mod E, starting at page (i // E * pages_per_file) mod the
    starts available, so successive files of one edition walk through it. The dates are drawn from `seed`."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        ed = eds[i % len(eds)]
        span = min(pages_per_file, ed.pages)
        start = (i // len(eds) * pages_per_file) % (ed.pages - span + 1)
        day = dt.date(1999, 1, 1) + dt.timedelta(days=rng.randrange(28 * 365))
        out.append((ed.name, start, start + span - 1, day.isoformat()))
    return out


def file_name(i: int, edition: str, first: int) -> str:
    return f"synthetic_{i:06d}_{Path(edition).stem[:40]}_p{first + 1}.pdf"


def generate(out_dir: Path, n: int, pages_per_file: int = 2, seed: int = 26, folder: Path = PDFS) -> list[Path]:
    """Write `n` distinct PDFs into `out_dir` (created; other files there are left alone) and return their paths.
    Every page of file i gets the line "Folio sintético {i}-{page} del {date}" in its top margin: the bytes and the
    extractable text of no two files are alike. Deterministic for a given (n, pages_per_file, seed)."""
    if n < 1 or pages_per_file < 1:
        raise ValueError(f"n and pages_per_file must be >= 1 (got {n}, {pages_per_file})")
    eds = editions(folder)
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = {e.name: pymupdf.open(folder / e.name) for e in eds}
    paths = []
    try:
        for i, (name, first, last, day) in enumerate(plan(n, pages_per_file, eds, seed)):
            new = pymupdf.open()
            new.insert_pdf(sources[name], from_page=first, to_page=last)
            for k, page in enumerate(new):
                # In the top margin as the page is shown (insert_text takes shown coordinates on a rotated page).
                page.insert_text(pymupdf.Point(page.rect.x0 + 36, page.rect.y0 + 14),
                                 f"Folio sintético {i}-{k + 1} del {day}", fontsize=STAMP_FONTSIZE, fontname="helv")
            new.set_metadata({"title": f"Archivo sintético {i}", "producer": "gaceta benchmarks/archive.py"})
            path = out_dir / file_name(i, name, first)
            new.save(path, garbage=3, deflate=True, no_new_id=True)
            new.close()
            paths.append(path)
    finally:
        for doc in sources.values():
            doc.close()
    return paths


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- the ingest ---------------------------------------------------------------------------------------------------

def _tree_memory(root: int) -> tuple[int, int, int]:
    """(RSS, PSS, anonymous) bytes of `root` and every descendant, from /proc ((0, 0, 0) once it is gone). The RSS
    sum counts the pages forked workers share once per process; PSS shares them out, so its sum is what the tree
    holds. Anonymous is what the processes hold themselves: RSS less the page cache of files they map (the index's
    own segment and WAL files, which the kernel takes back under pressure)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                parent = int(fh.read().rsplit(b")", 1)[1].split()[1])  # field 4 of stat
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    rss = pss = anon = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/smaps_rollup", encoding="ascii", errors="replace") as fh:
                for line in fh:
                    if line.startswith(("Rss:", "Pss:", "Anonymous:")):
                        kb = int(line.split()[1]) * 1024
                        if line.startswith("Rss:"):
                            rss += kb
                        elif line.startswith("Pss:"):
                            pss += kb
                        else:
                            anon += kb
        except (OSError, ValueError):
            continue
    return rss, pss, anon


def run(folder: Path, home: Path, code: Path = REPO, settings: dict[str, str] | None = None,
        entry: str = "cli") -> dict:
    """`gaceta ingest FOLDER --json` in a subprocess on GACETA_HOME=`home`, as a user runs it (the caller's
    GACETA_*/thread variables removed; `settings`, GACETA_* variables, set). `entry` "module" runs what that command
    runs without a Prefect API (`flows.indexing.run`, the same summary) for a machine without Prefect installed.
    Returns {"wall": s, "summary": the JSON summary, "peak_pss_tree_mb" and
    "peak_rss_tree_mb" and "peak_anon_tree_mb": the largest sums of PSS, RSS and anonymous memory over the CLI and
    its worker processes (every 0.1 s),
    "peak_rss_process_mb": the largest single process (getrusage), "cpu_s": user + system seconds of the tree}."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GACETA_") and k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    env.pop("PREFECT_API_URL", None)  # the user's default: Prefect's ephemeral API
    env.update({"GACETA_HOME": str(home), "HF_HUB_OFFLINE": "1"})
    env.update(settings or {})
    if "GACETA_SHARED" in os.environ:  # where the models live, not a tuning knob
        env["GACETA_SHARED"] = os.environ["GACETA_SHARED"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        command = [str(folder) if arg == FOLDER else arg for arg in ENTRIES[entry]]
        proc = subprocess.Popen([sys.executable, "-c", *command], env=env, cwd=code, stdout=out, stderr=err)
        peak = [0, 0, 0]  # RSS, PSS, anonymous
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.1):
                peak[:] = [max(a, b) for a, b in zip(peak, _tree_memory(proc.pid))]

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        rc = proc.wait()
        wall = time.perf_counter() - t0
        done.set()
        sampler.join()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        summary = json.loads(stdout)
    except json.JSONDecodeError:
        sys.exit(f"gaceta ingest exited {rc} without a JSON summary:\n{stderr[-3000:]}")
    if rc != 0 and not summary.get("files_ok"):
        sys.exit(f"gaceta ingest failed ({rc}):\n{stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "summary": summary, "peak_rss_tree_mb": peak[0] / 2**20, "peak_pss_tree_mb": peak[1] / 2**20,
            "peak_anon_tree_mb": peak[2] / 2**20, "peak_rss_process_mb": after.ru_maxrss / 1024, "cpu_s": cpu,
            "returncode": rc}


# --- the report ---------------------------------------------------------------------------------------------------

def report(measured: dict, cores: int, generated: dict | None = None) -> dict:
    """Throughput, stage seconds and the 6.73 M-chunk extrapolation from one `run` result."""
    s, wall = measured["summary"], measured["wall"]
    chunks, pages, files = s["chunks"], s["pages"], s["files_ok"]
    if not chunks:
        sys.exit("the ingest indexed no chunks: nothing to extrapolate (was --home already holding these files?)")
    stages = {k: float(v) for k, v in s["stages"].items() if v}
    scale = ARCHIVE_CHUNKS / chunks

    def projected(n: int) -> dict:
        per_stage = {k: v * scale / (n if SCALES.get(k, True) else 1) for k, v in stages.items()}
        bound = max(per_stage, key=per_stage.get)
        return {"cores": n, "stage_wall_s": per_stage, "bounding_stage": bound,
                "bound_hours": per_stage[bound] / 3600,
                "every_core_busy_hours": measured["cpu_s"] * scale / n / 3600}

    return {
        "generated": generated,
        "files": files, "files_failed": s.get("files_failed", 0), "pages": pages, "chunks": chunks,
        "wall_s": wall, "in_flow_s": s["seconds"], "outside_flow_s": wall - s["seconds"],
        "files_per_s": files / wall, "pages_per_s": pages / wall, "chunks_per_s": chunks / wall,
        "cpu_s": measured["cpu_s"], "cpu_utilisation": measured["cpu_s"] / (wall * cores),
        "peak_pss_tree_mb": measured["peak_pss_tree_mb"], "peak_rss_tree_mb": measured["peak_rss_tree_mb"],
        "peak_anon_tree_mb": measured["peak_anon_tree_mb"], "peak_rss_process_mb": measured["peak_rss_process_mb"],
        "stage_s": stages, "stage_ms_per_chunk": {k: 1000 * v / chunks for k, v in stages.items()},
        "cores_here": cores, "embedding_model": s.get("embedding_model"),
        "extrapolation": {
            "archive_chunks": ARCHIVE_CHUNKS,
            "measured_wall_here_hours": wall * scale / 3600,
            "here": projected(cores), "big_box": projected(BIG_BOX_CORES),
            "assumption": ASSUMPTION,
        },
    }


def print_report(r: dict) -> None:
    g = r["generated"]
    if g:
        made = "reused" if g["reused"] else f"generated in {g['seconds']:.1f} s"
        print(f"archive: {g['files']} files, {g['pages']} pages in {g['dir']} ({made})")
    print(f"model: {r['embedding_model']}; cores here (affinity): {r['cores_here']}\n")
    print("| files | pages | chunks | wall s | in-flow s | files/s | pages/s | chunks/s | CPU s (use) "
          "| peak PSS tree MB | peak RSS tree MB | peak anonymous tree MB | peak RSS one process MB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print(f"| {r['files']} | {r['pages']} | {r['chunks']} | {r['wall_s']:.1f} | {r['in_flow_s']:.1f} "
          f"| {r['files_per_s']:.2f} | {r['pages_per_s']:.2f} | {r['chunks_per_s']:.1f} "
          f"| {r['cpu_s']:.0f} ({100 * r['cpu_utilisation']:.0f}%) | {r['peak_pss_tree_mb']:.0f} "
          f"| {r['peak_rss_tree_mb']:.0f} | {r['peak_anon_tree_mb']:.0f} | {r['peak_rss_process_mb']:.0f} |")
    if r["files_failed"]:
        print(f"\n{r['files_failed']} files failed")
    x = r["extrapolation"]
    here, big = x["here"], x["big_box"]
    print(f"\n6.73 M chunks at the measured rate on these {r['cores_here']} cores: "
          f"{x['measured_wall_here_hours']:.1f} h wall (this run's fixed start-up, {r['outside_flow_s']:.1f} s "
          "outside the flow, included); CPU floor (this run's CPU seconds spread over every core): "
          f"{here['every_core_busy_hours']:.1f} h on {here['cores']} cores, {big['every_core_busy_hours']:.1f} h "
          f"on {big['cores']}\n")
    print(f"| stage | s summed over files | ms/chunk | scales with cores | {here['cores']} cores, h "
          f"| {big['cores']} cores, h |")
    print("| --- | --- | --- | --- | --- | --- |")
    for k, v in r["stage_s"].items():
        print(f"| {k} | {v:.1f} | {r['stage_ms_per_chunk'][k]:.2f} | {'yes' if SCALES.get(k, True) else 'no'} "
              f"| {here['stage_wall_s'][k] / 3600:.2f} | {big['stage_wall_s'][k] / 3600:.2f} |")
    print(f"\nbounding stage: {here['bounding_stage']} on {here['cores']} cores ({here['bound_hours']:.1f} h), "
          f"{big['bounding_stage']} on {big['cores']} cores ({big['bound_hours']:.1f} h)")
    print(f"assumption: {x['assumption']}")


def matches(out_dir: Path, n: int, pages_per_file: int, seed: int) -> bool:
    """True when `out_dir` holds exactly the PDFs this (n, pages, seed) would generate, by name."""
    if not out_dir.is_dir():
        return False
    planned = plan(n, pages_per_file, editions(), seed)
    want = {file_name(i, name, first) for i, (name, first, _, _) in enumerate(planned)}
    return {p.name for p in out_dir.glob("*.pdf")} == want


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000, help="PDFs to generate (default 2000)")
    parser.add_argument("--pages", type=int, default=2, help="pages per file (default 2)")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--dir", type=Path, help="the archive folder (default: a temporary one, removed after)")
    parser.add_argument("--home", type=Path, help="GACETA_HOME for the ingest (default: a temporary one)")
    parser.add_argument("--generate-only", action="store_true", help="write the archive and stop")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="gaceta-archive-"))
    try:
        folder = args.dir or tmp / "archive"
        if folder.exists() and any(folder.glob("*.pdf")) and not matches(folder, args.files, args.pages, args.seed):
            sys.exit(f"{folder} holds other PDFs than this archive's: choose an empty or new --dir")
        t0 = time.perf_counter()
        reused = matches(folder, args.files, args.pages, args.seed)
        paths = sorted(folder.glob("*.pdf")) if reused else generate(folder, args.files, args.pages, args.seed)
        seconds = time.perf_counter() - t0
        pages = 0
        for path in paths:
            with pymupdf.open(path) as doc:
                pages += doc.page_count
        generated = {"dir": str(folder), "files": len(paths), "pages": pages, "seconds": seconds, "reused": reused,
                     "bytes": sum(p.stat().st_size for p in paths)}
        if args.generate_only:
            print(json.dumps(generated) if args.json else
                  f"{'reused' if reused else 'generated'} {len(paths)} files, {pages} pages, "
                  f"{generated['bytes'] / 2**20:.0f} MB in {folder} ({seconds:.1f} s)")
            return
        home = args.home or tmp / "home"
        if (home / "index").exists() or (home.exists() and any(home.iterdir())):
            sys.exit(f"--home {home} is not empty: the ingest would find the files cached; choose a fresh one")
        measured = run(folder, home)
        result = report(measured, len(os.sched_getaffinity(0)), generated)
        if args.json:
            print(json.dumps(result, indent=2))
        else:
            print_report(result)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
