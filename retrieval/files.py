"""Facts about files and processes several modules ask: a file's sha256 (and whether it still holds given bytes),
and whether a process is alive."""

from __future__ import annotations

import functools
import hashlib
import os


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The sha256 of a file's bytes."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def intact(path: str | os.PathLike[str], sha256: str) -> bool:
    """`path` exists and holds exactly those bytes; hashed once while its size, mtime and inode stay the same (a
    file overwritten in place changes its mtime)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return _stat_sha256(os.fspath(path), st.st_size, st.st_mtime_ns, st.st_ino) == sha256


@functools.lru_cache(maxsize=4096)
def _stat_sha256(path: str, size: int, mtime_ns: int, ino: int) -> str:
    return file_sha256(path)


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists (signal 0; a process of another user exists too)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
