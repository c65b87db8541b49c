"""Issue 23, item 2: every request does bounded work.

Red-team cases: a 9,000 pt page rendered at 110 dpi took the server from 0.46 to 1.57 GB, ten highlights at once more;
a 14,400 pt page was a 500 (MuPDF refuses the size); ten 50 MB headers were read and answered 200; a half-sent body
was waited on forever. Here over a real index holding such pages, and uvicorn configured as `gaceta serve` does.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pymupdf
import pytest
import uvicorn
from fastapi.testclient import TestClient

import gaceta.api.app as api_app
from gaceta.api import create_app
from gaceta.api.pages import MAX_PIXELS, MAX_SIDE
from gaceta.cli.serve_cmd import uvicorn_limits
from retrieval.settings import Settings
from tests.api.conftest import LiveServer
from tests.index_fixtures import build_index

SIDES = {"big": 9_000, "huge": 14_400}  # points; MuPDF's limit is reached near 14,400 pt at 110 dpi
TEXT = ("Artículo {n}.- Las disposiciones de este acuerdo sobre la página de gran formato número {n} se aplican a "
        "los planos anexos, que forman parte integrante del mismo y se publican en el Diario Oficial.")


def big_page_pdf(path: Path, side: float) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=side, height=side)
    y = 72.0
    page.insert_text((72, y), "ACUERDO por el que se publican los planos anexos de gran formato", fontsize=14)
    for n in range(1, 9):
        y += 40
        page.insert_text((72, y), TEXT.format(n=n), fontsize=11)
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    from ingest.parse import parse_pdf

    home = tmp_path_factory.mktemp("bounds-home")
    index = build_index(home, [])
    try:
        for name, side in SIDES.items():
            result = parse_pdf(big_page_pdf(home / f"{name}.pdf", side))
            assert result.documents, result.message
            index.add_documents(result.documents)
        index.optimize()
    finally:
        index.close()
    return home


@pytest.fixture(scope="module")
def client(home):
    with TestClient(create_app(Settings(home=home, answerer="extractive", api_key=None))) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def documents(client) -> dict[str, dict]:
    docs = client.get("/documents").json()["documents"]
    by_side = {}
    for doc in docs:
        record = client.get(f"/documents/{doc['doc_id']}").json()
        by_side[Path(record["file_name"]).stem] = record
    assert set(by_side) == set(SIDES), [d["title"] for d in docs]
    return by_side


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


@pytest.mark.parametrize("name", sorted(SIDES))
def test_a_huge_page_is_a_bounded_image_not_a_500(client, documents, name):
    doc = documents[name]
    start = doc["markdown"].index("Artículo 3")
    reply = client.get(f"/documents/{doc['doc_id']}/pages/1.png", params={"highlight": f"{start}-{start + 60}"})
    assert reply.status_code == 200, reply.text[:300]
    width, height = png_size(reply.content)
    assert width * height <= MAX_PIXELS and max(width, height) <= MAX_SIDE
    assert width > 1000  # scaled down to fit, still a page one can read at zoom
    assert int(reply.headers["x-highlighted-words"]) >= 5


def test_ten_concurrent_highlights_stay_under_a_memory_bound(client, documents):
    """Ten different highlights of the 9,000 pt page at once (each uncached): the process grows by a bounded
    amount (at 110 dpi each pixmap alone is ≈ 570 MB)."""
    doc = documents["big"]
    markdown = doc["markdown"]
    spans = [(markdown.index(f"Artículo {n}"), markdown.index(f"Artículo {n}") + 40 + i)
             for i, n in enumerate(list(range(1, 9)) * 2)][:10]
    me = psutil.Process()
    base, peak, done = me.memory_info().rss, [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], me.memory_info().rss)
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    with ThreadPoolExecutor(10) as pool:
        replies = list(pool.map(lambda s: client.get(f"/documents/{doc['doc_id']}/pages/1.png",
                                                     params={"highlight": f"{s[0]}-{s[1]}"}), spans))
    done.set()
    sampler.join()
    assert [r.status_code for r in replies] == [200] * 10
    grew_mb = (peak[0] - base) / 2**20
    print(f"peak RSS growth over ten concurrent highlights: {grew_mb:.0f} MB")
    assert grew_mb < 400


# --- uvicorn as `gaceta serve` runs it ----------------------------------------------------------------------------
class Served(LiveServer):
    def __init__(self, app):
        super().__init__(app)
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", **uvicorn_limits()))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)


@pytest.fixture(scope="module")
def served(client):
    with Served(client.app) as server:
        yield server


def _exchange(url: str, head: bytes, body: bytes = b"", wait_s: float = 10) -> bytes:
    """Send what the server will take of `head` + `body`; return its reply (empty when it just closed)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        try:
            sock.sendall(head + body)
        except (BrokenPipeError, ConnectionResetError):
            pass
        sock.settimeout(wait_s)
        reply = b""
        try:
            while part := sock.recv(65536):
                reply += part
        except (TimeoutError, ConnectionResetError):
            pass
        return reply


def test_a_50_mb_header_is_refused(served):
    huge = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (50 << 20) + b"\r\n\r\n"
    reply = _exchange(served.url, huge)
    assert not reply.startswith(b"HTTP/1.1 200"), reply[:200]
    assert reply == b"" or reply.startswith(b"HTTP/1.1 400"), reply[:200]
    ok = _exchange(served.url, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 200")


def test_a_half_sent_body_is_not_waited_on_forever(served, monkeypatch):
    monkeypatch.setattr(api_app, "BODY_READ_TIMEOUT_S", 1.0)
    head = (b"POST /search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\nConnection: close\r\n\r\n")
    t0 = time.monotonic()
    reply = _exchange(served.url, head, b'{"query": "pla', wait_s=20)
    assert reply.startswith(b"HTTP/1.1 408"), reply[:200]
    assert time.monotonic() - t0 < 15


def test_a_half_sent_head_is_not_waited_on_forever(served):
    """Red-team: request headers had no timeout. uvicorn's keep-alive timer stops at a request's first byte, so a
    head that never ends held its connection (one of `limit_concurrency`) for good; now it is closed after
    HEAD_TIMEOUT_S, on a fresh connection and on a kept-alive one, while a whole request still gets its answer."""
    from gaceta.api.app import HEAD_TIMEOUT_S

    host, port = served.url.removeprefix("http://").split(":")
    whole = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    half = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
    for first in (b"", whole):  # the head of a connection's first request, then of its second
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            sock.settimeout(HEAD_TIMEOUT_S + 20)
            t0 = time.monotonic()
            reply = b""
            if first:
                sock.sendall(first)
                while b'"status"' not in reply:
                    reply += sock.recv(65536)
                assert reply.startswith(b"HTTP/1.1 200"), reply[:200]
            sock.sendall(half)
            for _ in range(3):  # a trickle of header bytes does not keep it open either
                time.sleep(1)
                try:
                    sock.sendall(b"a")
                except (BrokenPipeError, ConnectionResetError):
                    break
            try:
                rest = sock.recv(65536)
                while rest:
                    rest = sock.recv(65536)
                closed = True
            except ConnectionResetError:
                closed = True
            except TimeoutError:
                closed = False
            assert closed, f"a half-sent head kept its connection open for {time.monotonic() - t0:.0f} s"
            assert time.monotonic() - t0 < HEAD_TIMEOUT_S + 10
