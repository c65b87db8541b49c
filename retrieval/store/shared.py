"""One process's open store, read by other processes on the same machine: how `gaceta serve --workers N` scales.

The embedded store has one owner (the index lock), and qdrant-edge holds the GIL while it searches, so a single
serving process is bound to one core. The owner runs a `StoreHost`; each HTTP worker process opens a `RemoteStore`,
which forwards the store's read primitives to it over a Unix socket (`multiprocessing.connection`, authenticated
with a random key) and refuses writes. A worker embeds its queries, parses and caches hits and speaks HTTP on its
own core; the owner runs only the Qdrant calls.

Every reply carries the owner's `revision` as it was before the call, so a worker's chunk cache empties after any
write the owner makes, as it does in the owner's own process.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from typing import Any

from retrieval.store.base import PlannedQuery, PointData, Scored, Store, StoreError, VectorQuery, Where

log = logging.getLogger(__name__)


class StoreHost:
    """Serves `store` to other local processes until closed: one thread per connected process."""

    def __init__(self, store: Store):
        self.store = store
        self._dir = tempfile.mkdtemp(prefix="gaceta-store-")  # 0700: only this user can reach the socket
        self.address = os.path.join(self._dir, "store.sock")
        self.authkey = secrets.token_bytes(32)
        self._listener = Listener(self.address, family="AF_UNIX", authkey=self.authkey)
        self._closed = False
        self._connections: set[Connection] = set()
        self._calls: dict[str, Callable[..., Any]] = {
            "describe": lambda: (store.backend, store.location),
            "meta": store._meta,
            "search": store._search,
            "retrieve": store._retrieve,
            "count": store._count,
            "scroll": lambda where, fields: list(store._scroll(where, fields)),
        }
        threading.Thread(target=self._accept, name="store-host", daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn = self._listener.accept()  # includes the key handshake
            except (OSError, EOFError, AuthenticationError) as exc:
                if self._closed:
                    return
                log.warning("store host: refused a connection: %s", exc)
                continue
            self._connections.add(conn)
            threading.Thread(target=self._serve, args=(conn,), name="store-host-conn", daemon=True).start()

    def _serve(self, conn: Connection) -> None:
        with conn:
            try:
                self._answer(conn)
            finally:
                self._connections.discard(conn)

    def _answer(self, conn: Connection) -> None:
        while not self._closed:
            try:
                method, args = conn.recv()
            except (EOFError, OSError):  # the reader exited, or close() hung up
                return
            revision = self.store.revision
            try:
                reply = ("ok", revision, self._calls[method](*args))
            except Exception as exc:  # reported to the caller, which raises it as a StoreError
                log.exception("store host: %s failed", method)
                reply = ("error", f"{type(exc).__name__}: {exc}")
            try:
                conn.send(reply)
            except OSError:  # the reader exited mid-call
                return

    def close(self) -> None:
        """Stop accepting and hang up on every reader (their next call raises StoreError)."""
        self._closed = True
        self._listener.close()
        for conn in list(self._connections):
            # Shut the socket down under its serving thread (which then sees end-of-file and closes it).
            with suppress(OSError), socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.shutdown(socket.SHUT_RDWR)
        shutil.rmtree(self._dir, ignore_errors=True)


class RemoteStore(Store):
    """The store a `StoreHost` serves, read from another process; writes belong to the owner."""

    exclusive = True  # every write goes through the owner, whose revision each reply carries

    def __init__(self, address: str, authkey: bytes, model_id: str, dim: int):
        super().__init__(model_id, dim)
        try:
            self._conn = Client(address, family="AF_UNIX", authkey=authkey)
        except (OSError, EOFError, AuthenticationError) as exc:
            raise StoreError(f"cannot reach the process that owns the index ({address}): {exc}") from exc
        self._lock = threading.Lock()
        backend, self.location = self._call("describe")
        self.backend = f"{backend}, shared by its owner process"
        self._check_model(self.location)

    @classmethod
    def opener(cls, address: str, authkey: bytes) -> Callable[[Any, int, str], Store]:
        """An `open_store`-shaped callable for `Index.open`: settings are the owner's business."""
        return lambda _settings, dim, model_id: cls(address, authkey, model_id, dim)

    def _call(self, method: str, *args: Any) -> Any:
        with self._lock:
            try:
                self._conn.send((method, args))
                reply = self._conn.recv()
            except (EOFError, OSError) as exc:
                raise StoreError(f"lost the process that owns the index: {exc}") from exc
        if reply[0] == "error":
            raise StoreError(f"the index owner failed: {reply[1]}")
        _, self.revision, result = reply
        return result

    def _search(self, queries: Sequence[VectorQuery], with_payload: bool) -> list[list[Scored]]:
        return self._call("search", list(queries), with_payload)

    def _meta(self) -> dict[str, Any]:
        return self._call("meta")

    def _count(self, where: Where | None) -> int:
        return self._call("count", where)

    def _scroll(self, where: Where, fields: list[str] | bool) -> Iterator[dict[str, Any]]:
        return iter(self._call("scroll", where, fields))

    def _retrieve(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        return self._call("retrieve", ids)

    def _query_many(self, queries: list[PlannedQuery], with_payload: bool) -> list[list[Scored]]:
        raise AssertionError("searches go to the owner whole (_search), which plans them against its own state")

    def _read_only(self, *_: Any) -> None:
        raise StoreError("this process reads an index another process owns; write through that process")

    def _save_meta(self, meta: dict[str, Any]) -> None:
        self._read_only()

    def _upsert(self, points: Sequence[PointData], state: str) -> None:
        self._read_only()

    def _delete(self, where: Where) -> None:
        self._read_only()

    def _set_payload(self, where: Where, payload: dict[str, Any]) -> None:
        self._read_only()

    def close(self) -> None:
        self._conn.close()
