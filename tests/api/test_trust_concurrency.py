"""Issue 23, item 2: the bounded pools. At most `ATTRIBUTIONS_AT_ONCE` attributions and `RENDERS_AT_ONCE` page
renders run at a time; a request that waits past its turn's deadline is a 503 with `Retry-After` (never a queue
that grows without end, never a 500), the slots come back, and other routes answer meanwhile.

Red-team: eight maximal `/attribute` calls at once pushed `/search` to a 4 s maximum; four highlights of a
9,000 pt page at once peaked at 2.69 GB. Here with the real routes over real indexes; only the wait is shortened."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import gaceta.api.routes.attribute as attribute_route
from gaceta.api import create_app
from gaceta.api.app import ATTRIBUTIONS_AT_ONCE
from gaceta.api.pages import PageRenderer
from retrieval.settings import Settings
from tests.api.test_trust_bounds import home as bounds_home  # noqa: F401  (fixture: the 9,000 and 14,400 pt pages)


def test_attributions_beyond_the_pool_wait_then_get_a_503(client, reglamento_doc_id, monkeypatch):
    markdown = client.get(f"/documents/{reglamento_doc_id}").json()["markdown"]
    # A long memo: a sentence per paragraph of the reglamento, each quoted (a search and a judgement apiece).
    paragraphs = [p.strip() for p in markdown.split("\n") if len(p.strip()) > 80][:40]
    text = " ".join(f'El reglamento dispone: "{p[:200]}".' for p in paragraphs)
    monkeypatch.setattr(attribute_route, "WAIT_S", 0.3)
    n = ATTRIBUTIONS_AT_ONCE + 4
    with ThreadPoolExecutor(n) as pool:
        replies = list(pool.map(lambda _: client.post("/attribute", json={"text": text}), range(n)))
    codes = sorted(r.status_code for r in replies)
    assert set(codes) <= {200, 503} and codes.count(200) >= ATTRIBUTIONS_AT_ONCE and 503 in codes, codes
    for reply in replies:
        if reply.status_code == 503:
            assert reply.headers["Retry-After"] and "attribution slot" in reply.json()["detail"], reply.text
        else:
            assert reply.json()["sentences"], reply.text[:300]
    # The slots came back: one more runs.
    assert client.post("/attribute", json={"text": text}).status_code == 200


@pytest.fixture(scope="module")
def one_renderer(bounds_home):  # noqa: F811
    app = create_app(Settings(home=bounds_home, answerer="extractive", api_key=None))
    with TestClient(app) as test_client:
        app.state.renderer = PageRenderer(at_once=1, wait_s=0.2)  # one slot, a short wait: the pool's rule, quickly
        yield test_client


def test_renders_beyond_the_pool_wait_then_get_a_503(one_renderer):
    client = one_renderer
    docs = client.get("/documents").json()["documents"]
    (big,) = [d for d in docs if Path(client.get(f"/documents/{d['doc_id']}").json()["file_name"]).stem == "big"]
    markdown = client.get(f"/documents/{big['doc_id']}").json()["markdown"]
    start = markdown.index("Artículo 1")
    url = f"/documents/{big['doc_id']}/pages/1.png"
    spans = [f"{start}-{start + 40 + i}" for i in range(4)]  # four different highlights: none from the cache
    with ThreadPoolExecutor(4) as pool:  # at once: each renders or is refused, none fails
        replies = list(pool.map(lambda span: client.get(url, params={"highlight": span}), spans))
    codes = sorted(r.status_code for r in replies)
    assert set(codes) <= {200, 503} and 200 in codes, codes
    # While a render holds the only slot (taken here, as a long render would), a request waits its turn, then is
    # refused; whether four threads overlapped above depends on the machine's speed, this does not.
    renderer = client.app.state.renderer
    assert renderer._slots.acquire(timeout=5)
    try:
        busy = client.get(url, params={"highlight": f"{start}-{start + 50}"})
        assert client.get("/healthz").status_code == 200
    finally:
        renderer._slots.release()
    assert busy.status_code == 503, busy.status_code
    assert busy.headers["Retry-After"] and "page renderer" in busy.json()["detail"]
    # The slot came back: the refused highlight renders when asked again.
    again = client.get(url, params={"highlight": busy.request.url.params["highlight"]})
    assert again.status_code == 200 and again.content.startswith(b"\x89PNG")
