"""OCR of scanned pages through PyMuPDF's built-in Tesseract, pages in parallel on a process pool.

MuPDF links Tesseract itself and needs only its language data (`tessdata`, from Debian's `tesseract-ocr-spa` /
`tesseract-ocr-eng` or `TESSDATA_PREFIX`). When that data is missing, OCR is unavailable and the caller reports
`scanned_no_ocr` instead of silently skipping the file.

PyMuPDF does not support threads ("may cause incorrect behaviour or even crash Python", its multiprocessing recipe)
and its objects cannot be pickled, so `ocr_pages` hands the file's bytes to worker processes, each of which opens the
document once and OCRs the pages it is given. Workers start from a fresh interpreter (forkserver, never a fork of a
threaded server or flow process). A page's OCR depends only on the page, so the result is the same whatever the
number of workers; results come back keyed by page number. As with any forkserver or spawn pool, the workers import
the caller's main module: a script that parses scans must keep its work under `if __name__ == "__main__":`.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

import pymupdf

from ingest.layout import TEXT_FLAGS, Line, extract_lines

WANTED_LANGUAGES = ("spa", "eng")
OCR_DPI = 300


@lru_cache(maxsize=8)
def _languages_in(tessdata: str) -> tuple[str, ...]:
    folder = Path(tessdata)
    return tuple(lang for lang in WANTED_LANGUAGES if (folder / f"{lang}.traineddata").is_file())


def ocr_setup() -> tuple[str, str] | None:
    """(tessdata folder, "spa+eng") when OCR can run, else None. Honours TESSDATA_PREFIX like Tesseract does."""
    try:
        tessdata = pymupdf.get_tessdata(os.environ.get("TESSDATA_PREFIX"))
    except (RuntimeError, OSError, ValueError):
        return None
    if not tessdata:
        return None
    languages = _languages_in(str(tessdata))
    return (str(tessdata), "+".join(languages)) if languages else None


def looks_scanned(page: pymupdf.Page) -> bool:
    """A page that shows an image covering a good part of it (a scan, with or without a text layer)."""
    area = abs(page.rect)
    for info in page.get_image_info():
        if abs(pymupdf.Rect(info["bbox"]) & page.rect) > 0.2 * area:
            return True
    return False


def ocr_textpage(page: pymupdf.Page, setup: tuple[str, str]) -> pymupdf.TextPage:
    """A TextPage built by OCR of the whole page (text then extracted like any other page)."""
    tessdata, language = setup
    return page.get_textpage_ocr(flags=TEXT_FLAGS, language=language, dpi=OCR_DPI, full=True, tessdata=tessdata)


def ocr_lines(page: pymupdf.Page, page_no: int, setup: tuple[str, str]) -> list[Line]:
    """The lines of `page` as OCR reads them (the page's own text layer is ignored: `full=True`)."""
    return extract_lines(page, page_no, ocr_textpage(page, setup))


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def ocr_pages(doc: pymupdf.Document, page_nos: Iterable[int], setup: tuple[str, str], workers: int | None = None,
              file_bytes: Callable[[], bytes] | None = None) -> dict[int, list[Line]]:
    """OCR the 1-based `page_nos` of `doc`: {page_no: lines}.

    `workers` processes (default: all cores) open the document from `file_bytes()` (default: `doc.tobytes()`); with
    one worker, or one page, the pages are read here in order."""
    wanted = sorted(set(page_nos))
    workers = min(workers or default_workers(), len(wanted))
    if workers <= 1:
        out: dict[int, list[Line]] = {}
        for pno in wanted:
            page = doc[pno - 1]  # held: the TextPage refers back to its page
            out[pno] = ocr_lines(page, pno, setup)
        return out
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_open,
                             initargs=((file_bytes or doc.tobytes)(), setup)) as pool:
        return dict(zip(wanted, pool.map(_worker_ocr, wanted)))


# --- worker process --------------------------------------------------------------------------------------------

_worker_doc: pymupdf.Document | None = None
_worker_setup: tuple[str, str] | None = None


def _worker_open(data: bytes, setup: tuple[str, str]) -> None:
    """Once per worker: open the document from its bytes; anything a library prints goes to stderr (a worker's
    stdout is the parent's, and `--json` owns it); the worker ends when the process that started it ends."""
    global _worker_doc, _worker_setup
    os.dup2(2, 1)
    parent = multiprocessing.parent_process()
    if parent is not None:  # a killed parse must not leave its workers waiting for pages forever
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()
    _worker_doc = pymupdf.open(stream=data, filetype="pdf")
    if _worker_doc.needs_pass:
        _worker_doc.authenticate("")
    _worker_setup = setup


def _exit_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(1)


def _worker_ocr(page_no: int) -> list[Line]:
    if _worker_doc is None or _worker_setup is None:
        raise RuntimeError("OCR worker used before _worker_open ran")
    page = _worker_doc[page_no - 1]
    return ocr_lines(page, page_no, _worker_setup)
