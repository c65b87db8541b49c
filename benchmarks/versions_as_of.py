"""The version in force answers (issue 24, "How we measure"): two versions each of the Ley de Amparo and the
Constitution in one index; for each article the two versions word differently (`retrieval.article_history.law_diff`,
itself checked against a plain text diff of the PDFs in tests/retrieval/test_article_history.py), the question
"¿Qué establecía el artículo N de la <ley>?" asked with `as_of` a day under the earlier version must cite that
version's article N and no other version; asked without `as_of`, the latest version's. Articles whose wording did
not change (every --stride-th) are asked both ways too: each answer must cite the version in force on its day.

An answer counts when it is found, its first verified citation is article N of the expected version, and no
citation is of another version of the law. Also printed: search latency with `as_of` against without (the same
questions, `legal_search`, median of --repeat runs; timing to be taken alone).

    .venv/bin/python benchmarks/versions_as_of.py --home /tmp/versions-home            # builds it when empty
    .venv/bin/python benchmarks/versions_as_of.py --home /tmp/versions-home --with-pdfs  # plus all of data/pdfs
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from benchmarks.legal_qa import SHARED, ensure_index, log  # noqa: E402

VERSIONS = [SHARED / "data" / "laws" / "mx_ley_de_amparo_DOF_2025-03-13.pdf",
            SHARED / "data" / "pdfs" / "mx_ley_de_amparo.pdf",
            SHARED / "data" / "laws" / "mx_ley_CPEUM_constitucion_politica_DOF_2025-04-15.pdf",
            SHARED / "data" / "pdfs" / "mx_ley_CPEUM_constitucion_politica.pdf"]
LAWS = {"Ley de Amparo": "de la Ley de Amparo", "CPEUM": "de la Constitución Política de los Estados Unidos Mexicanos"}


def _judge(answer, key: str, want: str, others: set[str]) -> bool:
    cited = [c for s in answer.content for c in s.citations if c.verified]
    return bool(answer.found and cited and cited[0].doc_id == want and cited[0].article == key
                and not any(c.doc_id in others for c in cited))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--with-pdfs", action="store_true", help="Index all of data/pdfs beside the four versions.")
    parser.add_argument("--stride", type=int, default=10, help="Ask about every N-th unchanged article.")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from retrieval.answers.pipeline import ask
    from retrieval.article_history import find_law, law_diff
    from retrieval.index import Index
    from retrieval.legal_search import legal_search
    from retrieval.models import SearchFilters
    from retrieval.settings import Settings

    files = VERSIONS + (sorted((SHARED / "data" / "pdfs").glob("*.pdf")) if args.with_pdfs else [])
    ensure_index(args.home, list(dict.fromkeys(files)), False, {})
    rows, timings = [], {"without": [], "with": []}
    with Index.open(Settings(home=args.home)) as index:
        for law_name, spelled in LAWS.items():
            law, versions = find_law(index, law_name)
            old, new = versions[-2], versions[-1]
            before_day = old.version_date + dt.timedelta(days=1)
            diff = law_diff(index, law, versions)
            every = [c.article for c in index.articles(new.doc_id)]
            unchanged = [k for k in dict.fromkeys(every) if k not in diff.changed and k not in diff.added]
            for kind, keys in (("changed", diff.changed), ("unchanged", unchanged[::args.stride])):
                for key in keys:
                    question = f"¿Qué establecía el artículo {key} {spelled}?"
                    for when, day, want, other in (("before", before_day, old, new), ("today", None, new, old)):
                        filters = SearchFilters(as_of=day) if day else None
                        answer = ask(index, question, filters=filters, answerer="extractive")
                        ok = _judge(answer, key, want.doc_id, {other.doc_id})
                        rows.append({"law": law.name, "kind": kind, "article": key, "when": when, "ok": ok})
                        if not ok:
                            first = next((c.label for s in answer.content for c in s.citations), None)
                            log(f"miss: {law.name} art. {key} ({when}): first citation {first}")
            questions = [f"¿Qué establecía el artículo {k} {spelled}?" for k in diff.changed[:20]]
            for _ in range(args.repeat):
                for label, filters in (("without", None), ("with", SearchFilters(as_of=before_day))):
                    start = time.perf_counter()
                    for q in questions:
                        legal_search(index, q, k=8, filters=filters)
                    timings[label].append((time.perf_counter() - start) / len(questions))
    summary = {}
    for law_name in dict.fromkeys(r["law"] for r in rows):
        for kind in ("changed", "unchanged"):
            for when in ("before", "today"):
                got = [r["ok"] for r in rows if r["law"] == law_name and r["kind"] == kind and r["when"] == when]
                if got:
                    summary[f"{law_name} | {kind} | {when}"] = (sum(got), len(got))
    ratio = statistics.median(timings["with"]) / statistics.median(timings["without"])
    if args.json:
        print(json.dumps({"summary": {k: {"ok": a, "n": n} for k, (a, n) in summary.items()},
                          "search_ms": {k: round(statistics.median(v) * 1000, 1) for k, v in timings.items()},
                          "as_of_ratio": round(ratio, 2), "rows": rows}, ensure_ascii=False, indent=2))
        return
    print(f"{'law | articles | asked':55} {'right':>7} {'share':>6}")
    for key, (ok, n) in summary.items():
        print(f"{key:55} {ok:>3}/{n:<3} {ok / n:6.3f}")
    print(f"legal_search median per question: without as_of {statistics.median(timings['without']) * 1000:.0f} ms, "
          f"with {statistics.median(timings['with']) * 1000:.0f} ms (× {ratio:.2f}; timing to be taken alone)")


if __name__ == "__main__":
    main()
