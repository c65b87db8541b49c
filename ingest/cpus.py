"""How many CPUs this process may use: the one answer every pool is sized from.

A container's CPU set or `taskset` narrows the CPUs a process may run on without changing `os.cpu_count()` (the
machine's count). A pool sized from the machine's count runs more busy threads than CPUs; numpy's BLAS pool spinning
two threads on one allowed CPU made a pinned ingest 11x slower (issue 26). The file workers (flows), the BLAS pool
of the numpy encoder and torch's intra-op threads (retrieval.embedders) and the OCR processes (ingest.ocr) all read
`available_cpus()`."""

from __future__ import annotations

import os


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask); the machine's count where no mask exists."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux: no affinity mask to read
        return max(1, os.cpu_count() or 1)
