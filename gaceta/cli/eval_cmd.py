"""`gaceta eval retrieval|answers|attribution`: score retrieval, cited answers or support judgements on a public
dataset folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from gaceta.cli.common import console, err_console, fail, print_json, settings
from retrieval.models import Fusion  # pydantic models only: cheap to import

eval_app = typer.Typer(help="Measure retrieval and answers on public evaluation sets.", no_args_is_help=True)

DatasetOpt = typer.Option(..., "--dataset", "-d", help="A dataset folder, e.g. ../shared/eval/xquad_es (format detected).")
LimitOpt = typer.Option(None, "--limit", "-n", min=1, help="Score only the first N queries (the corpus is indexed whole).")
JsonOpt = typer.Option(False, "--json", help="Print the report as JSON.")


def register(app: typer.Typer) -> None:
    """Add the `eval` command group to the app."""
    app.add_typer(eval_app, name="eval")


@eval_app.command("retrieval")
def retrieval_command(
    dataset: Path = DatasetOpt,
    model: str = typer.Option(None, "--model", "-m", help="Embedder: 'minilm', 'use-v3' or a sentence-transformers name/path."),
    limit: int = LimitOpt,
    fusion: Fusion = typer.Option(Fusion.rrf, "--fusion", help="Hybrid fusion."),
    prefetch: int = typer.Option(None, "--prefetch", min=1, help="Candidates per side before fusion (index default)."),
    rerank: bool = typer.Option(False, "--rerank", help="Also score hybrid + the second stage (the legal search)."),
    as_json: bool = JsonOpt,
) -> None:
    """Index the dataset's corpus in a temporary index; print recall@k, MRR and Pass@k for dense, bm25 and hybrid."""
    from retrieval.embedders import EmbedderError
    from retrieval.evaluation.datasets import DatasetFormatError
    from retrieval.evaluation.runner import evaluate_retrieval

    try:
        with err_console.status(f"indexing and querying {dataset.name}…"):
            report = evaluate_retrieval(dataset, model, limit=limit, fusion=fusion, prefetch=prefetch, rerank=rerank)
    except (DatasetFormatError, EmbedderError) as exc:
        fail(str(exc))
    if as_json:
        print_json(report)
        return
    _print_retrieval(report)


@eval_app.command("answers")
def answers_command(
    dataset: Path = DatasetOpt,
    answerer: str = typer.Option(None, "--answerer", "-a", help="extractive | claude | tags (default: GACETA_ANSWERER)."),
    limit: int = LimitOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Answer the dataset's questions with citations and score them."""
    from retrieval.evaluation.answers import evaluate_answers
    from retrieval.evaluation.datasets import DatasetFormatError

    try:
        report = evaluate_answers(dataset, answerer or settings().answerer, limit)
    except (DatasetFormatError, ValueError) as exc:
        fail(str(exc))
    if as_json:
        print_json(report)
        return
    _print_generic(report)


@eval_app.command("attribution")
def attribution_command(
    dataset: list[Path] = typer.Option(..., "--dataset", "-d", help="A WiCE-format (../shared/eval/wice_dev) or AttributionBench-format (../shared/eval/attributionbench_dev) folder of *.jsonl; repeat to score several side by side."),
    as_json: bool = typer.Option(False, "--json", help='Print {"n", "attribution", "support"} as JSON (per-claim rows with --rows); several --dataset: {"datasets": [...]}.'),
    rows: bool = typer.Option(False, "--rows", help="With --json: add each claim's prediction under attribution.rows."),
    judge: str = typer.Option("offline", "--judge", help="offline, or llm: one call a claim to GACETA_OPENAI_BASE_URL."),
) -> None:
    """Judge each claim against its cited page: which sentences support it (attribution) and whether they do
    (supported / partly / not), scored against the human labels, beside the published figures; cut-offs are also
    cross-validated by group (WiCE's article, AttributionBench's source dataset)."""
    from retrieval.answers.support import LLMJudge
    from retrieval.evaluation.attribution import evaluate_attribution
    from retrieval.evaluation.datasets import DatasetFormatError

    if judge not in ("offline", "llm"):
        fail(f"--judge must be offline or llm, not {judge!r}")
    llm = None
    if judge == "llm":
        if not settings().openai_base_url:
            fail("--judge llm needs GACETA_OPENAI_BASE_URL (an OpenAI-compatible endpoint)")
        llm = LLMJudge(settings())
    reports = []
    try:
        for folder in dataset:
            with err_console.status(f"judging the claims of {folder.name}…"):
                reports.append(evaluate_attribution(folder, judge=llm))
    except DatasetFormatError as exc:
        fail(str(exc))
    if as_json:
        out = []
        for report in reports:
            attribution = report.attribution.model_dump(mode="json")
            if rows:
                attribution["rows"] = [r.model_dump(mode="json") for r in report.rows]
            out.append({"dataset": report.dataset, "n": report.n, "attribution": attribution,
                        "support": report.support.model_dump(mode="json")})
        print_json({k: v for k, v in out[0].items() if k != "dataset"} if len(out) == 1 else {"datasets": out})
        return
    for report in reports:
        _print_attribution(report)
    if len(reports) > 1:
        _print_side_by_side(reports)


def _print_attribution(report: Any) -> None:
    from rich.table import Table

    a, s = report.attribution, report.support
    console.print(f"[bold]{report.dataset}[/] — {report.n} claims")
    if a.claims:
        console.print(f"attribution ({a.claims} claims with a gold set; {a.averaging}): precision {a.precision:.3f}, "
                      f"recall {a.recall:.3f}, F1 {a.f1:.3f}")
    table = Table(title="support judgement", title_justify="left")
    table.add_column("system")
    table.add_column("F1 not supported", justify="right")
    table.add_column("binary macro-F1", justify="right")
    table.add_column("3-way accuracy", justify="right")
    table.add_row("gaceta offline (dev, shipped cut-offs)", f"{s.f1_not_supported:.3f}", f"{s.macro_f1_binary:.3f}",
                  f"{s.accuracy:.3f}")
    cv = s.cross_validated
    if cv:
        table.add_row("gaceta offline (2-fold by line parity)", f"{cv['f1_not_supported']:.3f}", "—",
                      f"{cv['accuracy']:.3f}")
    g = s.grouped_cross_validated
    if g:
        table.add_row(f"gaceta offline (cut-offs fitted on other groups: {int(g['folds'])} folds of {s.groups} groups)",
                      f"{g['f1_not_supported']:.3f}", f"{g['macro_f1_binary']:.3f}",
                      f"{g['accuracy']:.3f}" if "accuracy" in g else "—")
    if report.attribution.claims:  # WiCE: the paper's figures
        for system, f1 in s.published_f1_not_supported.items():
            table.add_row(f"[dim]published: {system}[/]", f"{f1:.3f}", "—", "—")
    console.print(table)
    console.print(f"not supported: precision {s.precision_not_supported:.3f}, recall {s.recall_not_supported:.3f}; "
                  f"cut-offs {s.cut_offs}.")


def _print_side_by_side(reports: list[Any]) -> None:
    """The issue-25 figures: each set's carry-over figure, cross-validated by group."""
    from rich.table import Table

    table = Table(title="cross-validated by group (cut-offs never fitted on the held-out group)", title_justify="left")
    for column in ("dataset", "claims", "groups", "F1 not supported", "binary macro-F1", "worst fold"):
        table.add_column(column, justify="left" if column == "dataset" else "right")
    for r in reports:
        g = r.support.grouped_cross_validated
        table.add_row(r.dataset, str(r.n), str(r.support.groups), f"{g['f1_not_supported']:.3f}",
                      f"{g['macro_f1_binary']:.3f}", f"{g['worst_fold']:.3f}")
    console.print(table)


def _print_retrieval(report: Any) -> None:
    from rich.table import Table

    title = (
        f"{report.dataset} — {report.queries} queries{' (limited)' if report.limited else ''}, "
        f"{report.passages} passages, embedder {report.embedder}"
    )
    table = Table(title=title, title_justify="left")
    table.add_column("system")
    for column in report.columns:
        table.add_column(column, justify="right")
    table.add_column("ms/query", justify="right")
    for row in report.rows:
        cells = [_fmt(column, row.metrics.get(column)) for column in report.columns]
        table.add_row(f"gaceta {row.mode}", *cells, f"{row.query_ms_p50:.1f}")
    for published in report.published:
        cells = [_fmt(column, published.metrics.get(column)) for column in report.columns]
        table.add_row(f"[dim]published: {published.system}[/]", *cells, "")
    console.print(table)
    console.print(
        f"hybrid: {report.fusion}, prefetch {report.prefetch}. Indexing {report.index_seconds:.1f} s (embedding "
        f"{report.embed_seconds:.1f} s); query embedding p50 {report.query_embed_ms_p50:.1f} ms. {report.note}"
    )


def _fmt(column: str, value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}" if column.startswith("Pass@") else f"{value:.3f}"


def _print_generic(report: Any) -> None:
    """Any report with `rows` (pydantic models or dicts): one table column per scalar field, then the rest."""
    from pydantic import BaseModel
    from rich.table import Table

    data = report.model_dump(mode="json") if isinstance(report, BaseModel) else dict(report)
    rows = data.pop("rows", [])
    columns = [key for key in (rows[0] if rows else {}) if all(_scalar(r.get(key)) for r in rows)]
    table = Table(title=str(data.get("dataset", "answers")), title_justify="left")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(_cell(row.get(column)) for column in columns))
    console.print(table)
    for key, value in data.items():
        if _scalar(value):
            console.print(f"{key}: {_cell(value)}")


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "—" if value is None else str(value)
