"""The ingest flow on a folder of real PDFs, broken ones included: good files indexed, bad ones reported with
their reasons, a second run (as plain functions, no Prefect API) entirely cached by what the index holds, a lost
document re-indexed, a hopeless batch a Failed run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.flows.conftest import gaceta_env, link_pdfs

GOOD = ["dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf", "mx_reglamento_arts_121_122_LFT.pdf"]
BAD = {  # file → the parse status it must be reported with
    "malformed_encrypted_password_test.pdf": "encrypted",
    "malformed_not_a_pdf_json_named_dof.pdf": "not_pdf",
    "us_sdny_filing_unmapped_font_encoding.pdf": "garbled",
}


@pytest.fixture(scope="module")
def inbox(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("inbox")
    link_pdfs(root, [GOOD[0], *BAD])
    link_pdfs(root / "nested" / "deeper", [GOOD[1]])
    (root / "nested" / "notes.txt").write_text("not a PDF")
    return root


@pytest.fixture(scope="module")
def runs(inbox, tmp_path_factory):
    """Two runs on the same folder and home, the first a Prefect flow run, the second the flow's plain functions;
    the index's status after each."""
    from flows.ingest_flow import run_ingest
    from flows.indexing import open_index
    from retrieval.settings import Settings

    home = tmp_path_factory.mktemp("home")
    with gaceta_env(home):
        first, first_state = run_ingest([str(inbox)])
        after_first = open_index(Settings()).status()
        second, second_state = run_ingest([str(inbox)], with_prefect=False)
        after_second = open_index(Settings()).status()
    return dict(home=home, first=first, first_state=first_state, after_first=after_first, second=second,
                second_state=second_state, after_second=after_second)


def _by_name(summary):
    return {Path(f.path).name: f for f in summary.files}


def test_good_files_are_indexed_and_searchable(runs):
    first = runs["first"]
    assert runs["first_state"] == "Completed"
    files = _by_name(first)
    for name in GOOD:
        outcome = files[name]
        assert outcome.status.value == "ok", outcome.reason
        assert outcome.documents >= 1 and outcome.chunks >= 1 and outcome.pages >= 1
        assert set(outcome.stages) >= {"parse", "chunk", "embed", "upsert"}
    assert first.files_ok == 2
    assert first.documents == runs["after_first"].documents == sum(files[n].documents for n in GOOD)
    assert first.chunks == runs["after_first"].chunks
    assert runs["after_first"].pending == 0


def test_bad_files_are_reported_with_reasons(runs):
    files = _by_name(runs["first"])
    for name, status in BAD.items():
        outcome = files[name]
        assert outcome.status.value == "failed"
        assert outcome.parse_status == status
        assert outcome.reason  # a specific sentence, not just a flag
    assert files["notes.txt"].status.value == "skipped"
    assert "not a PDF" in files["notes.txt"].reason
    assert runs["first"].files_failed == len(BAD) and runs["first"].files_skipped == 1


def test_second_run_processes_nothing(runs):
    second = runs["second"]
    assert runs["second_state"] == "Completed"
    assert second.files_ok == 0 and second.files_cached == len(GOOD)
    assert second.files_failed == len(BAD)  # re-parsed (milliseconds): only the index says what is done
    cached = [f for f in second.files if f.status.value == "cached"]
    assert all(f.from_cache and f.doc_ids for f in cached)
    assert {tuple(f.doc_ids) for f in cached} == {tuple(f.doc_ids) for f in runs["first"].files if f.doc_ids}
    assert second.chunks == 0 and second.stages["embed"] == second.stages["upsert"] == 0
    assert second.flow_run_id is None and second.flow_run_name.startswith("local-")
    assert runs["after_second"] == runs["after_first"]
    assert not (runs["home"] / "flows" / "results").exists()  # Prefect keeps no result files


def test_lost_document_is_reindexed(runs):
    """A file counts as indexed only while the index holds every one of its documents."""
    from flows.ingest_flow import run_ingest
    from flows.indexing import open_index
    from retrieval.settings import Settings

    target = _by_name(runs["first"])[GOOD[0]]
    with gaceta_env(runs["home"]):
        open_index(Settings()).delete_document(target.doc_ids[0])
        summary, state = run_ingest([target.path])
        index = open_index(Settings())
        assert all(index.has_document(d) for d in target.doc_ids)
        assert index.status() == runs["after_first"]
    assert state == "Completed"
    assert summary.files[0].status.value == "ok" and not summary.files[0].from_cache


def test_status_lists_index_and_runs(runs):
    from gaceta.cli import app

    with gaceta_env(runs["home"]):
        result = CliRunner().invoke(app, ["status", "--json"])
    assert result.exit_code == 0, result.output
    status = json.loads(result.stdout)
    assert status["index"]["documents"] == runs["after_first"].documents
    assert status["index"]["chunks"] == runs["after_first"].chunks
    names = [r["run"] for r in status["runs"]]
    assert runs["first"].flow_run_name in names and runs["second"].flow_run_name in names


def test_nothing_indexable_is_a_failed_run(tmp_path):
    from gaceta.cli import app

    bad = link_pdfs(tmp_path / "bad", list(BAD)[:2])
    with gaceta_env(tmp_path / "home"):
        result = CliRunner().invoke(app, ["ingest", str(bad), "--json"])
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    assert summary["files_failed"] == 2 and summary["files_ok"] == 0
    assert {f["parse_status"] for f in summary["files"]} == {"encrypted", "not_pdf"}


def test_missing_path_is_one_clear_error(tmp_path):
    from gaceta.cli import app

    result = CliRunner().invoke(app, ["ingest", str(tmp_path / "nope")])
    assert result.exit_code == 1
    assert "no such file or folder" in result.output and "Traceback" not in result.output


def test_indexed_documents_follow_the_index_and_the_blurb_recipe(runs):
    from flows.indexing import indexed_documents
    from flows.models import ContextMode
    from flows.indexing import open_index
    from retrieval.settings import Settings

    target = _by_name(runs["first"])[GOOD[1]]
    with gaceta_env(runs["home"]):
        index = open_index(Settings())
        assert indexed_documents(index, target.sha256, ContextMode.off) == sorted(target.doc_ids)
        assert indexed_documents(index, target.sha256, ContextMode.no_key) == sorted(target.doc_ids)
        assert indexed_documents(index, target.sha256, ContextMode.on) is None  # blurbs wanted, none stored
        assert indexed_documents(index, "f" * 64, ContextMode.off) is None


def test_a_new_ingest_version_reindexes_the_file(runs, monkeypatch):
    """What a file becomes is decided by `ingest.INGEST_VERSION`: a parser change bumps it, and the index, which
    records each document's version, then says the file must be indexed again."""
    import ingest
    from flows.indexing import indexed_documents
    from flows.models import ContextMode
    from flows.indexing import open_index
    from retrieval.settings import Settings

    target = _by_name(runs["first"])[GOOD[1]]
    with gaceta_env(runs["home"]):
        index = open_index(Settings())
        assert index.chunk_document_info(f"{target.doc_ids[0]}:00000").ingest_version == ingest.INGEST_VERSION
        monkeypatch.setattr(ingest, "INGEST_VERSION", ingest.INGEST_VERSION + "-next")
        assert indexed_documents(index, target.sha256, ContextMode.off) is None


def test_inbox_is_the_default_path(tmp_path):
    """`paths` None (the `inbox` deployment's default) means $GACETA_HOME/inbox, created when missing."""
    from flows.ingest_flow import run_ingest

    home = tmp_path / "home"
    with gaceta_env(home):
        summary, state = run_ingest(None, with_prefect=False)
        assert state == "Completed" and summary.files == [] and (home / "inbox").is_dir()
        link_pdfs(home / "inbox", [GOOD[1]])
        summary, state = run_ingest(None, with_prefect=False)
    assert state == "Completed" and summary.files_ok == 1
    assert Path(summary.files[0].path).parent == home / "inbox"
