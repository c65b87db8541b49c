"""Context trimming (issue 17): prompt tokens with and without it, and whether the gold passage survives it.

For every mx_legal_qa question (`../shared/eval/mx_legal_qa/questions.tsv`), the sources `ask` would give an LLM
(`legal_search`, k = --k, reranker per settings) are turned into the prompts the `tools` and `tags` answerers send
(system + user message) with trimming off and on; the Claude answerer's document blocks are counted the same way.
Tokens are counted without a tokenizer, as characters / 4 for both (trim.count_tokens; the Anthropic stub counts
the same way). Gold survival: among the questions whose gold quote lies in the untrimmed sources (whitespace-
normalised, substring or rapidfuzz partial_ratio ≥ 90, as legal_qa.py judges it), the share whose gold quote still
lies in one trimmed source text (a quote cut by a "[…]" gap does not count).

The index is legal_qa.py's (every shared PDF, built by `gaceta ingest` when --home is empty or --reindex is given):

    .venv/bin/python benchmarks/trim_tokens.py --home /tmp/bench-home
    .venv/bin/python benchmarks/trim_tokens.py --home /tmp/bench-home --k 8 --json
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from legal_qa import code_version, contains, ensure_index, index_arguments, log, norm  # noqa: E402


def prompt_tokens(question: str, hits, trimmed) -> dict[str, int]:
    from retrieval.answers import tags, tools
    from retrieval.answers.claude import SYSTEM as CLAUDE_SYSTEM, document_blocks
    from retrieval.answers.trim import count_tokens

    return {
        "tools": count_tokens(tools.SYSTEM + tools.build_prompt(question, hits, trimmed)),
        "tags": count_tokens(tags.SYSTEM + tags.build_prompt(question, hits, trimmed)),
        "claude": count_tokens(CLAUDE_SYSTEM + json.dumps(document_blocks(hits, trimmed), ensure_ascii=False)
                               + question),
    }


def run(index, rows: list[dict], k: int, rerank: bool) -> dict:
    from retrieval.answers.trim import trim_context
    from retrieval.legal_search import legal_search

    details = []
    for i, row in enumerate(rows, 1):
        question = row["question"]
        hits = legal_search(index, question, k=k, rerank=rerank).hits
        trimmed = trim_context(question, hits)
        gold = norm(row["gold_quote"])
        retrieved = any(contains(gold, norm(h.chunk.text)) for h in hits)
        survived = any(contains(gold, norm(s.text)) for s in trimmed.sources)
        d = {
            "id": row["id"], "style": row["style"], "question": question,
            "before": prompt_tokens(question, hits, None), "after": prompt_tokens(question, hits, trimmed),
            "sources": {"before": trimmed.tokens_before, "after": trimmed.tokens_after},
            "sentences": {"kept": sum(len(s.kept) for s in trimmed.sources),
                          "total": sum(s.total for s in trimmed.sources)},
            "whole_sources": sum(s.whole for s in trimmed.sources),
            "gold_retrieved": retrieved, "gold_survived": survived and retrieved,
        }
        details.append(d)
        log(f"  {i}/{len(rows)} {row['id']} tools {d['before']['tools']} → {d['after']['tools']} tokens, "
            f"gold retrieved {retrieved} survived {survived}")
    return {"summary": summarise(details), "questions": details}


def summarise(details: list[dict]) -> dict:
    out: dict = {"n": len(details)}
    for prompt in ("tools", "tags", "claude"):
        before = sum(d["before"][prompt] for d in details)
        after = sum(d["after"][prompt] for d in details)
        ratios = [d["after"][prompt] / d["before"][prompt] for d in details if d["before"][prompt]]
        out[prompt] = {"before": before, "after": after, "saved": before - after,
                       "saved_share": (before - after) / before if before else 0.0,
                       "median_ratio": statistics.median(ratios) if ratios else float("nan")}
    retrieved = [d for d in details if d["gold_retrieved"]]
    out["gold"] = {"retrieved": len(retrieved), "survived": sum(d["gold_survived"] for d in retrieved),
                   "survival": sum(d["gold_survived"] for d in retrieved) / len(retrieved) if retrieved else 0.0}
    out["sentences"] = {"kept": sum(d["sentences"]["kept"] for d in details),
                        "total": sum(d["sentences"]["total"] for d in details)}
    out["whole_sources"] = sum(d["whole_sources"] for d in details)
    return out


def print_tables(result: dict) -> None:
    s, meta = result["summary"], result["meta"]
    print(f"# Context trimming — {s['n']} mx_legal_qa questions, k {meta['k']}, rerank {meta['rerank']}, index "
          f"{meta['home']} ({meta['chunks']} chunks), code {meta['code']['commit']}"
          f"{' (dirty)' if meta['code']['dirty'] else ''}")
    print("\nPrompt tokens (characters / 4, system prompt + sources + question, summed over the questions):\n")
    print("| prompt | untrimmed | trimmed | saved | saved share | median trimmed/untrimmed |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for prompt in ("tools", "tags", "claude"):
        p = s[prompt]
        print(f"| {prompt} | {p['before']:,} | {p['after']:,} | {p['saved']:,} | {p['saved_share']:.1%} "
              f"| {p['median_ratio']:.2f} |")
    g = s["gold"]
    print(f"\nSentences kept: {s['sentences']['kept']:,} of {s['sentences']['total']:,}; sources sent whole (a named "
          f"article, or nothing to leave out): {s['whole_sources']} of {s['n'] * meta['k']}")
    print(f"Gold quote in the untrimmed sources: {g['retrieved']} of {s['n']} questions; still in the trimmed "
          f"sources: {g['survived']} of {g['retrieved']} ({g['survival']:.1%})")
    lost = [d for d in result["questions"] if d["gold_retrieved"] and not d["gold_survived"]]
    for d in lost:
        print(f"- gold lost: {d['id']} ({d['style']}): {d['question']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    index_arguments(ap)
    ap.add_argument("--k", type=int, default=8, help="sources an answer gets (ask's default k)")
    ap.add_argument("--json", action="store_true", help="print one JSON object (with per-question details)")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    home = args.home.resolve()
    ensure_index(home, args.pdfs, args.reindex, {})

    from retrieval.index import Index
    from retrieval.settings import Settings

    rows = list(csv.DictReader((args.qa / "questions.tsv").open(encoding="utf-8"), delimiter="\t"))
    settings = Settings(home=home)
    with Index.open(settings) as index:
        result = run(index, rows, args.k, settings.rerank)
        status = index.status()
    result["meta"] = {"home": str(home), "chunks": status.chunks, "k": args.k, "rerank": settings.rerank,
                      "measure": "characters / 4", "code": code_version()}
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print_tables(result)


if __name__ == "__main__":
    main()
