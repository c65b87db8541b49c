"""Contextual Retrieval blurbs through the stub Anthropic server (real `anthropic` SDK, 127.0.0.1 only): the
document block is prompt-cached, later chunks read that cache, a 429 is retried by the flow, the blurbs land in
the index (embedded and BM25-indexed, never in the citable text), and without a key the run says so."""

from __future__ import annotations

import re

import pytest

from tests.conftest import pdf
from tests.flows.conftest import gaceta_env, link_pdfs
from tests.stubs.anthropic_stub import AnthropicStub

FILE = "dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf"
MARK = "zqxcontexto"  # a token no real document contains


def blurb_for(request: dict) -> str:
    """The stub's reply: names the chunk's first words, so each blurb is traceable to its chunk."""
    chunk = re.search(r"<chunk>\n(.*)\n</chunk>", request["messages"][-1]["content"][1]["text"], re.S).group(1)
    return f"{MARK} situado: {' '.join(chunk.split()[:4])}"


def expected_blurb(chunk_text: str) -> str:
    return f"{MARK} situado: {' '.join(chunk_text.split()[:4])}"


@pytest.fixture(scope="module")
def contextual_run(tmp_path_factory):
    from flows.ingest_flow import run_ingest
    from flows.indexing import open_index
    from retrieval.settings import Settings

    folder = link_pdfs(tmp_path_factory.mktemp("ctx-inbox"), [FILE])
    home = tmp_path_factory.mktemp("ctx-home")
    with AnthropicStub(responder=blurb_for) as stub:
        stub.fail(429, times=1)
        with gaceta_env(home, GACETA_ANTHROPIC_API_KEY="test-key", GACETA_ANTHROPIC_BASE_URL=stub.base_url,
                        GACETA_ANTHROPIC_MODEL="claude-haiku-4-5"):
            summary, state = run_ingest([str(folder)], context=True)
            index = open_index(Settings())
            outcome = summary.files[0]
            chunks = [index.chunk(f"{doc_id}:{i:05d}") for doc_id in outcome.doc_ids for i in range(outcome.chunks)]
            chunks = [c for c in chunks if c is not None]
            hits = index.search(MARK, k=5, mode="bm25")
            requests_first = len(stub.requests)
            again, _ = run_ingest([str(folder)], context=True)
            requests_again = len(stub.requests) - requests_first
        return dict(summary=summary, state=state, chunks=chunks, hits=hits, stub=stub,
                    requests_first=requests_first, again=again, requests_again=requests_again)


def test_document_block_is_cached_and_chunk_follows(contextual_run):
    stub, chunks = contextual_run["stub"], contextual_run["chunks"]
    assert contextual_run["state"] == "Completed"
    assert len(chunks) == contextual_run["summary"].chunks > 1
    for request in stub.requests:
        doc_block, chunk_block = request["messages"][-1]["content"]
        assert doc_block["cache_control"] == {"type": "ephemeral"}
        assert doc_block["text"].startswith("<document>")
        assert "<chunk>" in chunk_block["text"] and "cache_control" not in chunk_block
    first_text = stub.requests[-1]["messages"][-1]["content"][0]["text"]
    assert chunks[0].text[:200] in first_text  # the whole document, verbatim


def test_429_is_retried_and_cache_reads_reported(contextual_run):
    summary = contextual_run["summary"]
    usage = summary.anthropic
    assert contextual_run["requests_first"] == summary.chunks + 1  # one 429, then every chunk once
    assert usage.api_calls == summary.chunks and usage.chunks == summary.chunks
    assert usage.cache_creation_input_tokens > 0  # the first chunk writes the document block
    assert usage.cache_read_input_tokens > usage.cache_creation_input_tokens  # later chunks read it
    assert usage.cost_usd is not None and usage.cost_usd > 0
    assert summary.context_mode.value == "on"


def test_blurbs_land_in_the_index_but_not_in_the_citable_text(contextual_run):
    chunks = contextual_run["chunks"]
    for chunk in chunks:
        assert chunk.context == expected_blurb(chunk.text)
        assert MARK not in chunk.text and MARK in chunk.embedding_text()
    hits = contextual_run["hits"]
    assert hits and all(MARK in (h.chunk.context or "") for h in hits)  # BM25 indexed the blurb


def test_rerun_is_cached_without_calls(contextual_run):
    again = contextual_run["again"]
    assert again.files_cached == 1 and contextual_run["requests_again"] == 0


def test_without_a_key_headers_only_and_said_so(tmp_path):
    from flows.ingest_flow import run_ingest

    folder = link_pdfs(tmp_path / "inbox", [FILE])
    with gaceta_env(tmp_path / "home", GACETA_CONTEXT="on", GACETA_ANTHROPIC_API_KEY=""):
        summary, state = run_ingest([str(folder)])
    assert state == "Completed" and summary.files_ok == 1
    assert summary.context_mode.value == "no_key"
    assert "GACETA_ANTHROPIC_API_KEY" in summary.context_note
    assert summary.anthropic.api_calls == 0


def test_contextualize_file_cache_and_long_document_window(tmp_path):
    """ingest.contextualize alone (no Prefect): a second pass is served from the file cache; a document over
    the window limit sends a window around the chunk, shared by neighbouring chunks."""
    from ingest.contextualize import anthropic_client, contextualize_chunks, document_block
    from ingest.models import Chunk, LegalDocument

    text = pdf(FILE).name + " " + " ".join(f"Artículo {i}. Texto del artículo número {i}." for i in range(400))
    doc = LegalDocument(doc_id="d1", title="t", source_path="x.pdf", source_sha256="0" * 64, pdf_pages=(1, 1),
                        label="L", markdown=text)

    def chunk_at(i: int, start: int, end: int) -> Chunk:
        return Chunk(chunk_id=f"d1:{i:05d}", doc_id="d1", index=i, header="# h", text=text[start:end], pages=[1],
                     start=start, end=end)

    chunks = [chunk_at(0, 0, 300), chunk_at(1, 300, 600)]
    with AnthropicStub(responder=blurb_for) as stub:
        client = anthropic_client("k", stub.base_url)
        out, usage = contextualize_chunks(doc, chunks, client, "claude-haiku-4-5", tmp_path / "cache")
        again, usage2 = contextualize_chunks(doc, chunks, client, "claude-haiku-4-5", tmp_path / "cache")
    assert [c.context for c in out] == [c.context for c in again] == [expected_blurb(c.text) for c in chunks]
    assert usage.api_calls == 2 and usage2.api_calls == 0 and usage2.from_cache == 2
    assert len(stub.requests) == 2

    far, near = chunk_at(2, 10_000, 10_200), chunk_at(3, 10_200, 10_400)
    window = document_block(doc, far, max_chars=4_000, window_chars=2_000)
    assert len(window) == 2_000 and far.text in window
    assert document_block(doc, near, max_chars=4_000, window_chars=2_000) == window
    assert document_block(doc, far) == text  # under the real limit: the whole document
