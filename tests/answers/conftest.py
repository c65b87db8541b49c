"""Shared fixtures for the answer tests: the default embedder (loaded once) and settings pointing at stubs."""

from __future__ import annotations

import pytest

from retrieval.embedders import load_embedder
from retrieval.settings import Settings


@pytest.fixture(scope="session")
def embedder():
    return load_embedder("minilm")


@pytest.fixture
def settings(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return Settings(home=tmp_path, _env_file=None)
