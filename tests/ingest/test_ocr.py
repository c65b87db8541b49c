"""OCR of scans and of junk text layers, pages in parallel, on real scanned pages.

The PDFs built here are bands cut from the shared scans (real scanned text, a fraction of a page each, so OCR takes
seconds); the clipping with the junk OCR layer is the shared file itself.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from ingest import ocr, text_quality
from ingest.layout import extract_lines
from ingest.parse import parse_pdf
from tests.conftest import pdf
from tests.ingest.parsed_cache import parsed

SCAN = "scan_mx_durango_acuerdo_covid19.pdf"
CLIPPING = "ocrjunk_us_fr_50th_anniversary_clipping_1985.pdf"
# What an OCR engine that lost the content words leaves behind (the clipping's layer reads like this).
JUNK_LAYER = "the of a to is that in the of ahas ft the a to I on N. in his to the ton he In the of the ister. a in"


def _bands(path: Path, pages: list[int], top: float = 0.3, bottom: float = 0.5) -> Path:
    """A PDF whose pages are horizontal bands of the shared scan's `pages` (1-based)."""
    with pymupdf.open(pdf(SCAN)) as src, pymupdf.open() as out:
        for pno in pages:
            r = src[pno - 1].rect
            clip = pymupdf.Rect(r.x0, r.y0 + top * r.height, r.x1, r.y0 + bottom * r.height)
            page = out.new_page(width=clip.width, height=clip.height)
            page.show_pdf_page(page.rect, src, pno - 1, clip=clip)
        out.save(path)
    return path


def test_same_output_whatever_the_number_of_workers(tmp_path: Path) -> None:
    path = _bands(tmp_path / "bands.pdf", [2, 3, 4])
    one = parse_pdf(path, ocr_workers=1)
    many = parse_pdf(path, ocr_workers=3)
    assert one.ok and many.ok, (one.message, many.message)
    assert one.ocr_pages == many.ocr_pages == [1, 2, 3]
    assert [d.markdown for d in one.documents] == [d.markdown for d in many.documents]
    assert [d.title for d in one.documents] == [d.title for d in many.documents]
    text = " ".join(d.markdown for d in one.documents)
    assert len(text.split()) > 60 and text_quality.quality(text).score > 0.8


def test_the_pool_returns_every_page_keyed_by_number(tmp_path: Path) -> None:
    path = _bands(tmp_path / "bands.pdf", [5, 6], top=0.4, bottom=0.5)
    setup = ocr.ocr_setup()
    assert setup, "Tesseract language data must be installed (tesseract-ocr-spa, tesseract-ocr-eng)"
    with pymupdf.open(path) as doc:
        serial = ocr.ocr_pages(doc, [2, 1], setup, workers=1)
        pooled = ocr.ocr_pages(doc, [1, 2], setup, workers=2, file_bytes=path.read_bytes)
    assert list(serial) == list(pooled) == [1, 2]
    assert {p: [ln.text for ln in lines] for p, lines in serial.items()} == \
        {p: [ln.text for ln in lines] for p, lines in pooled.items()}
    assert all(ln.page == p for p, lines in pooled.items() for ln in lines)


def _scan_with_layer(path: Path, layer: str, visible: bool) -> Path:
    """One band of the scan with a text layer drawn over it: invisible (as OCR engines do) or visible."""
    band = _bands(path.with_suffix(".band.pdf"), [2])
    with pymupdf.open(band) as doc:
        page = doc[0]
        box = pymupdf.Rect(10, 10, page.rect.width - 10, page.rect.height - 10)
        page.insert_textbox(box, layer, fontsize=9, render_mode=0 if visible else 3)
        doc.save(path)
    return path


def test_a_junk_ocr_layer_is_replaced_by_ocr(tmp_path: Path) -> None:
    with pymupdf.open(_scan_with_layer(tmp_path / "junk.pdf", JUNK_LAYER, visible=False)) as doc:
        layer = "\n".join(ln.text for ln in extract_lines(doc[0], 1))
    assert "ahas" in layer
    result = parse_pdf(tmp_path / "junk.pdf", ocr_workers=1)
    assert result.ok and result.ocr_pages == [1]
    md = result.documents[0].markdown
    assert "ahas" not in md and text_quality.quality(md).score > text_quality.quality(layer).score


def test_good_text_over_an_image_is_kept(tmp_path: Path) -> None:
    prose = ("El Pleno del Tribunal Superior de Justicia acuerda la suspensión de los términos procesales y de las "
             "actividades jurisdiccionales y administrativas de la segunda instancia durante la contingencia.")
    result = parse_pdf(_scan_with_layer(tmp_path / "good.pdf", prose, visible=True), ocr_workers=1)
    assert result.ok and result.ocr_pages == []
    assert "suspensión de los términos procesales" in result.documents[0].markdown


def test_junk_layer_without_tesseract_data_is_kept_with_a_warning(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = _scan_with_layer(tmp_path / "junk.pdf", JUNK_LAYER, visible=False)
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path / "no-tessdata-here"))
    result = parse_pdf(path)
    assert result.ok and result.ocr_pages == []
    assert any("OCR junk" in w and "Tesseract" in w for w in result.warnings), result.warnings


def test_the_junk_layer_clipping_is_ocrd_and_its_title_is_words() -> None:
    result = parsed(CLIPPING)
    assert result.ok and result.ocr_pages == [1], result.warnings
    (doc,) = result.documents
    assert text_quality.is_words(doc.title) and "Federal Register" in doc.title, doc.title
    with pymupdf.open(pdf(CLIPPING)) as src:
        layer = src[0].get_text()
    assert text_quality.quality(doc.markdown).score > text_quality.quality(layer).score
    assert "Griswold" in doc.markdown  # a content word the junk layer never had
    assert "Griswold" not in layer
