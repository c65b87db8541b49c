"""One process at a time on an embedded index: an advisory lock file that names its owner.

qdrant-edge refuses a second opener with an opaque WAL error; this lock fails first, saying which process holds
the index. `flock` dies with its process, so a crashed owner never leaves the index locked.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import sys
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

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None
