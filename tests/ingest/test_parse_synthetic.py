"""Edge cases on small PDFs built on the fly with PyMuPDF, and OCR unavailability through real configuration."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from ingest.models import ParseStatus
from ingest.parse import parse_pdf
from tests.conftest import pdf

LOREM = ("La autoridad competente resolverá las solicitudes dentro del plazo que fije el reglamento y notificará "
         "su resolución por escrito a la parte interesada en el domicilio que haya señalado para tal efecto. ")


def _save(doc: pymupdf.Document, path: Path) -> Path:
    doc.save(path)
    doc.close()
    return path


def test_heading_as_the_last_line_and_an_empty_page(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "CAPÍTULO I", fontname="hebo", fontsize=11)
    page.insert_text((72, 112), "Artículo 1.-", fontname="hebo", fontsize=10)
    page.insert_text((136, 112), "La autoridad competente resolverá las solicitudes.", fontname="helv", fontsize=10)
    page.insert_textbox(pymupdf.Rect(72, 118, 540, 400), LOREM * 3, fontname="helv", fontsize=10)
    page.insert_text((72, 700), "CAPÍTULO II", fontname="hebo", fontsize=11)
    doc.new_page()  # empty page
    result = parse_pdf(_save(doc, tmp_path / "last_heading.pdf"))
    assert result.ok, result.message
    (legal,) = result.documents
    assert [(h.kind, h.text) for h in legal.headings] == [
        ("capitulo", "CAPÍTULO I"), ("articulo", "Artículo 1.-"), ("capitulo", "CAPÍTULO II")]
    assert legal.markdown.endswith("## CAPÍTULO II")
    assert [h.level for h in legal.headings] == [2, 3, 2]
    assert legal.pdf_pages == (1, 1)


def test_a_file_of_empty_pages_is_empty(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page()
    doc.new_page()
    result = parse_pdf(_save(doc, tmp_path / "blank.pdf"))
    assert result.status is ParseStatus.empty and not result.documents


def test_zero_byte_file_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "zero.pdf"
    path.write_bytes(b"")
    assert parse_pdf(path).status is ParseStatus.empty


def test_truncated_pdf_is_unreadable_not_an_exception(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    result = parse_pdf(path)
    assert result.status in (ParseStatus.unreadable, ParseStatus.empty) and result.message


def test_three_column_page_reads_column_by_column(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Federal Register / Vol. 1 / Three columns", fontname="helv", fontsize=9)
    columns = []
    for c, x in enumerate((40, 225, 410)):
        text = " ".join(f"col{c}word{i}" for i in range(120))
        page.insert_textbox(pymupdf.Rect(x, 90, x + 165, 760), text, fontname="helv", fontsize=9)
        columns.append(text)
    result = parse_pdf(_save(doc, tmp_path / "three_columns.pdf"))
    md = result.documents[0].markdown
    words = [w for w in md.split() if w.startswith("col") and "word" in w]
    expected = [w for text in columns for w in text.split()]
    assert words == expected


def _ruled_table(page: pymupdf.Page, top: float, rows: list[list[str]]) -> None:
    xs = [72, 150, 400, 520]
    height = 18
    for r, row in enumerate(rows):
        y = top + r * height
        for c, cell in enumerate(row):
            page.insert_text((xs[c] + 4, y + 13), cell, fontname="helv", fontsize=9)
    bottom = top + len(rows) * height
    for r in range(len(rows) + 1):
        page.draw_line((xs[0], top + r * height), (xs[-1], top + r * height), width=0.6)
    for x in xs:
        page.draw_line((x, top), (x, bottom), width=0.6)


def test_a_table_spanning_two_pages_is_one_markdown_table(tmp_path: Path) -> None:
    header = ["Núm.", "Aspirante", "Expediente"]
    doc = pymupdf.open()
    p1 = doc.new_page()
    p1.insert_text((72, 80), "LISTADO DE PERSONAS ELEGIBLES", fontname="hebo", fontsize=10)
    _ruled_table(p1, 100, [header] + [[str(i), f"PERSONA {i}", f"{i}/2024"] for i in range(1, 31)])
    p2 = doc.new_page()
    _ruled_table(p2, 60, [header] + [[str(i), f"PERSONA {i}", f"{i}/2024"] for i in range(31, 41)])
    p2.insert_text((72, 300), "Fin del listado.", fontname="helv", fontsize=10)
    result = parse_pdf(_save(doc, tmp_path / "table.pdf"))
    md = result.documents[0].markdown
    assert md.count("| Núm. | Aspirante | Expediente |") == 1
    table = md[md.index("| Núm."): md.index("Fin del listado.")].strip().splitlines()
    assert len(table) == 2 + 40
    assert table[2] == "| 1 | PERSONA 1 | 1/2024 |" and table[-1] == "| 40 | PERSONA 40 | 40/2024 |"
    spans = {s.page: s for s in result.documents[0].page_spans}
    assert md[spans[2].start:].startswith("| 31 | PERSONA 31 | 31/2024 |")


@pytest.fixture
def no_tessdata(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path / "no-tessdata-here"))


def test_missing_tesseract_data_gives_scanned_no_ocr(no_tessdata: None) -> None:
    result = parse_pdf(pdf("scan_us_tn_workers_comp_appeals_opinion.pdf"))
    assert result.status is ParseStatus.scanned_no_ocr
    assert "Tesseract" in result.message and not result.documents


def test_a_ligature_the_font_sets_is_read_as_its_letters(tmp_path: Path) -> None:
    """MuPDF's Story sets "fi" and "fl" as one ligature glyph, as many producers' fonts do; read as "ﬁ" (U+FB01) the
    word "oﬁciales" is not the "oficiales" a user types nor a BM25 term of it."""
    text = "Artículo 1.- Las normas oficiales fijan el flujo de los fondos financieros de la Federación."
    story = pymupdf.Story(f"<p>{text}</p>", user_css="body{font-family:sans-serif;font-size:10pt}")
    path = tmp_path / "ligatures.pdf"
    writer = pymupdf.DocumentWriter(str(path))
    device = writer.begin_page(pymupdf.paper_rect("letter"))
    story.place(pymupdf.paper_rect("letter") + (72, 72, -72, -72))
    story.draw(device)
    writer.end_page()
    writer.close()
    with pymupdf.open(path) as doc:  # the page does hold ligature glyphs: what MuPDF preserves unless told not to
        assert "\ufb01" in doc[0].get_text(flags=pymupdf.TEXTFLAGS_TEXT)
    (legal,) = parse_pdf(path).documents
    assert "normas oficiales fijan el flujo de los fondos financieros" in " ".join(legal.markdown.split())
    assert not any("\ufb00" <= ch <= "\ufb06" for ch in legal.markdown)
