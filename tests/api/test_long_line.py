"""Issue 16's measure: a PDF whose first line is 1 MB long, ingested with a normal PDF in the same batch, does not
make responses grow with it — `POST /search` with k=100 stays under 1 MB, every title and label bounded. And a
document record whose names are themselves huge (whatever ingest makes of titles) is bounded in every response."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pymupdf
import pytest
from fastapi.testclient import TestClient

from gaceta.api import create_app
from gaceta.api.schemas import MAX_HEADER_CHARS, MAX_TITLE_CHARS
from retrieval.settings import Settings
from tests.api.conftest import CLI, REGLAMENTO, write_xss_pdf
from tests.conftest import pdf

LINE = ("DECRETO " + "palabra " * 125_000)[:1_000_000]
BODY = [
    "SECRETARIA DE ECONOMIA",
    "ACUERDO por el que se da a conocer la tarifa del servicio de riego del huerto comunitario.",
    "Artículo 1.- La tarifa del servicio de riego del huerto comunitario es de diez pesos por semana.",
    "Artículo 2.- El pago de la tarifa se realiza en la tesorería municipal en los primeros cinco días del mes.",
]
HUGE = "LEY " + "muy larga " * 100_000


def write_long_line_pdf(path):
    """A first line of 1,000,000 characters (a tiny font keeps it on the page, so its text is extracted whole)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((36, 40), LINE, fontsize=0.0004)
    y = 80
    for text in BODY:
        page.insert_textbox(pymupdf.Rect(72, y, 540, y + 60), text, fontsize=10)
        y += 70
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    home, inbox = tmp_path_factory.mktemp("long-line-home"), tmp_path_factory.mktemp("long-line-inbox")
    write_long_line_pdf(inbox / "linea_de_un_mega.pdf")
    shutil.copy(pdf(REGLAMENTO), inbox / REGLAMENTO)
    env = {**os.environ, "GACETA_HOME": str(home)}
    env.pop("GACETA_QDRANT_URL", None)
    run = subprocess.run([*CLI, "ingest", str(inbox), "--json"], env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    files = {os.path.basename(f["path"]): f for f in json.loads(run.stdout)["files"]}
    assert {name: f["status"] for name, f in files.items()} == {"linea_de_un_mega.pdf": "ok", REGLAMENTO: "ok"}

    from ingest.parse import parse_pdf
    from retrieval.index import Index

    settings = Settings(home=home, answerer="extractive", api_key=None)
    index = Index.open(settings)
    try:
        # A record whose names are huge, as a bad title rule could make them (the label, which heads every chunk, the
        # chunker itself refuses when it leaves no room for text).
        doc = parse_pdf(write_xss_pdf(inbox / "huerto.pdf")).documents[0]
        index.add_documents([doc.model_copy(update={
            "title": HUGE, "short_title": HUGE, "issuing_body": HUGE,
            "aliases": [f"alias {i} " + "x" * 1000 for i in range(5000)]})])
        with TestClient(create_app(settings, index)) as client:
            yield client, home, doc.doc_id, files["linea_de_un_mega.pdf"]["doc_ids"]
    finally:
        index.close()


def _bounded_hit(hit: dict) -> None:
    doc = hit["document"]
    for name in ("title", "short_title", "label", "issuing_body"):
        assert len(doc[name] or "") <= MAX_TITLE_CHARS, name
    assert len(hit["label"]) <= MAX_TITLE_CHARS
    assert len(hit["chunk"]["header"]) <= MAX_HEADER_CHARS
    assert all(len(h) <= MAX_TITLE_CHARS for h in hit["chunk"]["heading_path"])


def test_search_k100_over_a_1mb_line_stays_under_1mb(served):
    client, home, _, long_ids = served
    for query in ("palabra palabra decreto", "tarifa del servicio de riego del huerto"):
        r = client.post("/search", json={"query": query, "k": 100})
        assert r.status_code == 200
        hits = r.json()["hits"]
        assert len(hits) == 100 and any(h["document"]["doc_id"] in long_ids for h in hits)
        assert len(r.content) < 1_000_000, len(r.content)
        for hit in hits:
            _bounded_hit(hit)


def test_huge_names_are_cut_in_every_response_and_the_text_stays_whole(served):
    client, home, huge_id, _ = served
    hits = client.post("/search", json={"query": "zarzamoras del huerto comunitario", "k": 5,
                                        "filters": {"doc_ids": [huge_id]}}).json()["hits"]
    assert hits
    for hit in hits:
        _bounded_hit(hit)
        assert hit["document"]["title"].endswith("…")
    doc = client.get(f"/documents/{huge_id}").json()
    assert len(doc["title"]) == MAX_TITLE_CHARS and doc["title"].endswith("…")
    assert len(doc["aliases"]) <= 20 and all(len(a) <= MAX_TITLE_CHARS for a in doc["aliases"])
    assert "zarzamoras" in doc["markdown"] and len(json.dumps(doc)) < 100_000
    chunk = client.get(f"/chunks/{hits[0]['chunk']['chunk_id']}").json()
    assert len(chunk["document"]["title"]) <= MAX_TITLE_CHARS and len(chunk["chunk"]["header"]) <= MAX_HEADER_CHARS
    listing = client.get("/documents").json()["documents"]
    assert all(len(d["title"]) <= MAX_TITLE_CHARS and len(d["issuing_body"] or "") <= MAX_TITLE_CHARS
               for d in listing)
    answer = client.post("/ask", json={"question": "¿Cuándo se cosechan las zarzamoras del huerto comunitario?",
                                       "filters": {"doc_ids": [huge_id]}})
    assert answer.status_code == 200 and len(answer.content) < 200_000
    body = answer.json()
    for hit in body["sources"]:
        _bounded_hit(hit)
    for segment in body["content"]:
        for citation in segment["citations"]:
            assert len(citation["document_title"]) <= MAX_TITLE_CHARS and len(citation["label"]) <= MAX_TITLE_CHARS
