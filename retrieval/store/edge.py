"""Embedded store: qdrant-edge, Qdrant's engine in-process, persistent under the index directory.

Layout: `<index_dir>/LOCK` (the owner), `<index_dir>/<collection>/shard/` (qdrant-edge's files: `wal/`,
`segments/`, `edge_config.json`) and `<index_dir>/<collection>/meta.json` (model id, BM25 totals and the exact point
count; edge shards have no collection metadata).

Damage is named, never a traceback and never an empty index taken at its word: unreadable metadata, a write-ahead
log or segment qdrant-edge cannot load, a missing `segments/` folder, or fewer points than the metadata recorded
(an emptied folder) each raise `IndexDamaged` when the store opens, and a storage error while reading does too.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
from contextlib import contextmanager
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as q

from retrieval.bm25 import SparseVector
from retrieval.models import Fusion
from retrieval.store.base import (
    BM25_LEN,
    DENSE,
    HNSW_EF,
    HNSW_EF_CONSTRUCT,
    HNSW_M,
    PAYLOAD_INDEXES,
    POINTS,
    REPAIR,
    RRF_K,
    RRF_WEIGHTS,
    SPARSE,
    STATE,
    WRITING,
    DateRange,
    IndexDamaged,
    Match,
    PlannedQuery,
    PointData,
    Scored,
    Store,
    Where,
    point_id,
)
from retrieval.store.lock import IndexLock

_SCHEMAS = {
    "keyword": q.PayloadSchemaType.Keyword,
    "integer": q.PayloadSchemaType.Integer,
    "datetime": q.PayloadSchemaType.Datetime,
}
# Segments below this size (KB) are searched exactly; above it optimize() builds HNSW. Qdrant's default.
INDEXING_THRESHOLD_KB = 10_000
SCROLL_PAGE = 1024
log = logging.getLogger(__name__)
# qdrant-edge raises plain Exceptions; these words mark one from its storage (a file it cannot read or decode), as
# opposed to a request it refuses.
_STORAGE_ERROR = re.compile(r"Service runtime error|IO Error|[Dd]ecode|[Dd]eserializ|[Cc]orrupt|No such file")
_SEGMENT = re.compile(r"segments/([0-9a-f-]{36})")


def _detail(exc: BaseException) -> str:
    """qdrant-edge's message on one line, without its repeated prefixes."""
    text = " ".join(str(exc).split())
    text = re.sub(r"(Service runtime error: |IO Error: )+", "", text)
    text = re.sub(r"(failed to load segment|failed to open WAL|Failed to read segment state) \S+?:? ", "", text)
    return text if len(text) <= 240 else text[:239] + "…"


def panicked(exc: BaseException) -> bool:
    """A Rust panic inside qdrant-edge (pyo3's PanicException, a BaseException): a segment file it cannot make
    sense of. Damage to name in one line, never a traceback."""
    return type(exc).__name__ == "PanicException"


def damage(shard_dir: Path, exc: BaseException) -> IndexDamaged:
    """What qdrant-edge's failure to load or read `shard_dir` says is damaged, as one line ending in the repair."""
    text = str(exc)
    if "WAL" in text:
        what = f"its write-ahead log ({shard_dir / 'wal'}) is damaged"
    elif (segment := _SEGMENT.search(text)) is not None:
        what = f"its segment {shard_dir / 'segments' / segment.group(1)} is damaged"
    elif "edge_config" in text:
        what = f"its shard configuration ({shard_dir / 'edge_config.json'}) is damaged"
    else:
        what = f"its storage under {shard_dir} is damaged"
    return IndexDamaged(f"the index at {shard_dir.parent}: {what} ({_detail(exc)}); {REPAIR}")


def _condition(cond: Match | DateRange) -> q.FieldCondition:
    if isinstance(cond, DateRange):
        return q.FieldCondition(key=cond.key, range=q.RangeDateTime(gte=cond.gte, lte=cond.lte))
    if len(cond.values) == 1:
        return q.FieldCondition(key=cond.key, match=q.MatchValue(cond.values[0]))
    return q.FieldCondition(key=cond.key, match=q.MatchAny(list(cond.values)))


def _filter(where: Where | None) -> q.Filter | None:
    if where is None or not (where.must or where.exclude_ids or where.must_not):
        return None
    must_not = [q.HasIdCondition(set(where.exclude_ids))] if where.exclude_ids else []
    must_not += [_condition(c) for c in where.must_not]
    return q.Filter(must=[_condition(c) for c in where.must] or None, must_not=must_not or None)


def _sparse(vector: SparseVector) -> q.SparseVector:
    return q.SparseVector(indices=vector.indices, values=vector.values)


def edge_config(dim: int, indexing_threshold_kb: int = INDEXING_THRESHOLD_KB) -> q.EdgeConfig:
    """How a gaceta shard is created: dense (cosine) and BM25 (IDF) vectors, HNSW above the threshold."""
    return q.EdgeConfig(
        vectors={DENSE: q.EdgeVectorParams(size=dim, distance=q.Distance.Cosine)},
        sparse_vectors={SPARSE: q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)},
        hnsw_config=q.HnswIndexConfig(
            m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT, full_scan_threshold=indexing_threshold_kb
        ),
        optimizers=q.EdgeOptimizersConfig(indexing_threshold=indexing_threshold_kb),
        # Payloads stay in the page cache: a search returns them with its hits (each a chunk's text, offsets and
        # document), and reading them cold was 40% of a hybrid query at 4k chunks (1.2 → 0.4 ms for 10 hits).
        payload_memory=q.Memory.Cached,
    )


def create_shard(shard_dir: Path, config: q.EdgeConfig) -> q.EdgeShard:
    """A new shard with the payload indexes every gaceta filter uses."""
    shard = q.EdgeShard.create(str(shard_dir), config)
    try:
        for name, kind in PAYLOAD_INDEXES.items():
            shard.update(q.UpdateOperation.create_field_index(name, _SCHEMAS[kind]))
    except BaseException:
        shard.close()
        raise
    return shard


class EdgeStore(Store):
    backend = "qdrant-edge"
    exclusive = True  # the index lock keeps every other process out

    def __init__(
        self,
        index_dir: Path,
        collection: str,
        model_id: str,
        dim: int,
        indexing_threshold_kb: int = INDEXING_THRESHOLD_KB,
    ):
        super().__init__(model_id, dim)
        self.location = str(index_dir / collection)
        self._lock = IndexLock(index_dir)
        self._lock.acquire()
        self.shard = None
        try:
            self._open(index_dir / collection, indexing_threshold_kb)
        except BaseException:
            if self.shard is not None:  # loaded, then found damaged
                self.shard.close()
                self.shard = None
            self._lock.release()
            raise

    @staticmethod
    def exists(index_dir: Path, collection: str) -> bool:
        """Whether a gaceta index was created here (without opening it or taking its lock): its meta.json, or a shard
        that lost it (opening that names the damage, rather than "no index")."""
        root = index_dir / collection
        shard = root / "shard"
        return (root / "meta.json").is_file() or (shard.is_dir() and any(shard.iterdir()))

    @staticmethod
    def set_aside(index_dir: Path, collection: str) -> Path | None:
        """Move a (damaged) collection out of the way, under the index lock, so a new one can be built in its place:
        `<collection>.damaged-<UTC time>` beside it, never deleted. Returns where it went (None: there was none)."""
        root = index_dir / collection
        if not root.exists():
            return None
        lock = IndexLock(index_dir)
        lock.acquire()
        try:
            stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S")
            target = root.with_name(f"{collection}.damaged-{stamp}")
            os.replace(root, target)
            return target
        finally:
            lock.release()

    def _open(self, root: Path, indexing_threshold_kb: int) -> None:
        shard_dir, self._meta_path = root / "shard", root / "meta.json"
        if self._meta_path.is_file():
            self._meta_cache = self._read_meta()
            self._check_model(self.location)
            self._shard_dir = shard_dir
            if not (shard_dir / "segments").is_dir():
                raise IndexDamaged(f"the index at {root} has no shard/segments folder: its points are gone; {REPAIR}")
            try:
                self.shard = q.EdgeShard.load(str(shard_dir))
            except Exception as exc:  # qdrant-edge's errors are plain Exceptions
                raise damage(shard_dir, exc) from exc
            except BaseException as exc:
                if panicked(exc):
                    raise damage(shard_dir, exc) from None
                raise
            self._check_points(root)
            return
        if shard_dir.exists() and any(shard_dir.iterdir()):
            raise IndexDamaged(f"the index at {root} holds a shard but no meta.json (its model and totals): not a "
                               f"gaceta index, or a damaged one; {REPAIR}")
        self._shard_dir = shard_dir
        self.shard = create_shard(shard_dir, edge_config(self.dim, indexing_threshold_kb))
        self._meta_cache = {**self._new_meta(), POINTS: 0}
        self._save_meta(self._meta_cache)

    def _read_meta(self) -> dict[str, Any]:
        """meta.json, checked: an object with the model id, the dimension and the totals as numbers."""
        path = self._meta_path
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(meta, dict):
                raise ValueError(f"a JSON {type(meta).__name__}, not an object")
            if not isinstance(meta.get("model_id"), str) or not isinstance(meta.get("dim"), int):
                raise ValueError("no model_id and dim")
            for key in ("bm25_terms", "bm25_chunks", POINTS):
                if key in meta and not (isinstance(meta[key], int) and meta[key] >= 0):
                    raise ValueError(f"{key} is {meta[key]!r}")
        except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            detail = " ".join(str(exc).split())[:200]
            raise IndexDamaged(f"the index's metadata {path} is damaged ({detail}); {REPAIR}") from exc
        return meta

    def _check_points(self, root: Path) -> None:
        """After loading: finish the totals of a write a crash interrupted, then hold the shard to the point count
        the metadata recorded (an index from before that count was kept records it now)."""
        meta = self._meta()
        if WRITING in meta:
            totals = self.recount()
            log.warning("the index's last write (document %s) was interrupted: recounted its totals (%d points)",
                        meta[WRITING], totals[POINTS])
            return
        points = self._count(None)
        expected = meta.get(POINTS)
        if expected is None:  # written before the count was kept: only an empty shard is surely wrong
            expected = int(meta.get("bm25_chunks", 0)) if points == 0 else points
            if expected == points:
                self._save_meta({**meta, POINTS: points})
                return
        if points != expected:
            what = ("its segments folder is empty" if points == 0
                    else "segments are missing or damaged" if points < expected else "it holds points no write recorded")
            raise IndexDamaged(f"the index at {root} holds {points} points but recorded {expected}: {what}; {REPAIR}")

    def _meta(self) -> dict[str, Any]:
        return dict(self._meta_cache)

    def _save_meta(self, meta: dict[str, Any]) -> None:
        tmp = self._meta_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(meta))
        os.replace(tmp, self._meta_path)
        self._meta_cache = dict(meta)

    @contextmanager
    def _storage(self) -> Iterator[None]:
        """qdrant-edge storage errors (a segment it cannot read or decode) as IndexDamaged; other errors as they are."""
        try:
            yield
        except Exception as exc:
            if type(exc) is Exception and _STORAGE_ERROR.search(str(exc)):
                raise damage(self._shard_dir, exc) from exc
            raise
        except BaseException as exc:
            if panicked(exc):  # a panicking segment: its one line, not pyo3's traceback
                raise damage(self._shard_dir, exc) from None
            raise

    def _upsert(self, points: Sequence[PointData], state: str) -> None:
        with self._storage():
            self._upsert_points(points, state)

    def _upsert_points(self, points: Sequence[PointData], state: str) -> None:
        self.shard.update(
            q.UpdateOperation.upsert_points(
                [
                    q.Point(
                        point_id(p.chunk_id),
                        {DENSE: p.dense.tolist(), SPARSE: _sparse(p.sparse)},
                        {**p.payload, STATE: state, BM25_LEN: p.bm25_len},
                    )
                    for p in points
                ]
            )
        )

    def _delete(self, where: Where) -> None:
        with self._storage():
            self.shard.update(q.UpdateOperation.delete_points_by_filter(_filter(where)))

    def _set_payload(self, where: Where, payload: dict[str, Any]) -> None:
        with self._storage():
            self.shard.update(q.UpdateOperation.set_payload_by_filter(_filter(where), payload))

    def _count(self, where: Where | None) -> int:
        with self._storage():
            return self.shard.count(q.CountRequest(filter=_filter(where), exact=True))

    def _scroll(self, where: Where, fields: list[str] | bool) -> Iterator[dict[str, Any]]:
        offset = None
        while True:
            with self._storage():
                records, offset = self.shard.scroll(
                    q.ScrollRequest(offset=offset, limit=SCROLL_PAGE, filter=_filter(where), with_payload=fields)
                )
            for record in records:
                yield record.payload or {}
            if offset is None:
                return

    def check_readable(self) -> None:
        """Read every point's vectors and payload once (`gaceta doctor`): a truncated vector file or a damaged payload
        file is met here, as `IndexDamaged`, rather than by the first query that needs it."""
        offset = None
        while True:
            with self._storage():
                _, offset = self.shard.scroll(q.ScrollRequest(offset=offset, limit=SCROLL_PAGE, with_payload=True,
                                                              with_vector=True))
            if offset is None:
                return

    def _retrieve(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        with self._storage():
            return {str(r.id): r.payload or {} for r in self.shard.retrieve(ids, True, False)}

    def _query_many(self, queries: list[PlannedQuery], with_payload: bool) -> list[list[Scored]]:
        requests = [self._request(query, with_payload) for query in queries]
        with self._storage():
            if len(requests) == 1:
                found = [self.shard.query(requests[0])]
            else:
                found = self.shard.query_batch(q.QueryBatchRequest(requests))
        if with_payload:
            return [[(str(p.id), p.payload or {}, float(p.score)) for p in points] for points in found]
        return [[(str(p.id), None, float(p.score)) for p in points] for points in found]

    @staticmethod
    def _request(query: PlannedQuery, with_payload: bool) -> q.QueryRequest:
        flt = _filter(query.where)
        searches = []
        if query.dense is not None:
            params = q.SearchParams(hnsw_ef=HNSW_EF, exact=query.exact)
            searches.append((q.Query.Nearest(query.dense.tolist(), using=DENSE), params))
        if query.sparse is not None:
            searches.append((q.Query.Nearest(_sparse(query.sparse), using=SPARSE), q.SearchParams(exact=query.exact)))
        if len(searches) == 1:
            nearest, params = searches[0]
            return q.QueryRequest(
                limit=query.limit, query=nearest, filter=flt, params=params, with_payload=with_payload
            )
        return q.QueryRequest(
            limit=query.limit,
            prefetches=[q.Prefetch(limit=query.prefetch, query=qy, params=pa, filter=flt) for qy, pa in searches],
            query=q.Fusion.Rrf(k=RRF_K, weights=list(RRF_WEIGHTS)) if query.fusion is Fusion.rrf else q.Fusion.Dbsf(),
            filter=flt,
            with_payload=with_payload,
        )

    def flush(self) -> None:
        self.shard.flush()

    def optimize(self) -> None:
        self.shard.optimize()

    def close(self) -> None:
        if getattr(self, "shard", None) is not None:
            self.shard.flush()
            self.shard.close()
            self.shard = None
        self._lock.release()
