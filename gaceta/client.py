"""The CLI's side of "one owner, everyone else its client": the owner's API returned as the API's models
(`SearchResponse`, `AnswerResponse` — an `Answer` whose sources are the API's bounded hits —, `IndexStatus`),
which the local path builds too, so `--json` prints one shape either way.

Finding the owner (`owner.json`, a live pid) and the ingest call are `retrieval.owner`'s, shared with the indexing
module (`flows.indexing.OwnerSink`, which `gaceta ingest` runs over this client's connection); this module only
turns replies into the API's models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from retrieval.owner import (OWNER_FILE, Owner, OwnerError, OwnerUnreachable, find_owner, owner_path, remove_owner,
                             write_owner)

if TYPE_CHECKING:
    from gaceta.api.schemas import AnswerResponse, AttributionResponse, SearchResponse
    from retrieval.index import IndexStatus

__all__ = ["OWNER_FILE", "Owner", "OwnerClient", "OwnerError", "OwnerUnreachable", "find_owner", "owner_path",
           "remove_owner", "write_owner"]


class OwnerClient:
    """One keep-alive connection to the owner; every method returns the model the local path would have built."""

    def __init__(self, owner: Owner, api_key: str | None = None, timeout: float = 600.0):
        if api_key is not None and api_key != owner.api_key:
            owner = Owner(owner.url, owner.pid, owner.started, api_key, owner.token)
        self.owner = owner
        self._http = owner.http(timeout)

    def __enter__(self) -> OwnerClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def http(self):
        """The keep-alive connection (`gaceta ingest` sends its files over it: `flows.indexing.OwnerSink`)."""
        return self._http

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, **kwargs: Any):
        return self.owner.call(method, path, self._http, **kwargs)

    def search(self, body: dict[str, Any]) -> SearchResponse:
        from gaceta.api.schemas import SearchResponse

        return SearchResponse.model_validate_json(self._call("POST", "/search", json=body).content)

    def ask(self, body: dict[str, Any]) -> AnswerResponse:
        from gaceta.api.schemas import AnswerResponse

        return AnswerResponse.model_validate_json(self._call("POST", "/ask", json=body).content)

    def status(self) -> IndexStatus:
        from retrieval.index import IndexStatus

        return IndexStatus.model_validate_json(self._call("GET", "/status").content)

    def documents(self, params: dict[str, Any]) -> dict[str, Any]:
        """`GET /documents` (the same listing body `Index.documents` gives locally)."""
        return self._call("GET", "/documents", params=params).json()

    def delete(self, doc_id: str) -> bool:
        """`DELETE /documents/{id}`: True when it was there (404: it was not)."""
        return self._call("DELETE", f"/documents/{doc_id}", ok=(404,)).status_code == 200

    def attribute(self, body: dict[str, Any]) -> AttributionResponse:
        """`POST /attribute`: the text's sentences and quotes checked against the official text."""
        from gaceta.api.schemas import AttributionResponse

        return AttributionResponse.model_validate_json(self._call("POST", "/attribute", json=body).content)

    def get(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A read-only `GET` (the `/laws/…` diff and history): its JSON body, the same the local path dumps."""
        return self._call("GET", path, params=params or {}).json()
