"""Fresh questions a lawyer would ask, over every shared PDF and law (issue 25): right answers, and flags.

`fresh_questions.tsv` holds 432 questions written for issue 25 with the answer noted before they were asked, none
taken from an evaluation set: `laws` (30 on the CPEUM, the Ley de Amparo, Spain's Código Penal, the LSC and the
LEC), `country` (10 that name a country, four about laws the index does not hold), `notices` (12 on gazette
notices, rulings and the Universal Declaration by their titles), `laws_b` (24 more on the same five laws, written
after the rules the first 52 led to, and held out from them: no rule was chosen on them), `laws_c` (25 more,
written and checked against the laws' text before any was asked, held out the same way), `laws_d` (26 more on the
five laws, written the same way on 2026-11-28), `laws_e` (18 on laws no rule was made on: Colombia's Ley 99 de
1993, the GDPR in English, Durango's Ley del Periódico Oficial, the Universal Declaration) and `laws_f` (5 on the
Reglamento of arts. 121-122 of the Ley Federal del Trabajo, written once that day's code was final) and `laws_g` (24
on texts no question had touched: the BOE's Orden EFD/322/2024 and its annexes, Durango's Acuerdo General 01/2021,
more of the GDPR and the Ley de Amparo; written by a helper that read only the PDFs, never the code or an
answer), and `laws_h` (24 written the same way on the texts no question had touched yet: a NOM's first chapter, a
Colombian ANLA auto, a Chilean Supreme Court judgment, the DOF edition of 2024-12-15, a Federal Register proposed rule,
a labour tribunal's bulletin, more of the Orden), and `laws_i` (30 written the same way on the texts still
untouched: the DOF edition of 2023-01-11, the RMF 2025's annexes 13 and 16, a DOF page of health targets, the BOE's
summary and a BOE resolution, the Reglamento of arts. 121-122 LFT, NIST SP 800-30, the OFR's rulemaking guide, a
First Circuit opinion, the Universal Declaration) and `laws_j` (30 written the same way, on provisions in the
middle and back of the laws — the LEC, the LSC, Spain's Código Penal, the CPEUM, the Ley de Amparo, Ley 99, the
GDPR — and on NIST, the DOF lists and Durango's Acuerdo: no rule was made looking at them) and `laws_k` (30 written
the same way on 2026-11-28, fifth session, after that day's relevance rules were written and before they were
measured on it: the five laws' middle and back, Ley 99, the GDPR, and 16 other files; a third long and
conversational, some naming the law or body by its acronym, some with the user's own numbers in them) and `laws_l`
(30 written the same way on 2026-11-29 while the division names were measured, before any was asked: the five laws,
Ley 99, the GDPR, Durango's law and the Reglamento of the LFT; a third short, a third situational, a third naming
the law or court) and `laws_m` (30 written the same way on 2026-11-29, second session, before the law-name rules
of that session were measured on it: the five laws' middle and back, a third short, a third situational, a third
naming the law or court) and `laws_n` (30 written the same way on 2026-11-29, third session, before the annex
rule of that session was measured on it: a dozen on annexes and texts without articles — the Orden's annexes, the
RMF's annexes 13 and 16, two DOF editions, Durango's Acuerdo, the labour bulletin —, the rest on the numbered laws'
middle and back, two on laws not indexed) and `laws_o` (30 written the same way on 2026-12-06 before that day's
code was written: a third short, a third situational, a third naming the law without its article) and `laws_p`
(24 written the same way after that day's rule on a told case was written and before it was measured: every one a
situation told in everyday words, then the question) and `laws_q` (40 written the same way on 2026-12-06, fourth
session, before that session's code: a dozen on the five laws' middle and back, eight on Ley 99, the GDPR, Durango's
law and other texts with articles, eight on texts without articles — annexes, notices, two judgments —, eight told
as a situation, four on laws not indexed; their `doc:` keys set to words of the titles as printed) and `laws_r` (30
written the same way on 2026-12-06, fifth session, after that session's rule on questions asking for several of a
kind was written and before it was measured on them: 15 asking for what a law enumerates, 15 others; the five laws,
Ley 99, the GDPR, Durango's law, the Reglamento of the LFT). `expected` is
`LAW:ARTICLE` (right when a verified citation of that law is that article), `file:PDF|WORDS` (the first
citation's document was ingested from that PDF and a cited span states WORDS: a text whose printed title is no
name to key on, as a NOM chapter's "DISPOSICIONES GENERALES"),
`doc:TITLE WORDS` (right when the first citation's document title holds them), `doc:TITLE WORDS|WORDS OF THE
ANSWER` (and a cited span states those words: a text without articles is answered by the passage, not by the
document) or `none` (no indexed text answers it: right only when the answer says it found nothing); `cited first`:
a right answer whose first verified citation is the expected article. Each answer
is the product's `ask` (extractive, k 8) over `--home`; a flagged answer is one whose coverage says `relevant:
false`.

    .venv/bin/python benchmarks/fresh_questions.py --home H          # H: an index of ../shared/data/pdfs + data/laws
    .venv/bin/python benchmarks/fresh_questions.py --home H --json
    .venv/bin/python benchmarks/fresh_questions.py --home H --questions benchmarks/definitions.tsv  # same columns
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

QUESTIONS = Path(__file__).with_name("fresh_questions.tsv")
LAWS = {"CPEUM": "Constitución Política de los Estados Unidos Mexicanos", "Amparo": "Ley de Amparo",
        "CP": "Código Penal", "LSC": "Ley de Sociedades de Capital", "LEC": "Enjuiciamiento Civil",
        "L99": "LEY 99 DE 1993", "GDPR": "General Data Protection Regulation",
        "DGO": "Ley del Periódico Oficial del Gobierno del Estado de Durango", "DUDH": "Declaración Universal",
        "RLFT": "Reglamento de los Artículos 121 y 122", "ORDEN": "Orden EFD/322/2024"}


def right(expected: str, answer, titles: dict[str, str], files: dict[str, str]) -> bool:
    from ingest.headings import fold

    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    if expected == "none":
        return not answer.found
    if expected.startswith(("file:", "doc:")):  # the first citation's file, or words of its title; what it states
        key, _, rest = expected.partition(":")
        where, _, states = rest.partition("|")
        return (bool(cited) and (files[cited[0].doc_id] == where if key == "file" else where in titles[cited[0].doc_id])
                and any(fold(states) in fold(c.cited_text) for c in cited))
    law, article = expected.split(":")
    return any(LAWS[law] in titles[c.doc_id] and c.article == article for c in cited)


def first(expected: str, answer, titles: dict[str, str]) -> bool:
    """Is the answer led by the provision that answers it: its first verified citation the expected article? (A
    `file:`, `doc:` or `none` question: as `right`, which already reads the first citation.) A right answer that
    quotes another provision first leads the reader to the wrong rule."""
    if ":" not in expected or expected.startswith(("file:", "doc:")):
        return True
    law, article = expected.split(":")
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    return bool(cited) and LAWS[law] in titles[cited[0].doc_id] and cited[0].article == article


def answered(home: Path, tsv: Path):
    """Each question of `tsv` (tab-separated, a `question` column) with the product's answer over the index at `home`
    (`ask`: extractive, k 8, offline judge), and the index's documents by id."""
    from retrieval.answers import ask
    from retrieval.index import Index
    from retrieval.settings import Settings

    with tsv.open(encoding="utf-8") as fh:
        questions = list(csv.DictReader(fh, delimiter="\t"))
    settings = Settings(home=home, answerer="extractive", judge="offline", _env_file=None)
    with Index.open(settings) as index:
        documents = {d.doc_id: d for d in index.document_infos()}
        for q in questions:
            yield q, ask(index, q["question"], k=8, settings=settings), documents


def arguments(doc: str, questions: Path) -> argparse.Namespace:
    """`--home H` (an index of the shared PDFs and laws), `--questions TSV` (default `questions`) and `--json`,
    described by the script's docstring `doc`."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--home", type=Path, required=True, help="an index of the shared PDFs and laws (GACETA_HOME)")
    ap.add_argument("--questions", type=Path, default=questions, help=f"the questions (default {questions.name})")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout, with every question")
    return ap.parse_args()


def main() -> None:
    args = arguments(__doc__, QUESTIONS)

    rows = []
    for q, answer, documents in answered(args.home, args.questions):
        titles = {i: f"{d.short_title or ''} {d.title}" for i, d in documents.items()}
        files = {i: Path(d.source_path or "").name for i, d in documents.items()}
        cited = [c for seg in answer.content for c in seg.citations if c.verified]
        hit = right(q["expected"], answer, titles, files)
        rows.append({**q, "right": hit, "first": hit and first(q["expected"], answer, titles),
                     "flagged": not answer.coverage.relevant, "relevance": answer.coverage.relevance,
                     "reasons": answer.coverage.relevance_reasons,
                     "found": answer.found, "cited": [c.label for c in cited][:3]})
    table = {}
    for name in dict.fromkeys(r["set"] for r in rows):
        part = [r for r in rows if r["set"] == name]
        hits, misses = [r for r in part if r["right"]], [r for r in part if not r["right"]]
        table[name] = {"questions": len(part), "right": len(hits), "cited_first": sum(r["first"] for r in part),
                       "misses_flagged": sum(r["flagged"] for r in misses),
                       "misses": len(misses), "hits_flagged": sum(r["flagged"] for r in hits)}
    if args.json:
        print(json.dumps({"sets": table, "rows": rows}, ensure_ascii=False))
        return
    print("| set | right | cited first | misses flagged | hits flagged |\n| --- | ---: | ---: | ---: | ---: |")
    for name, t in table.items():
        print(f"| {name} ({t['questions']}) | {t['right']} | {t['cited_first']} "
              f"| {t['misses_flagged']} / {t['misses']} | {t['hits_flagged']} / {t['right']} |")
    for r in rows:
        if not r["right"] or r["flagged"]:
            print(f"- {'right' if r['right'] else 'MISS'}{', flagged' if r['flagged'] else ''} "
                  f"({r['expected']}): {r['question']} → {'; '.join(r['cited']) or 'nothing cited'}")


if __name__ == "__main__":
    main()
