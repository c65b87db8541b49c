"""Parsing speed: full parse + structure + chunk path against raw `page.get_text("dict")` on the same DOF pages.

Run: .venv/bin/python benchmarks/parse.py [--repeat N] [PDF ...]   (default: every dof_*.pdf in ../shared/data/pdfs)
Prints pages/s for both paths and their ratio (goal ≥ 0.5). Each file runs raw then full, `--repeat` times (default
3), and the fastest run of each counts: on a shared 2-core VM one run of either path can take 1.3× another. Raw
extraction runs on a freshly opened document so neither path profits from the other's caches. OCR stays out: the
DOF files have text layers.
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

from ingest.parse import parse_pdf  # noqa: E402

PDFS = Path(os.environ.get("GACETA_SHARED", ROOT.parent / "shared")) / "data" / "pdfs"


def count_tokens(text: str) -> int:
    return len(text.split())


def raw_dict(path: Path) -> tuple[int, float]:
    start = time.perf_counter()
    with pymupdf.open(path) as doc:
        for page in doc:
            page.get_text("dict")
        pages = doc.page_count
    return pages, time.perf_counter() - start


def full_path(path: Path) -> tuple[int, int, int, float]:
    try:
        from ingest.chunker import chunk_document
    except ImportError:  # the chunker lands separately; parse + structure are still measured
        chunk_document = None
    start = time.perf_counter()
    result = parse_pdf(path)
    chunks = 0
    if chunk_document is not None:
        for doc in result.documents:
            chunks += len(chunk_document(doc, count_tokens, 256))
    return result.source.pages, len(result.documents), chunks, time.perf_counter() - start


def main(paths: list[Path], repeat: int) -> None:
    total_pages = total_raw = total_full = 0.0
    print(f"{'file':52} {'pages':>5} {'raw p/s':>8} {'full p/s':>8} {'ratio':>6} {'docs':>4} {'chunks':>6}")
    for path in paths:
        t_raw = t_full = float("inf")
        for _ in range(repeat):
            pages, raw = raw_dict(path)
            _, docs, chunks, full = full_path(path)
            t_raw, t_full = min(t_raw, raw), min(t_full, full)
        total_pages += pages
        total_raw += t_raw
        total_full += t_full
        print(f"{path.name[:52]:52} {pages:5d} {pages / t_raw:8.1f} {pages / t_full:8.1f} {t_raw / t_full:6.2f} "
              f"{docs:4d} {chunks:6d}")
    print(f"{'TOTAL':52} {int(total_pages):5d} {total_pages / total_raw:8.1f} {total_pages / total_full:8.1f} "
          f"{total_raw / total_full:6.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each path per file; the fastest counts")
    parser.add_argument("pdfs", type=Path, nargs="*", help="PDFs (default: every dof_*.pdf of the shared set)")
    args = parser.parse_args()
    main(args.pdfs or sorted(PDFS.glob("dof_*.pdf")), max(args.repeat, 1))
