"""One process at a time on an embedded index: an advisory lock file that names its owner.

qdrant-edge refuses a second opener with an opaque WAL error; this lock fails first, saying which process holds
the index. `flock` dies with its process, so a crashed owner never leaves the index locked.

Measured with qdrant-edge-py 0.9.0: there is no read-only opener. `EdgeShard.load(path, config=None)` is the only
way in, and a second process's load fails while the first holds the shard ("failed to open WAL …/shard/wal: Can't
init WAL: Kind(WouldBlock)"), for reading as for writing. So a command that finds the index taken waits for it
(`wait_until_free`) instead of giving up; `gaceta serve` is how several commands use one index at the same time.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import sys
import time
from pathlib import Path

from retrieval.store.base import IndexInUseError

LOCK_NAME = "LOCK"


class IndexLock:
    def __init__(self, directory: Path):
        self.path = directory / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = self._owner(fd)
            os.close(fd)
            raise IndexInUseError(
                f"the index at {self.path.parent} is in use by {owner}; stop that process, or set "
                f"GACETA_QDRANT_URL to a Qdrant server so several processes can share one index"
            ) from None
        os.ftruncate(fd, 0)
        record = {"pid": os.getpid(), "command": " ".join(sys.argv), "since": dt.datetime.now().isoformat()}
        os.write(fd, json.dumps(record).encode())
        self._fd = fd

    @staticmethod
    def _owner(fd: int) -> str:
        try:
            record = json.loads(os.pread(fd, 4096, 0) or b"{}")
        except (OSError, ValueError):
            record = {}
        if not record:
            return "another process"
        return f"pid {record.get('pid')} ({record.get('command')!r}, since {record.get('since')})"

    def holder(self) -> str:
        """Who holds the lock now, in words ("pid 123 ('gaceta ingest …', since …)"), read without taking it."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return "another process"
        try:
            return self._owner(fd)
        finally:
            os.close(fd)

    def wait_until_free(self, timeout: float, poll: float = 0.2) -> bool:
        """Wait up to `timeout` seconds until no process holds the lock; True when it was free at some moment (it
        is not kept: the caller opens the index, which takes it, and may find it taken again by a quicker one)."""
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                return True  # nothing to wait on: opening the index will say what is wrong
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                pass
            finally:
                os.close(fd)  # drops the flock when it was taken
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(poll, left))

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None
