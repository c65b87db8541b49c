"""`as_of` through `gaceta mcp` over stdio (issue 24's two Ley de Amparo texts, before and after the reform of
16-10-2025): `search` and `ask` read the law in the version in force on that day, or today's without one; each hit
names its version. (`get_provision`, `compare_versions`, `article_history`: tests/retrieval/test_versions.py.)"""

from __future__ import annotations

import json

from tests.mcp.conftest import Session, stdio_session

OLD = "Las personas morales oficiales estarán exentas de prestar las garantías"
NEW = "los organismos descentralizados, las empresas públicas del Estado"
QUESTION = "¿Qué establece el artículo 7o. de la Ley de Amparo?"


def squashed(text: str) -> str:
    return " ".join(text.split())


def test_search_and_ask_read_the_version_in_force_on_as_of(amparo_versions):
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_session(amparo_versions)) as session:
            mcp = Session(portal, session)
            for as_of, want, not_want, version in (("2025-06-01", OLD, NEW, "2025-03-13"),
                                                   (None, NEW, OLD, "2025-10-16")):
                extra = {"as_of": as_of} if as_of else {}
                found = mcp.call("search", query=QUESTION, k=5, **extra)
                assert not found.is_error, found.content[0].text
                hits = found.structured_content["hits"]
                said = squashed(" ".join(h["text"] for h in hits))
                assert want in said and not_want not in said, (as_of, said[:300])
                assert {(h["law_id"], h["version_date"]) for h in hits} == {("mx/ley-de-amparo", version)}
                answer = mcp.call("ask", question=QUESTION, **extra)
                assert not answer.is_error, answer.content[0].text
                got = answer.structured_content
                sources = squashed(" ".join(h["chunk"]["text"] for h in got["sources"]))
                assert want in sources and not_want not in sources, (as_of, sources[:300])
                assert {h["document"]["version_date"] for h in got["sources"]} == {version}
                cited = [c for seg in got["content"] for c in seg["citations"] if c["verified"]]
                assert cited and {c["doc_id"] for c in cited} <= {h["doc_id"] for h in hits}  # that version's
            bad = mcp.call("search", query=QUESTION, as_of="16-10-2025")
            assert bad.is_error and "as_of" in bad.content[0].text and "\n" not in bad.content[0].text
            assert "Traceback" not in json.dumps(bad.content[0].text)
