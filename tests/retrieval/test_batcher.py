"""The batching worker behind `serve`: queued requests run together, each gets its own result or its own error."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from retrieval.batcher import Batcher, BatcherClosed


class Squares:
    """A batch function that records its batches; its first call waits at a gate so later requests queue up."""

    def __init__(self):
        self.gate = threading.Event()
        self.batches: list[list[int]] = []

    def __call__(self, items: list[int]) -> list[int]:
        self.batches.append(items)
        self.gate.wait(timeout=30)
        if any(i < 0 for i in items):
            raise ValueError(f"negative item in {items}")
        return [i * i for i in items]


def _wait_until(condition) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "condition never held"
        time.sleep(0.005)


def test_requests_queued_meanwhile_run_as_one_batch_in_order():
    run = Squares()
    batcher = Batcher(run, name="test-batcher")
    try:
        with ThreadPoolExecutor(8) as pool:
            first = pool.submit(batcher.submit, 1)
            _wait_until(lambda: run.batches)
            rest = [pool.submit(batcher.submit, i) for i in range(2, 8)]
            _wait_until(lambda: batcher._queue.qsize() == len(rest))
            run.gate.set()
            results = [first.result(timeout=30)] + [f.result(timeout=30) for f in rest]
    finally:
        batcher.close()
    assert results == [i * i for i in range(1, 8)]
    assert run.batches[0] == [1] and sorted(run.batches[1]) == list(range(2, 8))


def test_a_failing_request_fails_alone_and_the_worker_keeps_serving():
    run = Squares()
    run.gate.set()
    batcher = Batcher(run, name="test-batcher")
    try:
        with pytest.raises(ValueError, match="negative"):
            batcher.submit(-1)
        run.gate.clear()
        with ThreadPoolExecutor(4) as pool:
            blocker = pool.submit(batcher.submit, 2)
            _wait_until(lambda: len(run.batches) == 2)
            mixed = [pool.submit(batcher.submit, i) for i in (3, -4, 5)]
            _wait_until(lambda: batcher._queue.qsize() == 3)
            run.gate.set()
            assert blocker.result(timeout=30) == 4
            assert mixed[0].result(timeout=30) == 9 and mixed[2].result(timeout=30) == 25
            with pytest.raises(ValueError, match="negative"):
                mixed[1].result(timeout=30)
    finally:
        batcher.close()
    with pytest.raises(BatcherClosed):
        batcher.submit(1)
