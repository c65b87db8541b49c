"""One law, two versions (issue 24): the Ley de Amparo as it stood on 13-03-2025 (data/laws) and after the reform of
16-10-2025 (data/pdfs), indexed side by side. Art. 7o, second sentence, as each PDF prints it:
- before: "Las personas morales oficiales estarán exentas de prestar las garantías…" ("Artículo reformado DOF
  13-03-2025");
- after: "Las personas morales oficiales, los organismos descentralizados, las empresas públicas del Estado, …".
Search and the named-article lookup read the version in force today unless `as_of` names another day; the other
version is left out by a payload filter.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaceta.cli import app
from retrieval.index import Index
from retrieval.legal_search import legal_search
from retrieval.models import SearchFilters
from retrieval.settings import Settings

OLD = "Las personas morales oficiales estarán exentas de prestar las garantías"
NEW = "los organismos descentralizados, las empresas públicas del Estado"
QUESTION = "¿Qué establece el artículo 7o. de la Ley de Amparo?"


@pytest.fixture(scope="module")
def home(amparo_versions) -> Path:
    return amparo_versions


@pytest.fixture(scope="module")
def index(home):
    with Index.open(Settings(home=home)) as index:
        yield index


def test_cli_as_of(home: Path, monkeypatch) -> None:
    """First in the module: a command opens the index itself (the `index` fixture holds it once opened)."""
    monkeypatch.setenv("GACETA_HOME", str(home))
    runner = CliRunner()
    for args, want, not_want in ((["--as-of", "2025-06-01"], OLD, NEW), ([], NEW, OLD)):
        result = runner.invoke(app, ["search", QUESTION, "-k", "5", "--json", *args])
        assert result.exit_code == 0, result.output
        said = " ".join(result.stdout.split())
        assert want in said and not_want not in said
    result = runner.invoke(app, ["search", QUESTION, "--as-of", "16-10-2025"])
    assert result.exit_code == 1 and "YYYY-MM-DD" in result.stderr


def test_api_as_of(home: Path) -> None:
    """POST /search and /ask take `as_of`; hits name their law and version."""
    from fastapi.testclient import TestClient

    from gaceta.api import create_app

    with TestClient(create_app(Settings(home=home, answerer="extractive", api_key=None))) as client:
        for extra, want, not_want, version in (({"as_of": "2025-06-01"}, OLD, NEW, "2025-03-13"),
                                               ({}, NEW, OLD, "2025-10-16")):
            reply = client.post("/search", json={"query": QUESTION, "k": 5, **extra})
            assert reply.status_code == 200, reply.text
            hits = reply.json()["hits"]
            said = " ".join(" ".join(h["chunk"]["text"] for h in hits).split())
            assert want in said and not_want not in said
            assert {(h["document"]["law_id"], h["document"]["version_date"]) for h in hits} == \
                {("mx/ley-de-amparo", version)}
        reply = client.post("/ask", json={"question": QUESTION, "as_of": "2025-06-01"})
        assert reply.status_code == 200, reply.text
        assert OLD in " ".join(json.dumps(reply.json(), ensure_ascii=False).split())
        assert client.post("/search", json={"query": QUESTION, "as_of": "16-10-2025"}).status_code == 422


def test_a_day_the_question_names_is_the_day_asked_about(home: Path) -> None:
    """A question that says the day itself ("¿Qué establecía … el 1 de junio de 2025?", "… vigente al …") is answered
    from the version in force that day, as `as_of` would; an `as_of` the caller gives stands; a day before every
    version held reads the earliest and says so (POST /ask, the running server's path)."""
    from fastapi.testclient import TestClient

    from gaceta.api import create_app

    def ask(question: str, **extra) -> str:
        reply = client.post("/ask", json={"question": question, **extra})
        assert reply.status_code == 200, reply.text
        return " ".join(json.dumps(reply.json(), ensure_ascii=False).split())

    with TestClient(create_app(Settings(home=home, answerer="extractive", api_key=None))) as client:
        for question in ("¿Qué establecía el artículo 7o. de la Ley de Amparo el 1 de junio de 2025?",
                         "¿Qué dice el artículo 7o. de la Ley de Amparo vigente al 1o. de junio de 2025?",
                         "What did article 7o. of the Ley de Amparo provide as of 1 June 2025?"):
            said = ask(question)
            assert OLD in said and NEW not in said and "texto vigente al 13-03-2025" in said, question
        said = ask("¿Qué establecía el artículo 7o. de la Ley de Amparo el 1 de junio de 2025?", as_of="2025-10-20")
        assert NEW in said and OLD not in said
        said = ask("¿Qué decía el artículo 7o. de la Ley de Amparo en 2024?")
        assert "El 31-12-2024 es anterior a la versión más antigua de la Ley de Amparo" in said and OLD in said


def test_mcp_get_provision_as_of(home: Path) -> None:
    """An agent asks for art. 7o as it stood before the reform, and as it stands today (`gaceta mcp` over stdio)."""
    from anyio.from_thread import start_blocking_portal

    from tests.mcp.conftest import Session, stdio_session

    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_session(home)) as session:
            mcp = Session(portal, session)
            for as_of, want, not_want in (("2025-06-01", OLD, NEW), (None, NEW, OLD)):
                args = {"as_of": as_of} if as_of else {}
                result = mcp.call("get_provision", law="Ley de Amparo", article="7", **args)
                assert not result.is_error, result.content[0].text
                text = " ".join(result.structured_content["text"].split())
                assert want in text and not_want not in text
            result = mcp.call("compare_versions", law="Ley de Amparo", article="7o")
            assert not result.is_error, result.content[0].text
            diff = result.structured_content
            assert diff["status"] == "changed" and {"op": "replace", "before": "exentas", "after": "exentos"} in \
                diff["changes"]
            result = mcp.call("list_documents", filters={"as_of": "2025-06-01"})
            laws = result.structured_content["laws"]
            assert [[v["in_force"] for v in law["versions"]] for law in laws] == [[True, False]]
            result = mcp.call("article_history", law="mx/ley-de-amparo", article="129")
            assert [v["status"] for v in result.structured_content["versions"]] == ["first", "changed"]
            result = mcp.call("compare_versions", law="Código Penal Federal", article="7")
            assert result.is_error and "not a law in the index" in result.content[0].text


def test_documents_list_their_law_and_version(home: Path, monkeypatch) -> None:
    monkeypatch.setenv("GACETA_HOME", str(home))
    result = CliRunner().invoke(app, ["documents", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    rows = listed["documents"] if isinstance(listed, dict) else listed
    assert {(d["law_id"], d["version_date"]) for d in rows} == {("mx/ley-de-amparo", "2025-03-13"),
                                                               ("mx/ley-de-amparo", "2025-10-16")}
    # the law once, its versions under it, the one in force marked (today; --as-of another day)
    for args, in_force in (([], [False, True]), (["--as-of", "2025-06-01"], [True, False])):
        result = CliRunner().invoke(app, ["documents", "--json", *args])
        laws = json.loads(result.stdout)["laws"]
        assert [(law["law_id"], [v["version_date"] for v in law["versions"]]) for law in laws] == \
            [("mx/ley-de-amparo", ["2025-03-13", "2025-10-16"])]
        assert [v["in_force"] for v in laws[0]["versions"]] == in_force
    shown = CliRunner().invoke(app, ["documents"])
    assert "laws held in several versions" in shown.stdout and "16-10-2025 *" in shown.stdout


def article_7(index: Index, as_of: dt.date | None) -> str:
    result = legal_search(index, QUESTION, k=8, filters=SearchFilters(as_of=as_of) if as_of else None)
    return " ".join(hit.chunk.text for hit in result.hits if hit.chunk.article == "7")


def test_two_texts_of_one_law_are_two_versions(index: Index) -> None:
    docs = {d.version_date: d for d in index.document_infos()}
    assert set(docs) == {dt.date(2025, 3, 13), dt.date(2025, 10, 16)}
    assert {d.law_id for d in docs.values()} == {"mx/ley-de-amparo"}
    today = index.in_force()
    assert today.superseded == (docs[dt.date(2025, 3, 13)].doc_id,) and not today.predates
    assert index.in_force(dt.date(2025, 6, 1)).superseded == (docs[dt.date(2025, 10, 16)].doc_id,)
    assert index.in_force(dt.date(2020, 1, 1)).predates == ("mx/ley-de-amparo",)


def test_the_version_in_force_answers(index: Index) -> None:
    today = article_7(index, None)
    assert NEW in today and OLD not in today
    before = article_7(index, dt.date(2025, 6, 1))
    assert OLD in before and NEW not in before
    after = article_7(index, dt.date(2025, 10, 16))
    assert NEW in after and OLD not in after


def test_search_never_mixes_versions(index: Index) -> None:
    """A free query (no article named): every hit from one version."""
    for as_of, version in ((None, dt.date(2025, 10, 16)), (dt.date(2025, 4, 1), dt.date(2025, 3, 13))):
        result = legal_search(index, "personas morales oficiales garantías", k=20,
                              filters=SearchFilters(as_of=as_of) if as_of else None)
        assert result.hits and {hit.document.version_date for hit in result.hits} == {version}
