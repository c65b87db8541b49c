"""PDF → legal documents → chunks. Pure: reads files, returns pydantic models; no index, no Prefect."""

# What a file becomes (documents, identity, Markdown, chunks) at this version: bump it whenever a change to the
# parser or the chunker should re-index files already indexed. `flows.indexing` puts it in every file's cache key.
INGEST_VERSION = "2026.12.07-subsections"
