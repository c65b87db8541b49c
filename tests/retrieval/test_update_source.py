"""Issue 16, item 1 end to end: a PDF changed in place and ingested again replaces its document, through the CLI.

The test writes a small decree with PyMuPDF whose transitory article enters into force "el 3 de marzo de 2025",
ingests it (`gaceta ingest`), rewrites the same file with "agosto", ingests again, then: `gaceta status` counts one
document, `gaceta search` no longer finds "marzo", `gaceta ask` never cites it, the new version's page image renders
and the old version's id is gone. Twice: the file named on the command line, and the inbox folder the scheduled
`ingest/inbox` deployment reads (the flow function it runs, with no paths)."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gaceta.cli import app
from retrieval.settings import Settings

LINES = [
    "DECRETO por el que se reforma el Reglamento Interior de la Secretaría de Economía",
    "Artículo 1. La Secretaría publicará el padrón de importadores en su portal electrónico.",
    "Artículo 2. El padrón se actualizará cada trimestre con los datos que remitan las aduanas.",
    "TRANSITORIOS",
    "Primero. El presente Decreto entrará en vigor el 3 de marzo de 2025, al día siguiente de su publicación.",
    "Segundo. Se derogan las disposiciones que se opongan al presente Decreto.",
]
OLD, NEW = "marzo", "agosto"


def write_decree(path: Path, month: str) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    y = 72
    for line in LINES:
        spare = page.insert_textbox(pymupdf.Rect(72, y, 540, y + 60), line.replace(OLD, month), fontsize=11,
                                    fontname="helv")
        y += 60 - spare + 10
    data = doc.tobytes()
    path.write_bytes(data)  # in place: the same path, other bytes


def cli(*args: str):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0 and result.exception is None, (args, result.output, result.exception)
    return json.loads(result.stdout)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("GACETA_HOME", str(tmp_path / "home"))
    for name in ("GACETA_QDRANT_URL", "PREFECT_API_URL", "GACETA_CONTEXT", "GACETA_ANSWERER"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "home"


def ingest(home: Path, path: Path, via_inbox: bool) -> list[str]:
    if via_inbox:  # what the `ingest/inbox` deployment runs: the flow with no paths reads $GACETA_HOME/inbox
        import flows  # noqa: F401  (offline Prefect settings first)
        from flows.ingest_flow import run_ingest
        from flows.indexing import close_indexes

        try:
            summary, state = run_ingest(None)
        finally:
            close_indexes()
        assert state == "Completed", summary
        (outcome,) = summary.files
        return outcome.doc_ids
    summary = cli("ingest", str(path), "--json")
    (outcome,) = summary["files"]
    return outcome["doc_ids"]


@pytest.mark.parametrize("via_inbox", [False, True], ids=["named-file", "inbox-flow"])
def test_a_changed_pdf_replaces_its_document(home, tmp_path, via_inbox):
    source = (home / "inbox" if via_inbox else tmp_path / "gaceta") / "decreto.pdf"
    source.parent.mkdir(parents=True)
    write_decree(source, OLD)
    old_ids = ingest(home, source, via_inbox)
    assert cli("status", "--json")["index"]["documents"] == 1
    hits = cli("search", f"entrará en vigor el 3 de {OLD} de 2025", "--json", "--mode", "bm25")["hits"]
    assert any(OLD in h["chunk"]["text"] for h in hits)  # the old version is found before the change

    write_decree(source, NEW)
    new_ids = ingest(home, source, via_inbox)
    assert new_ids and set(new_ids).isdisjoint(old_ids)

    status = cli("status", "--json")["index"]
    assert status["documents"] == 1 and status["pending"] == 0
    for mode in ("bm25", "hybrid", "dense"):
        hits = cli("search", f"entrará en vigor el 3 de {OLD} de 2025", "--json", "--mode", mode)["hits"]
        assert hits and all(OLD not in h["chunk"]["text"] for h in hits)
        assert {h["document"]["doc_id"] for h in hits} == set(new_ids)
    assert any(NEW in h["chunk"]["text"]
               for h in cli("search", f"3 de {NEW} de 2025", "--json", "--mode", "bm25")["hits"])
    answer = cli("ask", f"¿El Decreto entra en vigor el 3 de {OLD} de 2025?", "--json", "-a", "extractive")
    cited = [c for segment in answer["content"] for c in segment.get("citations", [])]
    assert cited and all(OLD not in c["cited_text"] for c in cited)
    assert all(c["doc_id"] in new_ids for c in cited)
    assert OLD not in " ".join(segment["text"] for segment in answer["content"])
    assert any(NEW in c["cited_text"] for c in cited)

    from gaceta.api import create_app
    from retrieval.index import Index

    settings = Settings()
    with Index.open(settings) as index, TestClient(create_app(settings, index)) as client:
        page = client.get(f"/documents/{new_ids[0]}/pages/1.png")
        assert page.status_code == 200 and page.headers["content-type"] == "image/png"
        assert page.content.startswith(b"\x89PNG")
        assert client.get(f"/documents/{old_ids[0]}/pages/1.png").status_code == 404
        assert client.get(f"/documents/{old_ids[0]}").status_code == 404
