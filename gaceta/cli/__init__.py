"""`gaceta` command line. Each command group lives in its own module and imports its heavy layers lazily,
so `gaceta search` never pays for Prefect and `gaceta --help` is instant."""

from __future__ import annotations

import typer

from gaceta.cli import (ask_cmd, attribute_cmd, delete_cmd, doctor_cmd, documents_cmd, eval_cmd, ingest_cmd, laws_cmd,
                        mcp_cmd, parse_cmd, search_cmd, serve_cmd, status_cmd)

app = typer.Typer(
    name="gaceta",
    help="Official gazettes and legal PDFs into cited answers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (parse_cmd, ingest_cmd, search_cmd, ask_cmd, attribute_cmd, serve_cmd, eval_cmd, status_cmd, documents_cmd,
               delete_cmd, doctor_cmd, mcp_cmd, laws_cmd):
    module.register(app)


def main() -> None:
    try:
        app()
    except Exception as exc:
        # The store's expected failures (damage met after the index opened, a Qdrant server gone mid-command) are one
        # line naming the repair, whichever command met them; anything else is a bug and keeps its traceback.
        import sys

        store = sys.modules.get("retrieval.store")  # loaded by then if the store raised: `--help` never pays for it
        if store is not None and isinstance(exc, store.StoreError):
            from gaceta.cli.common import say_error

            say_error(str(exc))
            sys.exit(1)
        if _bad_settings(exc):  # a GACETA_* variable (or .env line) the settings refuse: one line a variable
            from gaceta.cli.common import say_error

            for err in exc.errors():
                name = "GACETA_" + "_".join(str(part) for part in err["loc"]).upper()
                say_error(f"invalid setting {name}={err.get('input')!r}: {err['msg']}")
            sys.exit(2)
        raise


def _bad_settings(exc: Exception) -> bool:
    from pydantic import ValidationError

    return isinstance(exc, ValidationError) and exc.title == "Settings"
