"""Parsing speed: full parse + structure + chunk path against raw `page.get_text("dict")` on the same DOF pages.

Run: .venv/bin/python benchmarks/parse.py [PDF ...]   (default: every dof_*.pdf in ../shared/data/pdfs)
Prints pages/s for both paths and their ratio (goal ≥ 0.5). One run each; raw extraction runs first on a freshly
opened document so neither path profits from the other's caches. OCR stays out: the DOF files have text layers.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ingest.parse import parse_pdf  # noqa: E402

PDFS = ROOT.parent / "shared" / "data" / "pdfs"


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


def main(paths: list[Path]) -> None:
    total_pages = total_raw = total_full = 0.0
    print(f"{'file':52} {'pages':>5} {'raw p/s':>8} {'full p/s':>8} {'ratio':>6} {'docs':>4} {'chunks':>6}")
    for path in paths:
        pages, t_raw = raw_dict(path)
        _, docs, chunks, t_full = full_path(path)
        total_pages += pages
        total_raw += t_raw
        total_full += t_full
        print(f"{path.name[:52]:52} {pages:5d} {pages / t_raw:8.1f} {pages / t_full:8.1f} {t_raw / t_full:6.2f} "
              f"{docs:4d} {chunks:6d}")
    print(f"{'TOTAL':52} {int(total_pages):5d} {total_pages / total_raw:8.1f} {total_pages / total_full:8.1f} "
          f"{total_raw / total_full:6.2f}")


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]] or sorted(PDFS.glob("dof_*.pdf"))
    main(args)
