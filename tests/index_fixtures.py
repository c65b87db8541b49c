"""Shared builders for tests that need a real index or a bare store (use them in module/session fixtures)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from retrieval.index import Index
from retrieval.models import SearchHit
from retrieval.settings import Settings
from retrieval.store.base import Store
from tests.conftest import cut_pdf, pdf

STORE_KINDS = ("edge", "client")


def build_index(home: Path, pdf_names: list[str | Path]) -> Index:
    """A real index under `home` of the named shared PDFs (or of PDFs at the paths given), with the default embedder
    (caller closes it).

    Every named PDF must parse to at least one document: a fixture asking for a broken file is a mistake.
    """
    from ingest.parse import parse_pdf

    index = Index.open(Settings(home=home))
    try:
        for name in pdf_names:
            result = parse_pdf(name if isinstance(name, Path) else pdf(name))
            if not result.documents:
                raise ValueError(f"{name} yielded no documents ({result.status.value}: {result.message})")
            index.add_documents(result.documents)
        index.optimize()
    except BaseException:
        index.close()
        raise
    return index


def build_cut_index(root: Path, cuts: Sequence[tuple[Path, list[tuple[int, int]]]]) -> Index:
    """A real index under `root`/home of the page ranges (0-based, inclusive) `cuts` keeps of real PDFs, each cut
    saved under its own file name in `root` (caller closes it)."""
    return build_index(root / "home", [cut_pdf(path, ranges, root / path.name) for path, ranges in cuts])


def open_test_store(
    kind: str,
    tmp_path: Path,
    dim: int,
    model_id: str = "test-model",
    client=None,
    indexing_threshold_kb: int | None = None,
) -> Store:
    """A store of either backend: qdrant-edge under `tmp_path`, or qdrant-client on `client` (default :memory:)."""
    if kind == "edge":
        from retrieval.store.edge import INDEXING_THRESHOLD_KB, EdgeStore

        threshold = indexing_threshold_kb or INDEXING_THRESHOLD_KB
        return EdgeStore(tmp_path / "index", "test", model_id, dim, indexing_threshold_kb=threshold)
    if kind == "client":
        from qdrant_client import QdrantClient

        from retrieval.store.client import ClientStore

        return ClientStore(client or QdrantClient(":memory:"), "test", model_id, dim, location=":memory:")
    raise ValueError(f"unknown store kind {kind!r}")


def comparable_hits(results: Sequence[Sequence[SearchHit]]) -> list[tuple[list[float], dict[str, dict]]]:
    """Per search: the score sequence, and each hit by chunk id (Qdrant orders exact RRF ties arbitrarily)."""
    return [
        (
            [round(hit.score, 6) for hit in hits],
            {hit.chunk.chunk_id: hit.model_dump(mode="json", exclude={"rank", "score"}) for hit in hits},
        )
        for hits in results
    ]


@contextmanager
def rewritten_chunk(index: Index, chunk_id: str, suffix: str) -> Iterator[None]:
    """Re-index the chunk's document with `suffix` added to that chunk's text (as a corrected re-ingest would);
    the original is indexed again on the way out."""
    doc = index.document(chunk_id.rsplit(":", 1)[0])
    chunks = index.chunk_document(doc)
    changed = [c.model_copy(update={"text": c.text + suffix}) if c.chunk_id == chunk_id else c for c in chunks]
    index.upsert(doc, changed, index.embed(chunks))
    try:
        yield
    finally:
        index.upsert(doc, chunks, index.embed(chunks))


def home_with_inbox(root: Path, pdf_name: str, source_name: str) -> Path:
    """`root/home` with the shared `pdf_name` indexed from `root/inbox/<source_name>`, so its original is kept and
    the ledger names a source that still exists (closed: flushed and unlocked). Returns `root`."""
    import shutil

    from ingest.parse import parse_pdf

    source = root / "inbox" / source_name
    source.parent.mkdir(parents=True)
    shutil.copy(pdf(pdf_name), source)
    with Index.open(Settings(home=root / "home")) as index:
        index.add_documents(parse_pdf(source).documents)
    return root
