"""`evaluate_attribution`: sentence attribution and support judgements on a WiCE-format set (claim ↔ cited page).

Each line of every `*.jsonl` in the folder is one claim: `claim`, `evidence` (the cited page split into sentences),
`supporting_sentences` (alternative gold sets of evidence indices, any one of which supports the claim; `[[]]` or
`[]` when nothing does) and `label` (supported | partially_supported | not_supported).

For every claim `retrieval.answers.support.judge_support` predicts the supporting sentences (its `evidence`) and the
label. Scoring:
- attribution, over the claims that have a non-empty gold set: per claim, the predicted set is scored against the
  gold set that gives it the highest F1 (ties: the first such set); precision, recall and F1 are per claim, then
  averaged over claims (macro). A claim with no prediction scores 0 precision, 0 recall.
- support: F1 of "not supported" against the rest (the paper's claim-level figure), and 3-way accuracy
  (supported / partially supported / not supported; the judge's `partial` is WiCE's `partially_supported`).
- cross-validated: the judge's cut-offs are refitted on one half of the claims and scored on the other, both ways
  (halves by line parity within each file), so the dev figure can be told from one that never saw its claims.

Two formats (issue 25), told apart by their lines: WiCE (above) and AttributionBench (`question`, `claim`,
`references`: the cited evidence texts, `attribution_label`: attributable | not attributable, `src_dataset`); an
AttributionBench claim's evidence is its references split into sentences, its label supported / not_supported (no
gold evidence sets: attribution is not scored). Every claim has a *group*, the unit nothing may be shared across
when cut-offs are fitted: WiCE's Wikipedia article (`meta.claim_title`: halves of one file share articles and
writers), AttributionBench's source dataset. `grouped_cross_validation` fits the cut-offs on the other groups and
scores each held-out group: the figure that says whether the judgement carries over. For AttributionBench the
figure is binary macro-F1 (attributable or not; the judge's partial counts as attributable), for WiCE F1 of
not supported.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from retrieval.evaluation.datasets import DatasetFormatError

Label = Literal["supported", "partially_supported", "not_supported"]
Progress = Callable[[str, int, int], None]

# The paper's claim-level F1 of "not supported" vs the rest, oracle retrieval (Kamoi et al., EMNLP 2023, table 5).
PUBLISHED_F1_NOT_SUPPORTED = {"T5-3B ANLI": 0.618, "T5-3B ANLI+WiCE": 0.778, "GPT-4": 0.610, "GPT-3.5": 0.393}
WICE_LABEL = {"supported": "supported", "partial": "partially_supported", "unsupported": "not_supported"}


class WiceClaim(BaseModel):
    id: str
    claim: str
    evidence: list[str]
    gold: list[list[int]]  # alternative supporting sets; empty when nothing supports the claim
    label: Label
    group: str = ""  # what cross-validation keeps together: WiCE's article, AttributionBench's source dataset
    binary: bool = False  # AttributionBench: two labels only (supported / not_supported), no gold evidence sets


AB_LABEL = {"attributable": "supported", "not attributable": "not_supported"}


def _ab_claim(item: dict, file: Path, number: int) -> WiceClaim:
    """One AttributionBench line: its references (a list, or a string holding one) split into sentences."""
    import ast

    from ingest.sentences import split_sentences

    refs = item["references"]
    if isinstance(refs, str):
        try:
            refs = json.loads(refs)
        except json.JSONDecodeError:
            refs = ast.literal_eval(refs)
    if isinstance(refs, str):
        refs = [refs]
    evidence = [ref[s.start:s.end].strip() for ref in refs for s in split_sentences(ref)]
    return WiceClaim(id=str(item.get("id") or f"{file.stem}:{number}"), claim=item["claim"],
                     evidence=[e for e in evidence if e] or [""], gold=[], label=AB_LABEL[item["attribution_label"]],
                     group=str(item.get("src_dataset") or file.stem), binary=True)


def load_wice(folder: str | Path) -> list[WiceClaim]:
    """Every claim of every `*.jsonl` in `folder` (sorted by file name); a clear error on anything else."""
    root = Path(folder)
    if not root.is_dir():
        raise DatasetFormatError(f"{root}: not a dataset folder")
    files = sorted(root.glob("*.jsonl"))
    if not files:
        raise DatasetFormatError(f"{root}: no *.jsonl file (WiCE format: claim, evidence, supporting_sentences, label; "
                                 f"or AttributionBench: claim, references, attribution_label)")
    claims: list[WiceClaim] = []
    for file in files:
        with file.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                    if isinstance(item, dict) and "attribution_label" in item:
                        claims.append(_ab_claim(item, file, number))
                        continue
                    meta = item.get("meta") or {}
                    claims.append(WiceClaim(
                        id=str(meta.get("id") or f"{file.stem}:{number}"), claim=item["claim"],
                        evidence=item["evidence"], label=item["label"],
                        gold=[sorted(set(g)) for g in item["supporting_sentences"] if g],
                        group=str(meta.get("claim_title") or meta.get("id") or f"{file.stem}:{number}"),
                    ))
                except (json.JSONDecodeError, KeyError, TypeError, AttributeError, ValidationError, ValueError,
                        SyntaxError) as exc:
                    raise DatasetFormatError(f"{file.name} line {number}: neither a WiCE claim (claim, evidence, "
                                             f"supporting_sentences, label) nor an AttributionBench one (claim, "
                                             f"references, attribution_label) ({exc})") from None
    return claims


def best_match(predicted: Sequence[int], gold: Sequence[Sequence[int]]) -> tuple[float, float, float]:
    """(precision, recall, F1) of `predicted` against the gold set that maximises F1; `gold` must not be empty."""
    if not gold:
        raise ValueError("a claim without a gold set has no attribution to score")
    pred = set(predicted)
    best = (0.0, 0.0, -1.0)
    for group in gold:
        hit = len(pred & set(group))
        p = hit / len(pred) if pred else 0.0
        r = hit / len(group)
        f = 2 * p * r / (p + r) if hit else 0.0
        if f > best[2]:
            best = (p, r, f)
    return best


def f1_not_supported(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """F1 of the label "not_supported" against the rest."""
    tp = sum(g == p == "not_supported" for g, p in zip(gold, predicted))
    both = sum(g == "not_supported" for g in gold) + sum(p == "not_supported" for p in predicted)
    return 2 * tp / both if both else 1.0


class ClaimRow(BaseModel):
    id: str
    label: Label
    predicted: Label
    score: float  # the judge's support score, 0–1
    evidence: list[int]  # predicted supporting sentences
    precision: float | None = None  # against the best gold set; None when the claim has no gold set
    recall: float | None = None
    f1: float | None = None
    half: int  # 0 or 1: the cross-validation half the claim falls in


class AttributionScores(BaseModel):
    precision: float
    recall: float
    f1: float
    claims: int  # claims with a gold set (supported or partially supported)
    averaging: str = "macro over claims; per claim, the gold set that maximises F1"


class SupportScores(BaseModel):
    f1_not_supported: float
    accuracy: float  # 3-way
    precision_not_supported: float
    recall_not_supported: float
    cut_offs: dict[str, float]  # the judge's score cut-offs used for the dev figures
    cross_validated: dict[str, float]  # 2-fold, cut-offs refitted on the other half: f1_not_supported, accuracy
    macro_f1_binary: float = 0.0  # supported-or-partial vs not supported, macro over the two (AttributionBench's)
    grouped_cross_validated: dict[str, float] = {}  # cut-offs fitted on other groups (articles / source datasets)
    groups: int = 0  # distinct groups (WiCE articles, AttributionBench source datasets)
    confusion: dict[str, dict[str, int]]  # gold label -> predicted label -> count
    judge: str = "offline"  # offline | llm (scores 1 / 0.5 / 0 for supported / partial / unsupported)
    judge_failures: int = 0  # claims the LLM judge gave no usable verdict for (judged offline instead)
    published_f1_not_supported: dict[str, float] = PUBLISHED_F1_NOT_SUPPORTED


class AttributionReport(BaseModel):
    dataset: str
    n: int
    attribution: AttributionScores
    support: SupportScores
    rows: list[ClaimRow]


def _labels(scores: Sequence[float], partial_at: float, supported_at: float) -> list[str]:
    from retrieval.answers.support import label_of

    return [WICE_LABEL[label_of(s, supported_at, partial_at).value] for s in scores]


def fit_cut_offs(scores: Sequence[float], gold: Sequence[str]) -> tuple[float, float]:
    """(partial_at, supported_at) fitted on `scores`: the first maximises F1 of not supported, the second then
    maximises 3-way accuracy. Candidates are the midpoints between observed scores."""
    values = sorted(set(scores))
    candidates = [(a + b) / 2 for a, b in zip(values, values[1:])] or values

    def ns_f1(t: float) -> float:
        return f1_not_supported(gold, ["not_supported" if s < t else "supported" for s in scores])

    partial_at = max(candidates, key=ns_f1)

    def accuracy(t: float) -> float:
        predicted = _labels(scores, partial_at, t)
        return sum(p == g for p, g in zip(predicted, gold)) / len(gold)

    supported_at = max((c for c in candidates if c >= partial_at), key=accuracy, default=1.0)
    return partial_at, supported_at


def evaluate_attribution(folder: str | Path, embedder=None, progress: Progress | None = None,
                         judge=None) -> AttributionReport:
    """Judge every claim of a WiCE-format folder against its cited page and score attribution and support.
    `judge` (a `support.LLMJudge`) labels each claim with one LLM call; a claim it fails on keeps the offline
    judgement and is counted in `support.judge_failures`."""
    from retrieval.answers.support import PARTIAL_AT, SUPPORTED_AT, JudgeError, judge_support

    claims = load_wice(folder)
    if not claims:
        raise DatasetFormatError(f"{folder}: no claims")
    judged = []
    failures = 0
    for number, item in enumerate(claims, start=1):
        offline = judge_support(item.claim, item.evidence, embedder)
        if judge is not None:
            try:
                llm = judge.judge([(item.claim, item.evidence)]).support[0]
                offline = llm.model_copy(update={"evidence": offline.evidence, "missing": offline.missing})
            except JudgeError:
                failures += 1
        judged.append(offline)
        if progress:
            progress("claims", number, len(claims))
    scores = [j.score for j in judged]
    gold = [c.label for c in claims]
    predicted = _labels(scores, PARTIAL_AT, SUPPORTED_AT)
    halves = _halves(claims)
    rows = []
    for item, j, label, half in zip(claims, judged, predicted, halves):
        p = r = f = None
        if item.gold:
            p, r, f = best_match(j.evidence, item.gold)
        rows.append(ClaimRow(id=item.id, label=item.label, predicted=label, score=j.score, evidence=j.evidence,
                             precision=p, recall=r, f1=f, half=half))
    attributed = [row for row in rows if row.f1 is not None]
    k = len(attributed) or 1
    tp = sum(g == p == "not_supported" for g, p in zip(gold, predicted))
    return AttributionReport(
        dataset=Path(folder).name, n=len(claims),
        attribution=AttributionScores(
            precision=sum(r.precision for r in attributed) / k, recall=sum(r.recall for r in attributed) / k,
            f1=sum(r.f1 for r in attributed) / k, claims=len(attributed)),
        support=SupportScores(
            f1_not_supported=f1_not_supported(gold, predicted),
            accuracy=sum(g == p for g, p in zip(gold, predicted)) / len(gold),
            precision_not_supported=tp / (sum(p == "not_supported" for p in predicted) or 1),
            recall_not_supported=tp / (sum(g == "not_supported" for g in gold) or 1),
            cut_offs={"partial_at": PARTIAL_AT, "supported_at": SUPPORTED_AT},
            cross_validated=cross_validate(scores, gold, halves),
            macro_f1_binary=macro_f1_binary(gold, predicted),
            grouped_cross_validated=grouped_cross_validation(scores, gold, [c.group for c in claims],
                                                             all(c.binary for c in claims)),
            groups=len({c.group for c in claims}),
            judge="llm" if judge is not None else "offline", judge_failures=failures,
            confusion={g: {p: sum(a == g and b == p for a, b in zip(gold, predicted)) for p in WICE_LABEL.values()}
                       for g in WICE_LABEL.values()},
        ),
        rows=rows,
    )


def macro_f1_binary(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """Macro-F1 of two classes: not supported, and the rest (supported or partly)."""
    g = ["ns" if x == "not_supported" else "s" for x in gold]
    p = ["ns" if x == "not_supported" else "s" for x in predicted]
    out = []
    for cls in ("ns", "s"):
        tp = sum(a == b == cls for a, b in zip(g, p))
        both = g.count(cls) + p.count(cls)
        out.append(2 * tp / both if both else 1.0)
    return sum(out) / 2


GROUP_FOLDS = 5  # folds of groups when a set has many (WiCE's articles); a set of few groups leaves each one out


def group_folds(groups: Sequence[str]) -> list[int]:
    """A fold per claim: each group its own fold when there are at most 8 groups (AttributionBench's four source
    datasets: leave one source out), else `GROUP_FOLDS` folds of whole groups by a stable hash of the group."""
    import zlib

    names = sorted(set(groups))
    if len(names) <= 8:
        return [names.index(g) for g in groups]
    return [zlib.crc32(g.encode("utf-8")) % GROUP_FOLDS for g in groups]


def grouped_cross_validation(scores: Sequence[float], gold: Sequence[str], groups: Sequence[str],
                             binary: bool) -> dict[str, float]:
    """Cut-offs fitted on the other folds of groups, each held-out fold labelled with them; the pooled held-out
    labels scored: f1_not_supported, macro_f1_binary and (3-way sets) accuracy, plus the spread over folds."""
    folds = group_folds(groups)
    predicted: list[str] = [""] * len(scores)
    per_fold = []
    for held in sorted(set(folds)):
        train = [i for i, f in enumerate(folds) if f != held]
        test = [i for i, f in enumerate(folds) if f == held]
        if not train:
            continue
        partial_at, supported_at = fit_cut_offs([scores[i] for i in train], [gold[i] for i in train])
        if binary:
            partial_at = fit_binary_cut_off([scores[i] for i in train], [gold[i] for i in train])
        labels = _labels([scores[i] for i in test], partial_at, max(supported_at, partial_at))
        for i, label in zip(test, labels):
            predicted[i] = label
        fold_gold = [gold[i] for i in test]
        per_fold.append(macro_f1_binary(fold_gold, labels) if binary else f1_not_supported(fold_gold, labels))
    out = {"f1_not_supported": f1_not_supported(gold, predicted), "macro_f1_binary": macro_f1_binary(gold, predicted),
           "folds": float(len(per_fold)), "worst_fold": min(per_fold) if per_fold else 0.0}
    if not binary:
        out["accuracy"] = sum(a == b for a, b in zip(gold, predicted)) / len(gold)
    return out


def fit_binary_cut_off(scores: Sequence[float], gold: Sequence[str]) -> float:
    """The score below which a claim is not supported that maximises binary macro-F1 on `scores`."""
    values = sorted(set(scores))
    candidates = [(a + b) / 2 for a, b in zip(values, values[1:])] or values
    return max(candidates, key=lambda t: macro_f1_binary(
        gold, ["not_supported" if s < t else "supported" for s in scores]))


def _halves(claims: Sequence[WiceClaim]) -> list[int]:
    """Alternate claims of each label between two halves (stratified, in file order: reproducible, no seed)."""
    seen: dict[str, int] = {}
    halves = []
    for c in claims:
        halves.append(seen.get(c.label, 0) % 2)
        seen[c.label] = seen.get(c.label, 0) + 1
    return halves


def cross_validate(scores: Sequence[float], gold: Sequence[str], halves: Sequence[int]) -> dict[str, float]:
    """Fit the cut-offs on one half, label the other with them, both ways; score the pooled held-out labels."""
    predicted: list[str | None] = [None] * len(scores)
    for held in (0, 1):
        train = [i for i, h in enumerate(halves) if h != held]
        test = [i for i, h in enumerate(halves) if h == held]
        if not train or not test:
            continue
        partial_at, supported_at = fit_cut_offs([scores[i] for i in train], [gold[i] for i in train])
        for i, label in zip(test, _labels([scores[i] for i in test], partial_at, supported_at)):
            predicted[i] = label
    pairs = [(g, p) for g, p in zip(gold, predicted) if p is not None]
    if not pairs:
        return {}
    g, p = zip(*pairs)
    return {"f1_not_supported": f1_not_supported(g, p), "accuracy": sum(a == b for a, b in pairs) / len(pairs)}
