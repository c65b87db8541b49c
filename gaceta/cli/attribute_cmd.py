"""`gaceta attribute FILE|-`: check a text (an answer, a memo) against the official text (issue 17, in progress)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    pass
