"""`gaceta mcp` over stdio at its edges: results bounded as the API bounds them (GACETA_MAX_HIT_CHARS), and a damaged
index named in one tool error line — what is damaged and the repair — by every tool that opens it, never a
traceback."""

from __future__ import annotations

import shutil

from tests.mcp.conftest import Session, stdio_session

REPAIR = "gaceta doctor --repair"


def session(portal, home, **env):
    return portal.wrap_async_context_manager(stdio_session(home, **env))


def test_hits_are_bounded_as_the_api_bounds_them(laws_home):
    """With GACETA_MAX_HIT_CHARS=200 (its least) a passage is the first 200 characters of the hit, marked truncated;
    an answer's sources are bounded alike."""
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal, session(portal, laws_home, GACETA_MAX_HIT_CHARS="200") as s:
        mcp = Session(portal, s)
        got = mcp.call("search", query="plazo para presentar la demanda de amparo", k=5)
        assert not got.is_error, got.content[0].text
        hits = got.structured_content["hits"]
        assert hits and all(len(h["text"]) <= 200 for h in hits)
        cut = [h for h in hits if h["truncated"]]
        assert cut, [len(h["text"]) for h in hits]  # chunks are longer than 200 characters: some were cut
        markdown = mcp.read(f"gaceta://documents/{cut[0]['doc_id']}").contents[0].text
        assert markdown[cut[0]["start"]:cut[0]["end"]].startswith(cut[0]["text"])  # the cut is the words' start
        answer = mcp.call("ask", question="¿Cuál es el plazo para presentar la demanda de amparo?")
        assert not answer.is_error, answer.content[0].text
        sources = answer.structured_content["sources"]
        assert sources and all(len(h["chunk"]["text"]) <= 200 for h in sources)


def test_a_damaged_index_is_one_tool_error_naming_the_repair(laws_home, tmp_path):
    from anyio.from_thread import start_blocking_portal

    home = tmp_path / "home"
    shutil.copytree(laws_home, home, ignore=shutil.ignore_patterns("LOCK"))
    (home / "index" / "gaceta" / "meta.json").write_text("{junk")
    with start_blocking_portal() as portal, session(portal, home) as s:
        mcp = Session(portal, s)
        calls = [("get_provision", {"law": "CPEUM", "article": "27"}), ("search", {"query": "amparo"}),
                 ("ask", {"question": "¿Qué es el amparo?"}), ("check_quote", {"quote": "corresponde a la Nación"}),
                 ("list_documents", {})]
        for name, arguments in calls:
            result = mcp.call(name, **arguments)
            assert result.is_error, (name, result.structured_content)
            text = result.content[0].text
            assert "meta.json is damaged" in text and REPAIR in text, (name, text)
            assert "\n" not in text and "Traceback" not in text, (name, text)
