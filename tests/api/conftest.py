"""One small real index for every API test: a Mexican reglamento, a DOF landscape-table extract, and a PDF whose
text carries HTML/JS (built here with PyMuPDF) to prove the page shows document text as text."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pymupdf
import pytest
import uvicorn
from fastapi.testclient import TestClient

from gaceta.api import create_app
from retrieval.settings import Settings
from tests.index_fixtures import build_index

REGLAMENTO = "mx_reglamento_arts_121_122_LFT.pdf"
DOF_TABLES = "dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf"

XSS_SCRIPT = "<script>window.__xss='script'</script>"
XSS_IMG = "<img src=x onerror=\"window.__xss='img'\">"
XSS_LINES = [
    "SECRETARIA DE AGRICULTURA Y DESARROLLO RURAL",
    "ACUERDO por el que se dan a conocer las reglas del huerto comunitario de zarzamoras",
    f"Artículo 1.- Las zarzamoras del huerto comunitario se cosechan en el mes de marzo {XSS_SCRIPT} conforme al calendario.",
    f"Artículo 2.- El riego de las zarzamoras del huerto ocurre cada semana {XSS_IMG} durante la mañana.",
    "Artículo 3.- Los vecinos del huerto reciben las zarzamoras cosechadas por turnos semanales.",
]


def write_xss_pdf(path: Path) -> Path:
    pdf = pymupdf.open()
    page = pdf.new_page()
    y = 72
    for line in XSS_LINES:
        rect = pymupdf.Rect(72, y, 540, y + 80)
        spare = page.insert_textbox(rect, line, fontsize=10, fontname="helv")
        y += 80 - spare + 12
    pdf.save(path)
    return path


@pytest.fixture(scope="session")
def api_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("api-home")


@pytest.fixture(scope="session")
def xss_pdf(api_home) -> Path:
    return write_xss_pdf(api_home / "huerto_xss.pdf")


@pytest.fixture(scope="session")
def api_index(api_home, xss_pdf):
    from ingest.parse import parse_pdf

    index = build_index(api_home, [REGLAMENTO, DOF_TABLES])
    result = parse_pdf(xss_pdf)
    assert result.documents, f"the XSS test PDF did not parse: {result.status} {result.message}"
    index.add_documents(result.documents)
    index.optimize()
    yield index
    index.close()


@pytest.fixture(scope="session")
def api_settings(api_home) -> Settings:
    return Settings(home=api_home, answerer="extractive", api_key=None)


@pytest.fixture(scope="session")
def client(api_settings, api_index) -> Iterator[TestClient]:
    with TestClient(create_app(api_settings, api_index)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def reglamento_doc_id(client) -> str:
    hits = client.post("/search", json={"query": "objeciones de los trabajadores a la declaración anual", "k": 1}).json()["hits"]
    assert hits[0]["document"]["title"].upper().startswith("REGLAMENTO DE LOS ARTÍCULOS 121 Y 122")
    return hits[0]["document"]["doc_id"]


# ARTÍCULO 13 of the Reglamento de los Artículos 121 y 122 LFT: one sentence the page tests light up.
SENTENCE_START = "Dentro de los treinta días hábiles"
SENTENCE_END = "considere convenientes."


@pytest.fixture(scope="session")
def article_13(client, reglamento_doc_id) -> tuple[dict, int, int, int]:
    """The document (its record with Markdown), the offsets of ARTÍCULO 13's sentence found in its Markdown, and the
    PDF page that holds it."""
    doc = client.get(f"/documents/{reglamento_doc_id}").json()
    start = doc["markdown"].index(SENTENCE_START)
    end = doc["markdown"].index(SENTENCE_END, start) + len(SENTENCE_END)
    page = next(s["page"] for s in doc["page_spans"] if s["start"] <= start < s["end"])
    return doc, start, end, page


class LiveServer:
    """uvicorn on 127.0.0.1 (a port the OS picks) in a background thread, for clients that need a real socket."""

    def __init__(self, app):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()


@pytest.fixture(scope="session")
def live_url(api_settings, api_index) -> Iterator[str]:
    with LiveServer(create_app(api_settings, api_index)) as server:
        # FastAPI builds the schema on its first request; schemathesis gives loading it only 10 s, which a CI run on
        # a loaded machine (this server shares the test process) once exceeded. Build it here, with time to spare.
        httpx.get(f"{server.url}/openapi.json", timeout=120).raise_for_status()
        yield server.url


UNCITED = [
    "Conviene recordar que los trámites fiscales suelen requerir paciencia y una buena organización personal.",
    "Muchas personas consultan además a un contador de confianza antes de presentar cualquier escrito.",
]


def lead_in_then_cite(request: dict) -> dict:
    """A Claude reply: two uncited sentences, then one sentence citing the start of document 0 (coverage 1/3)."""
    from tests.stubs.anthropic_stub import char_citation

    citation = char_citation(request, 0, 0, 120)
    return {
        "content": [
            {"type": "text", "text": " ".join(UNCITED) + " "},
            {"type": "text", "text": "El reglamento regula las objeciones de los trabajadores.", "citations": [citation]},
        ]
    }


@pytest.fixture(scope="session")
def claude_stub():
    from tests.stubs.anthropic_stub import AnthropicStub

    with AnthropicStub(responder=lead_in_then_cite, citations_after_text=True) as stub:
        yield stub


@pytest.fixture(scope="session")
def claude_settings(api_settings, claude_stub) -> Settings:
    update = {"answerer": "claude", "anthropic_api_key": "test-key", "anthropic_base_url": claude_stub.base_url}
    return api_settings.model_copy(update=update)


@pytest.fixture(scope="session")
def claude_live_url(claude_settings, api_index) -> Iterator[str]:
    with LiveServer(create_app(claude_settings, api_index)) as server:
        yield server.url


CLI = [sys.executable, "-c", "from gaceta.cli import main; main()"]


class ServeProcess:
    """`gaceta serve --port 0` as a user runs it, in its own process: ready once it has announced itself as the
    index's owner ($GACETA_HOME/owner.json naming its pid). Its output goes to a log file under the home."""

    def __init__(self, home: Path, env: dict[str, str] | None = None):
        self.home = home
        self.env = {**os.environ, "GACETA_HOME": str(home), "GACETA_ANSWERER": "extractive", **(env or {})}
        self.env.pop("GACETA_QDRANT_URL", None)
        self.log_path = home / "serve.log"
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def start(self, timeout: float = 180) -> ServeProcess:
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([*CLI, "serve", "--port", "0"], env=self.env, stdout=log, stderr=log,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        owner = self.home / "owner.json"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gaceta serve exited {self.proc.returncode}: {self.log()[-3000:]}")
            try:
                record = json.loads(owner.read_text())
                if record["pid"] == self.proc.pid:
                    self.url = record["url"]
                    return self
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"gaceta serve did not announce itself within {timeout} s: {self.log()[-3000:]}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def children(self) -> list[int]:
        import psutil

        return [p.pid for p in psutil.Process(self.proc.pid).children(recursive=True)]

    def kill(self) -> None:
        """SIGKILL the server and its ingest child, as a crash would."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            pids = self.children()
        except Exception:  # noqa: BLE001
            pids = []
        for pid in [self.proc.pid, *pids]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=30)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)

    def cli(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        """A gaceta command run by a user beside the server (same data dir, its own process)."""
        return subprocess.run([*CLI, *args], env=self.env, capture_output=True, text=True, timeout=timeout)


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium under Playwright, for the web page's tests."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), "Debian chromium is missing: `make system-deps` installs it"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()
