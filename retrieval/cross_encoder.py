"""Optional cross-encoder scorer for the second stage: a configured model, never the default.

A cross-encoder reads the query and a passage together and gives one relevance score per pair (e.g. a
multilingual MiniLM trained on mMARCO). Its weights are never downloaded at run time: the model is a local
directory or a name already in the Hugging Face cache (fetched once by the user, e.g.
`hf download cross-encoder/mmarco-mMiniLMv2-L12-H384-v1`). Anything else is a `CrossEncoderError` with a
one-line message.

Scores are what the model's own head gives (for a one-label sentence-transformers CrossEncoder: a sigmoid in
[0, 1]); the passage is cut to at most `MAX_LENGTH` tokens (query and passage together). Runs on the CPU with
torch's default thread count. `load_cross_encoder` loads each model once per process.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

MAX_LENGTH = 512  # tokens of query + passage the model reads; also bounded by the tokenizer's own limit
BATCH_SIZE = 32  # the ≈30 candidates of the reranker in one batch

_HOW_TO_PROVIDE = (
    "give a local directory holding a sentence-transformers CrossEncoder (config.json, weights, tokenizer) "
    "or the name of one already in the Hugging Face cache (fetch it once with `hf download <name>`); "
    "nothing is downloaded at run time"
)


class CrossEncoderError(RuntimeError):
    """The configured cross-encoder cannot be loaded offline (missing, not cached, not a one-score CrossEncoder)."""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class CrossEncoderScorer:
    """A loaded sentence-transformers CrossEncoder: `scores(query, texts)` → one float per text."""

    def __init__(self, name_or_path: str, batch_size: int = BATCH_SIZE, max_length: int = MAX_LENGTH):
        try:
            import transformers
            from sentence_transformers import CrossEncoder
        except ImportError:  # pragma: no cover - sentence-transformers is a dependency
            raise CrossEncoderError(
                f"cannot load cross-encoder model {name_or_path!r}: sentence-transformers is not installed"
            ) from None

        transformers.utils.logging.disable_progress_bar()  # no "Loading weights" bar on every CLI call
        try:
            model = CrossEncoder(name_or_path, device="cpu", max_length=max_length, local_files_only=True)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # OSError: a path that does not exist or a name not in the cache; ValueError: a directory that is not
            # a model (no model_type); KeyError/TypeError: an unknown architecture or a broken config.
            raise CrossEncoderError(
                f"cannot load cross-encoder model {name_or_path!r} ({_first_line(exc)}); {_HOW_TO_PROVIDE}"
            ) from None
        num_labels = int(model.config.num_labels)
        if num_labels != 1:
            raise CrossEncoderError(
                f"cannot use cross-encoder model {name_or_path!r}: it gives {num_labels} scores per pair, "
                f"a reranker must give one; {_HOW_TO_PROVIDE}"
            )
        tokenizer_limit = getattr(model.tokenizer, "model_max_length", None)
        # sentence-transformers ≥ 5 calls the window `max_seq_length` (`max_length` is deprecated); 3.x `max_length`.
        self._window_attr = "max_seq_length" if hasattr(type(model), "max_seq_length") else "max_length"
        if isinstance(tokenizer_limit, int) and 0 < tokenizer_limit < max_length:
            setattr(model, self._window_attr, tokenizer_limit)  # never more positions than the model was trained on
        self.model = model
        self.model_id = name_or_path
        self.batch_size = batch_size

    @property
    def max_length(self) -> int:
        """Tokens of query + passage the model reads; the rest of a long passage is cut."""
        return int(getattr(self.model, self._window_attr))

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """Relevance of each text to `query`, in the order given (higher is more relevant)."""
        if not texts:
            return []
        values = self.model.predict(
            [(query, text) for text in texts],
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return [float(v) for v in values.reshape(len(texts))]


_CACHE_SIZE = 2  # models kept per process; a process normally uses one
_cache: dict[str, CrossEncoderScorer] = {}
_lock = threading.Lock()


def load_cross_encoder(name_or_path: str) -> CrossEncoderScorer:
    """The cross-encoder `name_or_path` (a local directory or a name in the Hugging Face cache), loaded once per
    process; raises `CrossEncoderError` when it cannot be loaded offline (a failure is not cached)."""
    with _lock:  # concurrent requests in `serve` wait for one load instead of each loading the model
        scorer = _cache.get(name_or_path)
        if scorer is None:
            scorer = CrossEncoderScorer(name_or_path)
            while len(_cache) >= _CACHE_SIZE:
                _cache.pop(next(iter(_cache)))  # the oldest loaded
            _cache[name_or_path] = scorer
        return scorer
