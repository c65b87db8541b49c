"""GACETA_API_KEY: when set, every data route needs the bearer token; /healthz and the page shell never do."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from gaceta.api import create_app

KEY = "s3cret-key-for-tests"


@pytest.fixture(scope="module")
def locked(api_settings, api_index):
    with TestClient(create_app(api_settings.model_copy(update={"api_key": KEY}), api_index)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def routes(client, reglamento_doc_id):
    chunk_id = client.post("/search", json={"query": "sindicato", "k": 1}).json()["hits"][0]["chunk"]["chunk_id"]
    return [
        ("POST", "/search", {"query": "sindicato"}),
        ("POST", "/ask", {"question": "¿Qué puede hacer el sindicato?"}),
        ("POST", "/ask/stream", {"question": "¿Qué puede hacer el sindicato?"}),
        ("GET", f"/documents/{reglamento_doc_id}", None),
        ("GET", f"/documents/{reglamento_doc_id}/pages/1.png", None),
        ("GET", f"/chunks/{chunk_id}", None),
    ]


def test_every_data_route_needs_the_key(locked, routes):
    for method, path, body in routes:
        missing = locked.request(method, path, json=body)
        wrong = locked.request(method, path, json=body, headers={"Authorization": "Bearer nope"})
        basic = locked.request(method, path, json=body, headers={"Authorization": f"Basic {KEY}"})
        right = locked.request(method, path, json=body, headers={"Authorization": f"Bearer {KEY}"})
        assert (missing.status_code, wrong.status_code, basic.status_code, right.status_code) == (401, 401, 401, 200), path
        assert missing.headers["www-authenticate"] == "Bearer"
        assert "API key" in missing.json()["detail"]


def test_health_and_page_shell_stay_open(locked):
    assert locked.get("/healthz").status_code == 200
    page = locked.get("/")
    assert page.status_code == 200 and "<textarea id=\"question\"" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]  # no inline script can run on the page


def test_no_key_configured_means_open(client, routes):
    for method, path, body in routes:
        assert client.request(method, path, json=body).status_code == 200, path
