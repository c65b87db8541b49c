"""`gaceta mcp` while `gaceta serve` owns the index: every tool call goes through the server's API (the MCP process
never opens the embedded index, which the server holds), and links point at the server's page view; when the
server stops, the next call opens the index itself."""

from __future__ import annotations

import subprocess

from tests.mcp.conftest import GACETA, Session, server_env, stdio_session


def serve(home):
    proc = subprocess.Popen([GACETA, "serve", "--port", "0"], env=server_env(home), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    assert line.startswith("gaceta on http://127.0.0.1:"), line
    return proc, line.split()[2].rstrip("/")


def test_calls_go_through_the_owner_then_the_index_itself(laws_home):
    from anyio.from_thread import start_blocking_portal

    server, url = serve(laws_home)
    try:
        with start_blocking_portal() as portal:
            with portal.wrap_async_context_manager(stdio_session(laws_home)) as session:
                mcp = Session(portal, session)
                got = mcp.call("get_provision", law="Ley de Amparo", article="17", fraction="II")
                assert not got.is_error, got.content[0].text
                provision = got.structured_content
                assert provision["text"].startswith("II. Cuando se reclame la sentencia definitiva condenatoria")
                assert provision["link"].startswith(f"{url}/documents/{provision['doc_id']}/pages/")
                hits = mcp.call("search", query="artículo 17 de la Ley de Amparo", k=2).structured_content["hits"]
                assert hits[0]["link"].startswith(url) and hits[0]["article"] == "17"
                server.terminate()
                server.wait(30)
                alone = mcp.call("get_provision", law="Ley de Amparo", article="17", fraction="II")
                assert not alone.is_error, alone.content[0].text
                assert alone.structured_content["text"] == provision["text"]
                assert alone.structured_content["link"].startswith("/documents/")  # no server: a path
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(30)
