"""The Store: one Qdrant collection of chunks, the same behaviour over qdrant-edge and qdrant-client.

Each point is a chunk: a named dense vector, a named sparse `bm25` vector (Qdrant applies IDF), and a payload of
the chunk's fields plus its document's info. The write protocol here is shared by both backends, which only
supply the primitive operations:

- a document is written *pending* (invisible to search), its stale points are removed, then it is marked
  *complete* — so a search never sees half a document, and a crash leaves nothing visible to clean up by hand;
- point ids are uuid5 of chunk ids, so re-upserting is idempotent;
- the model id and the BM25 length statistics live in the collection's metadata; opening an index built with
  another model is an error, never silent garbage.

A store that is its data's only writer (`exclusive`: the embedded one holds the index lock) also knows when no
pending point exists; its searches then skip the `state` filter, which cost a fifth of a hybrid query at 4k chunks.
"""

from __future__ import annotations

import threading
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from retrieval.bm25 import ANALYZER_VERSION, LEGACY_ANALYZER_VERSION, SparseVector
from retrieval.models import Fusion, SearchFilters

DENSE = "dense"
SPARSE = "bm25"
STATE = "state"
PENDING = "pending"
COMPLETE = "complete"
BM25_LEN = "bm25_len"
WRITING = "writing"  # metadata: the document a write is changing (see `Store._begin_write`)
POINTS = "points"  # metadata: how many points the store holds after the last completed write
UPSERT_BATCH = 256
# Hybrid fusion: RRF with Qdrant's own k (2) and the BM25 list counted twice. The paper's k = 60 let a weak dense
# list drag BM25's best hits down: on the code set of anthropic_contextual_retrieval (use-v3) hybrid Pass@10 went
# 76.2 (k 60) → 86.9 (k 2) → 87.4 (k 2, BM25 ×2), and XQuAD-es R@5 0.983 → 0.993 → 0.992 (docs/benchmarks.md).
RRF_K = 2
RRF_WEIGHTS = (1.0, 2.0)  # dense, BM25: the order of the prefetches
# Equal scores (RRF ties are common: with BM25 weighing twice, a chunk 10th in the dense list alone scores what one
# 22nd by BM25 alone does) come back from a backend in any order, so a cut at k inside them keeps either: the same
# question could read a different last candidate from one call to the next (and a last candidate can decide whether
# the openings are consulted). A query asks for TIE_MARGIN more and is cut here, ties broken by point id.
TIE_MARGIN = 8
# HNSW graph and search breadth, from recall@10 of HNSW vs exact search on real embeddings (13,732 ObliQA
# passages, MiniLM, 300 queries): m 16 / ef_construct 100 gave 0.997 at the default ef and 0.999 at ef 128
# (0.67 ms/query); a bigger graph (m 32 / ef_construct 200) doubles optimize time on 2 cores for no gain there.
# Random vectors are the pathological case (0.41 at 20k points even so): tests/retrieval/test_store_ann.py
# keeps the real-embedding recall ≥ 0.98.
HNSW_M = 16
HNSW_EF_CONSTRUCT = 100
HNSW_EF = 128

# payload field → index kind ("keyword", "integer", "datetime")
PAYLOAD_INDEXES = {
    "doc_id": "keyword",
    STATE: "keyword",
    "index": "integer",
    "article": "keyword",
    "role": "keyword",
    "document.issuing_body": "keyword",
    "document.doc_type": "keyword",
    "document.publication_date": "datetime",
}
_CHUNK_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "gaceta:chunk")


class StoreError(RuntimeError):
    """An expected store failure with a message meant for the user."""


class ModelMismatchError(StoreError):
    pass


class IndexInUseError(StoreError):
    pass


# What a damaged index's message ends with: the one command that checks it and rebuilds what can be rebuilt.
REPAIR = "run `gaceta doctor --repair` to rebuild it from the kept originals"


class IndexDamaged(StoreError):
    """The index's own files are damaged (metadata, write-ahead log, segments, records against points): the message
    names what, and the command that repairs it."""


def point_id(chunk_id: str) -> str:
    return str(uuid.uuid5(_CHUNK_NAMESPACE, chunk_id))


@dataclass
class PointData:
    chunk_id: str
    dense: np.ndarray
    sparse: SparseVector
    payload: dict[str, Any]
    bm25_len: int


@dataclass(frozen=True)
class Match:
    """`key` equals one of `values`."""

    key: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class DateRange:
    key: str
    gte: str | None = None
    lte: str | None = None


@dataclass(frozen=True)
class Where:
    """A backend-neutral filter: all of `must`, none of the points in `exclude_ids`, none matching `must_not`."""

    must: tuple[Match | DateRange, ...] = ()
    exclude_ids: tuple[str, ...] = ()
    must_not: tuple[Match, ...] = ()


@dataclass(frozen=True)
class VectorQuery:
    """One search: a dense vector, a BM25 vector, or both (fused); what `Store.search_many` takes a list of."""

    dense: np.ndarray | None
    sparse: SparseVector | None
    k: int = 10
    filters: SearchFilters | None = None
    fusion: Fusion = Fusion.rrf
    prefetch: int = 50
    exact: bool = False
    # documents left out: not in force on the filters' date (`Index.in_force`), or set aside (`Search.set_aside`)
    superseded: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlannedQuery:
    """A VectorQuery as a backend runs it: both sides present, the where-clause built, prefetch ≥ limit."""

    dense: np.ndarray | None
    sparse: SparseVector | None
    limit: int
    where: Where
    fusion: Fusion
    prefetch: int
    exact: bool


Hits = list[tuple[dict[str, Any], float]]
# (point id, payload or None when not asked for, score): what a backend's query returns per hit
Scored = tuple[str, dict[str, Any] | None, float]


@dataclass
class StoreStats:
    backend: str
    location: str
    model_id: str
    dim: int
    points: int
    chunks: int  # complete, searchable
    documents: int  # complete documents with at least one chunk
    pending: int  # points of documents whose indexing has not completed
    avgdl: float
    extra: dict[str, Any] = field(default_factory=dict)


def _doc(doc_id: str) -> Match:
    return Match("doc_id", (doc_id,))


_COMPLETE = Match(STATE, (COMPLETE,))
_PENDING = Match(STATE, (PENDING,))


def filters_where(filters: SearchFilters | None, hide_pending: bool, superseded: Sequence[str] = ()) -> Where:
    """Search filters → a Where that also hides incomplete documents (unless the store knows there are none) and
    the `superseded` versions of a law (doc ids: a payload filter, not a post-filter)."""
    must: list[Match | DateRange] = [_COMPLETE] if hide_pending else []
    if filters is not None:
        if filters.date_from or filters.date_to:
            must.append(
                DateRange(
                    "document.publication_date",
                    gte=filters.date_from.isoformat() if filters.date_from else None,
                    lte=filters.date_to.isoformat() if filters.date_to else None,
                )
            )
        for key, values in (
            ("document.issuing_body", filters.issuing_body),
            ("document.doc_type", filters.doc_type),
            ("doc_id", filters.doc_ids),
        ):
            if values:
                must.append(Match(key, tuple(values)))
    return Where(must=tuple(must), must_not=(Match("doc_id", tuple(superseded)),) if superseded else ())


class Store(ABC):
    backend: str
    location: str
    # Every write to the data goes through this object (the embedded store's one owner): it then knows what is
    # pending, and `revision` moves with every write.
    exclusive = False

    def __init__(self, model_id: str, dim: int):
        self.model_id = model_id
        self.dim = dim
        self.revision = 0  # bumped before and after every document write: caches of payloads compare it
        self._guard = threading.Lock()
        self._writing = 0  # document writes in progress in this process
        self._unfinished = False  # a document write failed part-way: its points were never counted
        self._pending: int | None = None  # pending points, when known (exclusive stores count them)

    # --- primitives each backend supplies -------------------------------------------------------------
    @abstractmethod
    def _meta(self) -> dict[str, Any]: ...

    @abstractmethod
    def _save_meta(self, meta: dict[str, Any]) -> None: ...

    @abstractmethod
    def _upsert(self, points: Sequence[PointData], state: str) -> None: ...

    @abstractmethod
    def _delete(self, where: Where) -> None: ...

    @abstractmethod
    def _set_payload(self, where: Where, payload: dict[str, Any]) -> None: ...

    @abstractmethod
    def _count(self, where: Where | None) -> int: ...

    @abstractmethod
    def _scroll(self, where: Where, fields: list[str] | bool) -> Iterator[dict[str, Any]]: ...

    @abstractmethod
    def _retrieve(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Payloads of the points that exist among `ids`, by point id."""

    @abstractmethod
    def _query_many(self, queries: list[PlannedQuery], with_payload: bool) -> list[list[Scored]]:
        """Hits per query, in order; one planned batch where the backend has one."""

    def flush(self) -> None:
        """Make writes durable (no-op where the backend is durable per call)."""

    def optimize(self) -> None:
        """Build the ANN/sparse indexes of what was written (no-op where the server does it itself)."""

    def check_readable(self) -> None:
        """Read every point once, raising `IndexDamaged` for what cannot be read (no-op where a server keeps the
        storage: it checks its own)."""

    @abstractmethod
    def close(self) -> None: ...

    # --- metadata -------------------------------------------------------------------------------------
    def _check_model(self, location: str) -> None:
        """The index must have been built with this embedding model and this BM25 analysis."""
        meta = self._meta()
        if meta.get("model_id") != self.model_id or meta.get("dim") != self.dim:
            raise ModelMismatchError(
                f"the index at {location} was built with embedding model {meta.get('model_id')!r} "
                f"(dim {meta.get('dim')}), but {self.model_id!r} (dim {self.dim}) is configured; set "
                f"GACETA_EMBEDDING_MODEL to the index's model, or use another GACETA_HOME / collection"
            )
        built_with = meta.get("bm25_analyzer", LEGACY_ANALYZER_VERSION)
        if built_with != ANALYZER_VERSION:
            raise ModelMismatchError(
                f"the index at {location} was built with BM25 analysis {built_with!r}, this gaceta analyses text "
                f"as {ANALYZER_VERSION!r}: its stored terms would not match new queries; rebuild it (ingest the "
                f"PDFs into a new GACETA_HOME or collection)"
            )

    def _new_meta(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "dim": self.dim,
            "bm25_analyzer": ANALYZER_VERSION,
            "bm25_terms": 0,
            "bm25_chunks": 0,
        }

    def bm25_totals(self) -> tuple[int, int]:
        """(total terms, chunks) over the indexed chunks: the running BM25 avgdl is their ratio."""
        meta = self._meta()
        return int(meta.get("bm25_terms", 0)), int(meta.get("bm25_chunks", 0))

    # --- the document protocol ------------------------------------------------------------------------
    @contextmanager
    def _writing_document(self) -> Iterator[None]:
        """Around every document write: waits for an unfiltered search to end, and makes later ones filter."""
        with self._guard:
            self._writing += 1
            self.revision += 1
        try:
            yield
        except BaseException:
            self._unfinished = True  # the next write recounts the totals (a crash now: the next open does)
            raise
        finally:
            with self._guard:
                self._writing -= 1
                self._pending = None  # recounted when next needed (a failed write may have left some)
                self.revision += 1

    def upsert_document(self, doc_id: str, points: Sequence[PointData]) -> None:
        """Write a document's chunks and make them, and only them, searchable."""
        with self._writing_document():
            old_terms = old_chunks = 0
            for payload in self._scroll(Where(must=(_doc(doc_id),)), [BM25_LEN]):
                old_terms += int(payload.get(BM25_LEN, 0))
                old_chunks += 1
            self._begin_write(doc_id)
            for start in range(0, len(points), UPSERT_BATCH):
                self._upsert(points[start : start + UPSERT_BATCH], PENDING)
            self._delete(Where(must=(_doc(doc_id),), exclude_ids=tuple(point_id(p.chunk_id) for p in points)))
            self._set_payload(Where(must=(_doc(doc_id),)), {STATE: COMPLETE})
            self._add_totals(sum(p.bm25_len for p in points) - old_terms, len(points) - old_chunks)

    def delete_document(self, doc_id: str) -> int:
        """Remove a document's points; returns how many there were."""
        with self._writing_document():
            terms = chunks = 0
            for payload in self._scroll(Where(must=(_doc(doc_id),)), [BM25_LEN]):
                terms += int(payload.get(BM25_LEN, 0))
                chunks += 1
            if chunks:
                self._begin_write(doc_id)
                self._delete(Where(must=(_doc(doc_id),)))
                self._add_totals(-terms, -chunks)
            return chunks

    # An exclusive store journals each document write in its metadata: `writing` (the document) before the first
    # change, then the new totals and exact point count (`points`) with the mark cleared. Opening finds a mark only
    # after a crash (the totals are then recounted), and otherwise a point count other than `points` means points
    # were lost outside any write: a damaged index, never an empty one taken at its word.
    def _begin_write(self, doc_id: str) -> None:
        if self.exclusive:
            meta = self._meta()
            meta[WRITING] = doc_id
            self._save_meta(meta)

    def _add_totals(self, terms: int, chunks: int) -> None:
        if self._unfinished:  # an earlier write failed after some of its points went in: count them all again
            self._unfinished = False
            self.recount()
            return
        meta = self._meta()
        meta["bm25_terms"] = max(int(meta.get("bm25_terms", 0)) + terms, 0)
        meta["bm25_chunks"] = max(int(meta.get("bm25_chunks", 0)) + chunks, 0)
        if self.exclusive:
            meta.pop(WRITING, None)
            if POINTS in meta:
                meta[POINTS] = max(int(meta[POINTS]) + chunks, 0)
        self._save_meta(meta)

    def recount(self) -> dict[str, int]:
        """Recompute the BM25 totals and the point count from the points themselves (after a crash, or by `gaceta
        doctor`), save them, and return them."""
        terms = points = 0
        for payload in self._scroll(Where(), [BM25_LEN]):
            terms += int(payload.get(BM25_LEN, 0))
            points += 1
        meta = self._meta()
        meta.pop(WRITING, None)
        meta.update({"bm25_terms": terms, "bm25_chunks": points})
        if self.exclusive:
            meta[POINTS] = points
        self._save_meta(meta)
        return {"bm25_terms": terms, "bm25_chunks": points, POINTS: points}

    # --- reads ----------------------------------------------------------------------------------------
    def search(
        self,
        dense: np.ndarray | None,
        sparse: SparseVector | None,
        k: int = 10,
        filters: SearchFilters | None = None,
        fusion: Fusion = Fusion.rrf,
        prefetch: int = 50,
        exact: bool = False,
    ) -> Hits:
        """Payloads and scores of the best complete chunks: dense, sparse, or both fused (give both vectors)."""
        return self.search_many([VectorQuery(dense, sparse, k, filters, fusion, prefetch, exact)])[0]

    def search_many(self, queries: Sequence[VectorQuery]) -> list[Hits]:
        """Several searches at once: Qdrant plans them as one batch (a server answering many clients)."""
        return [[(payload or {}, score) for _, payload, score in hits] for hits in self._search(queries, True)]

    def search_ids_many(self, queries: Sequence[VectorQuery]) -> list[list[tuple[str, float]]]:
        """`search_many` without payloads: (point id, score) per hit, for a caller that keeps parsed chunks."""
        return [[(pid, score) for pid, _, score in hits] for hits in self._search(queries, False)]

    def _search(self, queries: Sequence[VectorQuery], with_payload: bool) -> list[list[Scored]]:
        with self._visibility() as hide_pending:
            planned: list[PlannedQuery | None] = []
            for q in queries:
                sparse = q.sparse if q.sparse is not None and q.sparse.indices else None  # stopwords only: no BM25
                if q.dense is None and sparse is None:
                    planned.append(None)
                    continue
                where = filters_where(q.filters, hide_pending, q.superseded)
                limit = q.k + TIE_MARGIN
                planned.append(PlannedQuery(q.dense, sparse, limit, where, q.fusion, max(q.prefetch, limit), q.exact))
            runnable = [p for p in planned if p is not None]
            results = iter(self._query_many(runnable, with_payload) if runnable else [])
            return [_best(next(results), q.k) if p is not None else [] for p, q in zip(planned, queries)]

    @contextmanager
    def _visibility(self) -> Iterator[bool]:
        """Yields whether a search must filter out pending points. An exclusive store with none, and no write in
        progress, searches unfiltered while holding the guard, so no write can begin underneath that search."""
        if self.exclusive:
            with self._guard:
                if not self._writing:
                    if self._pending is None:
                        self._pending = self._count(Where(must=(_PENDING,)))
                    if not self._pending:
                        yield False
                        return
        yield True

    def payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Payloads of the complete points among `ids`, by point id (a point written since it was found is left out)."""
        return {pid: p for pid, p in self._retrieve(list(ids)).items() if p.get(STATE) == COMPLETE}

    def chunk_payload(self, chunk_id: str) -> dict[str, Any] | None:
        return self.payloads([point_id(chunk_id)]).get(point_id(chunk_id))

    def provision_payloads(self, doc_ids: Sequence[str], articles: Sequence[str],
                           filters: SearchFilters | None = None,
                           superseded: Sequence[str] = ()) -> list[dict[str, Any]]:
        """Payloads of the complete chunks of `doc_ids` that lie in one of `articles` (canonical keys) and pass
        `filters` (and are no `superseded` version): the direct lookup of a named provision, by payload filter, no
        vectors involved."""
        if not doc_ids or not articles:
            return []
        base = filters_where(filters, hide_pending=True, superseded=superseded)
        where = Where(must=(*base.must, Match("doc_id", tuple(doc_ids)), Match("article", tuple(articles))),
                      must_not=base.must_not)
        return list(self._scroll(where, True))

    def role_payloads(self, doc_ids: Sequence[str], roles: Sequence[str],
                      fields: list[str] | bool = True) -> list[dict[str, Any]]:
        """Payloads (or the named fields) of the complete chunks of `doc_ids` whose provision role is one of `roles`
        (whatever version of its law each document is)."""
        if not doc_ids or not roles:
            return []
        return list(self._scroll(Where(must=(_COMPLETE, Match("doc_id", tuple(doc_ids)), Match("role", tuple(roles)))),
                                 fields))

    def document_payloads(self) -> list[dict[str, Any]]:
        """The `document` payload of every complete document (read from its first chunk)."""
        where = Where(must=(_COMPLETE, Match("index", (0,))))
        return [p["document"] for p in self._scroll(where, ["document"]) if "document" in p]

    def has_document(self, doc_id: str) -> bool:
        return self._count(Where(must=(_doc(doc_id), _COMPLETE))) > 0

    def stats(self) -> StoreStats:
        points = self._count(None)
        chunks = self._count(Where(must=(_COMPLETE,)))
        documents = self._count(Where(must=(_COMPLETE, Match("index", (0,)))))
        terms, n = self.bm25_totals()
        return StoreStats(
            backend=self.backend,
            location=self.location,
            model_id=self.model_id,
            dim=self.dim,
            points=points,
            chunks=chunks,
            documents=documents,
            pending=points - chunks,
            avgdl=terms / n if n else 0.0,
        )

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _best(hits: list[Scored], k: int) -> list[Scored]:
    """The `k` best of a backend's hits, equal scores in point-id order: the same `k` every time (`TIE_MARGIN`)."""
    return sorted(hits, key=lambda hit: (-hit[2], hit[0]))[:k]
