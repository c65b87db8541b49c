"""Loopback load on the HTTP API: N concurrent clients on /search, then M on /ask (extractive), each for a fixed time.

    .venv/bin/python benchmarks/api_load.py --home /tmp/gaceta-bench-api --duration 60

Indexes the DOF PDFs of ../shared/data/pdfs into --home first if that index is empty (parse → add_document, no
Prefect), then starts `gaceta serve` (one process, the embedded index's owner; `--workers N` only against a Qdrant
server, GACETA_QDRANT_URL), waits until it answers /healthz, and drives it with closed-loop asyncio clients
(aiohttp; each sends its next request when the last one answered, no think time).
Queries: 20 DOF-style questions plus the 1,190 XQuAD-es questions, each client walking the pool from its own offset.
gaceta keeps no per-query cache (a repeated query is embedded and searched again); its chunk cache of parsed hits
does warm up over the run: set GACETA_CHUNK_CACHE=0 to measure without it.
Prints p50/p95/p99 latency, throughput, errors and the CPU seconds each side used per request (server: the `serve`
process and its workers), as a Markdown table.
The load generator shares the machine's cores with the server. Stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import httpx
import psutil

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GACETA_SHARED", REPO.parent / "shared"))
PDFS = SHARED / "data" / "pdfs"

DOF_QUERIES = [
    "listado de personas elegibles para el cargo de magistrada",
    "Sala Superior del Tribunal Electoral",
    "Comité de Evaluación del Poder Judicial",
    "proceso electoral extraordinario 2024-2025",
    "resolución miscelánea fiscal anexo 16",
    "dictamen fiscal de contribuyentes",
    "decreto por el que se reforma",
    "acuerdo de la Secretaría de Hacienda y Crédito Público",
    "tipo de cambio para solventar obligaciones en moneda extranjera",
    "tasas de interés interbancaria de equilibrio",
    "aviso de consulta pública de proyecto de norma oficial mexicana",
    "juzgados de distrito en materia penal",
    "convocatoria para ocupar plazas",
    "Instituto Nacional Electoral lineamientos",
    "valor de la unidad de medida y actualización",
    "¿Quiénes son elegibles para las salas regionales del TEPJF?",
    "estados financieros del ejercicio",
    "requisitos para presentar la declaración",
    "secretaría de gobernación edicto",
    "fe de erratas",
]


def xquad_questions() -> list[str]:
    data = json.loads((SHARED / "eval" / "xquad_es" / "xquad.es.json").read_text(encoding="utf-8"))["data"]
    return [qa["question"] for article in data for p in article["paragraphs"] for qa in p["qas"]]


QUERIES = DOF_QUERIES + xquad_questions()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_index(home: Path, pdfs: list[Path]) -> None:
    """Ingest `pdfs` into `home` unless its index already holds chunks; closes the index (serve must own it)."""
    from ingest.parse import parse_pdf
    from retrieval.index import Index
    from retrieval.settings import Settings

    index = Index.open(Settings(home=home))
    try:
        if index.status().chunks:
            return
        for path in pdfs:
            t0 = time.perf_counter()
            result = parse_pdf(path)
            for doc in result.documents:
                index.add_document(doc)
            print(f"indexed {path.name}: {len(result.documents)} documents in {time.perf_counter() - t0:.0f} s", flush=True)
    finally:
        index.close()


def start_server(home: Path, port: int, workers: int) -> subprocess.Popen:
    env = {**os.environ, "GACETA_HOME": str(home), "GACETA_ANSWERER": "extractive"}
    env.pop("GACETA_API_KEY", None)
    cmd = [sys.executable, "-c", "from gaceta.cli import main; main()", "serve", "--port", str(port),
           "--workers", str(workers)]
    proc = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.5)
    proc.kill()
    raise SystemExit("server did not come up within 180 s")


async def _client(http: aiohttp.ClientSession, path: str, body_of, worker: int, stop: float, out: list, errors: list) -> None:
    i = worker * len(QUERIES) // 64
    while time.perf_counter() < stop:
        query = QUERIES[i % len(QUERIES)]
        i += 1
        t0 = time.perf_counter()
        try:
            async with http.post(path, json=body_of(query)) as response:
                await response.read()
                status = response.status
        except aiohttp.ClientError as exc:
            status = repr(exc)
        elapsed = time.perf_counter() - t0
        (out if status == 200 else errors).append(elapsed if status == 200 else str(status))


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the server has used so far: its own process and its worker processes."""
    root = psutil.Process(pid)
    return sum(sum(p.cpu_times()[:2]) for p in [root, *root.children(recursive=True)])


def wait_until_idle(pid: int, timeout: float = 120.0) -> None:
    """/healthz answers as soon as one worker is up; wait until all have loaded their model (the server goes idle),
    or the first worker would be handed every connection the load opens."""
    deadline = time.monotonic() + timeout
    last = _cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = _cpu_seconds(pid)
        if now - last < 0.05:
            return
        last = now


async def phase(base: str, path: str, clients: int, duration: float, body_of, server_pid: int) -> dict:
    connector = aiohttp.TCPConnector(limit=clients)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(base_url=base, connector=connector, timeout=timeout) as http:
        async with http.post(path, json=body_of(QUERIES[0])) as response:  # warm-up: model caches, query plans
            await response.read()
        latencies: list[float] = []
        errors: list = []
        server_cpu, client_cpu = _cpu_seconds(server_pid), time.process_time()
        t0 = time.perf_counter()
        stop = t0 + duration
        await asyncio.gather(*(_client(http, path, body_of, w, stop, latencies, errors) for w in range(clients)))
        wall = time.perf_counter() - t0
        server_cpu, client_cpu = _cpu_seconds(server_pid) - server_cpu, time.process_time() - client_cpu
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [float("nan")] * 99
    done = max(len(latencies), 1)
    return {
        "path": path, "clients": clients, "requests": len(latencies), "errors": len(errors), "wall_s": wall,
        "rps": len(latencies) / wall, "p50_ms": q[49] * 1000, "p95_ms": q[94] * 1000, "p99_ms": q[98] * 1000,
        "server_cpu_ms": server_cpu / done * 1000, "client_cpu_ms": client_cpu / done * 1000,
        "first_errors": errors[:3],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=Path("/tmp/gaceta-bench-api"))
    parser.add_argument("--pdfs", type=Path, nargs="*", default=sorted(PDFS.glob("dof_*.pdf")))
    parser.add_argument("--duration", type=float, default=60.0, help="seconds per phase")
    parser.add_argument("--search-clients", type=int, default=50)
    parser.add_argument("--ask-clients", type=int, default=10)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--workers", type=int, default=1,
                        help="`gaceta serve --workers` (more than 1 only with GACETA_QDRANT_URL)")
    args = parser.parse_args()

    ensure_index(args.home, args.pdfs)
    port = free_port()
    server = start_server(args.home, port, args.workers)
    wait_until_idle(server.pid)
    base = f"http://127.0.0.1:{port}"
    try:
        results = [
            asyncio.run(phase(base, "/search", args.search_clients, args.duration,
                              lambda q: {"query": q, "k": args.k}, server.pid)),
            asyncio.run(phase(base, "/ask", args.ask_clients, args.duration,
                              lambda q: {"question": q, "answerer": "extractive"}, server.pid)),
        ]
    finally:
        server.terminate()
        server.wait(timeout=30)

    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"\nloopback, {os.cpu_count()} cores (load average now {load}), index at {args.home} ({len(args.pdfs)} PDFs), "
          f"{args.workers} server worker(s), {args.duration:.0f} s per phase\n")
    print("| endpoint | clients | requests | errors | throughput (req/s) | p50 (ms) | p95 (ms) | p99 (ms) "
          "| server CPU ms/req | client CPU ms/req |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        print(f"| `POST {r['path']}` | {r['clients']} | {r['requests']} | {r['errors']} | {r['rps']:.1f} | "
              f"{r['p50_ms']:.0f} | {r['p95_ms']:.0f} | {r['p99_ms']:.0f} | {r['server_cpu_ms']:.1f} "
              f"| {r['client_cpu_ms']:.1f} |")
        if r["first_errors"]:
            print(f"  first errors on {r['path']}: {r['first_errors']}")


if __name__ == "__main__":
    main()
