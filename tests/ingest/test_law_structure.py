"""A provision's role and name come from its place in the law (issue 22, item 1), on every shared law.

Expected values are read from the PDFs (what their pages print), never from the code's output: the Ley de Sociedades
de Capital is a Real Decreto Legislativo whose annex, after "TEXTO REFUNDIDO DE LA LEY DE SOCIEDADES DE CAPITAL",
is the law; its article 4 reads "Artículo 4. Capital social mínimo." then "1. El capital de la sociedad de
responsabilidad limitada no podrá ser inferior a un euro…" (p. 13).
"""

from __future__ import annotations

import collections
import datetime as dt
import functools
import re
from pathlib import Path

import pymupdf
import pytest

from ingest.chunker import chunk_document
from ingest.headings import division_name
from ingest.models import DIVISIONS, Chunk, DocType, HeadingKind, LegalDocument, ProvisionRole
from ingest.parse import parse_pdf
from tests.conftest import PDFS, SHARED

LAWS = SHARED / "data" / "laws"
LSC = "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf"
# Every shared text whose body is numbered articles: the laws, the Constitution, a treaty, a regulation, BOE acts.
ARTICLED = [
    LAWS / LSC,
    LAWS / "boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf",
    LAWS / "boe_consolidado_BOE-A-1995-25444_codigo_penal.pdf",
    LAWS / "mx_ley_CPEUM_constitucion_politica_DOF_2025-04-15.pdf",
    LAWS / "mx_ley_de_amparo_DOF_2025-03-13.pdf",
    PDFS / "mx_ley_CPEUM_constitucion_politica.pdf",
    PDFS / "mx_ley_de_amparo.pdf",
    PDFS / "mx_reglamento_arts_121_122_LFT.pdf",
    PDFS / "mx_durango_ley_del_periodico_oficial.pdf",
    PDFS / "es_declaracion_universal_derechos_humanos.pdf",
    PDFS / "co_diario_oficial_ley_99_1993.pdf",
    PDFS / "boe_BOE-A-2024-7296_real_decreto_87pp.pdf",
    PDFS / "eu_gdpr_council_position_5419-16.pdf",
]


@functools.cache
def parsed(path: Path) -> list[tuple[LegalDocument, list[Chunk]]]:
    if not path.exists():
        raise FileNotFoundError(f"shared test data missing: {path} (set GACETA_SHARED)")
    return [(doc, chunk_document(doc, lambda text: len(text.split()), 256)) for doc in parse_pdf(path).documents]


@pytest.mark.parametrize("path", ARTICLED, ids=lambda p: p.name[:40])
def test_an_article_in_the_body_is_text(path: Path) -> None:
    """The first chunk of each article number, where the law's body prints it, is the text in force (or a repeal):
    never the table of contents, a preamble or an exposición de motivos that stayed open."""
    first: dict[tuple[str, str], Chunk] = {}
    for doc, chunks in parsed(path):
        for ch in chunks:
            if ch.article:
                first.setdefault((doc.doc_id, ch.article), ch)
    assert len(first) >= 6, path.name
    roles = [ch.role for ch in first.values()]
    share = sum(r in (ProvisionRole.text, ProvisionRole.repealed) for r in roles) / len(roles)
    assert share >= 0.99, (path.name, share, [(k, c.role.value) for k, c in first.items()
                                              if c.role not in (ProvisionRole.text, ProvisionRole.repealed)][:10])


@pytest.mark.parametrize("path", ARTICLED, ids=lambda p: p.name[:40])
def test_an_article_title_is_never_a_sentence(path: Path) -> None:
    """A title printed after the article's label is part of its heading; no chunk quotes it as a sentence."""
    for doc, chunks in parsed(path):
        titles = {h.text: h.title for h in doc.headings if h.title}
        for ch in chunks:
            own = {titles[t] for t in ch.heading_path if t in titles}  # the titles of the articles open here
            for sentence in ch.sentences:
                said = doc.markdown[sentence.start:sentence.end].strip()
                assert said not in own, (path.name, ch.heading_path[-1], said)


def test_texto_refundido_is_its_own_law() -> None:
    (decree, decree_chunks), (law, chunks) = parsed(LAWS / LSC)
    assert decree.doc_type is DocType.real_decreto and decree.short_title == "Real Decreto Legislativo 1/2010"
    assert law.doc_type is DocType.ley
    assert law.short_title == "Ley de Sociedades de Capital" and "LSC" in law.aliases
    assert law.title == "Texto refundido de la Ley de Sociedades de Capital"
    assert law.publication_date == decree.publication_date
    assert law.last_reform_date == decree.last_reform_date == dt.date(2025, 1, 3)  # "Última modificación: 03 de enero de 2025"
    assert decree.number == "1/2010"
    assert law.pdf_pages[0] > decree.pdf_pages[1] - 1  # the law follows its decree
    # The decree keeps its own operative article; the law's articles start at 1.
    assert {c.article for c in decree_chunks if c.article} == {"Único"}
    art4 = [c for c in chunks if c.article == "4"]
    assert art4[0].heading_path[-1] == "Artículo 4. Capital social mínimo."
    body = re.sub(r"^(?:#+ [^\n]*\n\n)+", "", art4[0].text)  # after the heading lines
    assert body.startswith("1. El capital de la sociedad de responsabilidad limitada no podrá")
    assert any("no podrá ser inferior a sesenta mil euros" in c.text for c in art4)
    assert all(c.role is ProvisionRole.text for c in art4)
    # The exposición de motivos ends where the decree's article begins; the index where the text begins.
    operative = decree.markdown.index("Artículo único.")
    assert {c.role for c in decree_chunks if "EXPOSICIÓN DE MOTIVOS" in c.heading_path and c.end <= operative} \
        == {ProvisionRole.preamble}
    assert {c.role for c in decree_chunks if c.start > operative} == {ProvisionRole.text}  # its article, disposiciones
    assert not any(c.role is ProvisionRole.index for c in decree_chunks if "TEXTO CONSOLIDADO" in c.heading_path[-1:])


@pytest.mark.parametrize(("name", "short", "aliases"), [
    ("boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf", "Ley de Enjuiciamiento Civil", {"LEC", "Ley 1/2000"}),
    ("boe_consolidado_BOE-A-1995-25444_codigo_penal.pdf", "Código Penal", {"Ley Orgánica 10/1995"}),
])
def test_a_spanish_law_is_named_as_cited(name: str, short: str, aliases: set[str]) -> None:
    """"Ley 1/2000, de 7 de enero, de Enjuiciamiento Civil" is cited as the Ley de Enjuiciamiento Civil (LEC)."""
    (doc, _), = parsed(LAWS / name)
    assert doc.short_title == short and aliases <= set(doc.aliases)


def test_a_sentence_starting_with_titulo_is_no_heading() -> None:
    """"…introduce un título nuevo, el / título X, en la Ley del Mercado de Valores…": a justified line that begins
    with the word, in lower case, inside the exposición de motivos."""
    (decree, _), _ = parsed(LAWS / LSC)
    assert not [h.text for h in decree.headings if h.text.startswith("título")]
    assert "el título X, en la Ley del Mercado de Valores" in " ".join(decree.markdown.split())


def test_a_sentence_that_opens_with_a_books_name_is_no_heading() -> None:
    """"Libro II de este Código y alguno de ellos esté castigado…" begins a justified line of the Código Penal, in
    capitals and in the column's middle like a heading: a division's label is followed by its name, capitalised, or
    by nothing. Read as LIBRO II, it stood over every article until the real one."""
    (code, chunks), = parsed(LAWS / "boe_consolidado_BOE-A-1995-25444_codigo_penal.pdf")
    assert not [h.text for h in code.headings if h.text.startswith("Libro II de")]
    assert "Libro II de este Código y alguno de ellos" in " ".join(code.markdown.split())
    assert not [c.article for c in chunks if any(p.startswith("Libro II de") for p in c.heading_path)]


def test_articles_numbered_by_a_letter_after_their_latin_ordinal_are_articles() -> None:
    """The LEC inserts eleven articles after art. 283: "Artículo 283 bis a). Exhibición de las pruebas…" to
    "Artículo 283 bis k).", under "Sección 1.ª bis". Each is an article of its own, cited as such; none is read as
    more of art. 283 ("Impertinencia o inutilidad de la actividad probatoria")."""
    (law, chunks), = parsed(LAWS / "boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf")
    lettered = [f"283 Bis {letter})" for letter in "abcdefghijk"]
    articles = list(dict.fromkeys(c.article for c in chunks))
    assert articles[articles.index("283"):articles.index("283") + 13] == ["283", *lettered, "284"]
    first = [c for c in chunks if c.article == "283 Bis a)"]
    assert first[0].heading_path[-1].startswith("Artículo 283 bis a). Exhibición de las pruebas")
    assert any(p.startswith("Sección 1.ª bis") for p in first[0].heading_path)
    assert not [c for c in chunks if c.article == "283" and "Exhibición de las pruebas" in c.text]


@pytest.mark.parametrize(("name", "article", "divisions"), [
    ("boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf", "404",
     ["LIBRO II De los procesos declarativos", "TÍTULO II Del juicio ordinario",
      "CAPÍTULO I De las alegaciones iniciales", "Sección 1.ª De la demanda y su objeto"]),
    ("boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf", "437",
     ["LIBRO II De los procesos declarativos", "TÍTULO III Del juicio verbal"]),
    # a name set over two lines whose boxes overlap (tight leading) is one name
    ("boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf", "265",
     ["TÍTULO I De las disposiciones comunes a los procesos declarativos",
      "CAPÍTULO III De la presentación de documentos, dictámenes, informes y otros medios e instrumentos"]),
    (LSC, "176", ["TÍTULO V La junta general", "CAPÍTULO IV Convocatoria"]),
    # a Subsección stands inside its Sección: the Título of the sociedades cotizadas stays open above it
    (LSC, "515", ["TÍTULO XIV Sociedades anónimas cotizadas",
                  "CAPÍTULO VI Especialidades de la junta general de accionistas",
                  "Sección 3.ª Funcionamiento de la junta general.", "Subsección 1.ª Disposiciones generales."]),
    (LSC, "63", ["TÍTULO III Las aportaciones sociales", "CAPÍTULO I Las aportaciones sociales",
                 "Sección 2.ª Aportaciones dinerarias y aportaciones no dinerarias",
                 "Subsección 2.ª Aportaciones no dinerarias"]),
    ("mx_ley_de_amparo_DOF_2025-03-13.pdf", "17",
     ["TÍTULO PRIMERO Reglas Generales", "CAPÍTULO III Plazos"]),
    # a SECCIÓN's name on the line below its label: a heading no stronger than the label, which stays open
    ("mx_ley_de_amparo_DOF_2025-03-13.pdf", "190",
     ["TÍTULO SEGUNDO De los Procedimientos de Amparo", "CAPÍTULO II El Amparo Directo",
      "Sección Cuarta Suspensión del Acto Reclamado"]),
    ("mx_ley_de_amparo_DOF_2025-03-13.pdf", "33",
     ["TÍTULO PRIMERO Reglas Generales", "CAPÍTULO V Competencia", "Sección Primera Reglas de Competencia"]),
    ("mx_ley_CPEUM_constitucion_politica_DOF_2025-04-15.pdf", "71",
     ["Capítulo II Del Poder Legislativo", "Sección II De la Iniciativa y Formación de las Leyes"]),
])
def test_a_division_keeps_its_name_under_the_divisions_it_holds(name: str, article: str,
                                                                divisions: list[str]) -> None:
    """"TÍTULO II" over "Del juicio ordinario", then "CAPÍTULO I" over "De las alegaciones iniciales": each name
    stands on its own line under its label, in another face. The name belongs to the label, so the chapter that opens
    below does not close the title's name: art. 404 of the LEC stands under the juicio ordinario, art. 437 under the
    juicio verbal. The Markdown keeps the two lines as printed. A SECCIÓN's name is set like any bold heading, at the
    section's own rank: it stands inside the section (only the legal grammar closes a division), so art. 190 of the
    Ley de Amparo stands under "Sección Cuarta", not under its name alone. A BOE law divides a Sección into
    Subsecciones: read as a generic heading, "Subsección 1.ª Disposiciones generales." closed every division above
    it, and art. 515 of the LSC lost its Título (the sociedades cotizadas)."""
    docs = parsed(LAWS / name)
    law = docs[-1][0]
    chunks = [c for _, cs in docs[-1:] for c in cs if c.article == article]
    assert chunks
    for chunk in chunks:
        opened = [p for p, kind in zip(chunk.heading_path, chunk.heading_kinds) if kind in DIVISIONS]
        assert opened[-len(divisions):] == divisions
    for division in divisions:  # a name on its own line under the label ("Sección 1.ª De la demanda…" has one line)
        label, name = division.removesuffix(division_name(division)).strip(), division_name(division)
        assert any(h.text == division or (h.text == label and h.title == name) for h in law.headings)


def test_eu_recitals_are_preamble_and_articles_carry_their_titles() -> None:
    [(doc, chunks)] = parsed(PDFS / "eu_gdpr_council_position_5419-16.pdf")
    recital = next(c for c in chunks if "(1) The protection of natural persons" in c.text)
    assert recital.role is ProvisionRole.preamble
    art17 = [c for c in chunks if c.article == "17"]
    assert art17 and all(c.role is ProvisionRole.text for c in art17)
    assert art17[0].heading_path[-1] == "Article 17 Right to erasure ('right to be forgotten')"
    assert "the right to obtain from the controller the erasure of personal data" in art17[0].text


def test_an_annex_index_ends_where_its_entries_end() -> None:
    """DOF 11-01-2023, ANEXO 14 of the RMF: a CONTENIDO of its lists (p. 12), then the lists of authorised
    donees under "RFC" columns: the lists are the text, not the index."""
    docs = parsed(PDFS / "dof_2023-01-11_MAT_first20pages.pdf")
    doc, chunks = next((d, c) for d, c in docs if d.title.startswith("ANEXO 14"))
    after = [c for c in chunks if c.start >= doc.markdown.index("RFC")]
    assert after and all(c.role is ProvisionRole.text for c in after)
    assert any(c.role is ProvisionRole.index for c in chunks if "CONTENIDO" in c.heading_path)


def _printed_on_most_pages(path: Path) -> set[str]:
    """Lines that the PDF prints at the same height on at least 80 % of its pages (read with PyMuPDF directly)."""
    seen: collections.Counter = collections.Counter()
    with pymupdf.open(path) as pdf:
        for page in pdf:
            rows = set()
            for block in page.get_text("dict")["blocks"]:
                for line in block.get("lines", ()):
                    text = " ".join("".join(span["text"] for span in line["spans"]).split())
                    if len(text) >= 12:
                        rows.add((text, round(line["bbox"][1] / 4)))
            seen.update(rows)
        return {text for (text, _), n in seen.items() if n >= 0.8 * len(pdf)}


# The consolidated laws (Diputados and BOE layouts) and a BOE daily disposition (its "Verificable en
# https://www.boe.es" / "cve: …" margin note up every page). Not yet: a state law whose decree history is printed atop
# each page (a known leak, docs/benchmarks.md).
CONSOLIDATED = [p for p in ARTICLED if p.parent == LAWS or p.name.startswith(("mx_ley_CPEUM", "mx_ley_de_amparo",
                                                                               "boe_BOE-A-2024-7296"))]


@pytest.mark.parametrize("path", CONSOLIDATED, ids=lambda p: p.name[:40])
def test_running_headers_never_sit_inside_an_article(path: Path) -> None:
    """"Secretaría de Servicios Parlamentarios", printed atop every page of a Diputados law, is no part of art. 17."""
    headers = _printed_on_most_pages(path)
    for doc, chunks in parsed(path):
        for ch in chunks:
            if ch.article:
                said = " ".join(doc.markdown[s.start:s.end] for s in ch.sentences)
                inside = [h for h in headers if h in said]
                assert not inside, (path.name, ch.article, inside)


def test_a_ruling_set_with_wide_leading_is_read_in_paragraphs() -> None:
    """The Chilean Supreme Court ruling prints every line 1.5 lines apart: its lines are one paragraph (p. 4:
    "…si bien tiende a morigerar los efectos en la / ejecución de un contrato, por la concurrencia…"), so a sentence
    is quoted whole, never stopped at a line's end; its numbered considerations stay apart."""
    [(doc, chunks)] = parsed(PDFS / "cl_corte_suprema_sentencia_2024_imprevision.pdf")
    sentences = [doc.markdown[s.start:s.end] for ch in chunks for s in ch.sentences]
    whole = [s for s in sentences if "morigerar los efectos en la" in s]
    assert whole and "ejecución de un contrato, por la concurrencia de circunstancias" in whole[0]
    assert not any(s.rstrip().endswith("morigerar los efectos en la") for s in sentences)
    [(opinion, _)] = parsed(PDFS / "us_ca1_court_of_appeals_opinion.pdf")  # double-spaced, in English
    assert "This interlocutory appeal arises out of the chaotic early weeks of the COVID-19 pandemic." in \
        " ".join(opinion.markdown.split())


def test_every_article_of_the_annexed_law_is_a_heading_with_its_whole_title() -> None:
    """The LSC numbers inserted articles with Latin ordinals up to "529 tervicies" (p. 142), and some titles wrap:
    "Artículo 527 sexies. Cláusula de extinción y eliminación de la previsión estatutaria de voto / por lealtad.";
    the LEC's "Artículo 190. Cambios en el personal juzgador después del señalamiento de vistas y / posible
    recusación." (p. 66)."""
    (_, _), (law, _) = parsed(LAWS / LSC)
    heads = {h.text for h in law.headings if h.title and h.kind is HeadingKind.articulo}
    assert "Artículo 529 tervicies. Reglas de cálculo." in heads
    assert ("Artículo 527 sexies. Cláusula de extinción y eliminación de la previsión estatutaria de voto por "
            "lealtad.") in heads
    [(lec, _)] = parsed(LAWS / "boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf")
    assert ("Artículo 190. Cambios en el personal juzgador después del señalamiento de vistas y posible "
            "recusación.") in {h.text for h in lec.headings}
    for doc in (law, lec):
        assert all(h.title.endswith(".") for h in doc.headings if h.title and h.kind is HeadingKind.articulo), \
            doc.short_title


def test_a_title_printed_on_the_labels_line_is_the_articles_title() -> None:
    """Colombia's Ley 99 de 1993 prints each article's title in Title Case at body weight on its label's line, the
    text following it: "ARTICULO 23. Naturaleza Jurídica. Las Corporaciones Autónomas Regionales son entes
    corporativos de carácter público…" (p. 16), "ARTICULO 81. Desistibilidad. En ningún caso podrá el actor desistir
    de sus pretensiones." (p. 47). An article whose first words are its own sentence gets no title: the Constitution's
    "Artículo 2o. La Nación Mexicana es única e indivisible." (p. 2), the Ley 99's "ARTICULO 61. Declárase la Sabana
    de Bogotá, sus páramos, …" (p. 41)."""
    [(doc, chunks)] = parsed(PDFS / "co_diario_oficial_ley_99_1993.pdf")
    titles = {h.text: h.title for h in doc.headings if h.title}
    assert titles["ARTICULO 23. Naturaleza Jurídica."] == "Naturaleza Jurídica."
    assert titles["ARTICULO 81. Desistibilidad."] == "Desistibilidad."
    assert not any(t.startswith("ARTICULO 61.") for t in titles)
    art23 = next(c for c in chunks if c.article == "23")
    assert art23.heading_path[-1] == "ARTICULO 23. Naturaleza Jurídica."
    assert ("ARTICULO 23. Naturaleza Jurídica.\n\nLas Corporaciones Autónomas Regionales son entes corporativos"
            in art23.text)
    [(cpeum, _)] = parsed(PDFS / "mx_ley_CPEUM_constitucion_politica.pdf")
    assert not [h.text for h in cpeum.headings if h.title and h.kind is HeadingKind.articulo]


def test_a_preamble_without_a_heading_ends_where_the_document_enacts() -> None:
    """Where the body starts is where the document says so. Durango's Acuerdo General 01/2021 numbers its recitals
    PRIMERO–TERCERO under no CONSIDERANDO heading, then prints "A C U E R D O" letter-spaced before its points
    PRIMERO–SÉPTIMO and "T R A N S I T O R I O S" before its transitory points (pp. 1, 12). The BOE's Orden
    EFD/322/2024 ends its untitled preamble with "Por todo lo anterior, en su virtud, dispongo:" right before
    "Artículo 1. Objeto." (p. 2). The recitals are preamble, the points and articles text, the transitory points
    transitory; a law without such a formula keeps its body text (the Constitution's first article)."""
    [(acuerdo, chunks)] = parsed(PDFS / "mx_durango_acuerdo_general_01-2021_judicatura.pdf")
    kinds = {h.text: h.kind for h in acuerdo.headings}
    assert kinds["ACUERDO"] is HeadingKind.part and kinds["TRANSITORIOS"] is HeadingKind.transitorios
    recital = next(c for c in chunks if "Ante el aumento de casos de Coronavirus" in c.text)
    point = next(c for c in chunks if "con un tiempo máximo de cinco minutos" in c.text)
    repeal = next(c for c in chunks if "Se deja sin efectos el ACUERDO GENERAL 11/2020" in c.text)
    assert (recital.role, point.role, repeal.role) == (ProvisionRole.preamble, ProvisionRole.text,
                                                       ProvisionRole.transitory)
    [(orden, chunks)] = parsed(PDFS / "boe_BOE-A-2024-7296_real_decreto_87pp.pdf")
    motives = next(c for c in chunks if "En el proceso de elaboración de esta orden ha emitido dictamen" in c.text)
    assert motives.role is ProvisionRole.preamble
    assert all(c.role is ProvisionRole.text for c in chunks if c.article == "1")
    annex = next(c for c in chunks if any(p.startswith("ANEXO III") for p in c.heading_path))
    assert annex.role is ProvisionRole.text
    [(cpeum, chunks)] = parsed(PDFS / "mx_ley_CPEUM_constitucion_politica.pdf")
    assert next(c for c in chunks if c.article == "1").role is ProvisionRole.text
