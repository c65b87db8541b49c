"""Qdrant storage of chunks: embedded (qdrant-edge) by default, a Qdrant server/cluster when a URL is set."""

from __future__ import annotations

from retrieval.settings import Settings
from retrieval.store.base import (
    IndexDamaged,
    IndexInUseError,
    ModelMismatchError,
    PointData,
    Store,
    StoreError,
    StoreStats,
    VectorQuery,
    point_id,
)

__all__ = [
    "IndexDamaged",
    "IndexInUseError",
    "ModelMismatchError",
    "PointData",
    "Store",
    "StoreError",
    "StoreStats",
    "VectorQuery",
    "index_exists",
    "open_store",
    "point_id",
]


def open_store(settings: Settings, dim: int, model_id: str) -> Store:
    """The store `settings` point at; raises ModelMismatchError / IndexInUseError / StoreError with a clear message."""
    if settings.qdrant_url:
        from qdrant_client import QdrantClient

        from retrieval.store.client import ClientStore

        client = QdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key)
        try:
            return ClientStore(
                client,
                settings.collection,
                model_id,
                dim,
                shards=settings.qdrant_shards,
                replication=settings.qdrant_replication,
                location=settings.qdrant_url,
            )
        except StoreError:
            client.close()
            raise
        except Exception as exc:  # connection refused, auth, timeouts: one clear line for the user
            client.close()
            raise StoreError(f"cannot use the Qdrant server at {settings.qdrant_url}: {exc}") from exc

    from retrieval.store.edge import EdgeStore

    return EdgeStore(settings.index_dir, settings.collection, model_id, dim)


def index_exists(settings: Settings) -> bool:
    """Whether there is an index to query: always assumed with a server URL (the server answers for itself)."""
    if settings.qdrant_url:
        return True
    from retrieval.store.edge import EdgeStore

    return EdgeStore.exists(settings.index_dir, settings.collection)
