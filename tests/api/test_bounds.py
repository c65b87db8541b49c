"""Issue 16, the API side: request bodies bounded before they are read (413), counts and lists bounded (422), the
schema pages behind the key, and no server path in any response."""

from __future__ import annotations

import base64
import socket
import time

import pytest
from fastapi.testclient import TestClient

from gaceta.api import create_app
from tests.api.conftest import LiveServer

LIMIT = 64 * 1024
KEY = "s3cret-key-for-tests"


@pytest.fixture(scope="module")
def small_limit_url(api_settings, api_index):
    with LiveServer(create_app(api_settings.model_copy(update={"max_request_bytes": LIMIT}), api_index)) as server:
        yield server.url


def _raw(url: str, head: bytes, body: bytes = b"", timeout: float = 30) -> tuple[bytes, float]:
    """Send `head` + `body` on a socket, return the server's reply (what it sent before closing or 5 s of quiet)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        t0 = time.monotonic()
        sock.sendall(head + body)
        reply = b""
        sock.settimeout(5)
        try:
            while b"\r\n\r\n" not in reply or len(reply) < reply.index(b"\r\n\r\n") + 20:
                part = sock.recv(65536)
                if not part:
                    break
                reply += part
        except TimeoutError:
            pass
        return reply, time.monotonic() - t0


def test_a_body_announced_too_large_is_refused_before_it_is_sent(small_limit_url):
    """200 MB announced, 10 bytes sent: the 413 comes at once (the server did not wait to read, let alone parse)."""
    head = (b"POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 200000000\r\n\r\n")
    reply, seconds = _raw(small_limit_url, head, b'{"query":')
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert b"application/json" in reply and f"larger than {LIMIT} bytes".encode() in reply
    assert seconds < 5


def test_a_chunked_body_is_cut_off_at_the_limit(small_limit_url):
    """No Content-Length (chunked): the bytes are counted as they stream in."""
    chunk = b'{"query": "' + b"a" * 16_000 + b'"}'
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(8)) + b"0\r\n\r\n"
    head = (b"POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    reply, _ = _raw(small_limit_url, head, body)
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert f"larger than {LIMIT} bytes".encode() in reply


def test_a_body_under_the_limit_is_answered(small_limit_url):
    import httpx

    r = httpx.post(f"{small_limit_url}/search", json={"query": "sindicato " + "x" * 1000, "k": 1}, timeout=60)
    assert r.status_code == 200


BOUNDS = [
    ("/search", {"query": "ley", "filters": {"doc_type": ["LEY"] * 51}}, "doc_type"),
    ("/search", {"query": "ley", "filters": {"doc_ids": ["a"] * 1001}}, "doc_ids"),
    ("/search", {"query": "ley", "max_chars": 0}, "max_chars"),
    ("/search", {"query": "ley", "k": 10.5}, "k"),
    ("/search", {"query": "ley", "rerank": 0}, "rerank"),
    ("/ask", {"question": "¿qué?", "k": "5"}, "k"),
]


@pytest.mark.parametrize(("path", "body", "named"), BOUNDS)
def test_counts_and_lists_are_bounded(client, path, body, named):
    r = client.post(path, json=body)
    assert r.status_code == 422 and named in r.json()["message"]


def test_listing_filters_are_bounded(client):
    r = client.get("/documents", params={"doc_type": ["LEY"] * 51})
    assert r.status_code == 422 and "doc_type" in r.json()["message"]


def test_a_405_names_every_method_of_the_path(client, reglamento_doc_id):
    r = client.request("PUT", f"/documents/{reglamento_doc_id}")
    assert r.status_code == 405 and set(r.headers["allow"].split(", ")) >= {"GET", "DELETE"}


@pytest.fixture(scope="module")
def locked(api_settings, api_index):
    with TestClient(create_app(api_settings.model_copy(update={"api_key": KEY}), api_index)) as test_client:
        yield test_client


@pytest.mark.parametrize("path", ["/openapi.json", "/docs", "/redoc"])
def test_the_schema_pages_need_the_key(locked, path):
    missing = locked.get(path)
    assert missing.status_code == 401 and "Basic" in missing.headers["www-authenticate"]  # a browser asks for a login
    assert locked.get(path, headers={"Authorization": "Bearer nope"}).status_code == 401
    assert locked.get(path, headers={"Authorization": f"Bearer {KEY}"}).status_code == 200
    login = base64.b64encode(f"anyone:{KEY}".encode()).decode()
    assert locked.get(path, headers={"Authorization": f"Basic {login}"}).status_code == 200
    wrong = base64.b64encode(b"anyone:nope").decode()
    assert locked.get(path, headers={"Authorization": f"Basic {wrong}"}).status_code == 401


def test_health_page_and_static_stay_open_with_a_key(locked):
    assert locked.get("/healthz").status_code == 200
    assert locked.get("/").status_code == 200
    assert locked.get("/static/app.js").status_code == 200


def test_a_locked_schema_declares_the_401(locked):
    schema = locked.get("/openapi.json", headers={"Authorization": f"Bearer {KEY}"}).json()
    assert "401" in schema["paths"]["/search"]["post"]["responses"]
    assert "401" not in schema["paths"]["/healthz"]["get"]["responses"]


def test_the_document_record_reaches_its_response_whole_but_for_the_path():
    """`GET /documents/{id}` re-declares the record's fields (bounded): a field added to the record must reach it."""
    from gaceta.api.schemas import DocumentResponse
    from ingest.models import LegalDocument

    assert set(LegalDocument.model_fields) - set(DocumentResponse.model_fields) == {"source_path"}
    assert "file_name" in DocumentResponse.model_fields


def test_no_response_names_the_servers_file_system(client, api_home, reglamento_doc_id):
    """Hits, answers, documents, chunks, status: the document's file name at most, never where the server keeps it."""
    home = str(api_home.resolve())
    search = client.post("/search", json={"query": "objeciones de los trabajadores", "k": 20})
    chunk_id = search.json()["hits"][0]["chunk"]["chunk_id"]
    responses = [
        search,
        client.post("/ask", json={"question": "¿Qué plazo tiene el sindicato para formular objeciones?"}),
        client.post("/ask/stream", json={"question": "¿Qué plazo tiene el sindicato para formular objeciones?"}),
        client.get("/documents"),
        client.get(f"/documents/{reglamento_doc_id}"),
        client.get(f"/chunks/{chunk_id}"),
        client.get("/status"),
    ]
    for r in responses:
        assert r.status_code == 200, r.url
        assert home not in r.text and "source_path" not in r.text and str(api_home) not in r.text, r.url
    assert search.json()["hits"][0]["document"]["file_name"].endswith(".pdf")
    assert client.get("/status").json()["location"].startswith("$GACETA_HOME/")


def test_a_hit_is_not_the_whole_document_record(client):
    hit = client.post("/search", json={"query": "objeciones de los trabajadores", "k": 1}).json()["hits"][0]
    assert not {"aliases", "amends", "source_path", "source_sha256", "markdown"} & set(hit["document"])
    assert not {"sentences", "page_breaks", "context"} & set(hit["chunk"])


def test_max_chars_cuts_hit_texts_and_says_so(client, reglamento_doc_id):
    body = {"query": "objeciones de los trabajadores a la declaración anual", "k": 10,
            "filters": {"doc_ids": [reglamento_doc_id]}}
    whole = client.post("/search", json=body).json()["hits"]
    cut = client.post("/search", json={**body, "max_chars": 120}).json()["hits"]
    markdown = client.get(f"/documents/{reglamento_doc_id}").json()["markdown"]
    assert [h["chunk"]["chunk_id"] for h in whole] == [h["chunk"]["chunk_id"] for h in cut]
    for w, c in zip(whole, cut):
        assert c["chunk"]["text"] == w["chunk"]["text"][:120]
        assert c["chunk"]["truncated"] == (len(w["chunk"]["text"]) > 120) and not w["chunk"]["truncated"]
        assert markdown[c["chunk"]["start"]:c["chunk"]["end"]] == c["chunk"]["text"]
    answer = client.post("/ask", json={"question": "¿Qué plazo tiene el sindicato para formular objeciones?",
                                       "max_chars": 80}).json()
    assert answer["sources"] and all(len(s["chunk"]["text"]) <= 80 for s in answer["sources"])
