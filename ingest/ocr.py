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

Tesseract prints its own messages ("Image too small to scale!!", "Line cannot be recognized!!") on the process's
file descriptor 2, under any Python handler. The OCR therefore always runs in a worker process (one page too), whose
descriptor 2 is a file while a page is read: the messages come back with the page and are logged once, on the
`ingest.ocr` logger at WARNING ("page N: …"), in the thread that parses the file, so a caller can show them as that
file's warnings (`gaceta ingest` does) instead of loose lines on the terminal.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

import pymupdf

from ingest.cpus import available_cpus
from ingest.layout import TEXT_FLAGS, Line, extract_lines
from ingest.worker_process import end_with_parent

log = logging.getLogger("ingest.ocr")
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
    """All the cores this process may use (`ingest.cpus.available_cpus`)."""
    return available_cpus()


def ocr_pages(doc: pymupdf.Document, page_nos: Iterable[int], setup: tuple[str, str], workers: int | None = None,
              file_bytes: Callable[[], bytes] | None = None) -> dict[int, list[Line]]:
    """OCR the 1-based `page_nos` of `doc`: {page_no: lines}.

    `workers` processes (default: all cores, at most one a page) open the document from `file_bytes()` (default:
    `doc.tobytes()`). What Tesseract printed while it read a page is logged on `ingest.ocr`, page by page, in order."""
    wanted = sorted(set(page_nos))
    if not wanted:
        return {}
    workers = max(1, min(workers or default_workers(), len(wanted)))
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_open,
                             initargs=((file_bytes or doc.tobytes)(), setup)) as pool:
        results = dict(zip(wanted, pool.map(_worker_ocr, wanted)))
    out: dict[int, list[Line]] = {}
    for pno, (lines, printed) in results.items():
        for message in _messages(printed):
            log.warning("Tesseract, page %d: %s", pno, message)
        out[pno] = lines
    return out


def _messages(printed: str) -> list[str]:
    """A page's printed lines, each once (Tesseract repeats "Line cannot be recognized!!" per line it drops), with
    how many times it came when more than once."""
    counts: dict[str, int] = {}
    for line in printed.splitlines():
        if line.strip():
            counts[line.strip()] = counts.get(line.strip(), 0) + 1
    return [text if n == 1 else f"{text} (×{n})" for text, n in counts.items()]


# --- worker process --------------------------------------------------------------------------------------------

_worker_doc: pymupdf.Document | None = None
_worker_setup: tuple[str, str] | None = None


def _worker_open(data: bytes, setup: tuple[str, str]) -> None:
    """Once per worker: open the document from its bytes; anything a library prints goes to stderr (a worker's
    stdout is the parent's, and `--json` owns it); the worker ends when the process that started it ends."""
    global _worker_doc, _worker_setup
    os.dup2(2, 1)
    end_with_parent()  # a killed parse must not leave its workers waiting for pages forever
    _worker_doc = pymupdf.open(stream=data, filetype="pdf")
    if _worker_doc.needs_pass:
        _worker_doc.authenticate("")
    _worker_setup = setup


def _worker_ocr(page_no: int) -> tuple[list[Line], str]:
    """The page's lines and what was printed on descriptors 1 and 2 while it was read (Tesseract's messages)."""
    if _worker_doc is None or _worker_setup is None:
        raise RuntimeError("OCR worker used before _worker_open ran")
    page = _worker_doc[page_no - 1]
    with tempfile.TemporaryFile() as capture:
        saved = os.dup(2)
        os.dup2(capture.fileno(), 2)
        os.dup2(capture.fileno(), 1)  # stdout is stderr in a worker (`_worker_open`)
        try:
            lines = ocr_lines(page, page_no, _worker_setup)
        finally:
            os.dup2(saved, 2)
            os.dup2(saved, 1)
            os.close(saved)
        capture.seek(0)
        printed = capture.read().decode("utf-8", "replace")
    return lines, printed
