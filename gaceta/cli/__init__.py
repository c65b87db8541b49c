"""`gaceta` command line. Each command group lives in its own module and imports its heavy layers lazily,
so `gaceta search` never pays for Prefect and `gaceta --help` is instant."""

from __future__ import annotations

import typer

from gaceta.cli import (ask_cmd, attribute_cmd, delete_cmd, doctor_cmd, documents_cmd, eval_cmd, ingest_cmd, parse_cmd,
                        search_cmd, serve_cmd, status_cmd)

app = typer.Typer(
    name="gaceta",
    help="Official gazettes and legal PDFs into cited answers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (parse_cmd, ingest_cmd, search_cmd, ask_cmd, attribute_cmd, serve_cmd, eval_cmd, status_cmd, documents_cmd,
               delete_cmd, doctor_cmd):
    module.register(app)


def main() -> None:
    app()
