"""Does the relevance flag separate wrong answers from right ones? (issue 17, "How we measure")

For the offline extractive answerer, on two sets with a gold answer:
- `../shared/eval/mx_legal_qa` (38 questions) over an index of ALL the shared PDFs (built by benchmarks/legal_qa.py's
  own path, `gaceta ingest`, when `--home` is empty): an answer *hits* when a verified citation overlaps the gold quote
  (legal_qa.overlaps, the same rule as that benchmark);
- `../shared/eval/xquad_es` through `retrieval.evaluation.answers.evaluate_answers` (its corpus in a throw-away
  index): an answer hits when a verified citation holds the gold span. `--xquad-limit N` scores the first N
  questions (the corpus is indexed whole).
- the title questions of issue 22 (`retrieval.evaluation.title_questions`: "¿Qué dispone la ley sobre periodo de
  prueba?", the same naming the law, "¿Qué establece el artículo 14 de la Ley …?") over the BOE laws of
  ../shared/data/laws (`--laws-home`, built by benchmarks/title_questions.py's own path when empty; `--laws-sample N`
  questions a law and set): an answer hits when a verified citation quotes a gold article's own text.
For each set: the share of answers flagged not relevant (`Coverage.relevant` False) among the answered questions
that MISS the gold, and among those that HIT it; "not found" answers (no citation at all) are counted apart; and
the same per document (law), so a rule can be read on laws it was never looked at on. The issue-25 judgement
(`coverage.answers_the_question`: the named article/law among the citations, their legal role, the kind of answer
the question word asks for) has no fitted weight or cut-off; `relevance_reasons` per row say which rule fired.
`ask` judges the structure of the index's laws too (`coverage.structure_reasons`: an article in scope is titled what a
question naming no article asks, and the answer cites none so titled), so its reasons are among each row's
`relevance_reasons` and its flags in `not_relevant_when_*`.

    .venv/bin/python benchmarks/relevance_flag.py --home /tmp/bench-home --xquad-limit 300
    .venv/bin/python benchmarks/relevance_flag.py --home /tmp/bench-home --skip-xquad --json
    .venv/bin/python benchmarks/relevance_flag.py --home /tmp/bench-home --skip-xquad --laws-home /tmp/tq-home \
        --laws-sample 30

`--json` prints one JSON object and nothing else on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.legal_qa import SHARED, ensure_index, index_arguments, log, norm, overlaps  # noqa: E402

XQUAD = SHARED / "eval" / "xquad_es"


def split(rows: list[dict]) -> dict:
    """Flag shares among answered rows that miss / hit the gold, and the counts behind them."""
    answered = [r for r in rows if r["found"]]
    missed = [r for r in answered if not r["hit"]]
    hit = [r for r in answered if r["hit"]]

    def share(xs: list[dict]) -> float | None:
        return sum(not x["relevant"] for x in xs) / len(xs) if xs else None

    out = {
        "questions": len(rows), "not_found": len(rows) - len(answered), "missed": len(missed), "hit": len(hit),
        "not_relevant_when_missed": share(missed), "not_relevant_when_hit": share(hit),
        "mean_relevance_missed": sum(x["relevance"] for x in missed) / len(missed) if missed else None,
        "mean_relevance_hit": sum(x["relevance"] for x in hit) / len(hit) if hit else None,
    }
    if any("law" in r for r in rows) and len({r.get("law") for r in rows}) > 1:  # per document: rules read apart
        out["per_law"] = {law: {k: v for k, v in split([r for r in rows if r.get("law") == law]).items()
                                if k != "per_law"} for law in sorted({r.get("law") for r in rows})}
    return out


def run_mx(home: Path, qa_dir: Path, k: int) -> dict:
    from retrieval.answers import ask
    from retrieval.index import Index
    from retrieval.settings import Settings

    settings = Settings(home=home)
    rows = []
    questions = list(csv.DictReader((qa_dir / "questions.tsv").open(encoding="utf-8"), delimiter="\t"))
    with Index.open(settings) as index:
        for i, q in enumerate(questions, 1):
            answer = ask(index, q["question"], k=k, answerer="extractive", settings=settings)
            gold = norm(q["gold_quote"])
            verified = [c for seg in answer.content for c in seg.citations if c.verified]
            rows.append({
                "id": q["id"], "style": q["style"], "found": answer.found, "law": q["file"],
                "hit": any(overlaps(norm(c.cited_text), gold) for c in verified),
                "relevant": answer.coverage.relevant, "relevance": answer.coverage.relevance,
                "flag_reasons": answer.coverage.flag_reasons,
                "relevance_reasons": answer.coverage.relevance_reasons,
                "first_citation": verified[0].label if verified else None,
            })
            log(f"  mx_legal_qa {i}/{len(questions)} {q['id']} hit {rows[-1]['hit']} "
                f"relevance {answer.coverage.relevance:.2f}")
    return {**split(rows), "rows": rows}


def run_laws(home: Path, n: int | None, k: int) -> dict:
    """The title questions of the BOE laws (issue 22's set), answered by `ask` (extractive, k 8)."""
    from benchmarks.title_questions import BOE, LAWS, ensure_index as ensure_laws, law_questions
    from retrieval.answers import ask
    from retrieval.evaluation.title_questions import SETS
    from retrieval.index import Index
    from retrieval.settings import Settings

    files = sorted(LAWS.glob(BOE))
    ensure_laws(home, files, False, {})
    settings = Settings(home=home)
    rows = []
    with Index.open(settings) as index:
        for doc, qs in law_questions(index, files, SETS, n):
            law = doc.short_title or doc.title
            for i, q in enumerate(qs, 1):
                answer = ask(index, q.question, k=k, answerer="extractive", settings=settings)
                verified = [c for seg in answer.content for c in seg.citations if c.verified]
                rows.append({
                    "id": q.qid, "style": q.set, "law": law, "found": answer.found and bool(verified),
                    "hit": any(q.holds(c.doc_id, c.start, c.end) for c in verified),
                    "relevant": answer.coverage.relevant, "relevance": answer.coverage.relevance,
                    "flag_reasons": answer.coverage.flag_reasons,
                    "relevance_reasons": answer.coverage.relevance_reasons,
                })
                if i % 20 == 0:
                    log(f"  title questions {law}: {i}/{len(qs)}")
    by_set = {s: split([r for r in rows if r["style"] == s]) for s in SETS}
    return {**split(rows), "per_set": by_set, "rows": rows}


def run_xquad(folder: Path, limit: int | None, k: int) -> dict:
    from retrieval.evaluation.answers import evaluate_answers

    def progress(stage: str, done: int, total: int) -> None:
        if done == total or done % 50 == 0:
            log(f"  xquad_es {stage} {done}/{total}")

    report = evaluate_answers(folder, "extractive", limit, k=k, progress=progress)
    rows = [{"id": r.qid, "found": r.found, "hit": r.hit, "relevant": r.relevant, "relevance": r.relevance}
            for r in report.rows]
    return {**split(rows), "limited": report.limited, "citation_hit_rate": report.citation_hit_rate, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    index_arguments(ap)
    ap.add_argument("--xquad", type=Path, default=XQUAD)
    ap.add_argument("--xquad-limit", type=int, default=None, help="score the first N xquad_es questions (default all)")
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--skip-mx", action="store_true")
    ap.add_argument("--skip-xquad", action="store_true")
    ap.add_argument("--laws-home", type=Path, default=None,
                    help="index of the BOE laws for the title questions (built when empty); omitted: not run")
    ap.add_argument("--laws-sample", type=int, default=30, help="title questions a law and set (default 30)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    result: dict = {"meta": {"k": args.k, "xquad_limit": args.xquad_limit, "load_start": round(os.getloadavg()[0], 2)}}
    t0 = time.process_time()
    if not args.skip_mx:
        ensure_index(args.home.resolve(), args.pdfs, args.reindex, {})
        result["mx_legal_qa"] = run_mx(args.home.resolve(), args.qa, args.k)
    if args.laws_home is not None:
        result["title_questions"] = run_laws(args.laws_home.resolve(), args.laws_sample, args.k)
    if not args.skip_xquad:
        result["xquad_es"] = run_xquad(args.xquad, args.xquad_limit, args.k)
    result["meta"].update(cpu_seconds=round(time.process_time() - t0, 1), load_end=round(os.getloadavg()[0], 2))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    for name in ("mx_legal_qa", "title_questions", "xquad_es"):
        if name not in result:
            continue
        r = result[name]
        fmt = lambda x: "—" if x is None else f"{x:.1%}"  # noqa: E731
        print(f"{name}: {r['questions']} questions, {r['not_found']} not found; answered: {r['missed']} miss the gold, "
              f"{r['hit']} hit it")
        for law, p in (r.get("per_law") or {}).items():
            print(f"  {law}: flagged {fmt(p['not_relevant_when_missed'])} of {p['missed']} misses vs "
                  f"{fmt(p['not_relevant_when_hit'])} of {p['hit']} hits")
        print(f"  flagged not relevant: {fmt(r['not_relevant_when_missed'])} of misses vs "
              f"{fmt(r['not_relevant_when_hit'])} of hits; mean relevance {r['mean_relevance_missed'] or 0:.3f} vs "
              f"{r['mean_relevance_hit'] or 0:.3f}")


if __name__ == "__main__":
    main()
