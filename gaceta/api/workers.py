"""`gaceta serve --workers N`: N uvicorn worker processes, fed connections by this (parent) process.

The parent accepts every connection and hands it to the least busy worker (`gaceta.api.handoff`, which says why
the kernel's own sharing is uneven), and replaces a worker that dies.

With the embedded store this (parent) process owns the index and serves its store to the workers
(`retrieval.store.shared`); the socket's address and key reach them through the environment, which only this user
can read. With a Qdrant URL each worker opens the server's collection itself.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading

from fastapi import FastAPI

from retrieval.settings import Settings

STORE_ADDRESS_ENV = "GACETA_WORKER_STORE_ADDRESS"
STORE_KEY_ENV = "GACETA_WORKER_STORE_KEY"
STARTUP_FAILURE = 3  # a worker's exit code when its app could not start (uvicorn's own convention)

log = logging.getLogger("uvicorn.error")


def worker_app() -> FastAPI:
    """The app in one worker process: the API over the index its parent owns (or over the Qdrant server)."""
    from gaceta.api.app import create_app
    from retrieval.index import Index
    from retrieval.store.shared import RemoteStore

    settings = Settings()
    address = os.environ.get(STORE_ADDRESS_ENV)
    if address is None:
        return create_app(settings)
    opener = RemoteStore.opener(address, bytes.fromhex(os.environ[STORE_KEY_ENV]))
    return create_app(settings, open_index=lambda: Index.open(settings, store_opener=opener))


def _run_worker(channel: socket.socket, access_log: bool) -> None:
    import uvicorn

    from gaceta.api.handoff import HandoffServer

    config = uvicorn.Config("gaceta.api.workers:worker_app", factory=True, log_level="info", access_log=access_log)
    server = HandoffServer(config, channel)
    server.run()
    if not server.started:
        sys.exit(STARTUP_FAILURE)


def _listen(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(2048)
    return sock


def run_workers(host: str, port: int, workers: int, access_log: bool) -> bool:
    """Run the workers until SIGINT/SIGTERM; False if one could not start its app (the next would fail the same way,
    so everything stops). A worker that dies later is replaced."""
    import logging.config

    import uvicorn.config

    from gaceta.api.handoff import Dispatcher

    logging.config.dictConfig(uvicorn.config.LOGGING_CONFIG)
    listener = _listen(host, port)
    dispatcher = Dispatcher(listener)
    context = multiprocessing.get_context("spawn")

    def start(slot: int) -> multiprocessing.process.BaseProcess:
        channel = dispatcher.attach(slot)
        process = context.Process(target=_run_worker, args=(channel, access_log), name="gaceta-worker")
        process.start()
        channel.close()  # the worker has its own copy now
        return process

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    processes = [start(slot) for slot in range(workers)]
    log.info("Started %d worker processes on http://%s:%d", workers, host, listener.getsockname()[1])
    started = True
    try:
        while started and not stop.is_set():
            dispatcher.poll(0.5)
            for slot, process in enumerate(processes):
                if process.is_alive():
                    continue
                dispatcher.detach(slot)
                if process.exitcode == STARTUP_FAILURE:
                    log.error("worker %d could not start the app (see above); stopping", process.pid)
                    started = False
                    break
                log.warning("worker %d exited (code %s); starting another", process.pid, process.exitcode)
                processes[slot] = start(slot)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
        dispatcher.close()
        listener.close()
    return started
