"""Evaluation: the loaders on the real public sets, the metrics on hand-checked rankings, and a small end-to-end run."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from retrieval.evaluation.corpus import build_corpus, split_spans
from retrieval.evaluation.datasets import DatasetFormatError, load_dataset
from retrieval.evaluation.metrics import dedupe, reciprocal_rank, recall_at_k, score_rankings

# --- metrics on rankings small enough to check by hand ---------------------------------------------------------


def test_reciprocal_rank_is_one_over_first_relevant_rank():
    assert reciprocal_rank(["a", "b", "c"], [["c"]]) == pytest.approx(1 / 3)
    assert reciprocal_rank(["a", "b", "c"], [["z"], ["b", "c"]]) == pytest.approx(1 / 2)
    assert reciprocal_rank(["a", "b"], [["z"]]) == 0.0


def test_recall_counts_each_gold_group_once():
    ranked = ["a", "b", "x", "d", "e", "f"]
    # two gold groups; the first has two interchangeable members (identical chunks), both retrieved
    gold = [["b", "x"], ["f"]]
    assert recall_at_k(ranked, gold, 1) == 0.0
    assert recall_at_k(ranked, gold, 2) == 0.5
    assert recall_at_k(ranked, gold, 5) == 0.5
    assert recall_at_k(ranked, gold, 6) == 1.0


def test_score_rankings_averages_queries_and_scales_pass_at_k_like_the_cookbook():
    rankings = [["a", "b", "c"], ["q", "r"]]
    golds = [[["c"]], [["r"], ["missing"]]]
    metrics = score_rankings(rankings, golds)
    assert metrics["MRR"] == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert metrics["R@1"] == 0.0
    assert metrics["R@5"] == pytest.approx((1.0 + 0.5) / 2)
    assert metrics["Pass@5"] == pytest.approx(75.0)  # per-query recall x100, not a binary hit (that would be 100)
    assert metrics["Pass@20"] == metrics["R@20"] * 100


def test_score_rankings_rejects_mismatched_or_empty_input():
    with pytest.raises(ValueError):
        score_rankings([["a"]], [])
    with pytest.raises(ValueError):
        recall_at_k(["a"], [], 5)


def test_dedupe_keeps_first_occurrence_order():
    assert dedupe(["p2", "p1", "p2", "p3", "p1"]) == ["p2", "p1", "p3"]


# --- loaders on the real datasets -------------------------------------------------------------------------------


def test_anthropic_loader_matches_the_published_counts(eval_dir):
    data = load_dataset(eval_dir / "anthropic_contextual_retrieval")
    assert data.format == "anthropic_contextual_retrieval"
    assert (len(data.passages), len(data.queries)) == (737, 248)
    # README: golden chunks per query 1 -> 220, 2 -> 14, 3 -> 5, 4 -> 6, 6 -> 2, 7 -> 1
    assert Counter(len(q.gold) for q in data.queries) == {1: 220, 2: 14, 3: 5, 4: 6, 6: 2, 7: 1}
    first = data.queries[0]
    assert first.text == "What is the purpose of the DiffExecutor struct?"
    assert first.gold == [["doc_1_chunk_0"]]
    assert data.published[0].metrics["Pass@10"] == 87.15


def test_anthropic_gold_groups_hold_every_chunk_with_the_golden_content(eval_dir):
    """The cookbook matches golden chunks by stripped content, so byte-identical chunks are interchangeable."""
    folder = eval_dir / "anthropic_contextual_retrieval"
    data = load_dataset(folder)
    text = {p.pid: p.text.strip() for p in data.passages}
    line = json.loads((folder / "evaluation_set.jsonl").read_text().splitlines()[99])
    golden = {c["content"].strip() for d in line["golden_documents"] for c in d["chunks"]}
    for group in data.queries[99].gold:
        assert {text[pid] for pid in group} <= golden
    assert max(len(g) for g in data.queries[99].gold) == 3  # one golden chunk exists in three files


def test_xquad_loader_gives_one_gold_paragraph_holding_the_answer(eval_dir):
    folder = eval_dir / "xquad_es"
    data = load_dataset(folder)
    assert data.format == "squad" and data.language == "es"
    assert (len(data.passages), len(data.queries)) == (240, 1190)
    raw = json.loads((folder / "xquad.es.json").read_text())
    answers = {qa["id"]: qa["answers"][0]["text"] for a in raw["data"] for p in a["paragraphs"] for qa in p["qas"]}
    text = {p.pid: p.text for p in data.passages}
    for query in data.queries:
        assert len(query.gold) == 1 and len(query.gold[0]) == 1
        assert answers[query.qid] in text[query.gold[0][0]]


def test_obliqa_loader_maps_gold_by_document_and_passage_id(eval_dir):
    data = load_dataset(eval_dir / "obliqa_regulatory_en")
    assert data.format == "obliqa"
    assert len(data.queries) == 2786
    # README: gold passages per test question 1:2126 2:506 3:105 4:36 5:9 6:4
    assert Counter(len(q.gold) for q in data.queries) == {1: 2126, 2: 506, 3: 105, 4: 36, 5: 9, 6: 4}
    assert len(data.passages) < 13732  # blank passages are not indexed
    by_pid = {p.pid: p for p in data.passages}
    for query in data.queries:
        for group in query.gold:
            assert all(pid in by_pid for pid in group)
    # a passage under COBS 2.2 carries the rulebook name and its section headings
    cobs = next(p for p in data.passages if p.doc_key == "3" and p.text.startswith("An Authorised Person must categorise"))
    assert cobs.doc_title == "Conduct of Business Rulebook"
    assert cobs.headings == ["2 CLIENT CLASSIFICATION", "2.2 Client Categorisation"]


def test_unknown_folder_is_a_clear_error(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here")
    with pytest.raises(DatasetFormatError, match="unknown dataset format"):
        load_dataset(tmp_path)
    with pytest.raises(DatasetFormatError, match="not a dataset folder"):
        load_dataset(tmp_path / "missing")


def test_corpus_chunks_are_verbatim_slices_with_structured_headers(eval_dir):
    data = load_dataset(eval_dir / "obliqa_regulatory_en")
    corpus = build_corpus(data)
    assert corpus.chunk_count == len(data.passages)
    for document, chunks in corpus.documents[:3]:
        for chunk in chunks:
            assert document.markdown[chunk.start : chunk.end] == chunk.text
            assert chunk.header.startswith(f"# Document: {document.title}")
    assert set(corpus.passage_of.values()) == {p.pid for p in data.passages}


def _words(text: str) -> int:
    return len(text.split())


def test_split_spans_packs_whole_lines_then_sentences_within_budget():
    text = "uno dos tres\ncuatro cinco\nseis siete ocho nueve. diez once doce trece.\n"
    spans = split_spans(text, _words, budget=5)
    pieces = [text[a:b] for a, b in spans]
    assert pieces == ["uno dos tres\ncuatro cinco\n", "seis siete ocho nueve. ", "diez once doce trece.\n"]
    assert "".join(pieces) == text
    assert split_spans("corto", _words, budget=5) == [(0, 5)]


def test_long_passages_become_several_chunks_of_the_same_passage(eval_dir):
    data = load_dataset(eval_dir / "xquad_es")
    corpus = build_corpus(data, _words, max_tokens=60)
    assert corpus.chunk_count > len(data.passages)
    for document, chunks in corpus.documents:
        for chunk in chunks:
            assert document.markdown[chunk.start : chunk.end] == chunk.text
            assert _words(chunk.header) + _words(chunk.text) <= 60
    assert set(corpus.passage_of.values()) == {p.pid for p in data.passages}


# --- end to end through the real index -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def xquad_report(eval_dir):
    from retrieval.evaluation.runner import evaluate_retrieval

    return evaluate_retrieval(eval_dir / "xquad_es", limit=30)


def test_small_end_to_end_eval_scores_every_mode(xquad_report):
    report = xquad_report
    assert [row.mode for row in report.rows] == ["dense", "bm25", "hybrid"]
    assert report.queries == 30 and report.limited and report.passages == 240
    assert report.chunks >= 240  # paragraphs longer than the model's window are cut, never truncated
    for row in report.rows:
        assert row.queries == 30
        assert 0.0 <= row.metrics["R@1"] <= row.metrics["R@5"] <= row.metrics["R@20"] <= 1.0
    # Spanish questions over 240 paragraphs: lexical search alone finds most gold paragraphs in the top 5
    assert report.row("bm25").metrics["R@5"] >= 0.7
    assert report.row("hybrid").metrics["R@20"] >= 0.9


def test_cli_prints_the_modes_side_by_side(eval_dir):
    from typer.testing import CliRunner

    from gaceta.cli import app

    result = CliRunner().invoke(app, ["eval", "retrieval", "--dataset", str(eval_dir / "xquad_es"), "--limit", "5", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert [row["mode"] for row in payload["rows"]] == ["dense", "bm25", "hybrid"]
    bad = CliRunner().invoke(app, ["eval", "retrieval", "--dataset", str(eval_dir)])
    assert bad.exit_code == 1
    assert "unknown dataset format" in bad.output
