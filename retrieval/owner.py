"""The owner of an embedded index: how a process announces it serves the index, how every other process finds it,
and the few HTTP calls a writer needs to go through it (send a file, read its status).

qdrant-edge is one process at a time. While `gaceta serve` owns the index it writes `$GACETA_HOME/owner.json`
(url, pid, started, token; mode 0600; removed when it stops); `find_owner` reads it and trusts it only when its pid
is alive *and* the server at its url answers as this home's owner: its `/healthz` shows the sha256 of the token in
the file (a `kill -9` leaves the file behind, and after a restart its pid may be any other process's). The token
itself is a local caller's credential: `Owner.ingest` sends it (`X-Gaceta-Owner`), which lets `source=` replace the
source's current version. The CLI (`gaceta.client`) and the indexing module (`flows.indexing.OwnerSink`) both
discover the owner here, so there is one place that decides "someone else holds the index: go through it". A
Qdrant URL means no owner: every process talks to the server.

Replies are plain JSON (dicts): this layer knows nothing of the API's models; callers validate them into theirs.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from retrieval.files import file_sha256, pid_alive

if TYPE_CHECKING:
    import httpx

    from retrieval.settings import Settings

OWNER_FILE = "owner.json"
CONNECT_TIMEOUT_S = 5.0
PROBE_TIMEOUT_S = 10.0  # the owner's /healthz answer (a busy server answers it from its event loop)
OWNER_HEADER = "X-Gaceta-Owner"
INGEST_TIMEOUT_S = 3600.0  # one file's parse → embed at nice 19 behind queries; a DOF annex of 1 000 pages


class OwnerError(RuntimeError):
    """The owner refused or could not be reached: a message meant for the user."""


class OwnerUnreachable(OwnerError):
    """Nothing answers at the owner's address (it is starting, or the file is stale): open the index instead."""


@dataclass(frozen=True)
class Owner:
    """The process serving this data dir's embedded index, and the API key to send it (GACETA_API_KEY)."""

    url: str
    pid: int
    started: str = ""
    api_key: str | None = field(default=None, repr=False, compare=False)
    token: str | None = field(default=None, repr=False, compare=False)

    def http(self, timeout: float = INGEST_TIMEOUT_S) -> httpx.Client:
        """An httpx client for this owner's API (the API key sent as a bearer token when set, the owner's token
        from owner.json as `X-Gaceta-Owner`)."""
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        if self.token:
            headers[OWNER_HEADER] = self.token
        return httpx.Client(base_url=self.url, headers=headers,
                            timeout=httpx.Timeout(timeout, connect=CONNECT_TIMEOUT_S))

    def call(self, method: str, path: str, http: httpx.Client | None = None, ok: tuple[int, ...] = (),
             **kwargs: Any) -> httpx.Response:
        """One request; errors become `OwnerUnreachable` (nothing answers) or `OwnerError` (one line for the user).
        Status codes in `ok` are returned to the caller instead of raised."""
        import httpx

        own = http is None
        http = http or self.http()
        try:
            response = http.request(method, path, **kwargs)
        except httpx.ConnectError as exc:
            raise OwnerUnreachable(f"the index's owner (pid {self.pid}) does not answer at {self.url}: "
                                   f"{exc}") from None
        except httpx.HTTPError as exc:
            raise OwnerError(f"{method} {self.url}{path} failed: {type(exc).__name__}: {exc}") from None
        finally:
            if own:
                http.close()
        if response.status_code in ok:
            return response
        if response.status_code == 401:
            raise OwnerError(f"the index is served by pid {self.pid} at {self.url}, which requires an API key: "
                             f"set GACETA_API_KEY to its key")
        if response.status_code >= 400:
            try:
                body = response.json()
                detail = body.get("message") or body.get("detail")
            except (ValueError, AttributeError):
                detail = response.text[:300]
            raise OwnerError(f"{self.url}{path} answered {response.status_code}: {detail}")
        return response

    def status(self, http: httpx.Client | None = None) -> dict[str, Any]:
        """`GET /status`: the owner's `IndexStatus` (documents, chunks, pending, model, …)."""
        return self.call("GET", "/status", http).json()

    def ingest(self, path: str | os.PathLike[str], name: str | None = None, context: bool | None = None, *,
               sha256: str | None = None, http: httpx.Client | None = None) -> dict[str, Any]:
        """Have the owner index one PDF; returns its `IngestResponse` JSON (`outcome`: the file's `FileOutcome`,
        `embedding_model`, `chunker_version`, `revision`) once the file is searchable or refused.

        First `GET /ingest/{sha256}`: a file the owner's index already holds is answered `cached` without sending
        its bytes (a quiet inbox costs a hash and a look-up per file). Otherwise the bytes go as the body of
        `POST /ingest`, with the file's source identity (its resolved path) so a new version of the same file
        replaces the old one, as a local ingest does."""
        from retrieval.originals import source_key

        path = Path(path)
        name = name or path.name
        sha256 = sha256 or file_sha256(path)
        params: dict[str, Any] = {"name": name}
        if context is not None:
            params["context"] = str(context).lower()
        params["source"] = source_key(path)  # an indexed twin joins its documents; a new version replaces the old
        known = self.call("GET", f"/ingest/{sha256}", http, ok=(404,), params=params)
        if known.status_code == 200:
            return known.json()
        with open(path, "rb") as fh:
            response = self.call("POST", "/ingest", http, params=params, content=_blocks(fh),
                                 headers={"Content-Type": "application/pdf"})
        return response.json()


def owner_path(home: Path) -> Path:
    return Path(home) / OWNER_FILE


def owner_id(token: str) -> str:
    """What the owner's /healthz shows of its token."""
    return hashlib.sha256(token.encode()).hexdigest()


def write_owner(home: Path, url: str, token: str | None = None) -> Path:
    """Announce this process as the index's owner (atomically, readable by this user only), with the token whose
    sha256 its /healthz shows."""
    path = owner_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{OWNER_FILE}.{os.getpid()}")
    record = {"url": url, "pid": os.getpid(), "started": dt.datetime.now(dt.timezone.utc).isoformat(),
              "token": token}
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


def _read(path: Path, api_key: str | None = None) -> Owner | None:
    try:
        record = json.loads(path.read_text())
        token = record.get("token")
        return Owner(url=str(record["url"]), pid=int(record["pid"]), started=str(record.get("started", "")),
                     api_key=api_key, token=str(token) if token else None)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def find_owner(settings: Settings) -> Owner | None:
    """The live process that owns this data dir's embedded index, or None (then open the index yourself). None
    also in the owner itself, and with a Qdrant URL (no owner: every process talks to the server). An owner.json
    is believed only when its pid is alive and its url answers as the owner (`answers_as_owner`)."""
    if settings.qdrant_url:
        return None
    owner = _read(owner_path(settings.home), settings.api_key)
    if owner is None or owner.pid == os.getpid() or not pid_alive(owner.pid):
        return None
    return owner if answers_as_owner(owner) else None


def answers_as_owner(owner: Owner, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether the server at `owner.url` is the one that wrote this owner.json: its /healthz (open without the API
    key) shows the sha256 of the file's token. A file without a token, nothing listening, another program on the
    port: not the owner (a stale file whose pid was reused after a crash)."""
    import httpx

    if not owner.token:
        return False
    try:
        reply = httpx.get(f"{owner.url}/healthz", timeout=httpx.Timeout(timeout, connect=CONNECT_TIMEOUT_S))
        shown = reply.json().get("owner") if reply.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return False
    return isinstance(shown, str) and hmac.compare_digest(shown, owner_id(owner.token))


def _blocks(fh, size: int = 1 << 20):
    while block := fh.read(size):
        yield block
