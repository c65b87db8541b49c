"""An MCP session with `gaceta mcp` over stdio (the SDK's own client), on a real index of the CPEUM and the Ley de
Amparo built once for these tests; calls made from plain (sync) tests through an anyio portal."""

from __future__ import annotations

import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from tests.index_fixtures import build_index

LAWS = ["mx_ley_CPEUM_constitucion_politica.pdf", "mx_ley_de_amparo.pdf"]
GACETA = str(Path(sys.executable).with_name("gaceta"))


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """The server's environment: this one's, the test home, no owner or key inherited from the caller's shell."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GACETA_")}
    return {**env, "GACETA_HOME": str(home), **extra}


@pytest.fixture(scope="session")
def laws_home(tmp_path_factory) -> Path:
    """Built once for the MCP tests (each module's server is gone before the next module opens it)."""
    home = tmp_path_factory.mktemp("mcp-laws") / "home"
    build_index(home, LAWS).close()
    return home


class Session:
    """The SDK's `ClientSession`, called from sync code."""

    def __init__(self, portal, session):
        self.portal, self.session = portal, session

    def call(self, name: str, **arguments):
        return self.portal.call(lambda: self.session.call_tool(name, arguments))

    def list_tools(self):
        return self.portal.call(self.session.list_tools)

    def read(self, uri: str):
        return self.portal.call(self.session.read_resource, uri)

    def templates(self):
        return self.portal.call(self.session.list_resource_templates)


@asynccontextmanager
async def stdio_session(home: Path, **env: str):
    """`gaceta mcp` launched as an MCP client launches it, on `home` (`env`: more of the server's environment)."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=GACETA, args=["mcp"], env=server_env(home, **env))
    with open(home.parent / "mcp-stderr.log", "a") as errlog:  # the server's log, for a failing test's reader
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=600) as session:
                await session.initialize()
                yield session


@pytest.fixture(scope="module")
def mcp(laws_home):
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_session(laws_home)) as session:
            yield Session(portal, session)
