"""Ranking metrics over gold *groups* (see datasets.py): recall@k, MRR and the cookbook's Pass@k.

Recall@k of one query = share of its gold groups with a member in the top k. The Anthropic cookbook's "Pass@k" is
exactly that, averaged over queries and x100 (it is per-query recall, not a binary hit), so both come from one
function. MRR uses the first retrieved passage that belongs to any gold group.
"""

from __future__ import annotations

from collections.abc import Sequence

RECALL_KS = (1, 5, 10, 20)
PASS_KS = (5, 10, 20)


def recall_at_k(ranked: Sequence[str], gold: Sequence[Sequence[str]], k: int) -> float:
    """Share of gold groups found in the first k ranked passage ids."""
    if not gold:
        raise ValueError("a query needs at least one gold group")
    top = set(ranked[:k])
    return sum(1 for group in gold if top.intersection(group)) / len(gold)


def reciprocal_rank(ranked: Sequence[str], gold: Sequence[Sequence[str]]) -> float:
    """1 / rank of the first relevant passage; 0 when none was retrieved."""
    relevant = {pid for group in gold for pid in group}
    for rank, pid in enumerate(ranked, start=1):
        if pid in relevant:
            return 1.0 / rank
    return 0.0


def score_rankings(rankings: Sequence[Sequence[str]], golds: Sequence[Sequence[Sequence[str]]]) -> dict[str, float]:
    """Mean metrics over queries: R@1/5/10/20 and MRR in [0, 1], Pass@5/10/20 in percent (the cookbook's scale)."""
    if len(rankings) != len(golds):
        raise ValueError(f"{len(rankings)} rankings for {len(golds)} queries")
    if not golds:
        raise ValueError("no queries to score")
    n = len(golds)
    recall = {k: sum(recall_at_k(r, g, k) for r, g in zip(rankings, golds)) / n for k in RECALL_KS}
    metrics = {f"R@{k}": value for k, value in recall.items()}
    metrics["MRR"] = sum(reciprocal_rank(r, g) for r, g in zip(rankings, golds)) / n
    metrics.update({f"Pass@{k}": 100.0 * recall[k] for k in PASS_KS})
    return metrics


def dedupe(ids: Sequence[str]) -> list[str]:
    """Keep the first occurrence of each passage id (several chunks of one passage rank as the passage)."""
    seen: set[str] = set()
    return [pid for pid in ids if not (pid in seen or seen.add(pid))]
