"""Connection handoff for `gaceta serve --workers N`: the parent accepts, the least busy worker serves.

Why not let the kernel share out connections: with one shared listening socket the first worker to wake takes every
pending connection (43 / 7 of the load benchmark's 50 keep-alive clients on two workers), and with a `SO_REUSEPORT`
socket per worker it spreads them by a hash of the client's address: 50 clients landed 29 / 21 in one measured run,
and a downstream service's pool of two connections often lands on one worker while the other idles. Here the parent accepts each connection and passes its file descriptor
(`SCM_RIGHTS`) over a Unix socket pair to the ready worker with the fewest open connections; a worker reports each
connection it closes, so long-lived keep-alive clients end up exactly even and new ones go where the room is.

The parent side is `Dispatcher` (polled by the supervisor in `gaceta.api.workers`); the worker side is
`HandoffServer`, a uvicorn server with no listening socket of its own. Messages on a pair are one byte each
(`SOCK_SEQPACKET` keeps them apart): the worker sends READY once its app is up and CLOSED per finished connection;
the parent sends HANDED with one descriptor attached.
"""

from __future__ import annotations

import asyncio
import logging
import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

import uvicorn

READY = b"r"
CLOSED = b"c"
HANDED = b"h"
ACCEPT_PAUSE = 0.5

log = logging.getLogger("uvicorn.error")


def channel_pair() -> tuple[socket.socket, socket.socket]:
    """(the parent's end, the worker's end) of a new handoff channel."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)


@dataclass
class _Worker:
    slot: int
    channel: socket.socket
    ready: bool = False
    open: int = 0
    watched: bool = True


class Dispatcher:
    """Accepts on `listener` and hands every connection to the ready worker with the fewest open connections.

    Single-threaded: the supervisor calls `poll` in its loop. While no worker is ready the listener is not watched,
    so clients wait in the kernel's backlog instead of being accepted and dropped.
    """

    def __init__(self, listener: socket.socket):
        listener.setblocking(False)
        self.listener = listener
        self.selector = selectors.DefaultSelector()
        self.workers: dict[int, _Worker] = {}
        self._listening = False
        self._accept_paused_until = 0.0  # after a failed accept (out of descriptors), rest instead of spinning
        self._turn = 0  # rotates ties, so an idle server still alternates between workers

    def attach(self, slot: int) -> socket.socket:
        """A new channel for the worker process about to start in `slot`; returns the end to give that process."""
        self.detach(slot)
        parent, child = channel_pair()
        parent.setblocking(False)
        self.workers[slot] = worker = _Worker(slot, parent)
        self.selector.register(parent, selectors.EVENT_READ, worker)
        return child

    def detach(self, slot: int) -> None:
        """Forget the worker in `slot` (it exited); its connections went with it."""
        worker = self.workers.pop(slot, None)
        if worker is not None:
            self._unwatch(worker)
            worker.channel.close()

    def open_connections(self) -> dict[int, int]:
        """Open connections per ready worker's slot, as the workers last reported them."""
        return {w.slot: w.open for w in self.workers.values() if w.ready}

    def poll(self, timeout: float) -> None:
        """Wait up to `timeout` seconds, then hand over new connections and take in the workers' reports."""
        self._watch_listener()
        for key, _ in self.selector.select(timeout):
            if key.data is None:
                self._accept()
            else:
                self._read_reports(key.data)

    def close(self) -> None:
        for slot in list(self.workers):
            self.detach(slot)
        self.selector.close()

    def _watch_listener(self) -> None:
        wanted = any(w.ready for w in self.workers.values()) and time.monotonic() >= self._accept_paused_until
        if wanted and not self._listening:
            self.selector.register(self.listener, selectors.EVENT_READ, None)
        elif not wanted and self._listening:
            self.selector.unregister(self.listener)
        self._listening = wanted

    def _unwatch(self, worker: _Worker) -> None:
        """Stop handing to `worker` and reading its channel (it exited, or its channel closed)."""
        worker.ready = False
        if worker.watched:
            self.selector.unregister(worker.channel)
            worker.watched = False
        self._watch_listener()

    def _read_reports(self, worker: _Worker) -> None:
        while True:
            try:
                message = worker.channel.recv(16)
            except BlockingIOError:
                return
            except OSError:  # ECONNRESET: the worker died; the supervisor restarts it
                message = b""
            if not message:
                self._unwatch(worker)
                return
            if message == READY:
                worker.ready = True
                self._watch_listener()
            elif message == CLOSED:
                worker.open = max(0, worker.open - 1)

    def _accept(self) -> None:
        while self._listening:  # a report read in this same poll may have just taken the last ready worker away
            try:
                connection, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # EMFILE and the like: clients wait in the backlog while the server rests
                log.warning("could not accept a connection (%s); pausing accepts for %.1f s", exc, ACCEPT_PAUSE)
                self._accept_paused_until = time.monotonic() + ACCEPT_PAUSE
                self._watch_listener()
                return
            with connection:  # the worker holds its own descriptor once handed; ours closes either way
                self._hand(connection)

    def _hand(self, connection: socket.socket) -> None:
        ready = [w for w in self.workers.values() if w.ready]
        self._turn += 1
        for worker in sorted(ready, key=lambda w: (w.open, (w.slot - self._turn) % len(ready))):
            try:
                socket.send_fds(worker.channel, [HANDED], [connection.fileno()])
            except OSError:  # its channel is full (the worker is stuck) or gone: try the next one
                continue
            worker.open += 1
            return
        log.warning("no worker could take a connection from %s; closing it", _peer(connection))


def _peer(connection: socket.socket) -> str:
    try:
        return str(connection.getpeername())
    except OSError:
        return "a client that already left"


class _Reporting(asyncio.Protocol):
    """uvicorn's protocol for one handed connection, plus a CLOSED report when the connection ends."""

    def __init__(self, inner: asyncio.Protocol, closed: Callable[[], None]):
        self.inner = inner
        self.closed = closed

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            self.inner.connection_lost(exc)
        finally:
            self.closed()


class HandoffServer(uvicorn.Server):
    """A uvicorn server that serves the connections its parent hands it over `channel` instead of accepting.

    It builds each connection's protocol as uvicorn's own `startup` does (the configured HTTP protocol class over
    this server's state), so limits, keep-alive, graceful shutdown and the lifespan behave as with a listening socket.
    When the parent's end closes (the parent died), the server shuts down.
    """

    def __init__(self, config: uvicorn.Config, channel: socket.socket):
        super().__init__(config)
        self.channel = channel
        self._unreported = 0
        self._connecting: set[asyncio.Task] = set()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[])
        self.channel.setblocking(False)
        asyncio.get_running_loop().add_reader(self.channel.fileno(), self._take_connections)
        self.channel.send(READY)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().remove_reader(self.channel.fileno())
        await super().shutdown(sockets=sockets)

    def _take_connections(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                _, fds, _, _ = socket.recv_fds(self.channel, 1, 8)
            except BlockingIOError:
                return
            except OSError:
                fds = None
            if not fds:  # the parent closed its end: nothing more will come
                log.warning("the serve process went away; this worker stops")
                loop.remove_reader(self.channel.fileno())
                self.should_exit = True
                return
            for fd in fds:
                connection = socket.socket(fileno=fd)
                connection.setblocking(False)
                connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as asyncio does for its accepts
                task = loop.create_task(loop.connect_accepted_socket(self._protocol, connection))
                self._connecting.add(task)
                task.add_done_callback(self._connected)

    def _connected(self, task: asyncio.Task) -> None:
        self._connecting.discard(task)
        if not task.cancelled() and task.exception() is not None:  # the client left before it could be served
            log.info("a handed connection could not be set up: %s", task.exception())
            self._report_closed()

    def _protocol(self) -> asyncio.Protocol:
        inner = self.config.http_protocol_class(  # type: ignore[call-arg]
            config=self.config, server_state=self.server_state, app_state=self.lifespan.state
        )
        return _Reporting(inner, self._report_closed)

    def _report_closed(self) -> None:
        self._unreported += 1
        try:
            while self._unreported:
                self.channel.send(CLOSED)
                self._unreported -= 1
        except BlockingIOError:  # the parent is behind; the count goes with the next report
            pass
        except OSError:  # the parent is gone; _take_connections stops the server
            pass
