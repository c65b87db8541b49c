"""The owner of an embedded index, and the thin HTTP client every other command uses to go through it.

qdrant-edge is one process at a time. While `gaceta serve` owns the index it writes `$GACETA_HOME/owner.json`
(url, pid, started; mode 0600; removed when it stops); `find_owner` reads it, ignoring a file whose process is
gone (a `kill -9` leaves it behind). Commands that find an owner send their work to its HTTP API and get back the
same models the local path builds (`SearchResponse`, `Answer`, `IndexStatus`, `FileOutcome`), so `--json` prints
one shape either way. A Qdrant URL means no owner: every process talks to the server.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gaceta.api.schemas import IngestResponse, SearchResponse
    from retrieval.answers.models import Answer
    from retrieval.index import IndexStatus
    from retrieval.settings import Settings

OWNER_FILE = "owner.json"


@dataclass(frozen=True)
class Owner:
    url: str
    pid: int
    started: str


def owner_path(home: Path) -> Path:
    return Path(home) / OWNER_FILE


def write_owner(home: Path, url: str) -> Path:
    """Announce this process as the index's owner (atomically, readable by this user only)."""
    path = owner_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{OWNER_FILE}.{os.getpid()}")
    record = {"url": url, "pid": os.getpid(), "started": dt.datetime.now(dt.timezone.utc).isoformat()}
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(record, fh)
    os.replace(tmp, path)
    return path


def remove_owner(home: Path) -> None:
    """Withdraw the announcement, if it is still this process's."""
    path = owner_path(home)
    owner = _read(path)
    if owner is not None and owner.pid == os.getpid():
        path.unlink(missing_ok=True)


def _read(path: Path) -> Owner | None:
    try:
        record = json.loads(path.read_text())
        return Owner(url=str(record["url"]), pid=int(record["pid"]), started=str(record.get("started", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def find_owner(settings: Settings) -> Owner | None:
    """The live process that owns this data dir's embedded index, or None (then open the index yourself)."""
    if settings.qdrant_url:
        return None
    owner = _read(owner_path(settings.home))
    if owner is None or owner.pid == os.getpid() or not _alive(owner.pid):
        return None
    return owner


class OwnerError(RuntimeError):
    """The owner refused or could not be reached: a message meant for the user."""


class OwnerUnreachable(OwnerError):
    """Nothing answers at the owner's address (it is starting, or the file is stale): open the index instead."""


class OwnerClient:
    """`httpx` over the owner's API; every method returns the model the local path would have built."""

    def __init__(self, owner: Owner, api_key: str | None = None, timeout: float = 600.0):
        import httpx

        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.owner = owner
        self._http = httpx.Client(base_url=owner.url, headers=headers, timeout=httpx.Timeout(timeout, connect=5.0))

    def __enter__(self) -> OwnerClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, **kwargs: Any):
        import httpx

        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.ConnectError as exc:
            raise OwnerUnreachable(f"the index's owner (pid {self.owner.pid}) does not answer at "
                                   f"{self.owner.url}: {exc}") from None
        except httpx.HTTPError as exc:
            raise OwnerError(f"{method} {self.owner.url}{path} failed: {type(exc).__name__}: {exc}") from None
        if response.status_code == 401:
            raise OwnerError(f"the index is served by pid {self.owner.pid} at {self.owner.url}, which requires an "
                             f"API key: set GACETA_API_KEY to its key")
        if response.status_code >= 400:
            try:
                body = response.json()
                detail = body.get("message") or body.get("detail")
            except ValueError:
                detail = response.text[:300]
            raise OwnerError(f"{self.owner.url}{path} answered {response.status_code}: {detail}")
        return response

    def search(self, body: dict[str, Any]) -> SearchResponse:
        from gaceta.api.schemas import SearchResponse

        return SearchResponse.model_validate_json(self._call("POST", "/search", json=body).content)

    def ask(self, body: dict[str, Any]) -> Answer:
        from retrieval.answers.models import Answer

        return Answer.model_validate_json(self._call("POST", "/ask", json=body).content)

    def status(self) -> IndexStatus:
        from retrieval.index import IndexStatus

        return IndexStatus.model_validate_json(self._call("GET", "/status").content)

    def ingest(self, path: Path, context: bool | None = None) -> IngestResponse:
        """Upload one PDF; returns when the owner has indexed it (its chunks searchable) or said why not."""
        from gaceta.api.schemas import IngestResponse

        params: dict[str, Any] = {"name": path.name}
        if context is not None:
            params["context"] = str(context).lower()
        with open(path, "rb") as fh:
            response = self._call("POST", "/ingest", params=params, content=_blocks(fh),
                                  headers={"Content-Type": "application/pdf"})
        return IngestResponse.model_validate_json(response.content)


def _blocks(fh, size: int = 1 << 20):
    while block := fh.read(size):
        yield block
