"""Scale-out store: a Qdrant server or cluster through qdrant-client (`GACETA_QDRANT_URL`).

The same collection schema as the embedded store; sharding and replication are Qdrant's. The model id and BM25
totals live in the collection's metadata. Tests run it on `QdrantClient(":memory:")`, which speaks this API.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as m

from retrieval.bm25 import SparseVector
from retrieval.models import Fusion
from retrieval.store.base import (
    BM25_LEN,
    DENSE,
    HNSW_EF,
    HNSW_EF_CONSTRUCT,
    HNSW_M,
    PAYLOAD_INDEXES,
    RRF_K,
    RRF_WEIGHTS,
    SPARSE,
    STATE,
    DateRange,
    Match,
    PlannedQuery,
    PointData,
    Scored,
    Store,
    Where,
    point_id,
)

_RRF = m.RrfQuery(rrf=m.Rrf(k=RRF_K, weights=list(RRF_WEIGHTS)))
_DBSF = m.FusionQuery(fusion=m.Fusion.DBSF)
_SCHEMAS = {
    "keyword": m.PayloadSchemaType.KEYWORD,
    "integer": m.PayloadSchemaType.INTEGER,
    "datetime": m.PayloadSchemaType.DATETIME,
}
SCROLL_PAGE = 1024


def _condition(cond: Match | DateRange) -> m.FieldCondition:
    if isinstance(cond, DateRange):
        return m.FieldCondition(key=cond.key, range=m.DatetimeRange(gte=cond.gte, lte=cond.lte))
    if len(cond.values) == 1:
        return m.FieldCondition(key=cond.key, match=m.MatchValue(value=cond.values[0]))
    return m.FieldCondition(key=cond.key, match=m.MatchAny(any=list(cond.values)))


def _filter(where: Where | None) -> m.Filter | None:
    if where is None or not (where.must or where.exclude_ids or where.must_not):
        return None
    must_not = [m.HasIdCondition(has_id=list(where.exclude_ids))] if where.exclude_ids else []
    must_not += [_condition(c) for c in where.must_not]
    return m.Filter(must=[_condition(c) for c in where.must] or None, must_not=must_not or None)


def _sparse(vector: SparseVector) -> m.SparseVector:
    return m.SparseVector(indices=vector.indices, values=vector.values)


class ClientStore(Store):
    backend = "qdrant-client"

    def __init__(
        self,
        client: QdrantClient,
        collection: str,
        model_id: str,
        dim: int,
        shards: int = 1,
        replication: int = 1,
        location: str = "",
    ):
        super().__init__(model_id, dim)
        self.client = client
        self.collection = collection
        self.location = f"{location or 'qdrant'}/{collection}"
        if client.collection_exists(collection):
            self._check_model(self.location)
            return
        client.create_collection(
            collection,
            vectors_config={DENSE: m.VectorParams(size=dim, distance=m.Distance.COSINE)},
            sparse_vectors_config={SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)},
            hnsw_config=m.HnswConfigDiff(m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT),
            shard_number=shards,
            replication_factor=replication,
            metadata=self._new_meta(),
        )
        for name, kind in PAYLOAD_INDEXES.items():
            client.create_payload_index(collection, name, field_schema=_SCHEMAS[kind], wait=True)

    def _meta(self) -> dict[str, Any]:
        return dict(self.client.get_collection(self.collection).config.metadata or {})

    def _save_meta(self, meta: dict[str, Any]) -> None:
        self.client.update_collection(self.collection, metadata=meta)

    def _upsert(self, points: Sequence[PointData], state: str) -> None:
        self.client.upsert(
            self.collection,
            [
                m.PointStruct(
                    id=point_id(p.chunk_id),
                    vector={DENSE: p.dense.tolist(), SPARSE: _sparse(p.sparse)},
                    payload={**p.payload, STATE: state, BM25_LEN: p.bm25_len},
                )
                for p in points
            ],
            wait=True,
        )

    def _delete(self, where: Where) -> None:
        self.client.delete(self.collection, m.FilterSelector(filter=_filter(where)), wait=True)

    def _set_payload(self, where: Where, payload: dict[str, Any]) -> None:
        self.client.set_payload(self.collection, payload, points=_filter(where), wait=True)

    def _count(self, where: Where | None) -> int:
        return self.client.count(self.collection, count_filter=_filter(where), exact=True).count

    def _scroll(self, where: Where, fields: list[str] | bool) -> Iterator[dict[str, Any]]:
        offset = None
        while True:
            records, offset = self.client.scroll(
                self.collection, scroll_filter=_filter(where), limit=SCROLL_PAGE, offset=offset, with_payload=fields
            )
            for record in records:
                yield record.payload or {}
            if offset is None:
                return

    def _retrieve(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        return {str(r.id): r.payload or {} for r in self.client.retrieve(self.collection, ids, with_payload=True)}

    def _query_many(self, queries: list[PlannedQuery], with_payload: bool) -> list[list[Scored]]:
        requests = [self._request(q, with_payload) for q in queries]
        responses = self.client.query_batch_points(self.collection, requests=requests)
        return [
            [(str(p.id), p.payload if with_payload else None, float(p.score)) for p in response.points]
            for response in responses
        ]

    @staticmethod
    def _request(query: PlannedQuery, with_payload: bool) -> m.QueryRequest:
        flt = _filter(query.where)
        searches = []
        if query.dense is not None:
            searches.append((query.dense.tolist(), DENSE, m.SearchParams(hnsw_ef=HNSW_EF, exact=query.exact)))
        if query.sparse is not None:
            searches.append((_sparse(query.sparse), SPARSE, m.SearchParams(exact=query.exact)))
        if len(searches) == 1:
            vector, using, params = searches[0]
            return m.QueryRequest(
                query=vector, using=using, filter=flt, params=params, limit=query.limit, with_payload=with_payload
            )
        return m.QueryRequest(
            prefetch=[
                m.Prefetch(query=qy, using=us, params=pa, filter=flt, limit=query.prefetch) for qy, us, pa in searches
            ],
            query=_RRF if query.fusion is Fusion.rrf else _DBSF,
            filter=flt,
            limit=query.limit,
            with_payload=with_payload,
        )

    def close(self) -> None:
        self.client.close()
