"""What a test asks of processes it did not start itself: which of them are still running."""

from __future__ import annotations

import time

import psutil


def running(pid: int) -> bool:
    """Is `pid` a live process (a zombie, ended but not yet reaped by its new parent, is not)?"""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def still_running(pids: list[int], within_s: float) -> list[int]:
    """Those of `pids` still running after waiting up to `within_s` seconds for all of them to end."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and any(map(running, pids)):
        time.sleep(0.2)
    return [p for p in pids if running(p)]
