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
from ingest.models import DocType, HeadingKind, ProvisionRole
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


def _centred(s: str) -> str:
    return f'<p style="text-align:center;font-weight:bold">{html.escape(s)}</p>'


def _para(s: str, bold: bool = False) -> str:
    return f'<p style="text-align:justify{";font-weight:bold" if bold else ""}">{html.escape(s)}</p>'


_UNITS = ("", "PRIMERO", "SEGUNDO", "TERCERO", "CUARTO", "QUINTO", "SEXTO", "SÉPTIMO", "OCTAVO", "NOVENO")
_TENS = ("", "DÉCIMO", "VIGÉSIMO")


def in_words(n: int) -> str:
    """14 → "DÉCIMO CUARTO", as the DOF numbers an acuerdo's points and lineamientos."""
    return " ".join(w for w in (_TENS[n // 10], _UNITS[n % 10]) if w)


def _rlft(blocks: int | None = None, worded: bool = False) -> list[str]:
    """The Reglamento's chapters (centred) and articles, the first `blocks` of them; `worded`: each article numbered
    in words in bold and without "Artículo" ("DÉCIMO CUARTO.- …"), as lineamientos are."""
    parts = []
    for block in _rlft_blocks()[:blocks]:
        heading = re.match(r"^(CAPÍTULO|Disposiciones|De la|De las|De los|Del)\b", block) and len(block) < 90
        article = re.match(r"^ARTÍCULO (\d+)o?\.-\s*", block)
        if worded and article:
            parts.append(_labelled(f"{in_words(int(article.group(1)))}.-", block[article.end():]))
        else:
            parts.append(_centred(block) if heading else _para(block))
    return parts


def _write(path: Path, parts: list[str]) -> Path:
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


def _acuerdo_head() -> list[str]:
    """A DOF acuerdo's issuing body, title, fundamento and considerandos, up to its "ACUERDO" heading."""
    return [
        _centred("SECRETARIA DEL TRABAJO Y PREVISION SOCIAL"),
        _para("ACUERDO por el que se emiten los Lineamientos para la revisión de las objeciones de los trabajadores a "
              "la declaración anual del patrón.", bold=True),
        _para("Al margen un sello con el Escudo Nacional, que dice: Estados Unidos Mexicanos.- Trabajo.- Secretaría "
              "del Trabajo y Previsión Social."),
        _para("El Secretario del Trabajo y Previsión Social, con fundamento en los artículos 40 de la Ley Orgánica de "
              "la Administración Pública Federal, 121 y 122 de la Ley Federal del Trabajo, y"),
        _centred("CONSIDERANDO"),
        _para("Que los trabajadores tienen derecho a formular objeciones a la declaración anual que presente el "
              "patrón, y que es necesario precisar el procedimiento para su revisión;"),
        _para("Que la certeza jurídica exige reunir en un solo instrumento las reglas aplicables, he tenido a bien "
              "expedir el siguiente"),
        _centred("ACUERDO"),
    ]


def _acuerdo_transitorios(bold_labels: bool) -> list[str]:
    """The acuerdo's transitorios and its signature; `bold_labels`: "PRIMERO.-" set in bold, as a heading."""
    def item(label: str, text: str) -> str:
        return _labelled(label, text) if bold_labels else _para(f"{label} {text}")
    return [
        _centred("TRANSITORIOS"),
        item("PRIMERO.-", "El presente Acuerdo entrará en vigor al día siguiente de su publicación en el Diario "
             "Oficial de la Federación."),
        item("SEGUNDO.-", "Se derogan las disposiciones administrativas que se opongan al presente Acuerdo."),
        _para("Ciudad de México, a 2 de junio de 2024.- El Secretario del Trabajo y Previsión Social.- Rúbrica."),
    ]


def acuerdo_pdf(path: Path, annex_name: str) -> Path:
    """A DOF acuerdo: issuing body, title, considerandos, its one article, its transitorios, then ANEXO ÚNICO."""
    return _write(path, [
        *_acuerdo_head(),
        _para("ARTÍCULO ÚNICO.- Se emiten los Lineamientos para la revisión de las objeciones de los trabajadores a "
              "la declaración anual del patrón, conforme al Anexo Único del presente Acuerdo."),
        *_acuerdo_transitorios(bold_labels=False),
        _centred("ANEXO ÚNICO"),
        _centred(annex_name),
        *_rlft(),
    ])


def issued_after_pdf(path: Path, name: str, worded: bool = False) -> Path:
    """A DOF acuerdo that prints what it issues after its transitorios and signature, under its name alone and with
    no ANEXO label: its one article, TRANSITORIOS, the signature, then `name` (in capitals, or set like a title in
    bold) and the Reglamento's chapters and 29 articles as the lineamientos' (`worded`: numbered in words)."""
    return _write(path, [
        *_acuerdo_head(),
        _labelled("ARTÍCULO ÚNICO.-", "Se emiten los Lineamientos para la revisión de las objeciones de los "
                  "trabajadores a la declaración anual del patrón, que se publican a continuación del presente "
                  "Acuerdo."),
        *_acuerdo_transitorios(bold_labels=True),
        _centred(name) if name.isupper() else _para(name, bold=True),
        *_rlft(worded=worded),
    ])


def lineamientos_pdf(path: Path) -> Path:
    """A DOF acuerdo whose one point issues lineamientos "para quedar como sigue:", printed right after it under
    their name in capitals, chapters and points numbered in words ("PRIMERO.-" … "VIGÉSIMO NOVENO.-": the real
    articles of the Reglamento of arts. 121-122 LFT); then the acuerdo's transitorios, numbered in words too."""
    return _write(path, [
        *_acuerdo_head(),
        _labelled("ÚNICO.-", "Se emiten los Lineamientos para la revisión de las objeciones de los trabajadores a la "
                  "declaración anual del patrón, para quedar como sigue:"),
        _centred(NAME_CAPS),
        *_rlft(worded=True),
        *_acuerdo_transitorios(bold_labels=True),
    ])


ENACTED = "REGLAMENTO DE LA LEY FEDERAL DEL TRABAJO EN MATERIA DE UTILIDADES"
SECOND = "REGLAMENTO DE INSPECCIÓN DE LAS UTILIDADES"
SECOND_BLOCKS = 12  # the second reglamento carries the first chapters and articles only


def decree_pdf(path: Path) -> Path:
    """A DOF decree of three articles, numbered in words: the first and the second each enact a reglamento, printed
    whole after the article (its name in capitals, its chapters, its articles numbered in figures); the third
    reforms an article of a third text. Then the decree's transitorios."""
    return _write(path, [
        _centred("PODER EJECUTIVO"),
        _centred("SECRETARIA DEL TRABAJO Y PREVISION SOCIAL"),
        _para("DECRETO por el que se expiden el Reglamento de la Ley Federal del Trabajo en materia de utilidades y el "
              "Reglamento de Inspección de las Utilidades.", bold=True),
        _para("Al margen un sello con el Escudo Nacional, que dice: Estados Unidos Mexicanos.- Presidencia de la "
              "República."),
        _para("El Presidente de los Estados Unidos Mexicanos, en ejercicio de la facultad que me confiere el artículo "
              "89, fracción I, de la Constitución Política de los Estados Unidos Mexicanos, he tenido a bien expedir "
              "el siguiente"),
        _centred("DECRETO"),
        _para("ARTÍCULO PRIMERO.- Se expide el Reglamento de la Ley Federal del Trabajo en materia de utilidades, "
              "para quedar como sigue:"),
        _centred(ENACTED),
        *_rlft(),
        _para("ARTÍCULO SEGUNDO.- Se expide el Reglamento de Inspección de las Utilidades, para quedar como sigue:"),
        _centred(SECOND),
        *_rlft(SECOND_BLOCKS),
        _para("ARTÍCULO TERCERO.- Se abroga el Reglamento de los Artículos 121 y 122 de la Ley Federal del Trabajo, "
              "publicado en el Diario Oficial de la Federación el 5 de junio de 2014."),
        _centred("TRANSITORIOS"),
        _para("PRIMERO.- El presente Decreto entrará en vigor al día siguiente de su publicación en el Diario Oficial "
              "de la Federación."),
        _para("SEGUNDO.- Se derogan las disposiciones que se opongan al presente Decreto."),
        _para("Dado en la Residencia del Poder Ejecutivo Federal, en la Ciudad de México, a 2 de junio de 2024.- "
              "Rúbrica."),
    ])


TREATY = "CONVENCIÓN SOBRE LOS DERECHOS Y LIBERTADES DE LAS PERSONAS"


def _udhr() -> list[str]:
    """The Universal Declaration's 30 articles as printed ("Artículo 1" on a line, its text after it)."""
    with pymupdf.open(pdf("es_declaracion_universal_derechos_humanos.pdf")) as src:
        text = "\n".join(page.get_text() for page in src)
    parts = []
    for block in re.split(r"\n(?=Artículo \d+\s*\n)", text[text.index("Artículo 1"):]):
        label, *lines = block.strip().split("\n")
        parts += [_para(label.strip(), bold=True), _para(" ".join(" ".join(lines).split()))]
    return parts


def promulgation_pdf(path: Path, articled: bool = True) -> Path:
    """A DOF decree promulgating a treaty, then the certification by the foreign ministry's legal adviser, then the
    treaty's text (its name in capitals, a preamble, articles numbered in figures: the Universal Declaration's).
    `articled`: the decree has an article and a transitorio; else it is the "a sus habitantes, sabed:" form, whose
    only words of its own are its narrative and "promulgo el presente Decreto"."""
    decree = [
        _centred("DECRETO"),
        _para("ARTÍCULO ÚNICO.- Se promulga la Convención sobre los Derechos y Libertades de las Personas, hecha en "
              "Nueva York el diez de diciembre de dos mil veintidós."),
        _centred("TRANSITORIO"),
        _para("ÚNICO.- El presente Decreto entrará en vigor el día de su publicación en el Diario Oficial de la "
              "Federación."),
        _para("Dado en la Residencia del Poder Ejecutivo Federal, en la Ciudad de México, a 3 de mayo de 2023.- "
              "Rúbrica.- La Secretaria de Relaciones Exteriores.- Rúbrica."),
    ] if articled else [
        _para("El diez de diciembre de dos mil veintidós se adoptó en Nueva York la Convención sobre los Derechos y "
              "Libertades de las Personas, cuyo texto en español consta en la copia certificada adjunta. La "
              "Convención mencionada fue aprobada por la Cámara de Senadores del Honorable Congreso de la Unión."),
        _para("Por lo tanto, para su debida observancia, en cumplimiento de lo dispuesto en la fracción I del "
              "artículo 89 de la Constitución Política de los Estados Unidos Mexicanos, promulgo el presente Decreto, "
              "en la Ciudad de México, el tres de mayo de dos mil veintitrés.- Rúbrica.- La Secretaria de Relaciones "
              "Exteriores.- Rúbrica."),
    ]
    return _write(path, [
        _centred("PODER EJECUTIVO"),
        _centred("SECRETARIA DE RELACIONES EXTERIORES"),
        _para("DECRETO Promulgatorio de la Convención sobre los Derechos y Libertades de las Personas, hecha en Nueva "
              "York el diez de diciembre de dos mil veintidós.", bold=True),
        _para("Al margen un sello con el Escudo Nacional, que dice: Estados Unidos Mexicanos.- Presidencia de la "
              "República."),
        _para("El Presidente de los Estados Unidos Mexicanos, " + (
            "en ejercicio de la facultad que me confiere la fracción I del artículo 89 de la Constitución Política de "
            "los Estados Unidos Mexicanos, he tenido a bien expedir el siguiente" if articled
            else "a sus habitantes, sabed:")),
        *decree,
        _para("EL CONSULTOR JURÍDICO DE LA SECRETARÍA DE RELACIONES EXTERIORES, CERTIFICA: Que en los archivos de esta "
              "Secretaría obra el original correspondiente a México de la Convención sobre los Derechos y Libertades "
              "de las Personas, hecha en Nueva York el diez de diciembre de dos mil veintidós, cuyo texto en español "
              "es el siguiente:"),
        _centred(TREATY),
        _centred("Preámbulo"),
        _para("Los Estados Partes en la presente Convención, considerando que la libertad, la justicia y la paz en el "
              "mundo tienen por base el reconocimiento de la dignidad intrínseca de todos los miembros de la familia "
              "humana, han convenido en lo siguiente:"),
        *_udhr(),
    ])


def _labelled(label: str, text: str) -> str:
    """A paragraph opened by its label in bold, as the DOF sets "Artículo 13.-" in a reform decree."""
    return f'<p style="text-align:justify"><b>{html.escape(label)}</b> {html.escape(text)}</p>'


def reform_pdf(path: Path) -> Path:
    """A DOF reform decree of the Congress: its one article reforms arts. 3o. and 13 of the Ley General de Salud
    "para quedar como sigue:", and prints their new text (elided fractions as "..."), then its transitorios."""
    return _write(path, [
        _centred("PODER EJECUTIVO"),
        _centred("SECRETARIA DE SALUD"),
        _para("DECRETO por el que se reforman los artículos 3o. y 13 de la Ley General de Salud.", bold=True),
        _para("Al margen un sello con el Escudo Nacional, que dice: Estados Unidos Mexicanos.- Presidencia de la "
              "República."),
        _para("El Presidente de los Estados Unidos Mexicanos, a sus habitantes sabed: Que el Honorable Congreso de la "
              "Unión, se ha servido dirigirme el siguiente"),
        _centred("DECRETO"),
        _para("\"EL CONGRESO GENERAL DE LOS ESTADOS UNIDOS MEXICANOS, D E C R E T A:"),
        _para("SE REFORMAN LOS ARTÍCULOS 3o. Y 13 DE LA LEY GENERAL DE SALUD."),
        _labelled("Artículo Único.-", "Se reforman las fracciones II y XV del artículo 3o. y el apartado A del "
                  "artículo 13 de la Ley General de Salud, para quedar como sigue:"),
        _labelled("Artículo 3o.-", "En los términos de esta Ley, es materia de salubridad general:"),
        _para("I. ..."),
        _para("II. La atención médica, preferentemente en beneficio de grupos vulnerables, incluida la atención de la "
              "salud mental de niñas, niños y adolescentes;"),
        _para("III. a XIV. ..."),
        _para("XV. La prevención y el control de enfermedades transmisibles y de las adicciones;"),
        _labelled("Artículo 13.-", "La competencia entre la Federación y las entidades federativas en materia de "
                  "salubridad general quedará distribuida conforme a lo siguiente:"),
        _para("A. Corresponde al Ejecutivo Federal, por conducto de la Secretaría de Salud, dictar las normas "
              "oficiales mexicanas a que quedará sujeta la prestación de servicios de salud en las materias de "
              "salubridad general en todo el territorio nacional."),
        _centred("Transitorios"),
        _labelled("Primero.-", "El presente Decreto entrará en vigor al día siguiente de su publicación en el Diario "
                  "Oficial de la Federación."),
        _labelled("Segundo.-", "La Secretaría de Salud contará con un plazo de ciento ochenta días para adecuar sus "
                  "normas oficiales mexicanas."),
        _para("Ciudad de México, a 10 de abril de 2024.- Dip. Presidente.- Rúbrica.- Sen. Presidenta.- Rúbrica.\""),
    ])


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


@pytest.mark.parametrize("name", [NAME_CAPS, NAME_TITLE], ids=["name in capitals", "name set as a title"])
def test_what_an_acuerdo_issues_after_its_transitorios_is_its_text(tmp_path, name):
    """No ANEXO label: the lineamientos follow the acuerdo's signature under their name alone. The name, which the
    acuerdo's title says it issues, opens an annex (`split_documents._issued_after_transitorios`). Before, the 29
    articles were transitory ones (the name in capitals, a generic heading under TRANSITORIOS) or a reform decree
    appended to the acuerdo (the name set like a title), and the questions on them were answered "No encontré"."""
    doc, chunks = _chunks(issued_after_pdf(tmp_path / "acuerdo.pdf", name))
    assert [h.text for h in doc.headings if h.kind is HeadingKind.annex] == [name]
    assert doc.aliases == ["Lineamientos para la revisión de las objeciones de los trabajadores"]
    annexed = [c for c in chunks if c.article not in (None, "Único")]
    assert list(dict.fromkeys(c.article for c in annexed)) == [str(n) for n in range(1, 30)]
    for c in annexed:
        assert c.role is ProvisionRole.text, (c.article, c.role)
        assert name in c.heading_path and "TRANSITORIOS" not in c.heading_path, c.heading_path
    assert {c.role for c in chunks if "TRANSITORIOS" in c.heading_path} == {ProvisionRole.transitory}


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


def test_an_acuerdo_with_an_annex_among_an_editions_documents(tmp_path):
    """The acuerdo printed between two documents of a real DOF edition (its pages before the page on which the
    SHCP's "ANEXO 14 de la Resolución Miscelánea Fiscal para 2023" opens): the annex is the acuerdo's text, and
    the edition's documents around it are split and named as they are without it."""
    acuerdo = acuerdo_pdf(tmp_path / "acuerdo.pdf", NAME_TITLE)
    edition = pymupdf.open(pdf("dof_2023-01-11_MAT_first20pages.pdf"))
    alone = [d.title for d in parse_pdf(pdf("dof_2023-01-11_MAT_first20pages.pdf")).documents]
    with pymupdf.open() as out, pymupdf.open(acuerdo) as inserted:
        out.insert_pdf(edition, to_page=11)
        out.insert_pdf(inserted)
        out.insert_pdf(edition, from_page=12)
        out.save(tmp_path / "edition.pdf")
    edition.close()
    documents = parse_pdf(tmp_path / "edition.pdf").documents
    titles = [d.title for d in documents]
    assert titles[:3] + titles[4:] == alone and titles[3].startswith("ACUERDO por el que se emiten los Lineamientos")
    chunks = chunk_document(documents[3], lambda t: len(t.split()), 350)
    annexed = [c for c in chunks if c.article not in (None, "Único")]
    assert list(dict.fromkeys(c.article for c in annexed)) == [str(n) for n in range(1, 30)]
    assert {c.role for c in annexed} == {ProvisionRole.text}


def test_a_decree_takes_up_its_own_articles_after_each_law_it_enacts(tmp_path):
    """"ARTÍCULO PRIMERO.- Se expide el Reglamento …, para quedar como sigue:" / the reglamento's chapters and
    articles "ARTÍCULO 1o.-" … "ARTÍCULO 29.-" / "ARTÍCULO SEGUNDO.- Se expide …" / a second reglamento / "ARTÍCULO
    TERCERO.- Se abroga …" / TRANSITORIOS. The decree's next article, numbered in words as its own are, ends each law
    (`split_documents._decree_resumes`). Before, everything after the first law's name was that law: the decree's
    second and third articles were its articles 2 and 3 (the abrogation answered "¿Qué dice el artículo 2 del
    Reglamento …?"), and the second reglamento's articles were its articles too."""
    documents = parse_pdf(decree_pdf(tmp_path / "decreto.pdf")).documents
    decree, first, second = documents
    assert decree.title.startswith("DECRETO por el que se expiden")
    assert [first.title.casefold(), second.title.casefold()] == [ENACTED.casefold(), SECOND.casefold()]

    own = chunk_document(decree, lambda t: len(t.split()), 350)
    assert list(dict.fromkeys(c.article for c in own if c.article)) == ["1", "2", "3"]
    assert {c.role for c in own if c.article} == {ProvisionRole.text}
    [abrogation] = [c for c in own if "Se abroga el Reglamento de los Artículos 121 y 122" in c.text]
    assert abrogation.article == "3"
    assert {c.role for c in own if "TRANSITORIOS" in c.heading_path} == {ProvisionRole.transitory}

    articles = sum(1 for b in _rlft_blocks()[:SECOND_BLOCKS] if re.match(r"ARTÍCULO \d", b))
    for law, count in ((first, 29), (second, articles)):
        chunks = chunk_document(law, lambda t: len(t.split()), 350)
        assert list(dict.fromkeys(c.article for c in chunks)) == [str(n) for n in range(1, count + 1)], law.title
        assert {c.role for c in chunks} == {ProvisionRole.text}
        assert not any("Se expide" in c.text or "Se abroga" in c.text or "TRANSITORIOS" in c.heading_path
                       for c in chunks), law.title


@pytest.mark.parametrize("articled", [True, False], ids=["decree with an article", "sabed: form"])
def test_a_treaty_a_decree_promulgates_is_a_document_of_its_own(tmp_path, articled):
    """The treaty's text after the decree and the certification: a document named as its heading prints it, a
    treaty, its 30 articles its text. Before, its articles were the decree's, and a question naming the convention
    was told it was not indexed."""
    decree, treaty = parse_pdf(promulgation_pdf(tmp_path / "promulgacion.pdf", articled)).documents
    assert decree.title.startswith("DECRETO Promulgatorio de la Convención")
    assert (treaty.title.casefold(), treaty.doc_type) == (TREATY.casefold(), DocType.tratado)
    chunks = chunk_document(treaty, lambda t: len(t.split()), 350)
    assert list(dict.fromkeys(c.article for c in chunks if c.article)) == [str(n) for n in range(1, 31)]
    assert {c.role for c in chunks if c.article} == {ProvisionRole.text}
    own = chunk_document(decree, lambda t: len(t.split()), 350)
    assert {c.article for c in own if c.article} == ({"Único"} if articled else set())


def test_a_reform_decree_names_what_it_amends_and_prints_the_new_text_of_each_article(tmp_path):
    [decree] = parse_pdf(reform_pdf(tmp_path / "reforma.pdf")).documents
    assert [(r.law, r.articles) for r in decree.amends] == [("Ley General de Salud", ["3", "13"])]
    chunks = chunk_document(decree, lambda t: len(t.split()), 350)
    assert [c.article for c in chunks if c.article] == ["Único", "3", "13"]
    [art13] = [c for c in chunks if c.article == "13"]
    assert "dictar las normas oficiales mexicanas" in " ".join(art13.text.split())
    assert art13.role is ProvisionRole.text


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
