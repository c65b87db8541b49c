"""`gaceta parse` (placeholder until its owner writes it)."""

import typer


def register(app: typer.Typer) -> None:
    """Add this module's command(s) to the app."""
