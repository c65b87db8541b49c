"""The server's batching query encoder: same vectors as the model, real batches under concurrency, errors delivered."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from retrieval.embedders import Embedder, load_embedder
from retrieval.query_batcher import QueryBatcher

QUESTIONS = [
    "¿Qué dispone el artículo 27 constitucional sobre las tierras y aguas?",
    "requisitos para ser magistrada de la Sala Superior",
    "tipo de cambio para solventar obligaciones en moneda extranjera",
    "¿Quién publica el Diario Oficial de la Federación?",
    "NOM-035-STPS-2018 factores de riesgo psicosocial",
    "plazo para presentar la declaración anual",
]


class GatedModel(Embedder):
    """The real USE v3 model behind a gate: its first batch waits until the test opens it, so the queries sent
    meanwhile must queue up and arrive together in the next batch."""

    def __init__(self, base: Embedder):
        self.base = base
        self.model_id, self.dim = base.model_id, base.dim
        self.max_seq_length, self.special_tokens = base.max_seq_length, base.special_tokens
        self.gate = threading.Event()
        self.batches: list[list[str]] = []
        self.fail_next = False

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        self.gate.wait(timeout=30)
        if self.fail_next:
            self.fail_next = False
            raise ValueError("model exploded")
        return self.base.embed_queries(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.base.embed_documents(texts)

    def count_tokens(self, text: str) -> int:
        return self.base.count_tokens(text)


@pytest.fixture(scope="module")
def use_v3():
    return load_embedder("use-v3")


def test_concurrent_queries_are_encoded_together_with_the_models_vectors(use_v3):
    model = GatedModel(use_v3)
    batcher = QueryBatcher(model)
    try:
        with ThreadPoolExecutor(len(QUESTIONS) + 2) as pool:
            first = pool.submit(batcher.embed_query, QUESTIONS[0])
            while not model.batches:  # the encoder thread holds the first query, waiting at the gate
                threading.Event().wait(0.01)
            rest = [pool.submit(batcher.embed_query, q) for q in [*QUESTIONS[1:], QUESTIONS[1]]]
            while batcher._queue.qsize() < len(rest):
                threading.Event().wait(0.01)
            model.gate.set()
            vectors = [first.result(timeout=30)] + [f.result(timeout=30) for f in rest]
    finally:
        batcher.close()
    assert model.batches == [[QUESTIONS[0]], QUESTIONS[1:]]  # one batch for the queued five, the duplicate once
    expected = use_v3.embed_queries([*QUESTIONS, QUESTIONS[1]])
    assert np.allclose(np.stack(vectors), expected, atol=1e-5)


def test_a_model_error_reaches_every_waiting_query_and_the_encoder_keeps_serving(use_v3):
    model = GatedModel(use_v3)
    model.fail_next = True
    model.gate.set()
    batcher = QueryBatcher(model)
    try:
        with pytest.raises(ValueError, match="model exploded"):
            batcher.embed_query(QUESTIONS[0])
        assert np.allclose(batcher.embed_query(QUESTIONS[0]), use_v3.embed_query(QUESTIONS[0]), atol=1e-5)
    finally:
        batcher.close()
    with pytest.raises(RuntimeError, match="closed"):
        batcher.embed_query(QUESTIONS[0])
