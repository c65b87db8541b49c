"""Questions on texts numbered in sections ("110-26.", "2.3.1"), asked over an index of every shared PDF and law.

`numbered_sections.tsv` holds 32 questions written by a helper that read only two PDFs of ../shared/data/pdfs — the
NOM-001-SEDE's chapter 1 (Spanish: sections "110-1." … "110-79.") and NIST SP 800-30 (English: "2.3.1 RISK
MODELS") — never the code nor an answer, before any was asked: `nom_named` / `nist_named` name a section by its
number, `nom_topic` / `nist_topic` name none. `expected` is the section, `states` words of it that answer.

A question is *right* when a verified citation from that PDF states the words (so a code whose chunks carry no section
key is judged alike); *first* when the first verified citation does; *keyed* when that first citation is the expected
section by its key (`Citation.article`), which only a code that reads sections can give. Each answer is the product's
`ask` (extractive, k 8) over `--home`.

    .venv/bin/python benchmarks/numbered_sections.py --home H      # H: an index of ../shared/data/pdfs + data/laws
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).parent))  # fresh_questions.answered

QUESTIONS = Path(__file__).with_name("numbered_sections.tsv")
FILES = {"nom": "mx_nom-001-sede-2012_capitulo1.pdf", "nist": "us_nist_sp800-30r1.pdf"}


def main() -> None:
    from fresh_questions import answered, arguments

    from ingest.headings import fold

    args = arguments(__doc__, QUESTIONS)

    rows = []
    for q, answer, documents in answered(args.home, args.questions):
        files = {i: Path(d.source_path or "").name for i, d in documents.items()}
        cited = [c for seg in answer.content for c in seg.citations if c.verified]
        source = FILES[q["set"].split("_")[0]]
        states = [files[c.doc_id] == source and fold(q["states"]) in fold(c.cited_text) for c in cited]
        rows.append({**q, "right": any(states), "first": bool(states) and states[0],
                     "keyed": bool(cited) and files[cited[0].doc_id] == source and cited[0].article == q["expected"],
                     "found": answer.found, "cited": [c.label for c in cited][:3]})
    table = {}
    for name in dict.fromkeys(r["set"] for r in rows):
        part = [r for r in rows if r["set"] == name]
        table[name] = {"questions": len(part), **{k: sum(r[k] for r in part) for k in ("right", "first", "keyed")},
                       "not_found": sum(not r["found"] for r in part)}
    if args.json:
        print(json.dumps({"sets": table, "rows": rows}, ensure_ascii=False))
        return
    print("| set | right | first | first, by its key | \"No encontré\" |\n| --- | ---: | ---: | ---: | ---: |")
    for name, t in table.items():
        print(f"| {name} ({t['questions']}) | {t['right']} | {t['first']} | {t['keyed']} | {t['not_found']} |")


if __name__ == "__main__":
    main()
