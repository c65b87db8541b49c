"""Offline hygiene for Prefect, applied by gaceta itself before Prefect is first imported.

Prefect reads its settings from the environment when it is imported, so these must be in place first:
state under the data dir (not ~/.prefect), no analytics, and a start-up timeout that survives a loaded
2-core machine (the default 20 s failed under load). A value the user already set always wins.
"""

from __future__ import annotations

import os
from pathlib import Path

EPHEMERAL_STARTUP_TIMEOUT_S = 180


def configure_prefect(home: Path | None = None) -> dict[str, str]:
    """Set Prefect's environment defaults (never overriding the user's); returns what is in effect."""
    if home is None:
        from retrieval.settings import Settings

        home = Settings().home
    defaults = {
        "PREFECT_HOME": str((Path(home) / "prefect").resolve()),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": str(EPHEMERAL_STARTUP_TIMEOUT_S),
    }
    for name, value in defaults.items():
        os.environ.setdefault(name, value)
    Path(os.environ["PREFECT_HOME"]).expanduser().mkdir(parents=True, exist_ok=True)  # Prefect makes one level only
    return {name: os.environ[name] for name in defaults}
