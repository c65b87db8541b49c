"""`gaceta mcp --http PORT`: streamable HTTP with the API's key rules — GACETA_API_KEY as a bearer token, no key →
loopback only, Host names checked (DNS rebinding) — driven by the SDK's streamable HTTP client."""

from __future__ import annotations

import subprocess

import httpx
import pytest

from tests.mcp.conftest import GACETA, server_env

KEY = "s3cret-key-for-tests"


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory):
    """`gaceta mcp --http 0` with a key, on a data dir that holds no index yet; yields its /mcp URL."""
    home = tmp_path_factory.mktemp("mcp-http") / "home"
    proc = subprocess.Popen([GACETA, "mcp", "--http", "0"], env=server_env(home, GACETA_API_KEY=KEY),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert line.startswith("gaceta MCP on http://127.0.0.1:"), line
        yield line.split()[3]
    finally:
        proc.terminate()
        proc.wait(30)


def call_tools(url: str, key: str | None, tool: str | None = None, **arguments):
    import anyio
    import httpx2

    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def run():
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            async with streamable_http_client(url, http_client=http) as (read, write, *_):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
                    result = await session.call_tool(tool, arguments) if tool else None
                    return [t.name for t in listed.tools], result

    return anyio.run(run)


def test_no_key_no_network(tmp_path):
    run = subprocess.run([GACETA, "mcp", "--http", "0", "--host", "0.0.0.0"], env=server_env(tmp_path / "home"),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert "refusing to serve MCP on 0.0.0.0 without GACETA_API_KEY" in run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""


def test_the_key_is_required(keyed_server):
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    missing = httpx.post(keyed_server, json=initialize, headers=headers)
    assert missing.status_code == 401 and missing.json()["detail"].startswith("missing API key")
    wrong = httpx.post(keyed_server, json=initialize, headers={**headers, "Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.json()["detail"] == "invalid API key"
    rebinding = httpx.post(keyed_server, json=initialize,
                           headers={**headers, "Authorization": f"Bearer {KEY}", "Host": "evil.example"})
    assert rebinding.status_code in (400, 403, 421)


def test_with_the_key_an_agent_gets_the_tools_and_clear_errors(keyed_server):
    names, result = call_tools(keyed_server, KEY, "get_provision", law="CPEUM", article="27")
    assert {"search", "get_provision", "ask", "check_quote", "format_citation", "list_documents"} <= set(names)
    assert result.is_error
    message = result.content[0].text
    assert "no index at" in message and "gaceta ingest" in message and "\n" not in message
