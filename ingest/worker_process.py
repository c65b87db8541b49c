"""A worker process ends when the process that started it ends, however that one ended.

A `spawn` or `forkserver` pool worker (parsing, embedding, OCR, the server's ingest child) blocks on its call queue,
whose pipe it holds both ends of: when the ingest that started it is killed (SIGKILL, the OOM killer, a container
stopped), nothing wakes it, and it stays for good with its model in memory (≈ 160 MB a parse or encoder worker; a
killed `gaceta ingest` left five). Every pool's initializer calls `end_with_parent()`: a daemon thread waits on the
parent's sentinel (`multiprocessing.parent_process()`, a pipe that closes when the parent process ends, whichever of
its threads started the worker) and ends the worker then.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import threading


def end_with_parent() -> None:
    """In a worker started by `multiprocessing`: exit as soon as its parent process ends (at once if it has ended
    already). A no-op in a process `multiprocessing` did not start."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), name="end-with-parent", daemon=True).start()


def _exit_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(1)
