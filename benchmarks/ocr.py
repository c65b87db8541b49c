"""OCR speed: pages per second on the shared scans with 1 worker and with every core, in one run.

Run: .venv/bin/python benchmarks/ocr.py [--workers N] [--repeat R] [PDF ...]
     (default: the scan_* and ocrjunk_* files of ../shared/data/pdfs, N = every core, R = 1)
The scans' pages are OCR'd through `ingest.ocr.ocr_pages` exactly as `parse_pdf` does (one call per file), first on
one worker, then on N; the two runs alternate file by file so a change in machine load hits both. Prints pages/s of
each, their ratio and the machine's load average, and checks that both read the same text (the output does not
depend on the worker count). A one-page file runs on one worker either way.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ingest import ocr  # noqa: E402

PDFS = ROOT.parent / "shared" / "data" / "pdfs"


def ocr_file(path: Path, setup: tuple[str, str], workers: int) -> tuple[int, float, list[list[str]]]:
    """OCR every page of `path` on `workers` processes: (pages, wall seconds, text of each page)."""
    data = path.read_bytes()
    start = time.perf_counter()
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        pages = list(range(1, doc.page_count + 1))
        lines = ocr.ocr_pages(doc, pages, setup, workers, file_bytes=lambda: data)
    seconds = time.perf_counter() - start
    return len(pages), seconds, [[ln.text for ln in lines[p]] for p in pages]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdfs", nargs="*", type=Path)
    parser.add_argument("--workers", type=int, default=ocr.default_workers())
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    paths = args.pdfs or sorted([*PDFS.glob("scan_*.pdf"), *PDFS.glob("ocrjunk_*.pdf")])
    setup = ocr.ocr_setup()
    if not setup:
        print("Tesseract language data missing (install tesseract-ocr-spa, tesseract-ocr-eng)", file=sys.stderr)
        return 1
    n = args.workers
    totals = {"1": [0, 0.0], "n": [0, 0.0]}
    same = True
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'file':50} {'pages':>5} {'1 worker p/s':>12} {f'{n} workers p/s':>14} {'ratio':>6}")
    for _ in range(args.repeat):
        for path in paths:
            pages, t1, text1 = ocr_file(path, setup, 1)
            _, tn, textn = ocr_file(path, setup, n)
            same &= text1 == textn
            for key, seconds in (("1", t1), ("n", tn)):
                totals[key][0] += pages
                totals[key][1] += seconds
            print(f"{path.name[:50]:50} {pages:5d} {pages / t1:12.3f} {pages / tn:14.3f} {t1 / tn:6.2f}")
    (p1, s1), (pn, sn) = totals["1"], totals["n"]
    print(f"{'total':50} {p1:5d} {p1 / s1:12.3f} {pn / sn:14.3f} {s1 / sn:6.2f}")
    print(f"load average after: {os.getloadavg()[0]:.2f} (other processes compete for the cores when it exceeds "
          f"{os.cpu_count()})")
    print(f"same text with 1 and {args.workers} workers: {same}")
    return 0 if same else 2


if __name__ == "__main__":
    sys.exit(main())
