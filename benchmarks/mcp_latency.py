"""Tool call latency of `gaceta mcp` over stdio against the same call through the HTTP API (issue 27: within 1.2×).

    .venv/bin/python benchmarks/mcp_latency.py [--home GACETA_HOME] [--calls 30] [--tool search|ask|get_provision]
                                               [--query "…"] [--law "Ley de Amparo"] [--article 17]

With no `--home` it indexes the shared Ley de Amparo under a temporary GACETA_HOME. Then, on that index:
  1. `gaceta serve` (port 0) and N × `POST /search` through one keep-alive httpx client (the API's own latency);
  2. `gaceta mcp` on stdio while the server runs (the MCP face goes through the owner, as every command does) and
     N × the `search` tool with the same arguments, through the SDK's `ClientSession`;
  3. the server stopped, `gaceta mcp` again: it opens the index itself (the latency an agent sees without a server).
`--tool ask` does the same with the `ask` tool against `POST /ask` (the extractive answerer: no API key);
`--tool get_provision` with the `get_provision` tool against `GET /laws/{law}/articles/{article}`.
Each series is warmed up first (3 calls). Printed as JSON: p50 / p95 in ms of each, and the ratios to the API. The
same call must give the same result through every path (checked: the hits' chunk ids in order, or the answer's
text), so a fast path that answers something else fails the run. Beside them, the floor no server can go under on
the SDK's stdio client: a `ping` round trip, and the client checking the result against the tool's output schema
(the SDK does it on every `call_tool`), both timed on the own-index session.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
GACETA = str(Path(sys.executable).with_name("gaceta"))
WARMUP = 3


def _stats(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"p50_ms": round(statistics.median(ordered), 2),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2), "calls": len(ordered)}


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GACETA_")}
    return {**env, "GACETA_HOME": str(home), "OMP_NUM_THREADS": "1"}


def _build(home: Path) -> None:
    from tests.index_fixtures import build_index

    build_index(home, ["mx_ley_de_amparo.pdf"]).close()


def _serve(home: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([GACETA, "serve", "--port", "0"], env=_env(home), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    for line in proc.stdout:
        if line.startswith("gaceta on "):
            return proc, line.split()[2].rstrip("/")
    raise SystemExit("gaceta serve did not start")


def _same(tool: str, result: dict, via_api: bool) -> list[str]:
    """What must agree between the paths: the hits' chunk ids in order, or the answer's text."""
    if tool == "ask":
        return ["".join(segment["text"] for segment in result["content"])]
    if tool == "get_provision":
        return [result["label"], result["text"]]
    return [h["chunk"]["chunk_id"] if via_api else h["chunk_id"] for h in result["hits"]]


def _api_series(url: str, tool: str, body: dict, calls: int) -> tuple[list[float], list[str]]:
    from urllib.parse import quote

    import httpx

    def call(http):
        if tool == "get_provision":
            return http.get(f"/laws/{quote(body['law'], safe='')}/articles/{quote(body['article'], safe='')}")
        return http.post(f"/{tool}", json=body)

    with httpx.Client(base_url=url, timeout=120) as http:
        ids: list[str] = []
        times = []
        for i in range(WARMUP + calls):
            t = time.perf_counter()
            reply = call(http)
            elapsed = (time.perf_counter() - t) * 1000
            reply.raise_for_status()
            ids = _same(tool, reply.json(), via_api=True)
            if i >= WARMUP:
                times.append(elapsed)
    return times, ids


def _mcp_series(home: Path, tool: str, body: dict, calls: int,
                floor: dict | None = None) -> tuple[list[float], list[str]]:
    import anyio

    from mcp import ClientSession, StdioServerParameters, stdio_client

    async def run() -> tuple[list[float], list[str]]:
        params = StdioServerParameters(command=GACETA, args=["mcp"], env=_env(home))
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=600) as session:
                    await session.initialize()
                    ids: list[str] = []
                    times = []
                    for i in range(WARMUP + calls):
                        t = time.perf_counter()
                        result = await session.call_tool(tool, body)
                        elapsed = (time.perf_counter() - t) * 1000
                        if result.is_error:
                            raise SystemExit(f"{tool} tool failed: {result.content[0].text}")
                        ids = _same(tool, result.structured_content, via_api=False)
                        if i >= WARMUP:
                            times.append(elapsed)
                    if floor is not None:
                        floor["ping"] = _stats(await _timed(calls, session.send_ping))
                        check = session.validate_tool_result  # what call_tool does to every result

                        async def validate() -> None:
                            await check(tool, result)

                        floor["output_schema_check"] = _stats(await _timed(calls, validate))
                    return times, ids

    return anyio.run(run)


async def _timed(calls: int, step) -> list[float]:
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        await step()
        times.append((time.perf_counter() - t) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, help="An existing GACETA_HOME (default: a temporary index of the Ley "
                        "de Amparo).")
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--tool", choices=("search", "ask", "get_provision"), default="search")
    parser.add_argument("--query", default="¿Cuál es el plazo para presentar la demanda de amparo?")
    parser.add_argument("--law", default="Ley de Amparo", help="get_provision: the law as cited")
    parser.add_argument("--article", default="17", help="get_provision: the article")
    args = parser.parse_args()
    body = {"search": {"query": args.query, "k": 10}, "ask": {"question": args.query, "k": 8},
            "get_provision": {"law": args.law, "article": args.article}}[args.tool]
    with tempfile.TemporaryDirectory(prefix="gaceta-mcp-bench-") as tmp:
        home = args.home or Path(tmp) / "home"
        if args.home is None:
            _build(home)
        server, url = _serve(home)
        try:
            api, api_ids = _api_series(url, args.tool, body, args.calls)
            via_owner, owner_ids = _mcp_series(home, args.tool, body, args.calls)
        finally:
            server.terminate()
            server.wait(30)
        floor: dict = {}
        local, local_ids = _mcp_series(home, args.tool, body, args.calls, floor)
    same = api_ids == owner_ids == local_ids
    report = {
        "tool": args.tool, "arguments": body, "same_result": same,
        "api": _stats(api), "mcp_stdio_via_owner": _stats(via_owner), "mcp_stdio_own_index": _stats(local),
        "ratio_p50_via_owner": round(statistics.median(via_owner) / statistics.median(api), 3),
        "ratio_p50_own_index": round(statistics.median(local) / statistics.median(api), 3),
        "sdk_floor": floor,
        "goal": "MCP stdio p50 within 1.2x of the API's",
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    if not same:
        raise SystemExit("the paths answered differently for the same call")


if __name__ == "__main__":
    main()
