"""Where an agent's call is answered (`gaceta.mcp_server`): by the index's owner (`gaceta serve`) when one serves this
data dir, as every command is (`gaceta.client.OwnerClient`), else by the index this process opens on its first call
and keeps while it runs. Every call returns the API's model; an expected failure is a `GacetaToolError` of one line.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import quote as url_quote

from gaceta.api.schemas import (AnswerResponse, AttributeRequest, AttributionResponse, AskRequest, DocumentListing,
                                DocumentResponse, FiltersIn, SearchRequest, SearchResponse, hit_chars)
from retrieval.settings import Settings

INDEX_WAIT_S = 60.0  # how long a call waits for an embedded index another command holds
T = TypeVar("T")


class GacetaToolError(Exception):
    """An expected failure of a tool call, said in one line (becomes the SDK's `ToolError`)."""


class _OwnerAppeared(Exception):
    """While a call waited for the embedded index, the process holding it turned out to serve it."""


class Backend:
    """One call of the API's, answered by the owner (`gaceta serve`) when one serves this data dir, else by the index
    this process opens on first use and keeps. Every method returns the API's model."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._lock = threading.Lock()
        self._index = None
        self._client = None

    # the two ways in
    def _owner(self):
        """An `OwnerClient` of the live owner, or None (then the local index)."""
        if self._index is not None:
            return None  # this process holds the embedded index: no other process can serve it
        from gaceta.client import OwnerClient, find_owner

        with self._lock:
            if self._client is None:
                owner = find_owner(self.settings)
                if owner is not None:
                    self._client = OwnerClient(owner, self.settings.api_key)
            return self._client

    def _local(self):
        with self._lock:
            if self._index is None:
                self._index = open_index(self.settings)
            return self._index

    def _run(self, remote: Callable[[Any], T], local: Callable[[Any], T]) -> T:
        from gaceta.client import OwnerError, OwnerUnreachable

        for _ in range(3):  # an owner gone since the last call: the one now serving, if any (a restart moves it)
            client = self._owner()
            if client is None:
                try:
                    return local(self._local())
                except _OwnerAppeared:  # a `gaceta serve` took the index while this call waited for it
                    continue
            try:
                return remote(client)
            except OwnerUnreachable:
                with self._lock:
                    if self._client is client:
                        self._client = None
                client.close()
            except OwnerError as exc:
                raise GacetaToolError(str(exc)) from None
        raise GacetaToolError("the index's owner keeps changing (is `gaceta serve` restarting?): try again")

    @property
    def base_url(self) -> str:
        """Where the page views are served: the owner's address, or "" (links relative to `gaceta serve`)."""
        client = self._client if self._index is None else None
        return client.owner.url.rstrip("/") if client is not None else ""

    def close(self) -> None:
        client, index = self._client, self._index
        self._client = self._index = None
        if client is not None:
            client.close()
        if index is not None:
            index.close()

    # the calls
    def search(self, request: SearchRequest) -> SearchResponse:
        body = request.model_dump(mode="json")

        def local(index) -> SearchResponse:
            from retrieval.legal_search import legal_search

            found = legal_search(index, request.query, k=request.k, mode=request.mode,
                                 filters=request.search_filters(), rerank=request.rerank, fusion=request.fusion,
                                 prefetch=request.prefetch)
            return SearchResponse.of(request.query, request.mode, request.k, found,
                                     hit_chars(request.max_chars, self.settings.max_hit_chars))

        return self._run(lambda c: c.search(body), local)

    def ask(self, request: AskRequest) -> AnswerResponse:
        body = request.model_dump(mode="json")

        def local(index) -> AnswerResponse:
            from retrieval.answers import ask

            answer = ask(index, request.question, k=request.k, filters=request.search_filters(),
                         answerer=request.answerer, settings=self.settings, rerank=request.rerank)
            return AnswerResponse.of(answer, hit_chars(request.max_chars, self.settings.max_hit_chars))

        return self._run(lambda c: c.ask(body), local)

    def attribute(self, request: AttributeRequest) -> AttributionResponse:
        body = request.model_dump(mode="json")

        def local(index) -> AttributionResponse:
            from retrieval.attribution import attribute

            rerank = self.settings.rerank if request.rerank is None else request.rerank
            result = attribute(index, request.text, question=request.question, doc_ids=request.doc_ids,
                               rerank=rerank, llm=request.llm, settings=self.settings, as_of=request.as_of)
            return AttributionResponse.of(result, self.settings.max_hit_chars)

        return self._run(lambda c: c.attribute(body), local)

    def documents(self, filters: FiltersIn | None, offset: int, limit: int) -> DocumentListing:
        from retrieval.models import SearchFilters

        params: dict[str, Any] = {"offset": offset, "limit": limit}
        if filters is not None:
            params.update({k: v for k, v in filters.model_dump(mode="json", exclude={"doc_ids"}).items() if v})
        wanted = SearchFilters.model_validate(filters.model_dump()) if filters is not None else None
        as_of = filters.as_of if filters is not None else None
        return self._run(lambda c: DocumentListing.model_validate(c.documents(params)),
                         lambda index: DocumentListing.of(index.documents(wanted, offset=offset, limit=limit),
                                                          index.document_infos(), as_of))

    def laws(self, path: str, params: dict[str, Any], local: Callable[[Any], T], model: type[T]) -> T:
        """A `GET /laws/…` answer (`retrieval.article_history`, `retrieval.provisions`): through the owner, or from
        the index here."""
        from retrieval.article_history import HistoryError

        def here(index) -> T:
            try:
                return local(index)
            except HistoryError as exc:
                raise GacetaToolError(str(exc)) from None

        return self._run(lambda c: model.model_validate(c.get(path, params)), here)

    def document(self, doc_id: str) -> DocumentResponse | None:
        def remote(client) -> DocumentResponse | None:
            reply = client.owner.call("GET", f"/documents/{url_quote(doc_id, safe='')}", client._http, ok=(404,))
            return None if reply.status_code == 404 else DocumentResponse.model_validate_json(reply.content)

        def local(index) -> DocumentResponse | None:
            doc = index.document(doc_id)
            return None if doc is None else DocumentResponse.of(doc)

        return self._run(remote, local)


def open_index(settings: Settings):
    """The existing index, waiting up to INDEX_WAIT_S for a command that holds it; a clear one-line error otherwise
    (the CLI's `open_index`, which exits the process on failure, as a tool error)."""
    import time

    from retrieval.embedders import EmbedderError
    from retrieval.index import Index
    from retrieval.store import StoreError, index_exists
    from retrieval.store.base import IndexInUseError
    from retrieval.store.lock import IndexLock

    if not index_exists(settings):
        raise GacetaToolError(f"no index at {settings.index_dir}: run `gaceta ingest PATH` first (or set GACETA_HOME)")
    deadline = time.monotonic() + INDEX_WAIT_S
    while True:
        try:
            index = Index.open(settings)
            break
        except IndexInUseError as exc:
            left = deadline - time.monotonic()
            if left <= 0:
                raise GacetaToolError(f"{exc} (waited {INDEX_WAIT_S:.0f} s; `gaceta serve` lets commands and agents "
                                      "share the index)") from None
            from gaceta.client import find_owner

            if find_owner(settings) is not None:  # the holder is a server starting: go through it
                raise _OwnerAppeared
            IndexLock(settings.index_dir).wait_until_free(min(left, 1.0))
        except (StoreError, EmbedderError) as exc:
            raise GacetaToolError(str(exc)) from None
    if settings.rerank_model:
        from retrieval.cross_encoder import CrossEncoderError, load_cross_encoder

        try:
            load_cross_encoder(settings.rerank_model)
        except CrossEncoderError as exc:
            index.close()
            raise GacetaToolError(str(exc)) from None
    return index
