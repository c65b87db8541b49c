"""Every shared PDF ends with documents or its own specific status, and none raises."""

from __future__ import annotations

import pytest

from ingest.models import ParseStatus
from tests.conftest import PDFS
from tests.ingest.parsed_cache import parsed

PDF_NAMES = sorted(p.name for p in PDFS.glob("*.pdf")) if PDFS.is_dir() else []
EXPECTED_STATUS = {
    "malformed_encrypted_password_test.pdf": ParseStatus.encrypted,
    "malformed_not_a_pdf_json_named_dof.pdf": ParseStatus.not_pdf,
    "us_sdny_filing_unmapped_font_encoding.pdf": ParseStatus.garbled,
}
SCANS = ["scan_mx_durango_acuerdo_covid19.pdf", "scan_co_scaav_00182_formulario.pdf",
         "scan_us_tn_workers_comp_appeals_opinion.pdf"]


def test_all_34_shared_pdfs_are_present() -> None:
    assert len(PDF_NAMES) == 34, PDF_NAMES


@pytest.mark.parametrize("name", PDF_NAMES)
def test_each_file_ends_with_documents_or_its_specific_status(name: str) -> None:
    result = parsed(name)
    expected = EXPECTED_STATUS.get(name, ParseStatus.ok)
    assert result.status is expected, f"{name}: {result.status.value} {result.message}"
    if result.ok:
        assert result.documents, name
        for pos, doc in enumerate(result.documents):
            assert doc.doc_id == f"{result.source.sha256[:12]}-{pos:03d}" and doc.position == pos
            assert doc.markdown.strip() and doc.title and doc.label
            for h in doc.headings:
                assert doc.markdown[h.start : h.end] == "#" * min(h.level, 6) + " " + h.text, (name, h)
            for span in doc.page_spans:
                assert 0 <= span.start <= span.end <= len(doc.markdown)
    else:
        assert not result.documents and result.message


def test_nom_with_nul_bytes_before_header_is_repaired_and_ingested() -> None:
    result = parsed("mx_nom-001-sede-2012_capitulo1.pdf")
    assert result.ok and result.repaired and result.source.pages == 18
    text = " ".join(d.markdown for d in result.documents)
    assert "NOM-001-SEDE-2012" in text or "instalaciones" in text.lower()
    assert any("junk bytes before the %PDF header" in w for w in result.warnings)


def test_missing_xref_file_opens_with_its_four_pages_of_text() -> None:
    result = parsed("malformed_missing_xref_trailer.pdf")
    assert result.ok and result.source.pages == 4
    md = result.documents[0].markdown
    assert all(f"Page{n}" in md for n in range(1, 5)), md


@pytest.mark.parametrize("name", ["us_ofr_guide_rulemaking_process.pdf", "boe_BOE-A-2024-7296_real_decreto_87pp.pdf"])
def test_space_characters_are_read_as_spaces(name: str) -> None:
    # the OFR guide's body has a paragraph separator (U+2029) between every two words, which a reader's quote and a
    # sentence split never expect; the BOE Orden sets no-break, em and narrow spaces
    text = " ".join(d.markdown for d in parsed(name).documents)
    assert not set(text) & set("\u00a0\u2003\u2028\u2029\u202f")
    if name.startswith("us_ofr"):
        assert "When an agency finds that it has good cause to issue a final rule without first publishing" in text


def test_encrypted_and_not_pdf_say_so_in_words() -> None:
    assert "password" in parsed("malformed_encrypted_password_test.pdf").message
    assert "not a PDF" in parsed("malformed_not_a_pdf_json_named_dof.pdf").message


def test_garbled_text_layer_is_not_indexed() -> None:
    result = parsed("us_sdny_filing_unmapped_font_encoding.pdf")
    assert result.status is ParseStatus.garbled and not result.documents


@pytest.mark.parametrize("name", SCANS)
def test_scans_are_ocrd_and_flagged_per_page(name: str) -> None:
    result = parsed(name)
    assert result.ok, result.message
    assert result.ocr_pages, name
    spans = [s for d in result.documents for s in d.page_spans]
    assert {s.page for s in spans if s.ocr} == set(result.ocr_pages)
    words = " ".join(d.markdown for d in result.documents).split()
    assert len(words) > 50, f"{name}: OCR found only {len(words)} words"


def test_ocr_reads_the_spanish_scan() -> None:
    md = " ".join(d.markdown for d in parsed("scan_mx_durango_acuerdo_covid19.pdf").documents).lower()
    assert "acuerdo" in md and ("consejo" in md or "judicatura" in md)


def test_dof_metadata_from_running_headers() -> None:
    result = parsed("dof_2024-12-15_MAT_full_edition_34pp.pdf")
    doc = result.documents[-1]
    assert str(doc.publication_date) == "2024-12-15" and doc.edition == "MAT"
    assert doc.label == "DOF 2024-12-15 MAT"
    assert doc.printed_pages == ("2", "34") and doc.pdf_pages == (2, 34)
    assert "DIARIO OFICIAL" in result.running_headers
    assert "Domingo 15 de diciembre de 2024" in result.running_headers
    for d in result.documents:
        assert "DIARIO OFICIAL\n" not in d.markdown and "\nDIARIO OFICIAL" not in d.markdown


def test_constitution_footer_gives_printed_pages_and_is_stripped() -> None:
    result = parsed("mx_ley_CPEUM_constitucion_politica.pdf")
    (doc,) = result.documents
    assert doc.printed_pages == ("1", "402")
    assert " de 402" not in doc.markdown
    assert "Última Reforma DOF 15-10-2025" in result.running_headers
