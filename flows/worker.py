"""`python -m flows.worker --pool gaceta [--limit N]`: Prefect's process worker, stopped by SIGTERM.

Measured with Prefect 3.8.8: `prefect worker start` turns SIGTERM into SIGINT and then, once it has run a flow, keeps
running (its event subscriber reconnects for ever): a service manager's stop hangs until SIGKILL. This runs the same
public `ProcessWorker.start()` on an event loop whose SIGTERM/SIGINT handlers cancel it: the worker leaves its
`async with` (deregistering as Prefect does on Ctrl-C) and the process exits 0 within seconds. A flow run it had
started is a subprocess of its own that gets the signal too when the whole service is stopped (systemd's default
`KillMode=control-group`); the ingest's write protocol makes any interrupted run safe to finish on the next one.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys


async def _serve(pool: str, limit: int | None, name: str | None) -> None:
    from prefect.workers.process import ProcessWorker

    main = asyncio.current_task()
    loop = asyncio.get_running_loop()
    stopping = False

    def stop(signum: int) -> None:
        nonlocal stopping
        if not stopping:
            stopping = True
            print(f"{signal.Signals(signum).name}: stopping the worker", file=sys.stderr, flush=True)
            main.cancel()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)
    worker = ProcessWorker(work_pool_name=pool, limit=limit, name=name)
    try:
        await worker.start(printer=lambda *a, **k: print(*a, **k, flush=True))
    except asyncio.CancelledError:
        if not stopping:
            raise
    print(f"worker {worker.name!r} stopped", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> None:
    import flows  # noqa: F401  (offline Prefect settings before Prefect is imported)

    parser = argparse.ArgumentParser(prog="python -m flows.worker", description=__doc__.splitlines()[0])
    parser.add_argument("--pool", "-p", default="gaceta", help="work pool (default: gaceta)")
    parser.add_argument("--limit", "-l", type=int, default=None, help="concurrent flow runs (default: no limit)")
    parser.add_argument("--name", "-n", default=None, help="worker name (default: Prefect's)")
    args = parser.parse_args(argv)
    asyncio.run(_serve(args.pool, args.limit, args.name))


if __name__ == "__main__":
    main()
