"""The OpenAI-compatible chat endpoint (`POST …/chat/completions`) every model call but Anthropic's goes through: the
`tags` and `tools` answerers, the LLM support judge and attribution's LLM pass. One place for its URL, key, timeout
and retries."""

from __future__ import annotations

import time

import httpx

from retrieval.answers.base import AnswerError
from retrieval.settings import Settings

TIMEOUT_S = 120.0
RETRIES = 2
BACKOFF_S = 0.5
RETRY_STATUSES = {408, 409, 429, 500, 502, 503, 504, 529}


def openai_endpoint(settings: Settings) -> tuple[str, dict[str, str]]:
    """The chat completions URL of GACETA_OPENAI_BASE_URL (which must be set) and the headers carrying its key."""
    url = settings.openai_base_url.rstrip("/") + "/chat/completions"
    return url, {"Authorization": f"Bearer {settings.openai_api_key}"} if settings.openai_api_key else {}


def chat_completion(url: str, body: dict, headers: dict, backoff_s: float, who: str) -> dict:
    """POST `body` to an OpenAI-compatible chat endpoint; retries transport errors and RETRY_STATUSES."""
    last = ""
    for attempt in range(RETRIES + 1):
        if attempt:
            time.sleep(backoff_s * 2 ** (attempt - 1))
        try:
            resp = httpx.post(url, json=body, headers=headers, timeout=TIMEOUT_S)
        except httpx.HTTPError as exc:
            last = f"{type(exc).__name__}: {exc}"
            continue
        if resp.status_code in RETRY_STATUSES:
            last = f"HTTP {resp.status_code}: {resp.text[:200]}"
            continue
        if resp.status_code != 200:
            raise AnswerError(f"{who} endpoint {url} answered HTTP {resp.status_code}: {resp.text[:200]}")
        try:
            return resp.json()
        except ValueError as exc:
            raise AnswerError(f"{who} endpoint {url} returned invalid JSON") from exc
    raise AnswerError(f"{who} endpoint {url} failed after {RETRIES + 1} attempts ({last})")
