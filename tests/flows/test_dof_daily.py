"""`dof_daily` against a local HTTP server on 127.0.0.1 that serves a real DOF PDF, a 404 day, a server that
never answers in time, and a download cut short."""

from __future__ import annotations

import datetime as dt
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import pdf
from tests.flows.conftest import gaceta_env

DOF_PDF = "dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf"
SLOW_S = 3.0


class DofServer:
    """Routes by file name: 01042024-MAT → the real PDF; 02042024-* → slow; 03042024-* → truncated; else 404."""

    def __init__(self) -> None:
        self.body = pdf(DOF_PDF).read_bytes()
        self.hits: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                name = self.path.rsplit("/", 1)[-1]
                server.hits.append(name)
                if name == "01042024-MAT.pdf":
                    return self._send(server.body)
                if name.startswith("02042024"):
                    time.sleep(SLOW_S)
                    return self._send(server.body)
                if name.startswith("03042024"):
                    self.send_response(200)
                    self.send_header("content-type", "application/pdf")
                    self.send_header("content-length", str(len(server.body)))
                    self.end_headers()
                    self.wfile.write(server.body[: len(server.body) // 3])
                    self.close_connection = True
                    return
                self.send_error(404)

            def _send(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("content-type", "application/pdf")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def server():
    srv = DofServer()
    yield srv
    srv.close()


@pytest.fixture
def home(tmp_path, server):
    with gaceta_env(tmp_path / "home", GACETA_DOF_URL_TEMPLATE=server.url + "/dof/{yyyy}/{ddmmyyyy}-{edition}.pdf"):
        yield tmp_path / "home"


def run(day: dt.date, editions: list[str], **kwargs):
    from flows.dof_daily import dof_daily

    from flows.models import summary_of

    state = dof_daily(date=day, editions=editions, retry_delay_s=0.1, return_state=True, **kwargs)
    return state, summary_of(state.result(raise_on_failure=False))


def test_edition_downloaded_stored_and_ingested_missing_one_is_normal(home, server):
    state, summary = run(dt.date(2024, 4, 1), ["MAT", "VES"])
    assert state.name == "Completed"
    by_edition = {e.edition: e for e in summary.editions}
    mat, ves = by_edition["MAT"], by_edition["VES"]
    assert mat.status.value == "downloaded"
    stored = Path(mat.path)
    assert stored.is_relative_to(home) and stored.read_bytes() == server.body
    assert ves.status.value == "absent" and "404" in ves.reason
    assert summary.ingest.files_ok == 1 and summary.ingest.chunks > 0

    # a second run finds the file in place and the ingest cached
    state, again = run(dt.date(2024, 4, 1), ["MAT"])
    assert again.editions[0].status.value == "present"
    assert again.ingest.files_cached == 1 and again.ingest.files_ok == 0


def test_day_without_edition_is_completed(home):
    state, summary = run(dt.date(2024, 4, 6), ["MAT", "VES", "EXT"])
    assert state.name == "Completed"
    assert [e.status.value for e in summary.editions] == ["absent"] * 3
    assert summary.ingest is None and not any(home.rglob("*.pdf"))


def test_timeout_is_retried_then_reported(home, server):
    before = len(server.hits)
    state, summary = run(dt.date(2024, 4, 2), ["MAT"], timeout_s=0.5, retries=1)
    assert state.name == "Failed"
    edition = summary.editions[0]
    assert edition.status.value == "failed" and "timed out" in edition.reason
    assert len(server.hits) - before == 2  # first try + one retry
    assert not any(home.rglob("*.pdf")) and not any(home.rglob("*.part"))


def test_truncated_download_is_rejected(home):
    state, summary = run(dt.date(2024, 4, 3), ["MAT"], retries=1)
    assert state.name == "Failed"
    edition = summary.editions[0]
    assert edition.status.value == "failed"
    assert "truncated download" in edition.reason
    assert not any(home.rglob("*.pdf")) and not any(home.rglob("*.part"))


def test_size_limit(home):
    state, summary = run(dt.date(2024, 4, 1), ["MAT"], max_bytes=1000)
    assert state.name == "Failed"
    assert "limit" in summary.editions[0].reason


def test_url_template_and_default_date():
    from flows.dof_daily import edition_url, today_in_mexico

    url = edition_url("https://x/abrirPDF.php?archivo={ddmmyyyy}-{edition}.pdf&anio={yyyy}", dt.date(2025, 1, 2), "MAT")
    assert url == "https://x/abrirPDF.php?archivo=02012025-MAT.pdf&anio=2025"
    utc_now = dt.datetime.now(dt.timezone.utc)
    assert today_in_mexico() in {(utc_now - dt.timedelta(hours=h)).date() for h in (5, 6)}
