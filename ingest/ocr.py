"""OCR of scanned pages through PyMuPDF's built-in Tesseract, only where a page has no text layer.

MuPDF links Tesseract itself and needs only its language data (`tessdata`, from Debian's `tesseract-ocr-spa` /
`tesseract-ocr-eng` or `TESSDATA_PREFIX`). When that data is missing, OCR is unavailable and the caller reports
`scanned_no_ocr` instead of silently skipping the file.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import pymupdf

from ingest.layout import TEXT_FLAGS

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
    """A page without text that shows an image covering a good part of it."""
    area = abs(page.rect)
    for info in page.get_image_info():
        if abs(pymupdf.Rect(info["bbox"]) & page.rect) > 0.2 * area:
            return True
    return False


def ocr_textpage(page: pymupdf.Page, setup: tuple[str, str]) -> pymupdf.TextPage:
    """A TextPage built by OCR of the whole page (text then extracted like any other page)."""
    tessdata, language = setup
    return page.get_textpage_ocr(flags=TEXT_FLAGS, language=language, dpi=OCR_DPI, full=True, tessdata=tessdata)
