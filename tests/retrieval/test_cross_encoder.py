"""Cross-encoder loading and scoring, on a tiny BERT cross-encoder the test builds itself: nothing is downloaded.

The model is random (2 layers, hidden size 32), so its scores mean nothing; what is tested is the loading code a
real model goes through (a local directory, the offline cache, clear errors) and the scoring contract: one finite
float per passage, in order, deterministic, batch-invariant, long passages cut to the model's window.
"""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers/huggingface_hub are imported by anything below

import csv
import math
import re
import time
from pathlib import Path

import pytest

from retrieval import cross_encoder
from retrieval.cross_encoder import MAX_LENGTH, CrossEncoderError, CrossEncoderScorer, load_cross_encoder

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
QUERY = "¿A quién corresponde originariamente la propiedad de las tierras y aguas del territorio nacional?"


def build_tiny_cross_encoder(directory: Path, texts: list[str], num_labels: int = 1, seed: int = 0) -> Path:
    """A random 2-layer BERT sequence classifier (hidden size 32) with a WordPiece vocab of `texts`' words and
    characters, saved with `save_pretrained` so that `sentence_transformers.CrossEncoder(directory)` loads it."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    directory.mkdir(parents=True, exist_ok=True)
    words = sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t.lower())})
    chars = sorted({c for w in words for c in w})
    vocab = SPECIAL_TOKENS + chars + [f"##{c}" for c in chars] + [w for w in words if len(w) > 1]
    vocab_file = directory / "vocab.txt"
    vocab_file.write_text("\n".join(dict.fromkeys(vocab)) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(
        vocab_file=str(vocab_file), do_lower_case=True, strip_accents=False, model_max_length=MAX_LENGTH
    )
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=MAX_LENGTH, num_labels=num_labels, initializer_range=0.5,
    )
    torch.manual_seed(seed)
    BertForSequenceClassification(config).eval().save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def passages(eval_dir) -> list[str]:
    """30 distinct real Spanish legal sentences: the gold quotes of the mx_legal_qa set."""
    with open(eval_dir / "mx_legal_qa" / "questions.tsv", encoding="utf-8", newline="") as f:
        quotes = list(dict.fromkeys(row["gold_quote"] for row in csv.DictReader(f, delimiter="\t")))
    assert len(quotes) >= 30
    return quotes[:30]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, passages) -> Path:
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("tiny-cross-encoder"), passages + [QUERY])


@pytest.fixture(scope="module")
def scorer(model_dir) -> CrossEncoderScorer:
    return load_cross_encoder(str(model_dir))


def test_scores_one_finite_float_per_passage(scorer, model_dir, passages):
    assert scorer.model_id == str(model_dir)
    assert scorer.max_length == MAX_LENGTH
    started = time.perf_counter()
    scores = scorer.scores(QUERY, passages)
    print(f"tiny cross-encoder: {len(passages)} passages scored in {time.perf_counter() - started:.3f}s")
    assert isinstance(scores, list) and len(scores) == len(passages)
    assert all(type(s) is float and math.isfinite(s) for s in scores)
    assert len(set(scores)) > 1  # the passages are read: different texts, different scores
    assert scorer.scores(QUERY, []) == []


def test_scores_are_deterministic_and_batch_invariant(scorer, model_dir, passages):
    first = scorer.scores(QUERY, passages)
    assert scorer.scores(QUERY, passages) == first
    # Order follows the texts; a passage's score does not depend on its batch neighbours (padding is masked).
    assert scorer.scores(QUERY, passages[::-1]) == pytest.approx(first[::-1], abs=1e-5)
    assert scorer.scores(QUERY, [passages[3]]) == pytest.approx([first[3]], abs=1e-5)
    # A fresh load of the same directory gives the same scores.
    assert CrossEncoderScorer(str(model_dir)).scores(QUERY, passages) == pytest.approx(first, abs=1e-6)


def test_long_passages_are_cut_to_the_model_window(scorer, passages):
    """A passage far beyond 512 tokens is scored (not an index error past the position embeddings), and what lies
    beyond the window does not change its score."""
    window = scorer.max_length
    long_text = " ".join(passages * 8)
    assert len(scorer.model.tokenizer(long_text, verbose=False)["input_ids"]) > 2 * window
    longer = long_text + " " + " ".join(reversed(passages))
    short, long_score, longer_score = scorer.scores(QUERY, [passages[0], long_text, longer])
    assert math.isfinite(long_score) and long_score != short
    assert longer_score == pytest.approx(long_score, abs=1e-6)


def test_load_is_cached_per_name(scorer, model_dir):
    assert load_cross_encoder(str(model_dir)) is scorer


def _one_line_error(name: str) -> str:
    with pytest.raises(CrossEncoderError) as info:
        load_cross_encoder(name)
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    error = info.value  # no chained traceback for the CLI to print
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)
    assert "local directory" in message and "Hugging Face cache" in message
    assert repr(name) in message
    assert name not in cross_encoder._cache  # a failure is not cached: fetching the model later works
    return message


def test_a_missing_path_is_a_clear_error_naming_it(tmp_path):
    message = _one_line_error(str(tmp_path / "no-such-model"))
    assert message.startswith("cannot load cross-encoder model")


def test_a_directory_without_a_model_is_a_clear_error(tmp_path):
    (tmp_path / "notes.txt").write_text("not a model", encoding="utf-8")
    _one_line_error(str(tmp_path))


def test_a_name_not_in_the_cache_is_not_downloaded():
    started = time.perf_counter()
    _one_line_error("gaceta-tests/no-such-cross-encoder")
    assert time.perf_counter() - started < 10  # fails offline at once, no network attempt to wait for


def test_a_model_with_two_scores_per_pair_is_refused(tmp_path, passages):
    path = build_tiny_cross_encoder(tmp_path / "two-labels", passages + [QUERY], num_labels=2)
    message = _one_line_error(str(path))
    assert "gives 2 scores per pair" in message
