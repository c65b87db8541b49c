"""`collector_paused()`: Python's cyclic garbage collector off while a file is read or chunked.

Both allocate millions of short-lived objects (MuPDF's span dicts, lines, Markdown pieces, chunk models) that
reference counting frees; the collector finds no cycles among them, yet each of its passes walks every live object,
the parsed document included. Measured on the DOF set (`benchmarks/parse.py`, py-spy): the collector was ~8 % of
parse time and ~30 % of chunking time. It runs again afterwards, as it was; a caller that turned it off keeps it off.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
