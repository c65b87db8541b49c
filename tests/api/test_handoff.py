"""The parent's side of the connection handoff: who gets each accepted connection.

Real sockets throughout: a listening TCP socket, clients connecting to it, and the workers' ends of the channels
read back here as a worker would (`socket.recv_fds`)."""

from __future__ import annotations

import socket

import pytest

from gaceta.api.handoff import CLOSED, HANDED, READY, Dispatcher


@pytest.fixture
def listener():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    yield sock
    sock.close()


@pytest.fixture
def dispatcher(listener):
    dispatcher = Dispatcher(listener)
    yield dispatcher
    dispatcher.close()


def _connect(listener: socket.socket, n: int) -> list[socket.socket]:
    return [socket.create_connection(listener.getsockname(), timeout=5) for _ in range(n)]


def _handed(channel: socket.socket) -> list[socket.socket]:
    """The connections waiting on a worker's end of its channel."""
    channel.setblocking(False)
    received = []
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(channel, 1, 8)
        except BlockingIOError:
            return received
        assert message == HANDED and len(fds) == 1
        received.append(socket.socket(fileno=fds[0]))


def _drain(dispatcher: Dispatcher, expected: int) -> None:
    """Poll until `expected` connections have been handed (the kernel may queue them over a few wakeups)."""
    for _ in range(50):
        if sum(dispatcher.open_connections().values()) >= expected:
            return
        dispatcher.poll(0.05)


def test_keep_alive_clients_are_split_evenly(listener, dispatcher):
    channels = [dispatcher.attach(slot) for slot in range(2)]
    for channel in channels:
        channel.send(READY)
    clients = _connect(listener, 10)
    _drain(dispatcher, 10)
    handed = [_handed(channel) for channel in channels]
    assert [len(h) for h in handed] == [5, 5]
    assert dispatcher.open_connections() == {0: 5, 1: 5}
    # The handed descriptor is the client's connection itself: bytes sent by a client reach the worker's socket.
    peers = {conn.getpeername() for h in handed for conn in h}
    assert peers == {client.getsockname() for client in clients}


def test_new_connections_go_where_connections_closed(listener, dispatcher):
    channels = [dispatcher.attach(slot) for slot in range(2)]
    for channel in channels:
        channel.send(READY)
    _connect(listener, 6)
    _drain(dispatcher, 6)
    for _ in range(3):  # worker 1 finished three of its connections
        channels[1].send(CLOSED)
    dispatcher.poll(0.05)
    assert dispatcher.open_connections() == {0: 3, 1: 0}
    assert [len(_handed(channel)) for channel in channels] == [3, 3]
    _connect(listener, 3)
    _drain(dispatcher, 6)
    assert len(_handed(channels[1])) == 3 and not _handed(channels[0])


def test_nothing_is_accepted_until_a_worker_is_ready(listener, dispatcher):
    channels = [dispatcher.attach(slot) for slot in range(2)]
    _connect(listener, 2)
    dispatcher.poll(0.2)
    assert dispatcher.open_connections() == {}
    assert not _handed(channels[0]) and not _handed(channels[1])
    channels[0].send(READY)  # the clients waited in the backlog; the first ready worker gets them
    _drain(dispatcher, 2)
    assert len(_handed(channels[0])) == 2


def test_a_worker_that_went_away_gets_nothing(listener, dispatcher):
    channels = [dispatcher.attach(slot) for slot in range(2)]
    for channel in channels:
        channel.send(READY)
    dispatcher.poll(0.05)
    channels[0].close()  # its process died
    dispatcher.poll(0.05)
    assert dispatcher.open_connections() == {1: 0}
    _connect(listener, 4)
    _drain(dispatcher, 4)
    assert len(_handed(channels[1])) == 4
    dispatcher.detach(0)  # what the supervisor does once it sees the process gone
    replacement = dispatcher.attach(0)
    replacement.send(READY)
    dispatcher.poll(0.05)
    assert dispatcher.open_connections() == {0: 0, 1: 4}
    _connect(listener, 2)
    _drain(dispatcher, 6)
    assert len(_handed(replacement)) == 2
