"""Serving while ingesting: /search latency before, during and after a `gaceta ingest` sent through the owner.

    .venv/bin/python benchmarks/serve_while_ingesting.py --home /tmp/gaceta-bench-swi --duration 60 --clients 50
    .venv/bin/python benchmarks/serve_while_ingesting.py --home /tmp/gaceta-bench-swi-tiny --duration 5 --clients 5 \\
        --pdfs ../shared/data/pdfs/dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf \\
        --ingest ../shared/data/pdfs/mx_reglamento_arts_121_122_LFT.pdf      # a quick check that it works

1. Builds a DOF index in --home (as benchmarks/api_load.py does) unless it has one, and copies it aside.
2. Ingest with no server: `gaceta ingest` of the --ingest PDFs into a copy of that index (the local path).
3. `gaceta serve` (one process) over the index; --clients closed-loop /search clients (api_load.py's) for
   --duration seconds: "before". Then the same load while `gaceta ingest` of the same PDFs runs through the owner:
   "during" (as long as the ingest takes, at least --duration); then --duration more: "after".
   Meanwhile a probe searches each new document's own title every 0.2 s: when it became searchable, against
   when the ingest reported that file done (`gaceta ingest` prints one line per file).
Prints p50/p95/errors per phase, the ingest's seconds through the owner vs alone, and the searchable times.
Not a timed test: run it on a quiet machine (the load generator shares the cores with the server).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from api_load import PDFS, _client, ensure_index  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from gaceta.cli import main; main()"]
DEFAULT_INGEST = ["dof_2023-01-11_MAT_first20pages.pdf", "mx_tfca_boletin_laboral_2021-10-01.pdf",
                  "mx_nom-001-sede-2012_capitulo1.pdf", "es_declaracion_universal_derechos_humanos.pdf",
                  "mx_durango_acuerdo_general_01-2021_judicatura.pdf"]


def env_for(home: Path) -> dict[str, str]:
    env = {**os.environ, "GACETA_HOME": str(home), "GACETA_ANSWERER": "extractive", "PREFECT_LOGGING_LEVEL": "WARNING"}
    for name in ("GACETA_API_KEY", "GACETA_QDRANT_URL"):
        env.pop(name, None)
    return env


def start_owner(home: Path) -> tuple[subprocess.Popen, str]:
    owner = home / "owner.json"
    owner.unlink(missing_ok=True)
    log = open(home / "serve.log", "ab")
    proc = subprocess.Popen([*CLI, "serve", "--port", "0"], env=env_for(home), cwd=REPO, stdout=log, stderr=log)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gaceta serve exited: see {home / 'serve.log'}")
        try:
            record = json.loads(owner.read_text())
            if record["pid"] == proc.pid:
                return proc, record["url"]
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("gaceta serve did not come up within 300 s")


def expected_titles(pdfs: list[Path]) -> dict[str, tuple[str, str]]:
    """doc_id → (file name, title) of what each PDF will index (a local parse, before any timing)."""
    from ingest.parse import parse_pdf

    out = {}
    for path in pdfs:
        for doc in parse_pdf(path).documents:
            out[doc.doc_id] = (path.name, doc.title)
    return out


class Probe(threading.Thread):
    """Searches each new document's title (filtered to its doc_id) until it is found: when it became searchable."""

    def __init__(self, url: str, docs: dict[str, tuple[str, str]]):
        super().__init__(daemon=True)
        self.url, self.docs = url, docs
        self.found: dict[str, float] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=60) as http:
            while not self.stop.is_set() and len(self.found) < len(self.docs):
                for doc_id, (_, title) in self.docs.items():
                    if doc_id in self.found:
                        continue
                    body = {"query": title[:300] or "documento", "k": 1, "filters": {"doc_ids": [doc_id]}}
                    try:
                        if httpx.codes.is_success((r := http.post("/search", json=body)).status_code) and r.json()["hits"]:
                            self.found[doc_id] = time.monotonic()
                    except httpx.HTTPError:
                        pass
                time.sleep(0.2)


async def load(base: str, clients: int, until, out: list, errors: list) -> float:
    """api_load's closed-loop clients on /search until `until()` is true; returns the wall seconds."""
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(base_url=base, connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as http:
        t0 = time.perf_counter()
        while not until():
            stop = time.perf_counter() + 1.0  # in one-second slices, so `until` is checked often
            await asyncio.gather(*(_client(http, "/search", lambda q: {"query": q, "k": 10}, w, stop, out, errors)
                                   for w in range(clients)))
        return time.perf_counter() - t0


def row(name: str, latencies: list[float], errors: list, wall: float) -> str:
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [float("nan")] * 99
    return (f"| {name} | {len(latencies)} | {len(errors)} | {len(latencies) / wall:.1f} | {q[49] * 1000:.0f} "
            f"| {q[94] * 1000:.0f} | {q[98] * 1000:.0f} |")


def ingest_alone(index_copy: Path, pdfs: list[Path]) -> float:
    t0 = time.perf_counter()
    run = subprocess.run([*CLI, "ingest", *map(str, pdfs), "--json"], env=env_for(index_copy), cwd=REPO,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"ingest without a server failed: {run.stderr[-2000:]}")
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=Path("/tmp/gaceta-bench-swi"))
    parser.add_argument("--pdfs", type=Path, nargs="*", default=sorted(PDFS.glob("dof_*.pdf")),
                        help="what the served index holds (default: the DOF PDFs, as api_load.py)")
    parser.add_argument("--ingest", type=Path, nargs="*", default=[PDFS / n for n in DEFAULT_INGEST],
                        help="what is ingested while serving")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of the before/after phases (min. of during)")
    parser.add_argument("--clients", type=int, default=50)
    args = parser.parse_args()

    base_home = args.home / "base"
    ensure_index(base_home, args.pdfs)
    docs = expected_titles(args.ingest)

    # the ingest alone, into a copy (the served index must not hold these documents yet)
    alone_home = args.home / "alone"
    shutil.rmtree(alone_home, ignore_errors=True)
    shutil.copytree(base_home, alone_home)
    alone_s = ingest_alone(alone_home, args.ingest)
    served_home = args.home / "served"
    shutil.rmtree(served_home, ignore_errors=True)
    shutil.copytree(base_home, served_home)

    server, url = start_owner(served_home)
    results = []
    try:
        phases: dict[str, tuple[list, list]] = {p: ([], []) for p in ("before", "during", "after")}
        lat, err = phases["before"]
        t_end = time.monotonic() + args.duration
        results.append(row("before", lat, err, asyncio.run(load(url, args.clients, lambda: time.monotonic() > t_end,
                                                               lat, err))))
        probe = Probe(url, docs)
        probe.start()
        done_at: dict[str, float] = {}
        t_ingest = time.monotonic()
        ingest = subprocess.Popen([*CLI, "ingest", *map(str, args.ingest)], env=env_for(served_home), cwd=REPO,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

        def read_done() -> None:  # "name.pdf: ok" lines, one per file, as each is done
            for line in ingest.stderr:
                name, _, status = line.strip().partition(": ")
                if status and name.endswith(".pdf"):
                    done_at[name] = time.monotonic()

        reader = threading.Thread(target=read_done, daemon=True)
        reader.start()
        lat, err = phases["during"]
        t_min = time.monotonic() + args.duration
        results.append(row("during ingest", lat, err, asyncio.run(load(
            url, args.clients, lambda: ingest.poll() is not None and time.monotonic() > t_min, lat, err))))
        ingest.wait()
        reader.join(timeout=10)
        owner_s = (max(done_at.values()) if done_at else time.monotonic()) - t_ingest
        lat, err = phases["after"]
        t_end = time.monotonic() + args.duration
        results.append(row("after", lat, err, asyncio.run(load(url, args.clients, lambda: time.monotonic() > t_end,
                                                              lat, err))))
        probe.stop.set()
        probe.join(timeout=30)
        single = max((float(r.split("|")[4]) for r in results), default=0.0)
    finally:
        server.terminate()
        server.wait(timeout=60)

    load_avg = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"\n{os.cpu_count()} cores (load average now {load_avg}); served index: {len(args.pdfs)} PDFs; "
          f"{args.clients} closed-loop /search clients (k 10); one `gaceta serve` process\n")
    print("| phase | requests | errors | req/s | p50 (ms) | p95 (ms) | p99 (ms) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for line in results:
        print(line)
    print(f"\nsingle-process /search throughput, best phase: {single:.1f} req/s "
          f"(two workers before this change: 601–703 req/s, docs/benchmarks.md)")
    print(f"ingest of {len(args.ingest)} PDFs: {owner_s:.1f} s through the serving owner vs {alone_s:.1f} s with no "
          f"server (`gaceta ingest`, process start-up included)\n")
    print("| file | document | ingest said done (s) | searchable (s) |")
    print("| --- | --- | ---: | ---: |")
    for doc_id, (name, title) in docs.items():
        done = done_at.get(name)
        seen = probe.found.get(doc_id)
        fmt = lambda t: f"{t - t_ingest:.1f}" if t else "—"  # noqa: E731
        print(f"| {name} | {title[:60]} | {fmt(done)} | {fmt(seen)} |")


if __name__ == "__main__":
    main()
