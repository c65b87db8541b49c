"""The text measure (ingest/text_quality.py) on real pages: born-digital law pages stay clean, junk layers do not.

False positives are counted on every text page of a sample of the shared born-digital PDFs (long files: every 10th
page) with the strictest threshold (the one used when a page says its text came from an OCR engine).
"""

from __future__ import annotations

import csv

import pymupdf
import pytest

from ingest import text_quality as tq
from ingest.layout import extract_lines, invisible_share
from ingest.ocr import looks_scanned
from tests.conftest import REPO, pdf

SAMPLE = ["mx_ley_CPEUM_constitucion_politica.pdf", "mx_ley_de_amparo.pdf", "mx_reglamento_arts_121_122_LFT.pdf",
          "mx_durango_ley_del_periodico_oficial.pdf", "mx_durango_acuerdo_general_01-2021_judicatura.pdf",
          "mx_nom-001-sede-2012_capitulo1.pdf", "dof_2023-01-11_MAT_first20pages.pdf",
          "dof_2024-12-15_MAT_full_edition_34pp.pdf", "dof_2025-01-20_RMF2025_anexo16_779pp.pdf",
          "boe_BOE-A-2024-7296_real_decreto_87pp.pdf", "boe_2024-04-15_sumario_BOE-S-2024-92.pdf",
          "co_diario_oficial_ley_99_1993.pdf", "cl_corte_suprema_sentencia_2024_imprevision.pdf",
          "es_declaracion_universal_derechos_humanos.pdf", "eu_gdpr_council_position_5419-16.pdf",
          "us_federal_register_2020-17221.pdf", "us_nist_sp800-30r1.pdf", "us_ca1_court_of_appeals_opinion.pdf",
          "jp_kampo_official_gazette_vertical.pdf"]
CLIPPING = "ocrjunk_us_fr_50th_anniversary_clipping_1985.pdf"


def _page_text(page: pymupdf.Page, pno: int) -> str:
    return "\n".join(ln.text for ln in extract_lines(page, pno))


def _sample_pages() -> list[tuple[str, int, str]]:
    out = []
    for name in SAMPLE:
        with pymupdf.open(pdf(name)) as doc:
            step = 10 if doc.page_count > 120 else 1
            for index in range(0, doc.page_count, step):
                text = _page_text(doc[index], index + 1)
                if len(text.split()) >= tq.MIN_TOKENS:
                    out.append((name, index + 1, text))
    return out


def test_born_digital_law_pages_are_never_junk() -> None:
    pages = _sample_pages()
    assert len(pages) > 400 and len({name for name, _, _ in pages}) == len(SAMPLE)
    strict = [(name, pno, tq.quality(text).score) for name, pno, text in pages if tq.is_junk(text, ocr_layer=True)]
    plain = [(name, pno) for name, pno, text in pages if tq.is_junk(text)]
    assert not plain and not strict, strict


def test_the_clippings_ocr_layer_is_junk_by_every_signal_it_carries() -> None:
    with pymupdf.open(pdf(CLIPPING)) as doc:
        page = doc[0]
        text = _page_text(page, 1)
        hidden = invisible_share(page)
        assert looks_scanned(page) and hidden > tq.HIDDEN_LAYER  # invisible text over a page image: an OCR layer
        assert tq.layer_is_junk(text, hidden_share=hidden)
        q = tq.quality(text)
        assert q.function_share > 0.75, q  # "the", "of", "to", "a": the short words survived, the rest did not


def test_unmapped_font_text_is_junk() -> None:
    with pymupdf.open(pdf("us_sdny_filing_unmapped_font_encoding.pdf")) as doc:
        for index in range(doc.page_count):
            assert tq.is_junk(_page_text(doc[index], index + 1))


def test_every_true_title_of_the_identity_table_is_words() -> None:
    with (REPO / "tests" / "data" / "identity_truth.tsv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader([ln for ln in f if not ln.startswith("#")], delimiter="\t",
                                   quoting=csv.QUOTE_NONE))
    titles = [row["title"] for row in rows if row["title"] not in ("?", "")]
    assert len(titles) > 20
    assert [t for t in titles if not tq.is_words(t)] == []


@pytest.mark.parametrize("fragment", ["SNE //Z", "OcIAL Dg,", "Ly $ S", "— is a that", "aeao ea", "| |", "ti",
                                      "»fie « * £ &e", "1,19S5 81 ,"])
def test_noise_fragments_are_not_words(fragment: str) -> None:
    assert not tq.is_words(fragment)


def test_short_texts_are_never_junk_and_codes_count_as_text() -> None:
    assert not tq.is_junk("FILED Jul 31, 2019 03:11 PM")  # a stamp: too short for a verdict
    codes = " ".join(f"ASI0902{n:02d}TLA 01D{n:03d}000 BOE-B-2024-{13500 + n} 76°25'01.88\"W A.C." for n in range(30))
    assert tq.quality(codes).score == 1.0


def test_better_prefers_words_then_more_words() -> None:
    junk = "the of a to is that in the of ahas ft the a to"
    prose = "The Federal Register Act was signed by President Roosevelt on July 26, 1935, after a long campaign."
    assert tq.better(prose, junk) and not tq.better(junk, prose)
    assert tq.better(prose + " " + prose, prose)


def test_ocr_products_in_metadata() -> None:
    assert tq.ocr_producer("OmniPageCSDK18", None)
    assert tq.ocr_producer(None, "ABBYY FineReader 15")
    assert tq.ocr_producer("ocrmypdf 16.0.4 / Tesseract OCR-PDF 5.3.0", "")
    assert not tq.ocr_producer("Microsoft® Word 2019", "Acrobat PDFMaker 11 for Word")
    assert not tq.ocr_producer(None, None)


def test_title_edges_lose_stray_symbols_only() -> None:
    assert tq.trim_junk("| Legal Scholar Recalls |") == "Legal Scholar Recalls"
    assert tq.trim_junk("ANEXO 4 F") == "ANEXO 4 F"
    assert tq.trim_junk("— CAPÍTULO I —") == "— CAPÍTULO I —"
