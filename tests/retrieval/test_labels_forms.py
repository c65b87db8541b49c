"""Citation labels per gazette, on the real shared PDFs: parse → chunk → label of the span that starts with a chosen
passage. Each expected string is written from how the document is cited (the printed page read off the PDF with
`pymupdf` get_text: volume and page of the Federal Register masthead, the Council document's page number, the PDF page
of an unnumbered ruling), not from the code's output."""

from __future__ import annotations

import functools

import pytest

from ingest.chunker import chunk_document
from ingest.models import Chunk, LegalDocument
from ingest.parse import parse_pdf
from retrieval.labels import label
from tests.conftest import SHARED
from tests.ingest.parsed_cache import parsed

CPEUM_NAME = "Constitución Política de los Estados Unidos Mexicanos"
GDPR_NAME = "General Data Protection Regulation (Council position 5419/16)"
LSC_FILE = "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf"


@functools.cache
def law(name: str, position: int = 0) -> tuple[LegalDocument, list[Chunk]]:
    """A shared PDF's document `position`, chunked as the index chunks it (256 words at most)."""
    if name == LSC_FILE:
        path = SHARED / "data" / "laws" / name
        assert path.exists(), f"shared law missing: {path} (set GACETA_SHARED)"
        result = parse_pdf(path)
    else:
        result = parsed(name)
    doc = result.documents[position]
    return doc, chunk_document(doc, lambda text: len(text.split()), 256)


def label_of(name: str, starts: str, ends: str | None = None, position: int = 0) -> str:
    """The label of the span from the first occurrence of `starts` (to the end of `ends`, if given)."""
    doc, chunks = law(name, position)
    start = doc.markdown.index(starts)
    end = doc.markdown.index(ends, start) + len(ends) if ends else None
    chunk = next(c for c in chunks if c.start <= start < c.end)
    return label(doc.info(), chunk, start, end)


CASES = [
    # Federal Register: volume + the document's first page (masthead "Federal Register / Vol. 85, No. 152", p. 47698);
    # a passage on a later page is pin-cited (p. 47699 prints the AOA footnote)
    ("us_federal_register_2020-17221.pdf", "SUMMARY: The FAA proposes to", None, 0, "85 FR 47698"),
    ("us_federal_register_2020-17221.pdf", "The angle of attack (or AOA)", None, 0, "85 FR 47698, 47699"),
    # the Council's position on the GDPR: no regulation number yet ("2016/…"), so its own short title and the Council
    # document number; an article and its numbered paragraph and point; the page printed atop (140, 141)
    ("eu_gdpr_council_position_5419-16.pdf", "1. The data subject shall have the right to obtain from the controller "
     "the erasure", None, 0, f"{GDPR_NAME}, Art. 17(1), p. 140"),
    ("eu_gdpr_council_position_5419-16.pdf", "(b) for compliance with a legal obligation which requires processing by",
     None, 0, f"{GDPR_NAME}, Art. 17(3)(b), p. 141"),
    # a recital of its preamble ("Whereas: … (59)"), printed on p. 36
    ("eu_gdpr_council_position_5419-16.pdf", "(59) Modalities should be provided for facilitating", None, 0,
     f"{GDPR_NAME}, recital 59, p. 36"),
    # Chilean Supreme Court: the court (not its chamber), the country, the rol as printed; PDF page 12 (none printed)
    ("cl_corte_suprema_sentencia_2024_imprevision.pdf", "previeron al momento de su celebración", None, 0,
     "Corte Suprema (Chile), Rol 161.630-2023, p. 12"),
    # US court of appeals: court and docket number as printed on the cover; the opinion's page "- 3 -"
    ("us_ca1_court_of_appeals_opinion.pdf", "This interlocutory appeal", None, 0,
     "United States Court of Appeals for the First Circuit, No. 20-1507, p. 3"),
    # BOE consolidated law carried by a Real Decreto Legislativo: the law's short title, article and apartado (p. 12)
    (LSC_FILE, "2. El capital social de la sociedad anónima no podrá ser inferior", None, 1,
     "Ley de Sociedades de Capital, art. 4, apdo. 2, p. 12"),
    (LSC_FILE, "Mientras el capital de las sociedades de responsabilidad limitada", None, 1,
     "Ley de Sociedades de Capital, art. 4, apdo. 1, p. 12"),
    # CPEUM art. 123: fracciones inside "A." / "B." (pp. 143, 151); a quote of fracciones I and II; art. 41's
    # "Apartado B." inside fracción III (p. 55); paragraphs where there is no apartado (art. 27, p. 33)
    ("mx_ley_CPEUM_constitucion_politica.pdf", "I. La duración de la jornada máxima será de ocho horas.", None, 0,
     f"{CPEUM_NAME}, art. 123, apartado A, fr. I, p. 143"),
    ("mx_ley_CPEUM_constitucion_politica.pdf", "I. La duración de la jornada máxima será de ocho horas.",
     "La jornada máxima de trabajo nocturno será de 7 horas.", 0,
     f"{CPEUM_NAME}, art. 123, apartado A, fr. I–II, p. 143"),
    ("mx_ley_CPEUM_constitucion_politica.pdf", "B. Entre los Poderes de la Unión y sus trabajadores:", None, 0,
     f"{CPEUM_NAME}, art. 123, apartado B, p. 151"),
    ("mx_ley_CPEUM_constitucion_politica.pdf", "Apartado B. Para fines electorales en las entidades federativas", None,
     0, f"{CPEUM_NAME}, art. 41, fr. III, apartado B, p. 55"),
    ("mx_ley_CPEUM_constitucion_politica.pdf", "La propiedad de las tierras y aguas comprendidas", None, 0,
     f"{CPEUM_NAME}, art. 27, párr. 1, p. 33"),
    ("mx_ley_de_amparo.pdf", "I. Cuando se reclame una norma general autoaplicativa", None, 0,
     "Ley de Amparo, art. 17, párr. 1, fr. I, p. 8"),
]


@pytest.mark.parametrize(("name", "starts", "ends", "position", "expected"), CASES,
                         ids=[f"{c[0].split('_')[0]}-{c[4][-28:]}" for c in CASES])
def test_label_in_the_form_the_document_is_cited(name, starts, ends, position, expected) -> None:
    assert label_of(name, starts, ends, position) == expected


def test_a_span_of_fracciones_in_the_apartado_that_holds_them() -> None:
    # CPEUM p. 151: art. 123, apartado B, fracciones I and II
    got = label_of("mx_ley_CPEUM_constitucion_politica.pdf", "I. La jornada diaria máxima de trabajo diurna",
                   "II. Por cada seis días de trabajo")
    assert got == f"{CPEUM_NAME}, art. 123, apartado B, fr. I–II, p. 151"


def test_an_eu_article_is_never_labelled_by_page_alone() -> None:
    doc, chunks = law("eu_gdpr_council_position_5419-16.pdf")
    in_articles = [c for c in chunks if c.article]
    # Articles 1–99 (27, 38, 94 and 97 are lost today: their "1." paragraph is read as a heading that closes them)
    assert len({c.article for c in in_articles}) >= 95
    for chunk in in_articles:
        for mark in chunk.paragraphs:
            assert f"Art. {chunk.article}" in label(doc.info(), chunk, mark.offset)


def test_a_list_announced_by_its_paragraph_is_no_apartado() -> None:
    # Ley 99 de 1993 (Colombia), art. 1: "…seguirá los siguientes principios generales:" then "1.", "2." … items of
    # the paragraph that announces them, not apartados of the article
    doc, chunks = law("co_diario_oficial_ley_99_1993.pdf")
    start = doc.markdown.index("1. El proceso de desarrollo económico y social del país")
    chunk = next(c for c in chunks if c.start <= start < c.end)
    assert chunk.article == "1"
    got = label(doc.info(), chunk, start)
    assert "apdo." not in got and ", art. 1, párr. " in got


@pytest.mark.parametrize(("name", "expected"), [
    # masthead "Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules"
    ("us_federal_register_2020-17221.pdf", {"series": "FR", "volume": "85"}),
    # last page: "Rol N° 161.630-2023", "Pronunciado por la Primera Sala de la Corte Suprema", "…Chile Continental."
    ("cl_corte_suprema_sentencia_2024_imprevision.pdf",
     {"court": "Corte Suprema", "jurisdiction": "Chile", "case_label": "Rol", "case_number": "161.630-2023"}),
    # cover: "United States Court of Appeals / For the First Circuit / No. 20-1507"
    ("us_ca1_court_of_appeals_opinion.pdf", {"court": "United States Court of Appeals for the First Circuit",
                                             "case_label": "No.", "case_number": "20-1507"}),
])
def test_the_record_carries_the_parts_of_its_citation(name, expected) -> None:
    doc, _ = law(name)
    assert doc.citation_form is not None
    assert doc.citation_form.model_dump(exclude_none=True) == expected


def test_laws_named_by_their_title_carry_no_citation_form() -> None:
    for name, position in (("mx_ley_CPEUM_constitucion_politica.pdf", 0), (LSC_FILE, 1)):
        doc, _ = law(name, position)
        assert doc.citation_form is None
    doc, _ = law("eu_gdpr_council_position_5419-16.pdf")
    assert doc.short_title == GDPR_NAME and "GDPR" in doc.aliases  # "(General Data Protection Regulation)", p. 1


def test_a_verified_quote_of_two_fracciones_is_labelled_fr_i_ii() -> None:
    from retrieval.answers.base import claim
    from retrieval.answers.verify import Verifier
    from retrieval.models import SearchHit

    doc, chunks = law("mx_ley_CPEUM_constitucion_politica.pdf")
    start = doc.markdown.index("I. La duración de la jornada máxima será de ocho horas.")
    chunk = next(c for c in chunks if c.start <= start < c.end)
    hit = SearchHit(chunk=chunk, document=doc.info(), score=1.0, rank=1)
    quote = ("I. La duración de la jornada máxima será de ocho horas. II. La jornada máxima de trabajo nocturno "
             "será de 7 horas.")
    cited = Verifier([hit]).verify(claim(hit, quote))
    assert cited.verified
    assert cited.label == f"{CPEUM_NAME}, art. 123, apartado A, fr. I–II, p. 143"
    one = Verifier([hit]).verify(claim(hit, "I. La duración de la jornada máxima será de ocho horas."))
    assert one.label == f"{CPEUM_NAME}, art. 123, apartado A, fr. I, p. 143"


def test_a_numbered_paragraph_is_the_paragraph_a_lawyer_cites() -> None:
    # GDPR Art. 17: "1. …" with points (a)–(f), "2. Where the controller has made…", "3. Paragraphs 1 and 2 shall not
    # apply…": "Article 17(2)" is paragraph 2 (points are no paragraphs); LSC art. 4: the blocks under "1." are its own
    for name, position, starts, paragraph, apartado in (
            ("eu_gdpr_council_position_5419-16.pdf", 0, "(f) the personal data have been collected in relation to "
             "the offer of information society services", 1, "1"),
            ("eu_gdpr_council_position_5419-16.pdf", 0, "2. Where the controller has made the personal data public",
             2, "2"),
            ("eu_gdpr_council_position_5419-16.pdf", 0, "3. Paragraphs 1 and 2 shall not apply", 3, "3"),
            (LSC_FILE, 1, "En caso de liquidación, voluntaria o forzosa, si el patrimonio", 1, "1"),
            (LSC_FILE, 1, "2. El capital social de la sociedad anónima no podrá ser inferior", 2, "2")):
        doc, chunks = law(name, position)
        start = doc.markdown.index(starts)
        chunk = next(c for c in chunks if c.start <= start < c.end)
        mark = [m for m in chunk.paragraphs if m.offset <= start][-1]
        assert (mark.paragraph, mark.apartado) == (paragraph, apartado), starts
