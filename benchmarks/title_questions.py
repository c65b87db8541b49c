"""Title questions over the BOE laws (issue 22, item 5): do answers carry over to laws and questions nobody tuned on?

Questions come from each law's own structure (`retrieval.evaluation.title_questions`): every titled article
("Artículo 14. Periodo de prueba.") gives "¿Qué dispone la ley sobre periodo de prueba?" (set `title`) and the same
naming the law (`title_law`); every article of the law's outline gives "¿Qué establece el artículo 14 de la Ley …?"
(`named`). The index holds the three BOE laws of ../shared/data/laws (Ley de Sociedades de Capital — a texto
refundido annexed to a Real Decreto Legislativo —, Ley de Enjuiciamiento Civil, Código Penal, which titles no
article), built by the product's own path (`gaceta ingest` in a subprocess, GACETA_HOME=--home) when the index is
empty or --reindex is given.

Per law and set it prints:
- answers (extractive, k 8, the product's `legal_search` + `ExtractiveAnswerer` + `Verifier`): the share whose
  **first** verified citation quotes a gold article's own text (`first`), whose **any** citation does (`any`), and
  "not found" (`nf`); for `named`, `first` is the issue's "answered from the article's own text, first sentence not
  the title line" (a quote of the heading line is not in the article: `ArticleSpan.holds`);
- search: R@1 / R@5 of `legal_search(q, k=10)` (a hit in a gold article: `Chunk.article` of the law, role text).

`--tune LAW` marks the law weights were tuned on; the table then says which rows are the other laws (report those).
`--sample N` asks about ~N articles a law and set (every k-th, spread over the law); the full run is long (≈ 4,400
questions). Quality figures only: timings on this shared machine are noise (timing to be taken alone).

    .venv/bin/python benchmarks/title_questions.py --home /tmp/tq-home --sample 60
    .venv/bin/python benchmarks/title_questions.py --home /tmp/tq-home --sample 60 --tune "Ley de Sociedades de Capital"
    .venv/bin/python benchmarks/title_questions.py --home /tmp/tq-home --sets named --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from benchmarks.legal_qa import SHARED, ensure_index, log  # noqa: E402
LAWS = SHARED / "data" / "laws"
BOE = "boe_consolidado_*.pdf"
SEARCH_K = 10


def law_questions(index, files: list[Path], sets, n: int | None, only: str | None = None):
    """(law document, [questions]) per law document of the indexed files (`only`: a part of one law's name),
    sampled."""
    from retrieval.evaluation.title_questions import law_documents, questions, sample

    names = {f.name for f in files}
    docs = [index.document(e.document.doc_id) for e in index.catalog().entries]  # the index's documents
    out = []
    for doc in law_documents(d for d in docs if d is not None and Path(d.source_path).name in names):
        if only and only.lower() not in (doc.short_title or doc.title).lower():
            continue
        chunks = index.chunk_document(doc)
        qs = questions(doc, chunks, sets)
        picked = [q for s in sets for q in sample([q for q in qs if q.set == s], n)]
        out.append((doc, picked))
    return out


def run_question(index, answerer, q) -> dict:
    from retrieval.answers.verify import Verifier
    from retrieval.legal_search import legal_search

    result = legal_search(index, q.question, k=SEARCH_K, openings=True)  # as `ask` searches
    rank = next((h.rank for h in result.hits if q.in_gold(h.chunk)), None)
    hits = result.hits[:8]  # what `ask(k=8)` answers from: the same ranking cut at 8
    draft = answerer.answer(q.question, hits)
    verifier = Verifier(hits)
    cits = [c for seg in draft.content for c in seg.citations]
    checked = [c for c in (verifier.verify(c) for c in cits) if c is not None and c.verified]
    first = checked[0] if checked else None
    return {
        "qid": q.qid, "set": q.set, "question": q.question, "gold": q.gold, "rank": rank, "found": draft.found,
        "first": bool(first and q.holds(first.doc_id, first.start, first.end)),
        "any": any(q.holds(c.doc_id, c.start, c.end) for c in checked),
        "first_citation": (first.label or first.article or "") + " | " + " ".join(first.cited_text.split())[:140]
        if first else None,
    }


def summarise(rows: list[dict]) -> dict:
    n = len(rows) or 1
    return {
        "n": len(rows),
        "first": sum(r["first"] for r in rows) / n,
        "any": sum(r["any"] for r in rows) / n,
        "not_found": sum(not r["found"] for r in rows) / n,
        "r1": sum(r["rank"] == 1 for r in rows) / n,
        "r5": sum(bool(r["rank"] and r["rank"] <= 5) for r in rows) / n,
    }


def main() -> None:
    from retrieval.evaluation.title_questions import SETS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, required=True, help="GACETA_HOME of the index (built here if empty)")
    ap.add_argument("--laws", type=Path, default=LAWS, help=f"folder holding the BOE laws ({BOE})")
    ap.add_argument("--reindex", action="store_true", help="run `gaceta ingest` even if the index has chunks")
    ap.add_argument("--sample", type=int, default=None, help="~N questions a law and set (every k-th); default all")
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of {', '.join(SETS)}")
    ap.add_argument("--tune", default=None, metavar="LAW", help="the law weights were tuned on (report the others)")
    ap.add_argument("--only", default=None, metavar="LAW", help="ask about this law only (a part of its name)")
    ap.add_argument("--misses", type=int, default=5, help="misses shown per law and set")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout (with every question)")
    args = ap.parse_args()
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    bad = [s for s in sets if s not in SETS]
    if bad:
        ap.error(f"unknown set(s) {bad}; choose from {', '.join(SETS)}")
    files = sorted(args.laws.glob(BOE))
    if not files:
        ap.error(f"no {BOE} under {args.laws}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    home = args.home.resolve()
    ensure_index(home, files, args.reindex, {})

    from retrieval.answers.extractive import ExtractiveAnswerer
    from retrieval.index import Index
    from retrieval.settings import Settings

    load = [round(os.getloadavg()[0], 2)]
    result: dict = {"laws": {}, "meta": {}}
    with Index.open(Settings(home=home)) as index:
        answerer = ExtractiveAnswerer(index.embedder)
        per_law = law_questions(index, files, sets, args.sample, args.only)
        if args.tune and not any(args.tune.lower() in (d.short_title or d.title).lower() for d, _ in per_law):
            ap.error(f"--tune {args.tune!r} names none of the laws: {[d.short_title or d.title for d, _ in per_law]}")
        seconds = []
        for doc, qs in per_law:
            name = doc.short_title or doc.title
            rows = []
            for i, q in enumerate(qs, 1):
                t0 = time.perf_counter()
                rows.append(run_question(index, answerer, q))
                seconds.append(time.perf_counter() - t0)
                if i % 25 == 0 or i == len(qs):
                    log(f"  {name}: {i}/{len(qs)}")
            tuned = bool(args.tune and args.tune.lower() in name.lower())
            result["laws"][name] = {
                "doc_id": doc.doc_id, "tuned_on": tuned,
                "sets": {s: summarise([r for r in rows if r["set"] == s]) for s in sets
                         if any(r["set"] == s for r in rows)},
                "questions": rows,
            }
    load.append(round(os.getloadavg()[0], 2))
    result["meta"] = {"home": str(home), "sample": args.sample, "sets": sets, "tune": args.tune,
                      "seconds_per_question_median": statistics.median(seconds) if seconds else None,
                      "load": load}
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    print(f"# Title questions — index {home}, sample {args.sample or 'all'}, tuned on {args.tune or '(none)'}")
    print("| law | set | n | first citation in gold | any citation in gold | not found | search R@1 | R@5 |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, law in result["laws"].items():
        tag = " (tuned on)" if law["tuned_on"] else (" (held out)" if args.tune else "")
        for s, f in law["sets"].items():
            print(f"| {name}{tag} | {s} | {f['n']} | {f['first']:.3f} | {f['any']:.3f} | {f['not_found']:.3f} "
                  f"| {f['r1']:.3f} | {f['r5']:.3f} |")
    for name, law in result["laws"].items():
        for s in law["sets"]:
            misses = [r for r in law["questions"] if r["set"] == s and not r["first"]][: args.misses]
            if misses:
                print(f"\nMisses, {name} / {s} (first {len(misses)}):")
                for r in misses:
                    print(f"- {r['question']} gold {r['gold']} rank {r['rank']}: {r['first_citation']}")
    print(f"\nseconds a question (median, shared machine: not a timing): {result['meta']['seconds_per_question_median']:.2f};"
          f" load {load[0]} → {load[1]}")


if __name__ == "__main__":
    main()
