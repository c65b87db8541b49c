"""`GET /documents` groups the versions of one law (issue 24): the Ley de Amparo as it stood on 13-03-2025 and after
the reform of 16-10-2025 appear once under their law, the one in force today (or on `as_of`) marked; the flat
`documents` list is unchanged."""

from __future__ import annotations

import datetime as dt

import pytest
from fastapi.testclient import TestClient

from gaceta.api import create_app
from retrieval.settings import Settings


@pytest.fixture(scope="module")
def client(amparo_versions):
    with TestClient(create_app(Settings(home=amparo_versions, answerer="extractive", api_key=None))) as client:
        yield client


def _amparo(body: dict) -> dict:
    laws = [law for law in body["laws"] if law["law_id"] == "mx/ley-de-amparo"]
    assert len(laws) == 1, body["laws"]
    return laws[0]


def test_versions_grouped_today(client) -> None:
    body = client.get("/documents").json()
    assert body["total"] == 2 and len(body["documents"]) == 2  # the flat list keeps both records
    law = _amparo(body)
    assert "Amparo" in law["title"]
    dates = [v["version_date"] for v in law["versions"]]
    assert dates == sorted(dates) and dates[-1] >= "2025-10-16" and dates[0] < "2025-10-16"
    assert [v["in_force"] for v in law["versions"]] == [False, True]
    assert body["as_of"] == dt.date.today().isoformat()


def test_versions_as_of(client) -> None:
    law = _amparo(client.get("/documents", params={"as_of": "2025-06-01"}).json())
    assert [v["in_force"] for v in law["versions"]] == [True, False]
    bad = client.get("/documents", params={"as_of": "16-10-2025"})
    assert bad.status_code == 422
