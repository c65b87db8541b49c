"""What setting other countries' documents aside costs a search (issue 25: a question that names one country).

`legal_search.first_stage` leaves the documents of other countries out of the first stage the way the superseded
versions of a law are left out: a `must_not` on `doc_id` (`Search.set_aside`). This times `Index.search_many` on one
query with N document ids set aside (ids that are not in the index, so the hits are the same: only the filter's cost
is measured), median of `--reps` runs each, against the same search with none.

    .venv/bin/python benchmarks/country_scope.py --home H
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, required=True, help="an index (GACETA_HOME) to search")
    ap.add_argument("--query", default="¿Cuáles son las obligaciones de los mexicanos?")
    ap.add_argument("--sizes", type=int, nargs="+", default=[0, 1_000, 10_000, 100_000])
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()

    from retrieval.index import Index, Search
    from retrieval.settings import Settings

    with Index.open(Settings(home=args.home, _env_file=None)) as index:
        index.search_many([Search(args.query, 30)])  # the query's vector cached, the store warm
        print(f"{'set aside':>10} {'ms a search':>12}")
        for n in args.sizes:
            aside = tuple(f"{i:012x}-not-indexed" for i in range(n))
            times = []
            for _ in range(args.reps):
                start = time.perf_counter()
                index.search_many([Search(args.query, 30, set_aside=aside)])
                times.append(time.perf_counter() - start)
            print(f"{n:>10,} {statistics.median(times) * 1000:>12.1f}")


if __name__ == "__main__":
    main()
