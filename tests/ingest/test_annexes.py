"""An instrument's annex is a part of it, not one of its transitory articles nor an appended reform decree.

A DOF acuerdo or decree often carries what it issues in an annex: "ARTÍCULO ÚNICO.- Se emiten los Lineamientos …,
conforme al Anexo Único del presente Acuerdo." / "TRANSITORIOS" / "PRIMERO.- …" / "ANEXO ÚNICO" / "LINEAMIENTOS
PARA …" / "CAPÍTULO PRIMERO" / "ARTÍCULO 1o.- …". Read with TRANSITORIOS still open, every article of the annex was a
transitory one (weighed down in retrieval, so the answer was "No encontré" or the acuerdo's own "Artículo único"), and
an annex whose name is set like a document's title ("LINEAMIENTOS para …") started the "reform decrees". What the
annex issues, when the acuerdo's title names it, is also a name of the acuerdo (an alias).

The acuerdo is built here in the DOF's layout around the real articles of the Reglamento of arts. 121-122 of the Ley
Federal del Trabajo (../shared/data/pdfs), which it carries as its annex; the annex labels of shared PDFs are read as
they are printed: the Orden EFD/322/2024's "ANEXO I" … "ANEXO V-B", an edition's "ANEXO 14 de la Resolución
Miscelánea Fiscal para 2023, …" (a document's title), and the RMF's Anexo 16, whose "Anexo" heads a table's column.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pymupdf
import pytest

from ingest.chunker import chunk_document
from ingest.models import HeadingKind, ProvisionRole
from ingest.parse import parse_pdf
from tests.conftest import pdf
from tests.ingest.parsed_cache import parsed

NAME_CAPS = "LINEAMIENTOS PARA LA REVISIÓN DE LAS OBJECIONES DE LOS TRABAJADORES"
NAME_TITLE = "LINEAMIENTOS para la revisión de las objeciones de los trabajadores"


def _rlft_blocks() -> list[str]:
    """The Reglamento's chapters and articles as printed (running headers dropped), without its transitorios."""
    with pymupdf.open(pdf("mx_reglamento_arts_121_122_LFT.pdf")) as src:
        text = "\n".join(page.get_text() for page in src)
    body = text[text.index("CAPÍTULO PRIMERO"):text.index("TRANSITORIOS")]
    body = re.sub(r"REGLAMENTO DE LOS ART.*?\d+ de \d+ \n", "", body, flags=re.S)
    return [" ".join(b.split()) for b in re.split(r"\n \n", body) if b.strip()]


def acuerdo_pdf(path: Path, annex_name: str) -> Path:
    """A DOF acuerdo: issuing body, title, considerandos, its one article, its transitorios, then ANEXO ÚNICO."""
    def centred(s: str) -> str:
        return f'<p style="text-align:center;font-weight:bold">{html.escape(s)}</p>'

    def para(s: str, bold: bool = False) -> str:
        return f'<p style="text-align:justify{";font-weight:bold" if bold else ""}">{html.escape(s)}</p>'

    parts = [
        centred("SECRETARIA DEL TRABAJO Y PREVISION SOCIAL"),
        para("ACUERDO por el que se emiten los Lineamientos para la revisión de las objeciones de los trabajadores a "
             "la declaración anual del patrón.", bold=True),
        para("Al margen un sello con el Escudo Nacional, que dice: Estados Unidos Mexicanos.- Trabajo.- Secretaría del "
             "Trabajo y Previsión Social."),
        para("El Secretario del Trabajo y Previsión Social, con fundamento en los artículos 40 de la Ley Orgánica de "
             "la Administración Pública Federal, 121 y 122 de la Ley Federal del Trabajo, y"),
        centred("CONSIDERANDO"),
        para("Que los trabajadores tienen derecho a formular objeciones a la declaración anual que presente el "
             "patrón, y que es necesario precisar el procedimiento para su revisión;"),
        para("Que la certeza jurídica exige reunir en un solo instrumento las reglas aplicables, he tenido a bien "
             "expedir el siguiente"),
        centred("ACUERDO"),
        para("ARTÍCULO ÚNICO.- Se emiten los Lineamientos para la revisión de las objeciones de los trabajadores a la "
             "declaración anual del patrón, conforme al Anexo Único del presente Acuerdo."),
        centred("TRANSITORIOS"),
        para("PRIMERO.- El presente Acuerdo entrará en vigor al día siguiente de su publicación en el Diario Oficial "
             "de la Federación."),
        para("SEGUNDO.- Se derogan las disposiciones administrativas que se opongan al presente Acuerdo."),
        para("Ciudad de México, a 2 de junio de 2024.- El Secretario del Trabajo y Previsión Social.- Rúbrica."),
        centred("ANEXO ÚNICO"),
        centred(annex_name),
    ]
    for block in _rlft_blocks():
        heading = re.match(r"^(CAPÍTULO|Disposiciones|De la|De las|De los|Del)\b", block) and len(block) < 90
        parts.append(centred(block) if heading else para(block))
    story = pymupdf.Story("".join(parts), user_css="body{font-family:sans-serif;font-size:9pt}")
    writer = pymupdf.DocumentWriter(str(path))
    page = pymupdf.paper_rect("letter")
    more = True
    while more:
        device = writer.begin_page(page)
        more, _ = story.place(page + (50, 60, -50, -50))
        story.draw(device)
        writer.end_page()
    writer.close()
    return path


def _chunks(path: Path):
    result = parse_pdf(path)
    assert len(result.documents) == 1, [d.title for d in result.documents]
    [doc] = result.documents
    return doc, chunk_document(doc, lambda t: len(t.split()), 350)


@pytest.mark.parametrize("name", [NAME_CAPS, NAME_TITLE], ids=["name in capitals", "name set as a title"])
def test_an_acuerdos_annex_is_its_text_not_its_transitory_articles(tmp_path, name):
    doc, chunks = _chunks(acuerdo_pdf(tmp_path / "acuerdo.pdf", name))
    annex = [h for h in doc.headings if h.kind is HeadingKind.annex]
    assert [(h.text, h.title) for h in annex] == [("ANEXO ÚNICO", name)]
    # what the annex issues is a name of the acuerdo, as its title spells it
    assert doc.aliases == ["Lineamientos para la revisión de las objeciones de los trabajadores"]
    annexed = [c for c in chunks if c.article not in (None, "Único")]
    # the Reglamento's 29 articles, each once, in order, as the annex's articles
    assert list(dict.fromkeys(c.article for c in annexed)) == [str(n) for n in range(1, 30)]
    for c in annexed:
        assert c.role is ProvisionRole.text, (c.article, c.role)
        assert f"ANEXO ÚNICO {name}" in c.heading_path, c.heading_path
        assert not any(p.startswith("TRANSITORIOS") for p in c.heading_path), c.heading_path
    # the acuerdo's own parts keep their roles: its transitorios are still transitory, its article is its text
    own = {c.role for c in chunks if any(p == "TRANSITORIOS" for p in c.heading_path)}
    assert own == {ProvisionRole.transitory}
    assert {c.role for c in chunks if c.article == "Único"} == {ProvisionRole.text}
    assert not any(c.role is ProvisionRole.reform_decree for c in chunks)


def test_a_law_in_an_acuerdos_annex_is_a_document_of_its_own(tmp_path):
    """The annex headed by a law's name in capitals, its chapters after it: the law is its own document, named as
    printed (`split_annexed_law`), its articles its text. Before, "ANEXO ÚNICO" and the name were one heading that
    named no law, and the law's 29 articles were the acuerdo's transitory ones."""
    name = "REGLAMENTO DE LA LEY FEDERAL DEL TRABAJO EN MATERIA DE UTILIDADES"
    result = parse_pdf(acuerdo_pdf(tmp_path / "acuerdo.pdf", name))
    titles = [d.title for d in result.documents]
    assert titles[1:] == ["Reglamento de la Ley Federal del Trabajo en Materia de Utilidades"]
    acuerdo, law = result.documents
    assert [h.text for h in acuerdo.headings if h.kind is HeadingKind.annex] == ["ANEXO ÚNICO"]
    chunks = chunk_document(law, lambda t: len(t.split()), 350)
    assert list(dict.fromkeys(c.article for c in chunks if c.article)) == [str(n) for n in range(1, 30)]
    assert {c.role for c in chunks} == {ProvisionRole.text}


def test_the_annexes_of_a_boe_orden_are_its_annexes():
    [doc] = parsed("boe_BOE-A-2024-7296_real_decreto_87pp.pdf").documents
    labels = [h.text for h in doc.headings if h.kind is HeadingKind.annex]
    assert labels[:3] == ["ANEXO I", "ANEXO II", "ANEXO III"]
    assert "ANEXO V-A" in labels and "ANEXO V-B" in labels
    chunks = chunk_document(doc, lambda t: len(t.split()), 350)
    [dummies] = [c for c in chunks if "Maniquíes de primeros auxilios (adulto y bebé)" in c.text][:1]
    assert any(p.startswith("ANEXO V-A") for p in dummies.heading_path), dummies.heading_path
    # the Orden's articles come before any annex and stay its text
    assert {c.role for c in chunks if c.article is not None} == {ProvisionRole.text}


def test_an_annex_named_in_a_title_or_a_table_column_is_no_annex_label_nor_a_name():
    titles = [d.title for d in parsed("dof_2023-01-11_MAT_first20pages.pdf").documents]
    assert any(t.startswith("ANEXO 14 de la Resolución Miscelánea Fiscal para 2023") for t in titles), titles
    for d in parsed("dof_2023-01-11_MAT_first20pages.pdf").documents:
        assert not any(h.kind is HeadingKind.annex and h.text.startswith("ANEXO 14") for h in d.headings)
    [rmf] = parsed("dof_2025-01-20_RMF2025_anexo16_779pp.pdf").documents
    assert not any(h.kind is HeadingKind.annex and h.text == "Anexo" for h in rmf.headings)
    # "ANEXO 13 DE LA RESOLUCIÓN MISCELÁNEA FISCAL PARA 2025" is an annex label saying whose annex it is: no name
    [annexes] = parsed("dof_2025-01-14_RMF2025_anexo13_landscape.pdf").documents
    assert any(h.kind is HeadingKind.annex and h.text.startswith("ANEXO 13") for h in annexes.headings)
    assert annexes.aliases == []
