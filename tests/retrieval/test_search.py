"""The Index facade and `gaceta search` on a real PDF (the LFT articles 121-122 regulation) with the default model."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from retrieval.embedders import load_embedder
from retrieval.index import Index
from retrieval.models import SearchFilters, SearchMode
from retrieval.settings import Settings
from retrieval.store import ModelMismatchError
from tests.index_fixtures import build_index

PDF = "mx_reglamento_arts_121_122_LFT.pdf"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("gaceta-home")
    build_index(home, [PDF]).close()
    return home


@pytest.fixture
def index(home):
    with Index.open(Settings(home=home)) as index:
        yield index


def _article(hit) -> str:
    return " ".join(hit.chunk.heading_path)


@pytest.mark.parametrize("mode", list(SearchMode))
def test_article_question_finds_that_article(index, mode):
    hits = index.search("¿Qué establece el artículo 9o. sobre la información a los trabajadores?", k=5, mode=mode)
    assert any("ARTÍCULO 9o" in _article(h) for h in hits[:3]), [_article(h) for h in hits]
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_hits_carry_citable_chunks_and_their_document(index):
    (hit,) = index.search("objeciones de los trabajadores a la declaración anual", k=1)
    doc = index.document(hit.chunk.doc_id)
    assert doc is not None and doc.title == hit.document.title
    assert doc.markdown[hit.chunk.start : hit.chunk.end] == hit.chunk.text
    assert index.chunk(hit.chunk.chunk_id) == hit.chunk


def test_filters_restrict_hits(index):
    (doc_id,) = {h.chunk.doc_id for h in index.search("trabajadores", k=3)}
    assert index.search("trabajadores", filters=SearchFilters(doc_type=["NOM"])) == []
    assert index.search("trabajadores", filters=SearchFilters(doc_ids=["otro-000"])) == []
    assert index.search("trabajadores", k=3, filters=SearchFilters(doc_ids=[doc_id]))


def test_status_readd_and_delete(index):
    status = index.status()
    assert status.documents == 1 and status.chunks > 5 and status.pending == 0
    assert status.backend == "qdrant-edge" and status.model == index.embedder.model_id
    (doc_id,) = {h.chunk.doc_id for h in index.search("trabajadores", k=3)}
    doc = index.document(doc_id)
    chunks = index.chunk_document(doc)
    embedded = index.embed(chunks)
    index.upsert(doc, chunks, embedded)  # re-ingesting the same document is idempotent
    assert len(chunks) == status.chunks and index.status() == status
    assert index.delete_document(doc_id)
    assert not index.has_document(doc_id) and index.document(doc_id) is None
    assert index.search("trabajadores") == []
    index.upsert(doc, chunks, embedded)
    assert index.status() == status


def test_opening_with_another_model_is_a_clear_error(home):
    built_with = Settings(home=home).embedding_model
    other = "minilm" if built_with != "minilm" else "use-v3"
    with pytest.raises(ModelMismatchError, match=re.escape(load_embedder(built_with).model_id)):
        Index.open(Settings(home=home, embedding_model=other))


def test_cli_search_queries_file_writes_json_lines(home, tmp_path, monkeypatch):
    from gaceta.cli import app

    queries = tmp_path / "queries.txt"
    queries.write_text("artículo 9o. información a los trabajadores\n\nSecretaría de Hacienda y Crédito Público\n")
    monkeypatch.setenv("GACETA_HOME", str(home))
    result = CliRunner().invoke(app, ["search", "--queries", str(queries), "--json", "-k", "3"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["query"] for line in lines] == ["artículo 9o. información a los trabajadores",
                                                  "Secretaría de Hacienda y Crédito Público"]
    for line in lines:  # the API's SearchResponse, line by line
        assert len(line["hits"]) == 3 and line["k"] == 3 and line["mode"] == "hybrid"
        hit = line["hits"][0]
        assert {"chunk", "document", "score", "rank", "label"} <= set(hit)
        assert {"doc_id", "chunk_id", "header", "heading_path", "text", "pages"} <= set(hit["chunk"])
        assert hit["document"]["title"]


def test_cli_search_in_a_pipe_prints_whole_lines_without_markdown(home, monkeypatch):
    from gaceta.cli import app

    monkeypatch.setenv("GACETA_HOME", str(home))
    query = "artículo 9o. información a los trabajadores"
    result = CliRunner().invoke(app, ["search", query, "-k", "3"])  # CliRunner's stdout is a pipe, not a terminal
    assert result.exit_code == 0, result.output
    hits = json.loads(CliRunner().invoke(app, ["search", query, "--json", "-k", "3"]).stdout)["hits"]
    lines = result.stdout.splitlines()
    for hit in hits:  # each hit's label whole on its numbered line, its text without "#" heading marks
        assert any(line.startswith(f"{hit['rank']}. {hit['label']} (score ") for line in lines), lines
    texts = [line for line in lines if line.startswith("   ") and "›" not in line]
    assert len(texts) == 3 and not any("#" in t for t in texts)
    assert any("#" in hit["chunk"]["text"] for hit in hits)  # the chunks do carry Markdown headings
    assert not any(c in result.stdout for c in "┃│━─")  # no table drawn in a pipe


def test_cli_search_errors_are_one_line(home, tmp_path, monkeypatch):
    from gaceta.cli import app

    monkeypatch.setenv("GACETA_HOME", str(home))
    bad = CliRunner().invoke(app, ["search", "trabajadores", "--filter", "color=azul"])
    assert bad.exit_code == 1 and "bad filter" in bad.output and "Traceback" not in bad.output
    monkeypatch.setenv("GACETA_HOME", str(tmp_path / "empty"))
    missing = CliRunner().invoke(app, ["search", "trabajadores"])
    assert missing.exit_code == 1 and "gaceta ingest" in missing.output


QUESTIONS = [
    "¿Qué establece el artículo 9o. sobre la información a los trabajadores?",
    "objeciones de los trabajadores a la declaración anual",
    "plazo para el reparto de utilidades",
    "objeciones de los trabajadores a la declaración anual",  # the same text twice in one batch
    "de la que el",  # stopwords only
]


def test_concurrent_searches_while_batching_get_what_a_lone_search_gets(index):
    from concurrent.futures import ThreadPoolExecutor

    modes = [SearchMode.hybrid, SearchMode.hybrid, SearchMode.dense, SearchMode.bm25, SearchMode.bm25]
    alone = [[h.chunk.chunk_id for h in index.search(q, k=4, mode=m)] for q, m in zip(QUESTIONS, modes)]
    with index.batching_searches(), ThreadPoolExecutor(len(QUESTIONS)) as pool:
        futures = [pool.submit(index.search, q, 4, m) for q, m in zip(QUESTIONS, modes) for _ in range(4)]
        batched = [[h.chunk.chunk_id for h in f.result(timeout=60)] for f in futures]
    assert batched == [ids for ids in alone for _ in range(4)]
    assert alone[0] and alone[-1] == []
    with pytest.raises(ValueError, match="k must be at least 1"):
        index.search(QUESTIONS[0], k=0)


@pytest.mark.parametrize("command", [["status"], ["search", "trabajadores"], ["mcp", "--help"]])
def test_a_bad_setting_is_one_line_not_a_traceback(tmp_path, command):
    """An environment value the settings refuse (below a bound, not a number) is named in one line, exit 2."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "GACETA_HOME": str(tmp_path), "GACETA_MAX_HIT_CHARS": "120", "GACETA_CHUNK_CACHE": "many"}
    proc = subprocess.run([sys.executable, "-c", "from gaceta.cli import main; main()", *command], env=env,
                          capture_output=True, text=True, timeout=300)
    if command[-1] == "--help":  # help reads no settings: it still works
        assert proc.returncode == 0, proc.stderr
        return
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert any(line.startswith("error: invalid setting GACETA_MAX_HIT_CHARS='120': ") and "200" in line
               for line in lines), lines
    assert any("GACETA_CHUNK_CACHE='many'" in line for line in lines), lines
