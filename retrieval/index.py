"""The retrieval facade: one object that chunks, embeds, stores and searches, over the modules that do each.

    with Index.open(settings) as index:
        index.add_document(doc)
        hits = index.search("¿qué dispone el artículo 27?", k=10)
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel

from ingest.models import BODY_ROLES, Chunk, DocumentInfo, HeadingKind, LegalDocument, ProvisionRole
from ingest.references import amended_articles, article_key
from retrieval import bm25
from retrieval.batcher import Batcher
from retrieval.chunk_cache import ChunkCache, Parsed
from retrieval.divisions import outline
from retrieval.documents import DocumentPage, DocumentRecords, matches
from retrieval.embedders import Embedder, load_embedder
from retrieval.law_lookup import LawCatalog
from retrieval.models import Division, Fusion, NamedCountry, SearchFilters, SearchHit, SearchMode
from retrieval.settings import Settings
from retrieval.store import PointData, Store, VectorQuery, open_store
from retrieval.store.base import point_id
from retrieval.versions import InForce, in_force, versioned

# Candidates each side (dense, BM25) hands to fusion; the retrieval evaluation tunes it.
DEFAULT_PREFETCH = 50
_INTERNAL = ("document", "state", "bm25_len")
CATALOG_TTL = 30.0


@dataclass
class Embedded:
    """What `embed` computed for a list of chunks, row for row: dense vectors and BM25 sparse vectors."""

    dense: np.ndarray
    sparse: list[bm25.SparseVector]
    lengths: list[int]  # BM25 terms per chunk

    def split(self, sizes: Sequence[int]) -> list[Embedded]:
        """One batch's rows back into consecutive parts of `sizes` rows (a batch of several documents' chunks)."""
        parts, start = [], 0
        for size in sizes:
            end = start + size
            parts.append(Embedded(self.dense[start:end], self.sparse[start:end], self.lengths[start:end]))
            start = end
        return parts


@dataclass(frozen=True)
class Search:
    """One search's arguments: concurrent searches are batched as lists of these."""

    query: str
    k: int = 10
    mode: SearchMode = SearchMode.hybrid
    filters: SearchFilters | None = None
    fusion: Fusion = Fusion.rrf
    prefetch: int = DEFAULT_PREFETCH
    set_aside: tuple[str, ...] = ()  # documents not searched: another country's law (`legal_search.first_stage`)
    country: NamedCountry | None = field(default=None, compare=False)  # the country the query names, if any


class IndexStatus(BaseModel):
    documents: int
    chunks: int
    pending: int
    model: str
    dim: int
    backend: str
    location: str


def _payload(doc: DocumentInfo, chunk: Chunk) -> dict[str, Any]:
    return {**chunk.model_dump(mode="json"), "document": doc.model_dump(mode="json")}


def _parse(payload: dict[str, Any]) -> Parsed:
    chunk = Chunk.model_validate({k: v for k, v in payload.items() if k not in _INTERNAL})
    return chunk, DocumentInfo.model_validate(payload["document"])


def _hits(found: Sequence[tuple[Parsed, float]]) -> list[SearchHit]:
    # ranked as the store ordered them: best first, equal scores by point id (`store.base.TIE_MARGIN`), so the same
    # query ranks the same way every time, and asking for more hits never changes the first ones
    return [
        SearchHit(chunk=chunk, document=document, score=score, rank=rank)
        for rank, ((chunk, document), score) in enumerate(found, start=1)
    ]


class Index:
    def __init__(self, settings: Settings, embedder: Embedder, store: Store):
        self.settings = settings
        self.embedder = embedder
        self.store = store
        self.records = DocumentRecords(settings.documents_dir)
        self._dirty = False
        self._batcher: Batcher[Search, list[SearchHit]] | None = None
        # Parsed hits are only reused where nothing but this process can change the stored chunks.
        self._chunks = ChunkCache(settings.chunk_cache) if store.exclusive and settings.chunk_cache else None
        self._catalog: tuple[int, LawCatalog, list[DocumentInfo]] | None = None

    @classmethod
    def open(
        cls,
        settings: Settings,
        embedder: Embedder | None = None,
        checked: bool = True,
    ) -> Index:
        """Open (or create) the index `settings` describe, with its configured embedding model; finish what a crash
        left half done (a replacement of a source's version), and check that records, points and kept originals
        agree (`retrieval.doctor.open_check`: `IndexDamaged` names what is not; `checked=False` is the doctor's)."""
        embedder = embedder or load_embedder(settings.embedding_model, settings.device)
        index = cls(settings, embedder, open_store(settings, embedder.dim, embedder.model_id))
        try:
            index._recover_sources()
            if checked and index.store.exclusive:  # a shared server may be mid-write by another worker right now
                from retrieval.doctor import open_check

                open_check(index)
        except BaseException:
            index.store.close()
            raise
        return index

    # --- writing ------------------------------------------------------------------------------------
    def chunk_document(self, doc: LegalDocument) -> list[Chunk]:
        from ingest.chunker import chunk_document

        return chunk_document(doc, self.embedder.count_tokens, self.embedder.max_tokens)

    def embed(self, chunks: Sequence[Chunk]) -> Embedded:
        """Dense and BM25 vectors of header + context + body, in one batch (the model's encode rate)."""
        texts = [c.embedding_text() for c in chunks]
        terms, stored = self.store.bm25_totals()
        sparse, lengths = bm25.document_vectors(texts, terms, stored)
        return Embedded(dense=self.embedder.embed_documents(texts), sparse=sparse, lengths=lengths)

    def upsert(self, doc: LegalDocument, chunks: Sequence[Chunk], embedded: Embedded,
               source_key: str | None = None) -> None:
        """Store the document record, then make exactly these chunks its searchable ones; keep its PDF, and when
        its source (`source_key`, default: the resolved `source_path`) had other bytes, replace that version."""
        self.upsert_documents([(doc, chunks, embedded)], source_key)

    def upsert_documents(self, items: Sequence[tuple[LegalDocument, Sequence[Chunk], Embedded]],
                         source_key: str | None = None) -> None:
        """The replace path: documents of one ingested file, each with its chunks and vectors.

        A document whose PDF is a real file with the recorded sha256 gets that file kept (`retrieval.originals`)
        and joins its source's current version; when the source's current version had other bytes, the new
        documents are all written (complete) before the switch, and the old version's points, records and kept
        file (unless another source has the same bytes) go after it. A crash anywhere is finished by `recover`
        (the next write, or `gaceta` opening the index for a write): one version stays, never both, never none.
        Documents without a readable source (evaluation corpora, synthetic ones) are simply upserted."""
        from retrieval.originals import source_key as key_of

        for doc, chunks, embedded in items:
            if len(chunks) != len(embedded.lengths):
                raise ValueError(f"{len(chunks)} chunks but {len(embedded.lengths)} embeddings")
        originals = self.originals
        with originals.lock:
            self._recover_sources()
            groups: dict[tuple[str, str], list] = {}
            for item in items:
                doc = item[0]
                if originals.keep(doc.source_path, doc.source_sha256) is None:
                    self._write_document(*item)  # no file to keep: not a tracked source
                    continue
                key = source_key or key_of(doc.source_path)
                groups.setdefault((key, doc.source_sha256), []).append(item)
            for (key, sha), group in groups.items():
                old = originals.begin(key, sha)
                for doc, chunks, embedded in group:
                    originals.add_ref(sha, doc.doc_id, key)  # referenced before written: recovery finds it
                    self._write_document(doc, chunks, embedded)
                if old is not None:
                    retired = originals.commit(key, sha, old)
                    for doc_id in retired.doc_ids:
                        self._remove_document(doc_id)
                    originals.release(retired)
                    originals.finish(key)

    def _write_document(self, doc: LegalDocument, chunks: Sequence[Chunk], embedded: Embedded) -> None:
        self.records.save(doc)
        info = doc.info()
        points = [
            PointData(c.chunk_id, embedded.dense[i], embedded.sparse[i], _payload(info, c), embedded.lengths[i])
            for i, c in enumerate(chunks)
        ]
        self.store.upsert_document(doc.doc_id, points)
        if self.settings.openings:
            self.openings.write(doc.doc_id, chunks)
        self._dirty = True

    @functools.cached_property
    def originals(self):
        """The kept PDFs and the source ledger under GACETA_HOME (`retrieval.originals.Originals`)."""
        from retrieval.originals import Originals

        return Originals(self.settings.home)

    @functools.cached_property
    def openings(self):
        """One opening vector per article of each document (`retrieval.openings`), beside the records."""
        from retrieval.openings import Openings

        return Openings(self.settings.openings_dir, self.articles)

    def opened(self, query: str, filters: SearchFilters | None, limit: int, doc_ids: Sequence[str] | None = None,
               set_aside: Sequence[str] = ()):
        """The `limit` articles whose openings are closest to `query`, among the documents the filters admit (and
        of `doc_ids`, when given: the laws the question names) in the version in force on their date
        (`retrieval.openings.Openings.rank`), less those `set_aside` as the first stage leaves them out
        (`Search.set_aside`)."""
        superseded = {*self._superseded(filters), *set_aside}
        only = set(doc_ids) if doc_ids is not None else None
        scope = [d.doc_id for d in self._records()[2] if d.doc_id not in superseded and matches(d, filters)
                 and (only is None or d.doc_id in only)]
        return self.openings.rank(query, scope, limit)

    def _recover_sources(self) -> None:
        """Once per index object (at open, and again before a write on an index built without `open`): finish
        replacements a crashed process left half done."""
        originals = self.originals
        with originals.lock:
            if not originals.recovered:
                originals.recovered = True
                originals.recover(self._remove_document)

    def add_document(self, doc: LegalDocument) -> list[Chunk]:
        chunks = self.chunk_document(doc)
        self.upsert(doc, chunks, self.embed(chunks))
        return chunks

    def add_documents(self, docs: Sequence[LegalDocument]) -> dict[str, list[Chunk]]:
        """Chunk all, embed all chunks in one batch (fuller model batches), then upsert them per source file."""
        chunked = [(doc, self.chunk_document(doc)) for doc in docs]
        embedded = self.embed([c for _, chunks in chunked for c in chunks])
        parts = embedded.split([len(chunks) for _, chunks in chunked])
        by_file: dict[tuple[str, str], list] = {}
        for (doc, chunks), part in zip(chunked, parts):
            by_file.setdefault((doc.source_path, doc.source_sha256), []).append((doc, chunks, part))
        for items in by_file.values():
            self.upsert_documents(items)
        return {doc.doc_id: chunks for doc, chunks in chunked}

    def _remove_document(self, doc_id: str) -> bool:
        """A document's points, then its record (search stops seeing it first)."""
        removed = self.store.delete_document(doc_id)
        self.openings.remove(doc_id)
        try:
            had_record = self.records.delete(doc_id)
        except ValueError:
            had_record = False
        self._dirty = True
        return bool(removed) or had_record

    def delete_document(self, doc_id: str) -> bool:
        """Remove a document: its points, its record, and its kept PDF when no other document refers to those
        bytes. False when there was no such document."""
        originals = self.originals
        with originals.lock:
            self._recover_sources()
            doc = self.records.load(doc_id)
            sha = doc.source_sha256 if doc is not None else None
            if sha is None:  # no record (a damaged index): the points still say which file they came from
                try:
                    payload = self.store.chunk_payload(f"{doc_id}:00000")
                except ValueError:
                    payload = None
                sha = (payload or {}).get("document", {}).get("source_sha256")
            found = self._remove_document(doc_id)
            if sha:
                originals.drop_ref(sha, doc_id)
            return found

    def documents(self, filters: SearchFilters | None = None, offset: int = 0,
                  limit: int = 50) -> DocumentPage:
        """The complete documents, newest publication first (then title, id), filtered like a search (type,
        issuing body, date range, ids) and paginated; `limit` is capped at `MAX_DOCUMENTS_PAGE`."""
        from retrieval.documents import MAX_DOCUMENTS_PAGE, DocumentPage, DocumentSummary, matches
        from retrieval.store.base import COMPLETE, STATE, Match, Where

        if offset < 0 or limit < 1:
            raise ValueError("offset must be ≥ 0 and limit ≥ 1")
        limit = min(limit, MAX_DOCUMENTS_PAGE)
        infos = [DocumentInfo.model_validate(p) for p in self.store.document_payloads()]
        infos = [d for d in infos if matches(d, filters)]
        infos.sort(key=lambda d: (d.publication_date is None, -(d.publication_date.toordinal() if d.publication_date
                                                                 else 0), d.title, d.doc_id))
        page = infos[offset : offset + limit]
        summaries = [
            DocumentSummary.of(d, self.store._count(Where(must=(Match("doc_id", (d.doc_id,)), Match(STATE, (COMPLETE,))))))
            for d in page
        ]
        return DocumentPage(total=len(infos), offset=offset, limit=limit, documents=summaries)

    def optimize(self) -> None:
        """Build the ANN index over what was written (qdrant-edge does it on request, not in the background)."""
        self.store.optimize()
        self._dirty = False

    # --- reading ------------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        mode: SearchMode = SearchMode.hybrid,
        filters: SearchFilters | None = None,
        fusion: Fusion = Fusion.rrf,
        prefetch: int = DEFAULT_PREFETCH,
    ) -> list[SearchHit]:
        return self.search_future(Search(query, k, mode, filters, fusion, prefetch)).result()

    def search_future(self, search: Search) -> Future[list[SearchHit]]:
        """`search`'s hits to come: batched with its neighbours inside `batching_searches()`, else run now."""
        if search.k < 1:
            raise ValueError("k must be at least 1")
        if self._batcher is not None:
            return self._batcher.future(search)
        future: Future[list[SearchHit]] = Future()
        try:
            future.set_result(self.search_many([search])[0])
        except Exception as exc:  # raised by the caller's result(), as a batched search's error would be
            future.set_exception(exc)
        return future

    def search_many(self, searches: Sequence[Search]) -> list[list[SearchHit]]:
        """Several searches in one model call and one Qdrant batch (each query text embedded once)."""
        texts = list(dict.fromkeys(s.query for s in searches if s.mode is not SearchMode.bm25))
        vectors = dict(zip(texts, self.embedder.embed_queries(texts))) if texts else {}
        queries = [
            VectorQuery(
                dense=vectors[s.query] if s.mode is not SearchMode.bm25 else None,
                sparse=bm25.query_vector(s.query) if s.mode is not SearchMode.dense else None,
                k=s.k,
                filters=s.filters,
                fusion=s.fusion,
                prefetch=s.prefetch,
                superseded=(*self._superseded(s.filters), *s.set_aside),
            )
            for s in searches
        ]
        if self._chunks is None:
            return [_hits([(_parse(p), score) for p, score in found]) for found in self.store.search_many(queries)]
        found = self.store.search_ids_many(queries)
        revision = self.store.revision  # read before the payloads are: what is cached is never newer than its label
        parsed = self._chunks.get_many({pid for hits in found for pid, _ in hits}, revision)
        missing = {pid for hits in found for pid, _ in hits if pid not in parsed}
        if missing:
            fetched = {pid: _parse(payload) for pid, payload in self.store.payloads(missing).items()}
            self._chunks.put_many(fetched, revision)
            parsed.update(fetched)
        # A hit whose chunk was rewritten between the search and the fetch is left out, never shown half-written.
        return [_hits([(parsed[pid], score) for pid, score in hits if pid in parsed]) for hits in found]

    @contextmanager
    def batching_searches(self) -> Iterator[None]:
        """While open, concurrent `search` calls (a server's request threads) run as batches on one thread."""
        batcher: Batcher[Search, list[SearchHit]] = Batcher(self.search_many, name="search-batcher")
        self._batcher = batcher
        try:
            yield
        finally:
            self._batcher = None
            batcher.close()

    def catalog(self) -> LawCatalog:
        """The index's documents by the names a lawyer calls them (rebuilt after any write)."""
        return self._records()[1]

    def _records(self) -> tuple[int, LawCatalog, list[DocumentInfo]]:
        # A store only this process writes changes with its revision; another's (a Qdrant server) is re-read
        # every CATALOG_TTL seconds.
        key = self.store.revision if self.store.exclusive else int(time.monotonic() // CATALOG_TTL)
        if self._catalog is None or self._catalog[0] != key:
            documents = [DocumentInfo.model_validate(p) for p in self.store.document_payloads()]
            self._catalog = (key, LawCatalog(documents), documents)
        return self._catalog

    def document_infos(self) -> list[DocumentInfo]:
        """Every complete document's record (without its text), as the catalogue holds them."""
        return list(self._records()[2])

    def in_force(self, on: dt.date | None = None) -> InForce:
        """Which version of each law held here is in force on `on` (default today): `retrieval.versions`."""
        return in_force(self._records()[2], on)

    def versioned_laws(self) -> frozenset[str]:
        """The laws held here in more than one version (`retrieval.versions.versioned`)."""
        return versioned(self._records()[2])

    def _superseded(self, filters: SearchFilters | None) -> tuple[str, ...]:
        return self.in_force(filters.as_of if filters is not None else None).superseded

    def provisions(self, doc_ids: Sequence[str], articles: Sequence[str],
                   filters: SearchFilters | None = None) -> list[tuple[Chunk, DocumentInfo]]:
        """The chunks of the named articles of these documents, in document order (a direct lookup, no vectors)."""
        found = [_parse(p) for p in self.store.provision_payloads(doc_ids, articles, filters,
                                                                 self._superseded(filters))]
        order = {d: i for i, d in enumerate(doc_ids)}
        return sorted(found, key=lambda cd: (order.get(cd[0].doc_id, len(order)), cd[0].index))

    def first_article(self, doc_id: str) -> str | None:
        """The key of the first article of one document's own body (`BODY_ROLES`), read from its chunks' article and
        position fields only (a law of 2,000 chunks: 0.04 s, against 0.2 s parsing every article chunk)."""
        payloads = self.store.role_payloads([doc_id], [r.value for r in BODY_ROLES], ["article", "index"])
        first = min((p for p in payloads if p.get("article")), key=lambda p: p["index"], default=None)
        return None if first is None else first["article"]

    def divisions(self, doc_id: str, law: str) -> list[Division]:
        """The divisions of one document's own body (LIBRO, TÍTULO, CAPÍTULO, SECCIÓN, ANEXO), in order, each with
        the articles it holds, read from its chunks' fields only (`retrieval.divisions.outline`); `law` names it."""
        fields = ["index", "article", "pages", "heading_path", "heading_kinds"]
        return outline(doc_id, law, self.store.role_payloads([doc_id], [r.value for r in BODY_ROLES], fields))

    def transitory_provisions(self, doc_ids: Sequence[str], articles: Sequence[str],
                              filters: SearchFilters | None = None) -> list[tuple[Chunk, DocumentInfo]]:
        """The chunks of these documents' own transitory provisions numbered `articles` ("el artículo tercero
        transitorio": "TERCERO.", "ARTÍCULO TERCERO." under the text's "TRANSITORIOS", not those of the reform decrees
        a consolidated law appends), in the versions in force, in document order. A provision printed as an elision
        only ("ARTÍCULO TERCERO. ……….") holds no text and is left out."""
        superseded = set(self._superseded(filters))
        payloads = self.store.role_payloads([d for d in doc_ids if d not in superseded],
                                            [ProvisionRole.transitory.value])
        found = []
        for chunk, doc in (_parse(p) for p in payloads):
            heading = chunk.heading_path[-1] if chunk.heading_path else ""
            body = "\n".join(line for line in chunk.text.splitlines() if not line.lstrip().startswith("#"))
            if article_key(heading) in articles and re.search(r"\w", body):
                found.append((chunk, doc))
        order = {d: i for i, d in enumerate(doc_ids)}
        return sorted(found, key=lambda cd: (order.get(cd[0].doc_id, len(order)), cd[0].index))

    def body(self, doc_id: str) -> list[Chunk]:
        """The chunks of one document's body (`BODY_ROLES`), articles or not, in document order: the whole text of a
        judgment or a notice, less its index and appended decrees."""
        payloads = self.store.role_payloads([doc_id], [r.value for r in BODY_ROLES])
        return sorted((_parse(p)[0] for p in payloads), key=lambda c: c.index)

    def articles(self, doc_id: str, articles: Sequence[str] | None = None) -> list[Chunk]:
        """The chunks of one document's own articles (`BODY_ROLES`: not its index, preamble, transitory articles or
        appended reform decrees) — all of them, or those of `articles` (canonical keys) — in document order,
        whatever version of its law the document is (the history and diff of a law read every version)."""
        if articles is None:
            return [c for c in self.body(doc_id) if c.article]
        found = [_parse(p)[0] for p in self.store.provision_payloads([doc_id], articles)]
        return sorted((c for c in found if c.article and c.role in BODY_ROLES), key=lambda c: c.index)

    def reform_decrees(self, doc_ids: Sequence[str], articles: Sequence[str]) -> list[tuple[Chunk, DocumentInfo]]:
        """The first chunk of each reform decree appended to these consolidated texts whose title amends one of
        `articles` ("DECRETO por el que se reforma el párrafo tercero del artículo 27…"), oldest decree first."""
        firsts: dict[tuple[str, str], int] = {}
        for p in self.store.role_payloads(doc_ids, [ProvisionRole.reform_decree.value],
                                          ["doc_id", "index", "heading_path", "heading_kinds"]):
            title = next((text for text, kind in zip(p["heading_path"], p["heading_kinds"])
                          if kind == HeadingKind.title.value), None)
            if title is not None:
                key = (p["doc_id"], title)
                firsts[key] = min(firsts.get(key, p["index"]), p["index"])
        wanted = set(articles)
        ids = [f"{doc_id}:{index:05d}" for (doc_id, title), index in firsts.items()
               if any(wanted & set(ref.articles) for ref in amended_articles(title))]
        found = [_parse(p) for p in self.store.payloads([point_id(i) for i in ids]).values()]
        return sorted(found, key=lambda cd: (cd[0].doc_id, cd[0].index))

    def document(self, doc_id: str) -> LegalDocument | None:
        return self.records.load(doc_id)

    def markdown(self, doc_id: str) -> str | None:
        """The document's Markdown alone (`DocumentRecords.markdown`: the last few read are kept)."""
        return self.records.markdown(doc_id)

    def chunk(self, chunk_id: str) -> Chunk | None:
        payload = self.store.chunk_payload(chunk_id)
        return None if payload is None else _parse(payload)[0]

    def chunk_document_info(self, chunk_id: str) -> DocumentInfo | None:
        """The document record a stored chunk carries (no Markdown: cheap)."""
        payload = self.store.chunk_payload(chunk_id)
        return None if payload is None else _parse(payload)[1]

    def has_document(self, doc_id: str) -> bool:
        return self.store.has_document(doc_id)

    def indexed_documents(self, sha256: str, with_blurbs: bool, source: str | None = None) -> list[str] | None:
        """The ids of a file's documents when this index holds every one of them complete and made as an ingest
        now would make them; None when the file must be (re)indexed. The one place that says "this file is
        indexed" (the ingest flow and the serving owner both ask it):

        - a file's documents are the document records whose id starts with its sha256's first 12 hex digits (the
          id `ingest.parse` gives: `<sha256[:12]>-<position>`); an ingest writes all of a file's records before any
          of its points, so one killed half-way leaves a record whose document is not complete;
        - each must be complete in the store (`has_document`);
        - the embedding model and the BM25 analysis are the index's own (it refuses to open with others);
        - blurbs: the first chunk carries a `context` exactly when the file was indexed with them (`with_blurbs`);
        - the ingest version: each document records the `ingest.INGEST_VERSION` that made it.

        With `source` (the source key of the file asked about), an indexed file also becomes that source's current
        version (`Originals.share`), so a twin — the same bytes under another path — keeps the documents when the
        first path changes. A source whose current version is other bytes is None: re-indexing it replaces that
        version, as any change of a source does.
        """
        from ingest import INGEST_VERSION

        doc_ids = sorted(path.stem for path in self.records.directory.glob(f"{sha256[:12]}-*.json"))
        if not doc_ids or not all(self.has_document(doc_id) for doc_id in doc_ids):
            return None
        infos = [self.chunk_document_info(f"{doc_id}:00000") for doc_id in doc_ids]
        if any(info is None or info.ingest_version != INGEST_VERSION for info in infos):
            return None
        first = self.chunk(f"{doc_ids[0]}:00000")
        if first is None or bool(first.context) != with_blurbs:
            return None
        if source is not None and not self.originals.share(source, sha256, doc_ids):
            return None
        return doc_ids

    def status(self) -> IndexStatus:
        stats = self.store.stats()
        return IndexStatus(
            documents=stats.documents,
            chunks=stats.chunks,
            pending=stats.pending,
            model=stats.model_id,
            dim=stats.dim,
            backend=stats.backend,
            location=stats.location,
        )

    def close(self) -> None:
        """Optimize what this session wrote, flush, and release the index (and its lock)."""
        if self._dirty:
            self.optimize()
        self.store.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
