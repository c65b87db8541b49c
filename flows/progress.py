"""Progress events from the flow's tasks to whoever listens in the same process (the CLI's progress bar).

Flow parameters must be serialisable, so a callback cannot be one; listeners register here instead. Tasks
that run in another process (a Dask or Ray runner) simply have no listeners.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

Listener = Callable[[str, dict[str, Any]], None]

_listeners: list[Listener] = []
_lock = threading.Lock()


def emit(event: str, **data: Any) -> None:
    """Events: `discovered` (pdfs, others), `file_started` (path), `parsed` (path, pages, warnings),
    `chunked` (path, chunks), `file_done` (outcome)."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(event, data)


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    with _lock:
        _listeners.append(listener)
    try:
        yield
    finally:
        with _lock:
            _listeners.remove(listener)
