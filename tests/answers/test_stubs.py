"""The Anthropic stub speaks the Messages API well enough for the real SDK, including prompt-cache usage."""

from __future__ import annotations

import anthropic

from tests.stubs.anthropic_stub import AnthropicStub


def test_cache_control_blocks_are_created_then_read():
    document = {"type": "text", "text": "Documento largo. " * 200, "cache_control": {"type": "ephemeral"}}
    with AnthropicStub(lambda req: "Contexto breve.") as stub:
        client = anthropic.Anthropic(api_key="sk-test", base_url=stub.base_url, max_retries=0)
        usages = [
            client.messages.create(model="m", max_tokens=50,
                                   messages=[{"role": "user", "content": [document, {"type": "text", "text": q}]}]).usage
            for q in ("fragmento uno", "fragmento dos")
        ]
    first, second = usages
    assert first.cache_creation_input_tokens > 0 and first.cache_read_input_tokens == 0
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens and second.cache_creation_input_tokens == 0
    assert len(stub.requests) == 2 and stub.requests[1]["messages"][0]["content"][1]["text"] == "fragmento dos"


def test_bearer_token_is_accepted():
    with AnthropicStub(lambda req: "hola") as stub:
        client = anthropic.Anthropic(auth_token="tok", base_url=stub.base_url, max_retries=0)
        message = client.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}])
    assert message.content[0].text == "hola"
    assert stub.headers[0].get("Authorization") == "Bearer tok" or stub.headers[0].get("authorization") == "Bearer tok"
