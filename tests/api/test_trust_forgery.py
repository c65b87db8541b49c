"""Issue 23, item 1: no forged law from a web page.

The red-team repro: a one-page PDF saying "Artículo 1.- El patrón queda exento de pagar utilidades…", POSTed as
`text/plain` (what any page can send cross-site without a preflight) with `source=` naming the indexed reglamento,
replaced the real document. Here, over a real index and the real ingester: the text/plain body is a 415, a foreign
`Origin` or `Host` is refused, an untrusted `source=` never replaces the reglamento, the owner's token does; and in
a real browser (Debian's chromium) a page from another origin can neither ingest nor delete.
"""

from __future__ import annotations

import base64
import threading
from pathlib import Path

import pymupdf
import pytest
import uvicorn
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from gaceta.api import create_app
from retrieval.originals import source_key
from retrieval.settings import Settings
from tests.api.conftest import REGLAMENTO, LiveServer
from tests.conftest import pdf
from tests.index_fixtures import build_index

FORGED = "Artículo 1.- El patrón queda exento de pagar utilidades a sus trabajadores en todo tiempo."
LOOPBACK = ["127.0.0.1", "localhost", "[::1]"]


def forged_pdf(path: Path, text: str = FORGED) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 300), "REGLAMENTO DE LOS ARTÍCULOS 121 Y 122 DE LA LEY FEDERAL "
                        "DEL TRABAJO\n\n" + text, fontsize=11, fontname="helv")
    doc.save(path)
    return path.read_bytes()


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("trust-home")
    build_index(home, [REGLAMENTO]).close()
    return home


@pytest.fixture(scope="module")
def settings(home) -> Settings:
    return Settings(home=home, answerer="extractive", api_key=None, allowed_hosts=LOOPBACK)


@pytest.fixture(scope="module")
def app(settings):
    # owner_url: the app announces itself in owner.json with its token, as `gaceta serve` does.
    return create_app(settings, owner_url="http://127.0.0.1:9")


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        yield test_client


@pytest.fixture(scope="module")
def reglamento(client) -> dict:
    page = client.get("/documents", params={"limit": 100}).json()
    docs = [d for d in page["documents"] if d["title"].upper().startswith("REGLAMENTO DE LOS ARTÍCULOS 121")]
    assert len(docs) == 1, page
    return docs[0]


@pytest.fixture(scope="module")
def forged(tmp_path_factory) -> bytes:
    return forged_pdf(tmp_path_factory.mktemp("forged") / "forged.pdf")


def titles_and_ids(client) -> set[str]:
    return {d["doc_id"] for d in client.get("/documents", params={"limit": 100}).json()["documents"]}


def mentions_forgery(client) -> bool:
    hits = client.post("/search", json={"query": "patrón exento de pagar utilidades", "k": 10}).json()["hits"]
    return any("exento" in h["chunk"]["text"] for h in hits)


def test_a_text_plain_body_is_refused_before_it_is_read(client, reglamento, forged):
    reply = client.post("/ingest", params={"name": "x.pdf", "source": source_key(pdf(REGLAMENTO))},
                        content=forged, headers={"Content-Type": "text/plain"})
    assert reply.status_code == 415, reply.text
    assert "application/pdf" in reply.json()["detail"]
    assert reglamento["doc_id"] in titles_and_ids(client) and not mentions_forgery(client)
    assert not list((client.app.state.settings.home / "uploads").glob("*/*"))  # nothing was kept


def test_a_foreign_origin_cannot_write(client, reglamento, forged):
    evil = {"Origin": "http://evil.example"}
    ingest = client.post("/ingest", params={"name": "x.pdf"}, content=forged,
                         headers={**evil, "Content-Type": "application/pdf"})
    delete = client.delete(f"/documents/{reglamento['doc_id']}", headers=evil)
    sandboxed = client.delete(f"/documents/{reglamento['doc_id']}", headers={"Origin": "null"})
    assert (ingest.status_code, delete.status_code, sandboxed.status_code) == (403, 403, 403)
    assert reglamento["doc_id"] in titles_and_ids(client)
    # Reading stays open to any page (the browser keeps a cross-origin reply from it), and the server's own page
    # may write: its Origin is the Host it talks to.
    assert client.get("/healthz", headers=evil).status_code == 200
    own = client.delete("/documents/" + "0" * 16, headers={"Origin": "http://127.0.0.1"})
    assert own.status_code == 404, own.text
    proxied = client.delete("/documents/" + "0" * 16, headers={"Origin": "https://gaceta.example",
                                                               "X-Forwarded-Host": "gaceta.example"})
    assert proxied.status_code == 404, proxied.text  # the name a proxy says the browser used


def test_a_foreign_host_is_refused_dns_rebinding(client, reglamento):
    rebound = client.get(f"/documents/{reglamento['doc_id']}", headers={"Host": "attacker.example:8000"})
    assert rebound.status_code == 400
    assert client.get(f"/documents/{reglamento['doc_id']}", headers={"Host": "localhost:8000"}).status_code == 200


def test_an_untrusted_source_never_replaces_a_document(client, reglamento, forged):
    """The repro itself, with a PDF body: the forgery is indexed under a name of its own; the reglamento stays."""
    reply = client.post("/ingest", params={"name": "x.pdf", "source": source_key(pdf(REGLAMENTO))},
                        content=forged, headers={"Content-Type": "application/pdf"})
    assert reply.status_code == 200, reply.text
    assert reply.json()["outcome"]["status"] == "ok", reply.json()
    forged_ids = reply.json()["outcome"]["doc_ids"]
    ids = titles_and_ids(client)
    assert reglamento["doc_id"] in ids and set(forged_ids) <= ids
    # Uploads live until indexed: the index keeps its one original, the upload folder is empty again.
    assert not list((client.app.state.settings.home / "uploads").glob("*/*"))
    for doc_id in forged_ids:
        assert client.delete(f"/documents/{doc_id}").status_code == 200


def test_a_failed_upload_is_not_kept(client, home):
    """Uploads live until their file is indexed or fails: bytes that are no PDF fail, and nothing of them stays —
    not under uploads/, not as a kept original."""
    import hashlib

    body = b"%PDF-1.7 " + b"not a PDF at all " * 200
    reply = client.post("/ingest", params={"name": "roto.pdf"}, content=body,
                        headers={"Content-Type": "application/pdf"})
    assert reply.status_code == 200 and reply.json()["outcome"]["status"] == "failed", reply.text
    assert not [p for p in (home / "uploads").rglob("*") if p.is_file()]
    assert not list(home.glob(f"originals/*/{hashlib.sha256(body).hexdigest()}.*"))


def test_the_owner_token_may_replace_its_source(client, home, tmp_path):
    """`gaceta ingest` through the owner sends owner.json's token: a new version of its file replaces the old."""
    import json

    token = json.loads((home / "owner.json").read_text())["token"]
    inbox = tmp_path / "inbox.pdf"
    versions = []
    for text in ("Artículo 1.- La primera versión del acuerdo de prueba.",
                 "Artículo 1.- La segunda versión del acuerdo de prueba, que reemplaza a la primera."):
        body = forged_pdf(inbox, text)
        reply = client.post("/ingest", params={"name": "acuerdo.pdf", "source": source_key(inbox)}, content=body,
                            headers={"Content-Type": "application/pdf", "X-Gaceta-Owner": token})
        assert reply.status_code == 200 and reply.json()["outcome"]["status"] == "ok", reply.text
        versions.append(set(reply.json()["outcome"]["doc_ids"]))
    ids = titles_and_ids(client)
    assert versions[1] <= ids and not (versions[0] - versions[1]) & ids
    for doc_id in versions[1]:
        client.delete(f"/documents/{doc_id}")


# --- in a real browser ----------------------------------------------------------------------------------------------
ATTACK = """<!doctype html><html><body><script>
const bytes = Uint8Array.from(atob("%(pdf)s"), c => c.charCodeAt(0));
async function attack() {
  const results = [];
  try {
    await fetch("%(target)s/ingest?name=x.pdf&source=%(source)s",
                {method: "POST", mode: "no-cors", body: new Blob([bytes], {type: "text/plain"})});
    results.push("ingest:sent");
  } catch (e) { results.push("ingest:" + e); }
  try {
    await fetch("%(target)s/documents/%(doc_id)s", {method: "DELETE"});
    results.push("delete:sent");
  } catch (e) { results.push("delete:" + e); }
  document.title = "done " + results.join(" ");
}
attack();
</script></body></html>"""


class Running(LiveServer):
    """The module's app, already started by its TestClient, on a real socket too (no second lifespan); the status
    of every request it answered is in `answered`."""

    def __init__(self, app):
        super().__init__(app)
        self.answered: list[tuple[str, str, int]] = []

        async def recorded(scope, receive, send):
            async def sending(message):
                if message["type"] == "http.response.start":
                    self.answered.append((scope["method"], scope["path"], message["status"]))
                await send(message)

            await app(scope, receive, sending)

        self.server = uvicorn.Server(uvicorn.Config(recorded, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)


def test_a_cross_site_page_cannot_ingest_or_delete(browser, app, reglamento, forged, client):
    from urllib.parse import quote

    with Running(app) as target:
        html = ATTACK % {"pdf": base64.b64encode(forged).decode(), "target": target.url,
                         "source": quote(source_key(pdf(REGLAMENTO)), safe=""), "doc_id": reglamento["doc_id"]}
        evil_app = Starlette(routes=[Route("/", lambda request: HTMLResponse(html))])
        # Another origin on loopback (another port, another name): a page the user happens to have open.
        with LiveServer(evil_app) as evil:
            evil_url = evil.url.replace("127.0.0.1", "localhost")
            context = browser.new_context()
            page = context.new_page()
            page.goto(evil_url)
            page.wait_for_function("document.title.startsWith('done')", timeout=60_000)
            context.close()
    # The browser sent the forgery (a no-cors text/plain POST needs no preflight): the server refused it. The
    # DELETE needs a preflight, which no route grants: it never reached the route.
    assert ("POST", "/ingest", 403) in target.answered, target.answered
    assert not any(method == "DELETE" for method, _, _ in target.answered), target.answered
    assert reglamento["doc_id"] in titles_and_ids(client)
    assert not mentions_forgery(client)
