"""Contextual Retrieval blurbs: a short LLM-written note situating each chunk in its document.

Anthropic's recipe: the whole document goes in a prompt-cached block (`cache_control: ephemeral`), then the
chunk, and the model answers with one or two sentences of context. The blurb is stored on `Chunk.context`, so it
is embedded and BM25-indexed with the chunk but never cited. This is the only network call in `ingest`, and it
lives behind `contextualize_chunks`; concurrency limits belong to the caller (`guard`), retries and backoff to the
SDK client the caller builds (`anthropic_client(max_retries=...)`).

Blurbs are cached on disk per (chunk hash, document-block hash, prompt version, model): a re-run, or a retry
after a rate limit, pays only for the chunks it has not seen.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Callable

from pydantic import BaseModel

from ingest.models import Chunk, LegalDocument

PROMPT_VERSION = "cr-es-1"
# Claude's window is 200k tokens; Spanish legal text runs ~3.5 characters a token. Past this many characters the
# document block becomes a window of surrounding text instead of the whole document.
MAX_DOCUMENT_CHARS = 400_000
WINDOW_CHARS = 120_000
MAX_BLURB_TOKENS = 200

DOCUMENT_PROMPT = "<document>\n{document}\n</document>"
CHUNK_PROMPT = (
    "Here is the chunk we want to situate within the whole document\n<chunk>\n{chunk}\n</chunk>\n"
    "Please give a short succinct context to situate this chunk within the overall document for the purposes "
    "of improving search retrieval of the chunk. Write it in the document's language. "
    "Answer only with the succinct context and nothing else."
)

# USD per million tokens: (input, cache write 5 min, cache read, output). Matched by model-name prefix.
PRICES_PER_MTOK: dict[str, tuple[float, float, float, float]] = {
    "claude-opus-4-5": (5.0, 6.25, 0.50, 25.0),
    "claude-opus-4": (15.0, 18.75, 1.50, 75.0),
    "claude-sonnet-4": (3.0, 3.75, 0.30, 15.0),
    "claude-3-7-sonnet": (3.0, 3.75, 0.30, 15.0),
    "claude-haiku-4-5": (1.0, 1.25, 0.10, 5.0),
    "claude-3-5-haiku": (0.80, 1.0, 0.08, 4.0),
}


class BlurbUsage(BaseModel):
    """What contextualizing cost: calls, tokens (prompt-cache writes and reads apart) and dollars."""

    chunks: int = 0  # chunks that got a blurb
    from_cache: int = 0  # blurbs read from the local file cache (no API call)
    api_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cost_usd: float | None = 0.0  # None when the model's price is unknown

    def add(self, other: BlurbUsage) -> BlurbUsage:
        for name in ("chunks", "from_cache", "api_calls", "input_tokens", "output_tokens",
                     "cache_creation_input_tokens", "cache_read_input_tokens"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cost_usd = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        return self


def model_prices(model: str) -> tuple[float, float, float, float] | None:
    for prefix, prices in sorted(PRICES_PER_MTOK.items(), key=lambda kv: -len(kv[0])):
        if model.startswith(prefix):
            return prices
    return None


def anthropic_client(api_key: str, base_url: str | None = None, timeout_s: float = 60.0, max_retries: int = 0):
    """An SDK client; `max_retries`: the SDK's own retries (exponential backoff, honouring `retry-after`) of rate
    limits, overload, server and connection errors; never of a bad request or a bad key."""
    import anthropic

    return anthropic.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=max_retries)


def document_block(doc: LegalDocument, chunk: Chunk, max_chars: int = MAX_DOCUMENT_CHARS,
                   window_chars: int = WINDOW_CHARS) -> str:
    """The document text shown with `chunk`: all of it, or for a long document the fixed window (stride half a
    window) whose centre is nearest the chunk, so neighbouring chunks share a block and its prompt cache."""
    text = doc.markdown
    if len(text) <= max_chars:
        return text
    stride = window_chars // 2
    centre = (chunk.start + chunk.end) // 2
    k = max(0, round((centre - window_chars / 2) / stride))
    start = min(k * stride, max(0, len(text) - window_chars))
    return text[start : start + window_chars]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(chunk_text: str, document_text: str, model: str) -> str:
    return _sha("\0".join((PROMPT_VERSION, model, _sha(document_text), _sha(chunk_text))))


def _cache_path(cache_dir: Path, key: str) -> Path:
    return cache_dir / key[:2] / f"{key}.json"


def _read_cache(path: Path) -> str | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))["context"]
    except FileNotFoundError:
        return None
    except (ValueError, KeyError):
        return None  # a torn write from a killed run: ask again


def _write_cache(path: Path, context: str, model: str) -> None:
    """Atomic write (temp file + rename), so a killed process never leaves a half-written entry."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps({"context": context, "model": model, "prompt_version": PROMPT_VERSION}, ensure_ascii=False)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(payload)
    os.replace(tmp, path)


def _usage_of(response, model: str) -> BlurbUsage:
    u = response.usage
    usage = BlurbUsage(
        api_calls=1,
        input_tokens=u.input_tokens or 0,
        output_tokens=u.output_tokens or 0,
        cache_creation_input_tokens=getattr(u, "cache_creation_input_tokens", None) or 0,
        cache_read_input_tokens=getattr(u, "cache_read_input_tokens", None) or 0,
    )
    prices = model_prices(model)
    if prices is None:
        usage.cost_usd = None
    else:
        p_in, p_write, p_read, p_out = prices
        usage.cost_usd = (usage.input_tokens * p_in + usage.cache_creation_input_tokens * p_write
                          + usage.cache_read_input_tokens * p_read + usage.output_tokens * p_out) / 1e6
    return usage


def situate(client, model: str, document_text: str, chunk_text: str, max_tokens: int = MAX_BLURB_TOKENS):
    """One Messages API call: cached document block, then the chunk. Returns (blurb, usage)."""
    response = client.messages.create(
        model=model,
        max_tokens=max_tokens,
        messages=[{
            "role": "user",
            "content": [
                {"type": "text", "text": DOCUMENT_PROMPT.format(document=document_text),
                 "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": CHUNK_PROMPT.format(chunk=chunk_text)},
            ],
        }],
    )
    blurb = " ".join(b.text for b in response.content if getattr(b, "type", "") == "text").strip()
    return blurb, _usage_of(response, model)


def contextualize_chunks(
    doc: LegalDocument,
    chunks: list[Chunk],
    client,
    model: str,
    cache_dir: Path,
    *,
    guard: Callable[[], AbstractContextManager] = nullcontext,
    usage: BlurbUsage | None = None,
) -> tuple[list[Chunk], BlurbUsage]:
    """Return copies of `chunks` with `context` set, and the usage. `guard()` wraps every API call (the flow
    passes a concurrency-limit slot). `usage` is updated as calls succeed, so a caller that retries after an
    error still accounts for the calls already paid for; their blurbs are already in the file cache."""
    usage = usage if usage is not None else BlurbUsage()
    out: list[Chunk] = []
    for chunk in chunks:
        document_text = document_block(doc, chunk)
        path = _cache_path(Path(cache_dir), cache_key(chunk.text, document_text, model))
        blurb = _read_cache(path)
        if blurb is not None:
            usage.from_cache += 1
        else:
            with guard():
                blurb, call_usage = situate(client, model, document_text, chunk.text)
            usage.add(call_usage)
            _write_cache(path, blurb, model)
        if blurb:
            usage.chunks += 1
        out.append(chunk.model_copy(update={"context": blurb or None}))
    return out, usage
