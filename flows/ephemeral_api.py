"""Prefect's ephemeral API, started the moment a one-shot command begins instead of when the flow first needs it.

Left alone, Prefect starts its ephemeral API (a uvicorn subprocess serving `prefect.server.api.server:create_app`)
inside the flow's first client call. Measured here, the command then waits for the server's own imports (~8 s)
and, on a new PREFECT_HOME, its database migrations (~4 s), after this process has imported the whole server
package (FastAPI, SQLAlchemy, docket: ~4 s) only to launch it. Launching the same server ourselves, before anything
heavy is imported, lets it boot on the second core while this process imports Prefect, opens the index and loads
the embedding model; the flow then runs with PREFECT_API_URL pointing at it, as `prefect_test_harness` does. A URL
the user configured (environment or Prefect profile) always wins: the early server is then stopped unused.
"""

from __future__ import annotations

import atexit
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

PORT_IN_USE_EXIT = 3  # uvicorn's start-up failure code (Prefect's own launcher retries on it too)
_SERVER_ENV = {"PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"}


class EphemeralAPIError(RuntimeError):
    """The server could not be started (it exited, or never answered in the start-up timeout)."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _configured_api_url() -> str | None:
    """The API URL Prefect would use, asked of Prefect only once it is loaded (importing it costs seconds)."""
    if "prefect.settings" in sys.modules:
        from prefect.settings import get_current_settings

        return get_current_settings().api.url
    return os.environ.get("PREFECT_API_URL") or None


class EphemeralAPI:
    """One ephemeral Prefect API server process: `launch()` it early, `serving()` around the flow."""

    def __init__(self) -> None:
        self.port = 0
        self.process: subprocess.Popen | None = None

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def launch(self) -> None:
        """Start the server process; it is stopped at interpreter exit, after Prefect's event and log workers have
        drained (they run in threading's shutdown, before `atexit`), as Prefect's own launcher does."""
        if self.process is None:
            atexit.register(self.stop)
        self.port = _free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--factory", "prefect.server.api.server:create_app",
             "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "error", "--lifespan", "on"],
            env={**os.environ, **_SERVER_ENV}, stdout=subprocess.DEVNULL)

    def wait_ready(self, timeout_s: float) -> None:
        """Block until /health answers; relaunch on a new port if the chosen one was taken meanwhile."""
        import httpx

        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=5) as client:
            while time.monotonic() < deadline:
                code = self.process.poll()
                if code == PORT_IN_USE_EXIT:
                    self.launch()
                elif code is not None:
                    raise EphemeralAPIError(f"Prefect's ephemeral API server exited with code {code} while starting")
                try:
                    if client.get(f"{self.api_url}/health").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
        raise EphemeralAPIError(f"Prefect's ephemeral API server did not answer within {timeout_s:.0f} s "
                           "(raise PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS on a loaded machine)")

    @contextmanager
    def serving(self) -> Iterator[None]:
        """Run the block against this server, unless the user configured an API (then stop it, unused)."""
        from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings

        settings = get_current_settings()
        if settings.api.url or not settings.server.ephemeral.enabled:
            self.stop()
            yield
            return
        self.wait_ready(settings.server.ephemeral.startup_timeout_seconds)
        with temporary_settings(updates={PREFECT_API_URL: self.api_url}):
            yield

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


def launch_early() -> EphemeralAPI | None:
    """Launch the server now unless an API URL is configured (then None). Call after
    `flows.environment.configure_prefect`, so the server gets gaceta's PREFECT_HOME and settings."""
    if _configured_api_url():
        return None
    api = EphemeralAPI()
    api.launch()
    return api
