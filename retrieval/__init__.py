"""Embeddings, the Qdrant store (dense + BM25 sparse), hybrid search, cited answers. Knows ingest's models, not Prefect."""
