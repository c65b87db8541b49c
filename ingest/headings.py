"""Which lines are headings, of what kind, and at what level.

Font size alone finds almost none of the DOF's headings (they are bold at body size), so a line is classified by the
legal grammar first (LIBRO, TÍTULO, CAPÍTULO, SECCIÓN, Artículo N., PRIMERO.-, TRANSITORIOS, CONSIDERANDO,
DECLARACIONES, CLÁUSULAS…), then by typography: weight, case, centring, size relative to the body text.

Level scheme (level 1 is the chunker's synthetic "# Document:" line). Each kind has a rank; a document's levels are
its ranks in use, compacted and numbered from 2, so a document without issuing body starts its TÍTULOs at level 2:

    rank 0  poder         PODER EJECUTIVO / PODER JUDICIAL / ORGANISMOS AUTÓNOMOS (DOF sections)
    rank 1  issuing_body  SECRETARIA DE MARINA, COMITE DE EVALUACION DEL PODER JUDICIAL…
    rank 2  title         the document opener: "DECRETO por el que…", "ACUERDO…", "AVISO…", "NORMA Oficial…"
    rank 3  libro / part  LIBRO; and the parts of an instrument: CONSIDERANDO, DECLARACIONES, CLÁUSULAS,
            / annex       TRANSITORIOS, ANTECEDENTES, RESULTANDO, a lone "ACUERDO"/"DECRETO" line; and its annexes
                          ("ANEXO ÚNICO", "ANEXO I", "ANEXO V-A"), which close its transitorios: what an acuerdo
                          carries in its annex (the lineamientos, the reglas) is no transitory article of it
    rank 4  titulo        TÍTULO …; large generic headings
    rank 5  capitulo      CAPÍTULO …
    rank 6  seccion       SECCIÓN …; bold generic headings
    rank 7  subseccion    SUBSECCIÓN … (the BOE's "Subsección 1.ª Disposiciones generales.", inside a Sección)
    rank 8  articulo / clause   "Artículo 27.", "PRIMERO.-", "SEGUNDA.- RECURSOS."
            / numeral   "5.3 …", "2.1.3. …", "110-26. …": a section of a text numbered in figures (a NOM, reglas,
                        lineamientos), once the document's numbering confirms it (`numbered_sections`)
    rank 9  caption       a table's or figure's caption set as a heading ("Tabla 110-26(a)(1).- Espacios de trabajo",
                          "TABLE D-3: …"): under the provision it sits in, closing none

For articles and clauses only the label ("Artículo 1o.", "PRIMERO.-") becomes the heading; the text after it stays
body text — except an article's own title, which the BOE sets in italics after the label ("Artículo 4. *Capital social
mínimo.*"): it is part of the heading (`Classified.title`), never a sentence of the article. A structural label
starts with a capital letter: "título X, en la Ley…" at the start of a justified line is a sentence, not a TÍTULO;
nor is a label followed by a word in lower case ("Libro II de este Código y…"): a division's name is capitalised. A
division's label standing alone ("TÍTULO II") takes the heading printed right below it as its name (`names_division`,
`Classified.title`; the name stays a heading line of its own), so a chunk's `heading_path` names the title even
under a chapter, which closes the name's line. The PDF outline, when present, promotes a line it names that the
classifier missed; it is never required.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from ingest.layout import Line

# Internal heading kinds (ingest.markdown_build maps them to models.HeadingKind): one definition, no free strings.
PODER, ISSUING_BODY, TITLE, LIBRO, PART, ANNEX = "poder", "issuing_body", "title", "libro", "part", "annex"
TITULO, CAPITULO, SECCION, ARTICULO, CLAUSE = "titulo", "capitulo", "seccion", "articulo", "clause"
SUBSECCION = "subseccion"
NUMERAL = "numeral"
HEADING_MAJOR, HEADING_MINOR, OUTLINE = "heading_major", "heading_minor", "outline"
CAPTION = "caption"  # a table's or a figure's caption set as a heading: "Tabla 110-26(a)(1).- Espacios de trabajo"
BODY_KINDS = (PODER, ISSUING_BODY)  # the issuer of a document
ARTICLE_KINDS = (ARTICULO, CLAUSE, NUMERAL)  # label-only headings: the text after the label stays body text
GENERIC_KINDS = (HEADING_MAJOR, HEADING_MINOR, OUTLINE, CAPTION)  # typographic headings, not legal grammar
BOUNDARY_KINDS = (PODER, ISSUING_BODY, TITLE)  # a run of these opens a document in an edition
# a law's divisions and annexes: a label and a name
DIVISION_KINDS = (LIBRO, TITULO, CAPITULO, SECCION, SUBSECCION, ANNEX)

RANKS = {"poder": 0, "issuing_body": 1, "title": 2, "libro": 3, "part": 3, "annex": 3, "titulo": 4, "capitulo": 5,
         "seccion": 6, "subseccion": 7, "articulo": 8, "clause": 8, "numeral": 8,
         "caption": 9}

_ORD = (r"(?:PRIMER[OA]?|SEGUND[OA]|TERCER[OA]?|CUART[OA]|QUINT[OA]|SEXT[OA]|S[EÉ]PTIM[OA]|OCTAV[OA]|NOVEN[OA]|"
        r"D[EÉ]CIM[OA](?:\s?(?:PRIMER[OA]|SEGUND[OA]|TERCER[OA]|CUART[OA]|QUINT[OA]|SEXT[OA]|S[EÉ]PTIM[OA]|"
        r"OCTAV[OA]|NOVEN[OA]))?|D[EÉ]CIMOCTAV[OA]|UND[EÉ]CIM[OA]|DUOD[EÉ]CIM[OA]|VIG[EÉ]SIM[OA](?:\s?\w+)?|TRIG[EÉ]SIM[OA](?:\s?\w+)?|"
        r"[ÚU]NIC[OA])")
_NUM = r"(?:\d+[o°º]?|[IVXLC]+|" + _ORD + r")"
# The Latin ordinals that number articles inserted after another ("Artículo 4 bis", "529 tervicies"): longest first.
LATIN_ORDINALS = (r"(?i:quaterdecies|quatervicies|septdecies|octodecies|novodecies|terdecies|quindecies|sexdecies|"
                  r"duodecies|undecies|unvicies|duovicies|tervicies|quinvicies|sexvicies|septvicies|octovicies|"
                  r"novovicies|quinquies|decies|vicies|tricies|sexies|septies|octies|no[nv]ies|qu[aá]ter|bis|ter)")
# An annex's number: "ÚNICO", "I", "3", "A", "V-A".
_ANNEX_NUMBER = r"(?:[ÚUúu]nic[oa]|[ÚU]NIC[OA]|[IVXLC]+|\d{1,3}|[A-Z])(?:\s?-\s?[A-Z0-9]{1,3})?"
_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("poder", re.compile(r"^(?:PODER\s+(?:EJECUTIVO|JUDICIAL|LEGISLATIVO)|ORGANISMOS\s+AUT[OÓ]NOMOS|"
                         r"AVISOS|AVISOS\s+JUDICIALES\s+Y\s+GENERALES|CONVOCATORIAS\s+PARA\s+CONCURSOS.*)\s*$")),
    ("libro", re.compile(r"^LIBRO\s+" + _NUM + r"\b", re.I)),
    ("titulo", re.compile(r"^T[IÍ]TULO\s+(?:" + _NUM + r"|PRELIMINAR)\b", re.I)),
    ("capitulo", re.compile(r"^CAP[IÍ]TULO\s+(?:" + _NUM + r"|[A-Z])\b", re.I)),
    ("seccion", re.compile(r"^SECCI[OÓ]N\s+(?:" + _NUM + r"|[A-Z])\b", re.I)),
    ("subseccion", re.compile(r"^SUBSECCI[OÓ]N\s+(?:" + _NUM + r"|[A-Z])\b", re.I)),
    # "ANEXO", "ANEXO ÚNICO", "ANEXO I", "Anexo 3", "ANEXO V-A", its name after it or below it; "ANEXO 14 de la
    # Resolución…" (a document's title) and "Anexo I del presente…" (a sentence) go on in lower case: no annex. In
    # lower case a label is numbered: a bare "Anexo" heads a table's column ("Anexo" | "Datos a proporcionar").
    ("annex", re.compile(r"^(?:ANEXOS?(?:\s+" + _ANNEX_NUMBER + r")?+|Anexos?\s+" + _ANNEX_NUMBER + r")\b"
                         r"(?=\s*(?:$|[.:\-–]|[A-ZÁÉÍÓÚÑ¿\"“(]))")),  # not "ANEXOS 11, 12 y 13 de la …": a title
    ("part", re.compile(r"^(?:ART[IÍ]CULOS?\s+)?(?:TRANSITORIOS?|CONSIDERANDOS?|DECLARACIONES|CL[AÁ]USULAS|"
                        r"ANTECEDENTES|RESULTANDOS?|PUNTOS\s+RESOLUTIVOS|RESOLUTIVOS|ACUERDO|DECRETO|"
                        r"CONSIDERACIONES|FUNDAMENTOS|PRE[AÁ]MBULO|EXPOSICI[OÓ]N\s+DE\s+MOTIVOS|CONTENIDO|[IÍ]NDICE|"
                        r"SUMARIO)\s*:?\s*$", re.I)),
]
# The letter that numbers a run of articles inserted after one ("Artículo 283 bis a).", "… 283 bis k)."), after
# its Latin ordinal: a lower-case letter and its closing parenthesis.
ARTICLE_LETTER = r"(?:\s+(?-i:[a-z])\))"
# What may follow a division's number before its name: "1.ª bis. Del acceso…", "II.- De las penas".
_AFTER_LABEL = re.compile(r"^[\s.:\-–ªº°]*(?:" + LATIN_ORDINALS + r"\b[\s.:\-–]*)?")
_ARTICLE = re.compile(r"^(?:ART[IÍ]CULO|ART\.)\s+(?:\d+[o°º]?(?:[-\s]?[A-Z]\b)?|" + _ORD + r")"
                      r"(?:\s+" + LATIN_ORDINALS + ARTICLE_LETTER + r"?)?\s*(?:\.\s*-|\.-|\.|-|–|:)", re.I)
# An article numbered by an ordinal word ("ARTÍCULO SEGUNDO.-"), as a decree numbers its own, not by a figure.
_ARTICLE_IN_WORDS = re.compile(r"^(?:ART[IÍ]CULO|ART\.)\s+" + _ORD + r"\b", re.I)
# An article label standing alone on its line ("Artículo 1" in a treaty), terminator optional.
_ARTICLE_ALONE = re.compile(r"^(?:ART[IÍ]CULO|Art[ií]culo|ARTICLE|Article)\s+(?:\d+[o°º]?(?:[-\s]?[A-Z])?|" + _ORD + r")"
                            r"(?:\s+" + LATIN_ORDINALS + ARTICLE_LETTER + r"?)?\s*[.:\-–]?$")
# The line that opens an EU act's recitals ("Whereas:", "Considerando lo siguiente:"): its preamble, whatever its type.
_RECITALS = re.compile(r"^(?:Whereas|WHEREAS|Considerando\s+lo\s+siguiente)\s*:$")
HEADING_OVERLAP = 0.3  # share of its height a heading's next line may overlap it by
_ARTICLE_TITLE_WORDS = 12  # "Artículo 3. Currículo." (BOE): a label followed by a short title that ends the line
_STYLED_TITLE_WORDS = 30  # an italic title after the label: the BOE's longest run to ~25 words
# A title printed in Title Case on the label's line, the article's text after it (`_inline_title`): the phrase up to
# the first full stop that a capitalised sentence follows.
_INLINE_TITLE = re.compile(r"^([A-ZÁÉÍÓÚÑ][^.:;]*)\.\s+(?=[A-ZÁÉÍÓÚÑ¿¡\"“])")
# The words Title Case leaves in lower case ("De la Facultad de las Corporaciones … para Otorgar Licencias").
_TITLE_CASE_LOWER = frozenset("a al ante bajo con contra de del desde e el en entre hacia hasta la las lo los o para "
                              "por según sin sobre tras u y and for in of on or the to".split())
# A part's name letter-spaced for emphasis ("A C U E R D O", "T R A N S I T O R I O S"): the word it spells.
_LETTER_SPACED = re.compile(r"^(?:[^\W\d_] ){2,}[^\W\d_](?:\s*:)?$")
_CLAUSE = re.compile(r"^" + _ORD + r"\s*(?:\.\s*-|\.-|-|–|\.)(?=\s|$)", re.I)
# A section numbered in figures: "5.3 Los patrones…", "2.1.3. Para los efectos…" (two levels or more: "3." alone
# numbers a list item), or a section of an article, "110-26. Espacio de trabajo…" (NOM-001-SEDE, after the NEC); then
# a capitalised word. Not yet a heading: an amount ("100.000 Kw"), a table's figure ("57.07 Se otorgó") or a list in
# an article ("1.1. Subdirección de…") start the same way; `numbered_sections` keeps the ones that number the text.
_NUMERAL = re.compile(r"^(\d{1,3}(?:\.\d{1,3}){1,5}|\d{2,3}-\d{1,3})\.?(?=\s+[A-ZÁÉÍÓÚÑ¿¡\"“(])")
LEADERS = re.compile(r"(?:\.\s?){4,}|…")  # an index entry's dot leaders: "1.1 PURPOSE ........ 1"
# A caption set in bold: "Tabla 110-26(a)(1).- Espacios de trabajo", "Cuadro 3", "Figure 2-1". It names the table
# below it, inside the provision it sits in: it ranks under articles and sections, so it closes none (rank 9).
_CAPTION = re.compile(r"^(?:TABLA|Tabla|CUADRO|Cuadro|FIGURA|Figura|GR[AÁ]FIC[AO]|Gr[aá]fic[ao]|TABLE|Table|FIGURE|"
                      r"Figure)\s+(?:\d|[IVXLC]+\b|[A-Z]\b)")
MIN_SECTIONS = 3  # a text numbered in sections has several: one or two such lines are a list, a figure, an amount
_TITLE_OPENER = re.compile(r"^[A-ZÁÉÍÓÚÑÜ][A-ZÁÉÍÓÚÑÜ\-]{2,}(?:\s+[A-ZÁÉÍÓÚÑÜ\d][A-ZÁÉÍÓÚÑÜ\d\-/.]*)*\s+"
                           r"(?:[a-záéíóúñ(“\"]|[A-Z][a-záéíóúñ]+\s+[a-záéíóúñ])")
_BODY_START = re.compile(r"^(?:SECRETAR[IÍ]A|INSTITUTO|COMISI[OÓ]N|COMIT[EÉ]|CONSEJO|BANCO|SUPREMA|TRIBUNAL|"
                         r"PROCURADUR[IÍ]A|FISCAL[IÍ]A|AUDITOR[IÍ]A|JUNTA|CENTRO|AGENCIA|SERVICIO|UNIDAD|"
                         r"SISTEMA|CÁMARA|CAMARA|SENADO|GOBIERNO|UNIVERSIDAD|COORDINACI[OÓ]N|OFICINA|INSTANCIA|"
                         r"ADMINISTRACI[OÓ]N|REGISTRO|LOTER[IÍ]A|PETR[OÓ]LEOS|NACIONAL|COLEGIO)\b")


@dataclass(slots=True)
class Classified:
    kind: str
    label: str  # heading text; for articles/clauses their label (and the article's own title, when it has one)
    rest: str = ""  # body text following the label on the same line
    title: str | None = None  # an article's own title ("Capital social mínimo."), in `label`; or a division's name


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Lower-case, accent-free, whitespace-collapsed: the form used to compare heading texts (headings recur in
    every chunk's path, so the folded form is kept)."""
    text = unicodedata.normalize("NFKD", text.lower().replace("_", " "))
    return " ".join("".join(c for c in text if not unicodedata.combining(c)).split())


def spelled(text: str) -> str:
    """A heading line as the word it spells when it is letter-spaced for emphasis ("A C U E R D O" → "ACUERDO")."""
    return text.replace(" ", "") if _LETTER_SPACED.match(text) else text


def body_size(lines: list[Line]) -> float:
    """The font size carrying the most characters: the body text size."""
    sizes: Counter = Counter()
    for ln in lines:
        sizes[round(ln.size)] += len(ln.text)
    return float(sizes.most_common(1)[0][0]) if sizes else 10.0


@dataclass
class Context:
    body: float
    page_width: float
    dof: bool
    outline: dict[int, list[str]]  # page -> folded outline titles on that page


def _centred(ln: Line, ctx: Context) -> bool:
    return abs((ln.x0 + ln.x1) / 2 - ctx.page_width / 2) < 0.05 * ctx.page_width and ln.width < 0.8 * ctx.page_width


def classify(ln: Line, ctx: Context, numerals: bool = True) -> Classified | None:
    """The heading kind of one line, or None for body text. A line that opens a numbered section is a NUMERAL when
    it is no heading of the legal grammar (a generic heading or body text); with `numerals` False, what it is when
    the document's numbering does not confirm it (`numbered_sections`)."""
    found = _classify(ln, ctx)
    if found is not None and found.kind in GENERIC_KINDS and _CAPTION.match(found.label):
        return Classified(CAPTION, found.label)
    if numerals and (found is None or found.kind in GENERIC_KINDS):
        text = ln.text.strip()
        m = _NUMERAL.match(text)
        if m and not ln.vertical and not LEADERS.search(text):
            return Classified(NUMERAL, m.group(1), text[m.end():].strip())
    return found


def _classify(ln: Line, ctx: Context) -> Classified | None:
    text = ln.text.strip()
    if not text or len(text) > 400 or ln.vertical:
        return None
    strong = ln.bold or ln.caps > 0.85 or ln.size >= ctx.body * 1.15
    if len(text) < 160 and text[0].isupper() and (strong or _centred(ln, ctx)):  # a label stands out, capitalised
        word = spelled(text)
        for kind, pattern in _PATTERNS:
            m = pattern.match(word)
            if m:
                if kind == PODER and not (ln.bold and ln.caps > 0.9):
                    continue
                if kind in DIVISION_KINDS and _AFTER_LABEL.sub("", word[m.end():])[:1].islower():
                    continue  # "Libro II de este Código y…": a sentence naming a division; its name is capitalised
                return Classified(kind, word)
    if _RECITALS.match(text):
        return Classified(PART, text)
    m = _ARTICLE.match(text)
    if m and text[0].isupper() and _article_heading(ln, text, text[m.end():].strip()):
        label, rest = m.group(0).strip(), text[m.end():].strip()
        if _styled_title(ln, rest):
            return Classified(ARTICULO, f"{label} {rest}", title=rest)
        inline = _inline_title(rest)
        if inline is not None:
            title, rest = inline
            return Classified(ARTICULO, f"{label} {title}", rest, title=title)
        return Classified(ARTICULO, label, rest)
    if _ARTICLE_ALONE.match(text):
        return Classified(ARTICULO, text)
    if (ln.lead_bold or ln.caps > 0.9) and text[0].isupper():
        m = _CLAUSE.match(text)
        if m:
            return Classified(CLAUSE, m.group(0).strip(), text[m.end():].strip())
    if ln.bold and ln.caps > 0.85 and ln.size >= ctx.body * 1.3 and len(text) < 160:
        return Classified(ISSUING_BODY, text)
    if ln.bold and ln.caps > 0.85 and _BODY_START.match(text) and _centred(ln, ctx) and len(text) < 160:
        return Classified(ISSUING_BODY, text)
    if ln.bold and _TITLE_OPENER.match(text) and ln.size <= ctx.body * 1.2:
        return Classified(TITLE, text)
    if _outline_names(ln, ctx):
        return Classified(OUTLINE, text)
    words = len(text.split())
    if words <= 14 and len(text) <= 120 and not text.endswith((",", ";")) and text[0].isalnum():
        if ln.size >= ctx.body * 1.2 and (ln.bold or ln.caps > 0.6 or ln.size >= ctx.body * 1.4):
            return Classified(HEADING_MAJOR, text)
        if ln.bold and not ln.italic and (ln.caps > 0.6 or _centred(ln, ctx)):
            return Classified(HEADING_MINOR, text)
    return None


def _article_heading(ln: Line, text: str, rest: str) -> bool:
    """Is a line that opens with an article label ("Artículo 27.-", "ARTICULO 5o.", "Artículo 3.") the article's
    heading? When its label is bold or in capitals (the DOF, consolidated laws, Colombian laws print "ARTICULO 1o."
    at body weight), or when the label is followed by a short title that ends the line ("Artículo 3. Currículo.",
    the BOE's style, at body weight). A sentence that merely starts with the word after a line break has none."""
    if ln.lead_bold or ln.caps > 0.9 or text[:8].isupper():
        return True
    return bool(rest) and rest[0].isupper() and rest.endswith(".") and len(rest.split()) <= _ARTICLE_TITLE_WORDS


def _styled_title(ln: Line, rest: str) -> bool:
    """Is the text after an article's label the article's title? It is when it is set apart in italics from the
    label (the BOE: bold or roman label, italic title) and is a short phrase ending the line; a Mexican article's
    first sentence follows its bold label in the body's roman type."""
    return (bool(rest) and ln.tail_italic and (ln.lead_bold or not ln.italic)  # not a line set wholly in italics
            and rest[0].isupper() and len(rest.split()) <= _STYLED_TITLE_WORDS)


def _inline_title(rest: str) -> tuple[str, str] | None:
    """The article's title printed at body weight on its label's line, and the text after it ("ARTICULO 23.
    Naturaleza Jurídica. Las Corporaciones Autónomas Regionales son entes…", Colombia's laws): a phrase of at most
    _ARTICLE_TITLE_WORDS words up to the first full stop, a capitalised sentence after it, every word of it
    capitalised but the linking ones. An article's own first sentence leaves its verbs and common nouns in lower
    case ("La Nación Mexicana es única e indivisible."); an initial's stop ends no title ("Artículo Noveno. El C.
    Primer Jefe del Ejército…"). (title, text) or None."""
    m = _INLINE_TITLE.match(rest)
    if m is None or len(m.group(1).split()) > _ARTICLE_TITLE_WORDS:
        return None
    words = re.findall(r"[^\W\d_]+", m.group(1))
    if len(words[-1]) == 1 or not any(len(w) >= 4 for w in words):  # an initial's stop: "El C. Primer Jefe…"
        return None
    if any(w[0].islower() and w.lower() not in _TITLE_CASE_LOWER for w in words):
        return None
    return m.group(1) + ".", rest[m.end():]


def title_below(label: Line, ln: Line, ctx: Context) -> bool:
    """Is `ln` the title printed under an article label that stands alone ("Article 17" / "Right to erasure
    ('right to be forgotten')", the EU's layout)? A short centred line right below it, set apart from the body by
    weight or slant, that is no heading of its own."""
    text = ln.text.strip()
    return (ln.page == label.page and 0 <= ln.y0 - label.y1 < 1.5 * max(ln.height, label.height)
            and _centred(ln, ctx) and (ln.bold or ln.italic) and bool(text) and text[0].isupper()
            and len(text.split()) <= _STYLED_TITLE_WORDS and classify(ln, ctx) is None)


def title_wraps(prev: Line, ln: Line) -> bool:
    """Does `ln` carry on an article's italic title that `prev` left unfinished (no full stop)? The next line of the
    same page, right below, set wholly in italics like a BOE title, not opening a new article."""
    gap = ln.y0 - prev.y1
    height = max(ln.height, prev.height)
    return (ln.page == prev.page and -0.5 * height <= gap < height and ln.italic and ln.tail_italic
            and not ln.lead_bold and not _ARTICLE.match(ln.text.strip())
            and len(ln.text.split()) <= _STYLED_TITLE_WORDS)


# A division's label alone on its line ("TÍTULO II", "Capítulo I", "SECCIÓN PRIMERA"): its name is printed below it.
_BARE_LABEL = re.compile(r"^(?:(?:LIBRO|T[IÍ]TULO|CAP[IÍ]TULO|SECCI[OÓ]N)\s+(?:" + _NUM
                         + r"|PRELIMINAR|[A-Z])|ANEXOS?(?:\s+\S{1,7})?)\s*[.:\-–]*$", re.I)


def names_division(label: Classified, label_line: Line, kind: str, ln: Line) -> bool:
    """Is `ln`, read as a heading of `kind`, the name of the division whose label stands alone right above it
    ("TÍTULO II" / "Del juicio ordinario", "CAPÍTULO I" / "Disposiciones Fundamentales")? A generic heading on the
    label's page, next after it: the name belongs to the label (`Classified.title`), so a chapter opening under the
    title does not take the title's name from the chunks below it. Below an annex's label the name may be set as a
    document's title ("ANEXO ÚNICO" / "LINEAMIENTOS para la revisión de …"): it names what the annex carries, it opens
    no document (the caller makes it a generic heading)."""
    return (label.kind in DIVISION_KINDS and (kind in GENERIC_KINDS or (label.kind == ANNEX and kind == TITLE))
            and ln.page == label_line.page and bool(_BARE_LABEL.match(label.label)))


def division_name(label: str) -> str:
    """A division heading's name without its label: "TÍTULO II Del juicio ordinario" → "Del juicio ordinario",
    "Sección 1.ª bis. Del acceso…" → "Del acceso…", a bare "CAPÍTULO I" → ""."""
    word = spelled(label.strip())
    for kind, pattern in _PATTERNS:
        m = pattern.match(word) if kind in DIVISION_KINDS else None
        if m:
            return _AFTER_LABEL.sub("", word[m.end():]).strip()
    return word


def _outline_names(ln: Line, ctx: Context) -> bool:
    names = ctx.outline.get(ln.page)
    if not names or not (ln.bold or ln.lead_bold or ln.caps > 0.8 or _centred(ln, ctx)):
        return False
    folded = fold(ln.text)
    return len(folded) >= 4 and any(folded.startswith(n) or (len(folded) >= 15 and n.startswith(folded))
                                    for n in names)


def section_number(label: str) -> tuple[int, ...]:
    """"5.3" → (5, 3), "110-26" → (110, 26): a numbered section's place in the text's numbering."""
    return tuple(int(n) for n in re.split(r"[.-]", label))


def numbered_sections(headings: list[Classified | None]) -> set[int]:
    """Which of one document's numeral headings (their positions in `headings`, its headings in order, None for a
    body line) number its text. A numbered section continues the text's numbering: the numerals kept are the
    longest run whose numbers rise in document order ("5.1", "5.2", "5.2.1", "6.1"…; an amount or a figure among
    them breaks no run, it is left out), at least MIN_SECTIONS of them. Under an open article a numeral is a section
    of that article only when it carries its number ("ARTICULO 110" › "110-26."); any other is a list inside the
    article ("ARTÍCULO 5o." › "1.1. Subdirección de…")."""
    candidates: list[tuple[int, tuple[int, ...]]] = []
    article: str | None = None
    for i, h in enumerate(headings):
        if h is None:
            continue
        if h.kind == ARTICULO:
            article = next(iter(re.findall(r"\d+", h.label)), "")
        elif h.kind not in GENERIC_KINDS and rank(h.kind) < RANKS[ARTICULO]:
            article = None  # a chapter, a title, a document's part closes the article (a bold line inside it does not)
        elif h.kind == NUMERAL:
            number = section_number(h.label)
            if article is None or str(number[0]) == article:
                candidates.append((i, number))
    # the longest strictly rising run (patience sorting): ends[k] is the smallest last number of a run of k + 1
    ends: list[tuple[int, ...]] = []
    at: list[int] = []
    before: list[int] = []
    for j, (_, number) in enumerate(candidates):
        k = bisect.bisect_left(ends, number)
        before.append(at[k - 1] if k else -1)
        if k == len(ends):
            ends.append(number)
            at.append(j)
        else:
            ends[k], at[k] = number, j
    if len(ends) < MIN_SECTIONS:
        return set()
    kept, j = set(), at[-1]
    while j >= 0:
        kept.add(candidates[j][0])
        j = before[j]
    return kept


def numbered_in_words(label: str) -> bool:
    """"ARTÍCULO SEGUNDO.-", "Artículo Primero." (an ordinal word), not "ARTÍCULO 2o.-" nor "SEGUNDO.-"."""
    return bool(_ARTICLE_IN_WORDS.match(label.strip()))


def rank(kind: str) -> int:
    if kind in (HEADING_MAJOR, OUTLINE):
        return 4
    if kind == HEADING_MINOR:
        return 6
    return RANKS[kind]


def continues_heading(kind: str, prev: Line, ln: Line, ctx: Context) -> bool:
    """Does `ln` continue the multi-line heading that `prev` started or continued?"""
    if kind in ARTICLE_KINDS:
        return False
    gap, height = ln.y0 - prev.y1, max(prev.height, ln.height)
    # tight leading makes line boxes overlap (the BOE's bold names: 2.3 pt of 14.3); a line further up is no next line
    if ln.page != prev.page or gap > 1.2 * height or gap < -HEADING_OVERLAP * height:
        return False
    same_style = ln.bold == prev.bold and abs(ln.size - prev.size) < 0.6
    if kind == TITLE:
        return ln.bold and abs(ln.size - prev.size) < 0.6 and ln.font == prev.font
    if kind in BODY_KINDS:
        return same_style and ln.caps > 0.85 and _centred(ln, ctx)
    if kind in (TITULO, CAPITULO, SECCION, SUBSECCION, LIBRO):
        return same_style and ln.bold and _centred(ln, ctx) and len(ln.text) < 200
    if kind in GENERIC_KINDS:
        return same_style and ln.font == prev.font
    return False


def outline_by_page(toc: list) -> dict[int, list[str]]:
    """Folded bookmark titles keyed by their target page (the "[...]" of truncated titles dropped)."""
    pages: dict[int, list[str]] = {}
    for entry in toc:
        title = fold(entry[1].replace("[...]", ""))
        if entry[2] > 0 and len(title) >= 3:
            pages.setdefault(entry[2], []).append(title)
    return pages


def levels_for(kinds: list[str]) -> dict[int, int]:
    """rank -> Markdown level for one document: used ranks compacted, numbered from 2."""
    used = sorted({rank(k) for k in kinds})
    return {r: 2 + i for i, r in enumerate(used)}
