"""`gaceta mcp [--http PORT]`: gaceta's tools for agents over the Model Context Protocol (`gaceta.mcp_server`), on
stdio (what an MCP client launches) or streamable HTTP at /mcp with the API's key rules: GACETA_API_KEY as a bearer
token; without one, loopback only."""

from __future__ import annotations

import os

import typer

from gaceta.cli.common import err_console, fail, settings


def register(app: typer.Typer) -> None:
    @app.command()
    def mcp(
        http: int = typer.Option(None, "--http", min=0, max=65535, metavar="PORT",
                                 help="Serve streamable HTTP on this port (path /mcp; 0: any free port) instead of "
                                 "stdio."),
        host: str = typer.Option("127.0.0.1", help="With --http: the interface to listen on (another than loopback "
                                 "needs GACETA_API_KEY)."),
        allowed_host: list[str] = typer.Option(
            [], "--allowed-host", help="With --http: another Host name to answer (a proxy's); repeatable."),
    ) -> None:
        """Serve gaceta's tools to agents (MCP): search, get_provision, ask, check_quote, attribute,
        format_citation, list_documents, compare_versions, article_history, and each document as
        gaceta://documents/{id}. Through `gaceta serve` when it holds the index."""
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # as `gaceta serve`: concurrent calls are the parallelism
        from gaceta.mcp_server import build_server

        config = settings()
        if http is None:
            build_server(config).run("stdio")
            return
        from gaceta.cli.serve_cmd import _listen, _url, allowed_hosts, is_loopback

        if config.api_key is None and not is_loopback(host):
            fail(f"refusing to serve MCP on {host} without GACETA_API_KEY: anyone who could reach it could use the "
                 "index; set GACETA_API_KEY, or serve on 127.0.0.1")
        import uvicorn

        from gaceta.mcp_server import http_app

        names = config.allowed_hosts or allowed_hosts(host, allowed_host, config.api_key)
        sock = _listen(host, http)
        url = _url(host, sock.getsockname()[1])
        app = http_app(build_server(config), host, config.api_key, names)
        err_console.print(f"gaceta MCP on {url}/mcp" + ("  (bearer key required)" if config.api_key else ""),
                          soft_wrap=True)
        uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5)).run(sockets=[sock])
