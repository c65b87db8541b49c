"""Names on layouts nobody tuned on (issue 24 item 4): each rule of `ingest.identity` on a PDF built here with PyMuPDF
in the layout the gazette or the Chamber prints, and where a shared PDF shows the same thing, on that PDF.

1. A cover is a cover: the Diputados "mobile" layout of a law (legal-size pages, a first page that says "Versión PDF
   para vista en dispositivo móvil Android y Apple iOS") is named and typed by the law's name, never by the cover line.
2. A bounded title keeps the words that tell two documents apart: a DOF title ends where its grammar ends (its
   period), not at a page break or a line count.
3. An issuing body from the letterhead of a municipal, district or court text when no DOF section heading names one.
4. A type from the title's grammar when the title spans lines: a Colombian "ACUERDO No. 123 DE 2020" whose number,
   date and "Por el cual se …" are set on lines of their own.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from ingest.models import DocType
from ingest.parse import parse_pdf

LEGAL = (612, 1008)  # the mobile layout's legal-size page
LETTER = (612, 792)
BODY = ("El presente ordenamiento es de orden público e interés social y tiene por objeto regular las materias que "
        "en él se establecen, conforme a las disposiciones aplicables y a los principios que rigen la función "
        "pública. Las autoridades competentes vigilarán su debido cumplimiento en el ámbito de sus atribuciones.")

_OPENERS = ("Para efectos de este artículo,", "Corresponde a la autoridad,", "En los casos previstos,",
            "Sin perjuicio de lo anterior,", "Cuando así proceda,", "De conformidad con la ley,", "Asimismo,")


def _page(doc: pymupdf.Document, size=LETTER) -> pymupdf.Page:
    return doc.new_page(width=size[0], height=size[1])


def _para(page: pymupdf.Page, y: float, text: str, *, bold: bool = False, size: float = 10, width: float = 468,
          align: int = pymupdf.TEXT_ALIGN_JUSTIFY) -> float:
    """`text` set as a paragraph from `y`; the y below it."""
    font = "hebo" if bold else "helv"
    rect = pymupdf.Rect(72, y, 72 + width, y + 400)
    left = page.insert_textbox(rect, text, fontname=font, fontsize=size, align=align)
    return y + 400 - left + size * 0.6


def _line(page: pymupdf.Page, y: float, text: str, *, bold: bool = False, size: float = 10, x: float = 72) -> float:
    page.insert_text((x, y), text, fontname="hebo" if bold else "helv", fontsize=size)
    return y + size * 1.35


def _save(doc: pymupdf.Document, path: Path) -> Path:
    doc.save(path)
    doc.close()
    return path


# --- 1. the mobile layout's cover ------------------------------------------------------------------------------

CPEUM = "CONSTITUCIÓN POLÍTICA DE LOS ESTADOS UNIDOS MEXICANOS"
MOBILE = "Versión PDF para vista en dispositivo móvil Android y Apple iOS"


def _diputados_header(page: pymupdf.Page, name: str | None, reform: str, n: int, total: int) -> float:
    y = _line(page, 40, name, bold=True, size=9, x=150) + 4 if name else 40
    y = _line(page, y, "CÁMARA DE DIPUTADOS DEL H. CONGRESO DE LA UNIÓN", size=8)
    y = _line(page, y, "Secretaría General", size=8)
    y = _line(page, y, "Secretaría de Servicios Parlamentarios", size=8)
    _line(page, y, f"Última Reforma DOF {reform}", size=8, x=440)
    _line(page, page.rect.height - 30, f"{n} de {total}", size=8, x=520)
    return y + 30


def _mobile_law(path: Path, name: str, published: str, reform: str, pages: int = 5,
                name_in_header: bool = True) -> Path:
    """A Diputados consolidated law in its mobile layout: a cover (the device line atop it, the Chamber, the law's
    name, its last reform), then legal-size pages under the Chamber's running header (with or without the law's
    name)."""
    doc = pymupdf.open()
    cover = _page(doc, LEGAL)
    y = _para(cover, 60, MOBILE, bold=True, size=22, align=pymupdf.TEXT_ALIGN_CENTER)
    y = _line(cover, y + 120, "CÁMARA DE DIPUTADOS DEL H. CONGRESO DE LA UNIÓN", size=11, x=130)
    y = _line(cover, y, "Secretaría General", size=11, x=130)
    y = _line(cover, y, "Secretaría de Servicios Parlamentarios", size=11, x=130)
    y = _para(cover, y + 60, name, bold=True, size=16, align=pymupdf.TEXT_ALIGN_CENTER)
    _para(cover, y + 60, f"Última Reforma DOF {reform}", size=12, align=pymupdf.TEXT_ALIGN_CENTER)
    for n in range(2, pages + 1):
        page = _page(doc, LEGAL)
        y = _diputados_header(page, name if name_in_header else None, reform, n, pages)
        if n == 2:
            y = _para(page, y, name, bold=True, size=12, align=pymupdf.TEXT_ALIGN_CENTER)
            y = _para(page, y + 6, f"Nueva publicada en el Diario Oficial de la Federación el {published}", size=10,
                      align=pymupdf.TEXT_ALIGN_CENTER)
            y = _para(page, y + 6, "TEXTO VIGENTE", bold=True, size=10, align=pymupdf.TEXT_ALIGN_CENTER)
            y = _para(page, y, f"Última reforma publicada DOF {reform}", size=10, align=pymupdf.TEXT_ALIGN_CENTER)
            y = _line(page, y + 20, "TÍTULO PRIMERO", bold=True, size=10, x=260)
            y = _line(page, y, "CAPÍTULO I", bold=True, size=10, x=270)
        for a in range(1, 4):
            art = (n - 2) * 3 + a
            _line(page, y + 8, f"Artículo {art}o.-", bold=True, size=10)
            y = _para(page, y + 12, f"{_OPENERS[art % len(_OPENERS)]} {BODY}") + 6
    return _save(doc, path)


@pytest.fixture(scope="module")
def mobile_cpeum(tmp_path_factory) -> Path:
    return _mobile_law(tmp_path_factory.mktemp("mobile") / "cpeum_movil.pdf", CPEUM, "5 de febrero de 1917",
                       "15-10-2025", name_in_header=False)


@pytest.fixture(scope="module")
def mobile_law(tmp_path_factory) -> Path:
    return _mobile_law(tmp_path_factory.mktemp("mobile") / "ley_movil.pdf", "LEY GENERAL DE PROTECCIÓN CIVIL",
                       "6 de junio de 2012", "20-05-2021", name_in_header=False)


def test_the_mobile_layout_cover_names_the_constitution_not_the_device(mobile_cpeum: Path) -> None:
    doc = parse_pdf(mobile_cpeum).documents[0]
    assert "dispositivo" not in doc.title.lower() and "versión pdf" not in doc.title.lower()
    assert doc.title.lower().startswith("constitución política de los estados unidos mexicanos")
    assert doc.doc_type is DocType.constitucion
    assert str(doc.last_reform_date) == "2025-10-15"
    assert doc.law_id == "mx/constitucion-politica-de-los-estados-unidos-mexicanos"


def test_the_mobile_layout_of_a_law_is_named_by_the_law(mobile_law: Path) -> None:
    doc = parse_pdf(mobile_law).documents[0]
    assert doc.title.lower() == "ley general de protección civil"
    assert doc.doc_type is DocType.ley
    assert str(doc.last_reform_date) == "2021-05-20" and str(doc.publication_date) == "2012-06-06"


def test_lines_that_describe_the_file_are_never_the_title() -> None:
    from ingest.identity import describes_file

    for line in (MOBILE, "Versión para imprimir", "TEXTO VIGENTE", "Versión PDF", "Documento descargado de "
                 "www.diputados.gob.mx", "Formato accesible para lectores de pantalla"):
        assert describes_file(line), line
    for line in (CPEUM, "LEY DE AMPARO, REGLAMENTARIA DE LOS ARTÍCULOS 103 Y 107", "Versiones estenográficas del "
                 "Senado: acuerdo de la Mesa Directiva"):
        assert not describes_file(line), line


# --- 2. a DOF title ends at its period, not at a page break ----------------------------------------------------

SEGOB = "SECRETARIA DE GOBERNACION"
AMPLIACION = ("AMPLIACIÓN al Anexo Único del Convenio de Coordinación y Adhesión para el otorgamiento de subsidios "
              "en materia de atención a personas migrantes, que celebran la Secretaría de Gobernación, por conducto "
              "del Instituto Nacional de Migración, y el Estado de {state}.")
ACUERDO = ("ACUERDO por el que se dan a conocer los lineamientos para la atención de personas migrantes en las "
           "entidades federativas.")
SEAL = ("Al margen un sello con el Escudo Nacional, que dice: Estados Unidos Mexicanos.- Gobernación.- Secretaría de "
        "Gobernación.- Instituto Nacional de Migración.")


def _dof_header(page: pymupdf.Page, n: int, date: str) -> None:
    if n % 2:
        _line(page, 46, date, size=9, x=91)
        _line(page, 46, "DIARIO OFICIAL", size=9, x=278)
        _line(page, 46, str(n), size=9, x=512)
    else:
        _line(page, 46, str(n), size=9, x=99)
        _line(page, 46, "DIARIO OFICIAL", size=9, x=274)
        _line(page, 46, date, size=9, x=389)


def _tibo_para(page: pymupdf.Page, y: float, text: str, bottom: float | None = None) -> tuple[float, str]:
    """A DOF title (Times bold 9) from `y`, as many of its lines as fit above `bottom`; the y below it and the
    words left over for the next page."""
    words, rest, lines, line = text.split(), [], [], ""
    for i, w in enumerate(words):
        trial = f"{line} {w}".strip()
        if pymupdf.get_text_length(trial, fontname="tibo", fontsize=9) > 444:
            lines.append(line)
            line = w
        else:
            line = trial
    lines.append(line)
    for k, ln in enumerate(lines):
        if bottom is not None and y > bottom:
            return y, " ".join(lines[k:])
        page.insert_text((85, y), ln, fontname="tibo", fontsize=9)
        y += 10.5
    return y, ""


def _dof_edition(path: Path, states: tuple[str, ...]) -> Path:
    """A DOF edition of SEGOB's documents: the body heading, an ACUERDO that fills the first page, then per state its
    AMPLIACIÓN title, the seal and the body; the first AMPLIACIÓN set at the foot of the page so that its last words
    ("…y el Estado de Tabasco.") go on the next page."""
    doc = pymupdf.open()
    date = "Lunes 1 de abril de 2024"
    page = _page(doc)
    n = 2
    _dof_header(page, n, date)
    y = _line(page, 80, "PODER EJECUTIVO", bold=True, size=14, x=240)
    y = _line(page, y + 8, SEGOB, bold=True, size=14, x=180)
    y, _ = _tibo_para(page, y + 6, ACUERDO)
    y = _para(page, y + 4, SEAL, size=9)
    while y < 640:
        y = _para(page, y + 4, f"{_OPENERS[int(y) % len(_OPENERS)]} {BODY}", size=9)
    y = 704  # the foot of the page: two of the title's lines fit, the rest goes on the next page
    for k, state in enumerate(states):
        y, rest = _tibo_para(page, y + 8, AMPLIACION.format(state=state), bottom=725 if k == 0 else None)
        if rest:
            page, n = _page(doc), n + 1
            _dof_header(page, n, date)
            y, _ = _tibo_para(page, 70, rest)
        y = _para(page, y + 4, SEAL, size=9)
        for m in range(3):
            y = _para(page, y + 4, f"{_OPENERS[m]} {BODY}", size=9)
        if k + 1 < len(states):
            page, n = _page(doc), n + 1
            _dof_header(page, n, date)
            y = 70
    return _save(doc, path)


@pytest.fixture(scope="module")
def dof_two_states(tmp_path_factory) -> Path:
    return _dof_edition(tmp_path_factory.mktemp("dof") / "dof_2024-04-01_MAT.pdf", ("Tabasco", "Chiapas"))


def test_a_dof_title_across_a_page_break_keeps_its_distinguishing_end(dof_two_states: Path) -> None:
    docs = parse_pdf(dof_two_states).documents
    titles = [d.title for d in docs]
    assert titles == [ACUERDO, AMPLIACION.format(state="Tabasco"), AMPLIACION.format(state="Chiapas")], titles
    assert [d.doc_type for d in docs] == [DocType.acuerdo, DocType.anexo, DocType.anexo]
    assert all(d.issuing_body == SEGOB for d in docs)


# --- 3. the issuing body a letterhead names --------------------------------------------------------------------


def _letterhead_text(path: Path, letterhead: list[str], title: list[str], pages: int, every_page: bool,
                     caps_head: bool = False) -> Path:
    """A text under an institution's letterhead (on every page, or on the first only), its title in bold capitals,
    then its body: a district court's resolution, a municipality's agreement, a tribunal's ruling."""
    doc = pymupdf.open()
    for n in range(1, pages + 1):
        page = _page(doc)
        y = 50
        if n == 1 or every_page:
            for k, text in enumerate(letterhead):
                y = _line(page, y, text.upper() if caps_head else text, bold=k == 0, size=11 if k == 0 else 10,
                          x=150)
            y += 20
        if n == 1:
            _line(page, y, "Expediente número 1234/2024", size=10, x=380)
            y += 30
            for text in title:
                y = _line(page, y, text, bold=True, size=10)
            y += 10
        while y < 650:
            y = _para(page, y + 4, f"{_OPENERS[(int(y) + n) % len(_OPENERS)]} {BODY}")
        _line(page, 760, f"Página {n} de {pages}", size=8, x=270)
    return _save(doc, path)


DISTRICT = ["Poder Judicial del Estado de Hidalgo", "Secretaría de Acuerdos del Distrito Judicial de Tula de Allende"]
MUNICIPAL = ["H. Ayuntamiento de San Pedro Garza García, Nuevo León", "Secretaría del Ayuntamiento"]
TRIBUNAL = ["Tribunal de Justicia Administrativa del Estado de México", "Primera Sala Regional de Toluca"]


@pytest.mark.parametrize(("letterhead", "every_page", "caps", "title", "body", "kind"), [
    (DISTRICT, True, False, ["RESOLUCIÓN por la que se declara la caducidad de la instancia en el juicio ordinario",
                             "civil promovido ante este Distrito Judicial."],
     "Poder Judicial del Estado de Hidalgo Secretaría de Acuerdos del Distrito Judicial de Tula de Allende",
     DocType.resolucion),
    (MUNICIPAL, False, False, ["ACUERDO por el que se aprueba el Reglamento de Tránsito y Vialidad del Municipio",
                               "de San Pedro Garza García, Nuevo León."],
     "H. Ayuntamiento de San Pedro Garza García, Nuevo León Secretaría del Ayuntamiento", DocType.acuerdo),
    (TRIBUNAL, True, True, ["ACUERDO por el que se turnan los expedientes de la Primera Sala Regional."],
     "TRIBUNAL DE JUSTICIA ADMINISTRATIVA DEL ESTADO DE MÉXICO PRIMERA SALA REGIONAL DE TOLUCA", DocType.acuerdo),
], ids=["district-secretariat", "municipality-first-page", "tribunal-capitals"])
def test_the_issuing_body_is_the_letterhead(tmp_path: Path, letterhead, every_page, caps, title, body, kind) -> None:
    path = _letterhead_text(tmp_path / "letterhead.pdf", letterhead, title, 3, every_page, caps)
    doc = parse_pdf(path).documents[0]
    assert doc.issuing_body == body
    assert doc.title == " ".join(title) and doc.doc_type is kind


# --- 4. a type from the title's grammar when the title spans lines ---------------------------------------------

CO_PURPOSE = ["Por el cual se adopta la Política Pública de Protección y Bienestar Animal",
              "del Municipio de Medellín y se dictan otras disposiciones."]


def _co_acuerdo(path: Path, head: list[str], purpose: list[str], caps_purpose: bool = False) -> Path:
    """A Colombian municipal council's ACUERDO: the letterhead, the act's number and year (on one line or two), its
    date in parentheses, the purpose ("Por el cual se …") over several lines, the council's preamble, ACUERDA:."""
    doc = pymupdf.open()
    page = _page(doc)
    y = _line(page, 50, "REPÚBLICA DE COLOMBIA", bold=True, size=10, x=240)
    y = _line(page, y, "CONCEJO DE MEDELLÍN", bold=True, size=10, x=245) + 20
    for text in head:
        y = _line(page, y, text, bold=True, size=12, x=220)
    y = _line(page, y + 4, "(noviembre 3)", size=11, x=260) + 10
    for text in purpose:
        y = _line(page, y, text.upper() if caps_purpose else text, bold=True, size=11)
    y = _para(page, y + 12, "EL CONCEJO DE MEDELLÍN, en uso de sus atribuciones constitucionales y legales, en "
                            "especial las conferidas por el artículo 313 de la Constitución Política y la Ley 136 de "
                            "1994,")
    y = _line(page, y + 10, "ACUERDA:", bold=True, size=11, x=270)
    for art in range(1, 4):
        y = _para(page, y + 8, f"ARTÍCULO {art}. {_OPENERS[art]} {BODY}")
    page = _page(doc)
    y = 60
    for art in range(4, 8):
        y = _para(page, y + 8, f"ARTÍCULO {art}. {_OPENERS[art % len(_OPENERS)]} {BODY}")
    _para(page, y + 20, "Dado en Medellín, a los tres (3) días del mes de noviembre de dos mil veinte (2020).")
    return _save(doc, path)


@pytest.mark.parametrize(("head", "caps"), [
    (["ACUERDO No. 123 DE 2020"], False),
    (["ACUERDO No. 123", "DE 2020"], False),
    (["ACUERDO", "No. 123 DE 2020"], False),
    (["ACUERDO NÚMERO 123 DE 2020"], True),
], ids=["one-line", "year-below", "number-below", "purpose-in-capitals"])
def test_a_colombian_acuerdo_is_typed_and_titled_whole(tmp_path: Path, head: list[str], caps: bool) -> None:
    doc = parse_pdf(_co_acuerdo(tmp_path / "co_acuerdo.pdf", head, CO_PURPOSE, caps)).documents[0]
    purpose = " ".join(CO_PURPOSE)
    assert doc.doc_type is DocType.acuerdo
    assert doc.title == f"{' '.join(head)} {purpose.upper() if caps else purpose}"
    assert doc.number == "123" and doc.short_title == " ".join(head)
    assert str(doc.publication_date) == "2020-11-03"


# --- the same rules on the shared PDFs --------------------------------------------------------------------------


def test_on_the_shared_colombian_law_the_parenthesised_date_takes_the_heads_year() -> None:
    """co_diario_oficial_ley_99_1993.pdf prints "LEY 99 DE 1993" / "(diciembre 22)" / "por la cual se crea …"."""
    from tests.ingest.parsed_cache import parsed

    doc = parsed("co_diario_oficial_ley_99_1993.pdf").documents[0]
    assert doc.doc_type is DocType.ley and doc.number == "99" and doc.short_title == "LEY 99 DE 1993"
    assert doc.title.startswith("LEY 99 DE 1993 por la cual se crea el Ministerio del Medio Ambiente")
    assert doc.title.endswith("se dictan otras disposiciones.")
    assert str(doc.publication_date) == "1993-12-22"


def test_on_the_shared_durango_agreement_the_letterhead_is_the_issuer() -> None:
    """mx_durango_acuerdo_general_01-2021_judicatura.pdf: "PODER JUDICIAL DEL ESTADO DE DURANGO" / "CONSEJO DE LA
    JUDICATURA" atop its first page, then its ACUERDO GENERAL."""
    from tests.ingest.parsed_cache import parsed

    doc = parsed("mx_durango_acuerdo_general_01-2021_judicatura.pdf").documents[0]
    assert doc.issuing_body == "PODER JUDICIAL DEL ESTADO DE DURANGO CONSEJO DE LA JUDICATURA"
    assert doc.doc_type is DocType.acuerdo and doc.title.startswith("ACUERDO GENERAL 01/2021 DEL PLENO")


def test_on_the_shared_constitution_the_banner_is_not_the_title() -> None:
    """mx_ley_CPEUM_constitucion_politica.pdf prints "TEXTO VIGENTE" under the Constitution's name."""
    from tests.ingest.parsed_cache import parsed

    doc = parsed("mx_ley_CPEUM_constitucion_politica.pdf").documents[0]
    assert doc.title == "Constitución Política de los Estados Unidos Mexicanos"
    assert doc.doc_type is DocType.constitucion and str(doc.last_reform_date) == "2025-10-15"


def _rotated_annex(path: Path) -> Path:
    """A DOF annex set sideways on portrait pages (its table turned landscape): "ANEXO 4 F" in bold and, on the next
    row across the page, its subtitle in roman type ending with the title's full stop."""
    doc = pymupdf.open()
    for n in (53, 54):
        page = _page(doc)
        _dof_header(page, n, "Lunes 1 de abril de 2024")
        if n == 53:
            page.insert_text((94, 418), "ANEXO 4 F", fontname="tibo", fontsize=9, rotate=90)
            page.insert_text((109, 713), "Programas-Indicadores-Metas de \"LOS PROGRAMAS\" en materia de Salud Pública.",
                             fontname="helv", fontsize=9, rotate=90)
        x = 140 if n == 53 else 90
        for row in range(8 if n == 53 else 22):  # read before the title: the rows run from the page's far side
            page.insert_text((x + 14 * row, 713), f"{row + 1}  Prevención y Control de Enfermedades  Índice "
                             f"{row * 3 + 7}  Meta federal {row + 40}", fontname="helv", fontsize=7, rotate=90)
    return _save(doc, path)


def test_a_sideways_annex_title_takes_its_subtitle_on_the_next_row(tmp_path: Path) -> None:
    doc = parse_pdf(_rotated_annex(tmp_path / "dof_2024-04-01_MAT_anexo.pdf")).documents[0]
    assert doc.title == "ANEXO 4 F Programas-Indicadores-Metas de \"LOS PROGRAMAS\" en materia de Salud Pública."
    assert doc.doc_type is DocType.anexo
