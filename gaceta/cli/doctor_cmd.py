"""`gaceta doctor`: check the index's records against its points and repair what the kept originals allow (issue 16, in progress)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    pass
