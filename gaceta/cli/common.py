"""What every command shares: the console, settings, JSON output and the expected-failure exit path."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import typer
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError
from rich.console import Console

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def settings():
    """Load settings lazily (pydantic-settings reads GACETA_* from the environment)."""
    from retrieval.settings import Settings

    return Settings()


WAIT_S = 300.0  # how long a command waits for an embedded index another command holds (`--wait`)


def open_index(config, wait_s: float = WAIT_S):
    """The existing index for a query command, or one clear line saying why there is none. An embedded index that
    another command holds (an ingest, another search) is waited for, up to `wait_s` seconds, with one line saying
    who holds it (`with_index_turn`)."""
    from retrieval.embedders import EmbedderError
    from retrieval.index import Index
    from retrieval.store import StoreError, index_exists

    if not index_exists(config):
        fail(f"no index at {config.index_dir}: run `gaceta ingest PATH` first (or set GACETA_HOME)")
    try:
        index = with_index_turn(config, lambda: Index.open(config), wait_s)
    except (StoreError, EmbedderError) as exc:
        fail(str(exc))
    if config.rerank_model:  # a configured cross-encoder that cannot load is said now, in one line
        from retrieval.cross_encoder import CrossEncoderError, load_cross_encoder

        try:
            load_cross_encoder(config.rerank_model)
        except CrossEncoderError as exc:
            index.close()
            fail(str(exc))
    return index


def with_index_turn(config, opener: Callable[[], Any], wait_s: float = WAIT_S) -> Any:
    """`opener()`, waiting its turn while another process holds the embedded index: qdrant-edge admits one process
    and has no read-only opener (`retrieval/store/lock.py`), so a second command waits until the first is done —
    one line on stderr says who it waits for — and gives up after `wait_s` seconds: `IndexInUseError` naming the
    holder, which the caller reports (`fail`, or a JSON summary first with `--json`)."""
    import time

    from retrieval.store.base import IndexInUseError
    from retrieval.store.lock import IndexLock

    deadline = time.monotonic() + max(0.0, wait_s)
    said = False
    while True:
        try:
            return opener()
        except IndexInUseError as exc:
            lock = IndexLock(config.index_dir)
            left = deadline - time.monotonic()
            if left <= 0:
                waited = f" (waited {wait_s:.0f} s)" if said else ""
                raise IndexInUseError(f"{exc}{waited}") from None
            if not said:
                from rich.markup import escape

                err_console.print(f"[yellow]waiting:[/] the index is in use by {escape(lock.holder())}; this "
                                  f"command goes on when it is free (at most {wait_s:.0f} s; `--wait SECONDS` "
                                  f"changes that; `gaceta serve` lets commands share the index)", soft_wrap=True)
                said = True
            lock.wait_until_free(left)


NO_OWNER = object()


def via_owner(config, call: Callable[[Any], Any]) -> Any:
    """`call(client)` through the process that owns this data dir's embedded index (`gaceta serve`), or NO_OWNER
    when there is none (or nothing answers at its address): then the command opens the index itself."""
    from gaceta.client import OwnerClient, OwnerError, OwnerUnreachable, find_owner

    owner = find_owner(config)
    if owner is None:
        return NO_OWNER
    with OwnerClient(owner, config.api_key) as client:
        try:
            return call(client)
        except OwnerUnreachable:
            return NO_OWNER
        except OwnerError as exc:
            fail(str(exc))


def fail(message: str, code: int = 1) -> NoReturn:
    """An expected failure: one clear line on stderr, no traceback."""
    say_error(message)
    raise typer.Exit(code)


def say_error(message: str) -> None:
    """One error line on stderr, never wrapped (even when stderr is a pipe); the message's own brackets, "[Errno 2]",
    are text, not markup."""
    from rich.markup import escape

    err_console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)


def print_json(payload: Any) -> None:
    """Machine-readable output on stdout (pydantic models, lists of them, or plain data), always valid UTF-8 JSON:
    text that is not (a file name's undecodable bytes) is written with `\\xNN` escapes (`flows.models.safe_text`)."""
    if hasattr(payload, "to_json") and isinstance(payload, BaseModel):  # writes itself whatever it holds
        text = payload.to_json()
    elif isinstance(payload, BaseModel):
        try:
            text = payload.model_dump_json(indent=2)
        except PydanticSerializationError:
            text = _dumps(payload.model_dump(mode="json"))
    else:
        if isinstance(payload, list) and payload and isinstance(payload[0], BaseModel):
            payload = [p.model_dump(mode="json") for p in payload]
        text = _dumps(payload)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _dumps(data: Any) -> str:
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: a file name that is not UTF-8
        from flows.models import valid_utf8

        text = json.dumps(valid_utf8(data), indent=2, ensure_ascii=False, default=str)
    return text


def shown(text: str) -> str:
    """A file name or reason for one line of the terminal: printable (`flows.models.printable`) and with Rich markup
    escaped (a file named "[red]x.pdf" or "[/]" is shown as such, never interpreted)."""
    from rich.markup import escape

    from flows.models import printable

    return escape(printable(text))
