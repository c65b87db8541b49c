"""Document identity: the ONE place that names a legal document (title, type, issuing body, number, gazette, dates).

It reads typed evidence, never the file name: the running headers of the file and of the document's pages (a
consolidated Mexican law prints its name and "Última Reforma DOF 21-02-2025" on every page; a BOE page prints
"BOLETÍN OFICIAL DEL ESTADO", "Núm. 92", the date and "Sec. I. Pág. 41281"), the first lines of the document with
their layout (bold, size, caps), the headings the classifier found, and what the edition split decided (issuing
body, title). Families, tried in order: an edition's front matter, a DOF edition document, a consolidated law or
code, a BOE disposition, a Latin-American numbered act (LEY 99 DE 1993, RESOLUCIÓN No. 03874, ACUERDO No. 001),
a court decision, and anything else (a sensible title from the first page: never a section label, a transitory
decree found deep inside, an index line or OCR noise; a Federal Register document's subject, printed above
"AGENCY:", not the Register's section name; a document every page of which is a ruled table, named by its first
rows).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from ingest import citation_forms, text_quality
from ingest.dates import date_or_none, parse_date
from ingest.headings import ANNEX, BODY_KINDS, GENERIC_KINDS, TITLE, Classified, division_name, fold
from ingest.layout import Line
from ingest.models import CitationForm, DocType, LegalReference

# --- vocabulary ------------------------------------------------------------------------------------------------

_TYPE_WORDS: dict[str, DocType] = {
    "constitucion": DocType.constitucion, "ley": DocType.ley, "leyes": DocType.ley, "codigo": DocType.codigo,
    "reglamento": DocType.reglamento, "decreto": DocType.decreto, "decretos": DocType.decreto,
    "acuerdo": DocType.acuerdo, "acuerdos": DocType.acuerdo, "resolucion": DocType.resolucion,
    "resoluciones": DocType.resolucion, "orden": DocType.orden, "aviso": DocType.aviso, "avisos": DocType.aviso,
    "norma": DocType.nom, "nom": DocType.nom, "convenio": DocType.convenio, "convenios": DocType.convenio,
    "contrato": DocType.convenio, "lineamientos": DocType.lineamientos, "lineamiento": DocType.lineamientos,
    "addendum": DocType.addendum, "adendum": DocType.addendum, "adenda": DocType.addendum,
    "anexo": DocType.anexo, "anexos": DocType.anexo, "listado": DocType.listado, "listados": DocType.listado,
    "lista": DocType.listado, "listas": DocType.listado, "edicto": DocType.edicto, "edictos": DocType.edicto,
    "circular": DocType.circular, "convocatoria": DocType.convocatoria, "convocatorias": DocType.convocatoria,
    "sentencia": DocType.sentencia, "auto": DocType.auto, "tratado": DocType.tratado, "declaracion": DocType.tratado,
    "convencion": DocType.tratado, "pacto": DocType.tratado, "protocolo": DocType.tratado,
    "estatuto": DocType.estatuto, "estatutos": DocType.estatuto, "reglas": DocType.norma,
    "manual": DocType.norma, "politicas": DocType.norma, "criterios": DocType.norma,
    "indice": DocType.indice, "contenido": DocType.indice, "sumario": DocType.indice,
    "regulation": DocType.reglamento, "jurisprudencia": DocType.sentencia, "tesis": DocType.sentencia,
}
# Words that open a title without being its type: ordinals, modifiers, articles ("TERCER Convenio…",
# "AMPLIACIÓN al Anexo…", "SEGUNDA Modificación al…", "PROYECTO de Norma…"). The type is the vocabulary word after.
_MODIFIERS = re.compile(
    r"^(?:primer[oa]?|segund[oa]|tercer[oa]?|cuart[oa]|quint[oa]|sext[oa]|septim[oa]|octav[oa]|noven[oa]|"
    r"decim[oa]\w*|undecim[oa]|duodecim[oa]|vigesim[oa]\w*|unic[oa]|ampliacion|modificacion|modificaciones|"
    r"proyecto|extracto|aclaracion|nota|fe|de|del|la|las|el|los|al|a|y|e|por|que|se|su|sus|nuevo|nueva|"
    r"respuesta|respuestas|comentarios|actualizacion|adicion|reforma|reformas|version|texto|publica|integro|"
    r"convenio modificatorio|real)$")
# A title, short title or issuing body longer than this is cut at a word (the body keeps all). DOF titles run to
# ≈ 750 characters (the 2024-12-15 edition's LISTADOS); a first line of a megabyte is not a title.
MAX_TITLE_CHARS = 1000
UNTITLED = "Documento sin título"
_DATE_US = re.compile(r"\bDate Filed:\s*(\d{1,2})/(\d{1,2})/(\d{4})")
_REFORM = re.compile(r"\bse\s+(?:reforma|adiciona|deroga|expide|abroga)n?\b", re.I)
def type_of_title(title: str) -> DocType | None:
    """The document type a title opens with, skipping ordinals and modifiers ("TERCER Convenio…" → CONVENIO)."""
    words = re.findall(r"[\wÁÉÍÓÚÑáéíóúñü\-]+", title)[:8]
    for i, word in enumerate(words):
        w = fold(word)
        if w.startswith("nom-") or (w == "norma" and "oficial mexicana" in fold(" ".join(words[i:i + 4]))):
            return DocType.nom
        if w == "real" and i + 1 < len(words) and fold(words[i + 1]).startswith("decreto"):
            return DocType.real_decreto
        if w in _TYPE_WORDS:
            return _TYPE_WORDS[w]
        if not _MODIFIERS.match(w) and not w.isdigit():
            return None
    return None


def legal_case(title: str) -> str:
    """An ALL-CAPS law name as a lawyer writes it: "LEY DE AMPARO, REGLAMENTARIA…" → "Ley de Amparo, Reglamentaria…"."""
    letters = [c for c in title if c.isalpha()]
    if not letters or sum(c.isupper() for c in letters) < 0.9 * len(letters):
        return title
    small = {"de", "del", "la", "las", "los", "el", "y", "e", "o", "u", "en", "a", "al", "para", "por", "con",
             "sobre", "que", "se", "su", "sus", "lo"}
    out = []
    for i, word in enumerate(title.split()):
        low = word.lower()
        if i and low.strip(",.;:") in small:
            out.append(low)
        elif re.fullmatch(r"(?=[IVXLC])C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})[,.;:]?", word):  # not "CIVIL"
            out.append(word)
        else:
            out.append(low[:1].upper() + low[1:])
    return " ".join(out)


# --- evidence and result ---------------------------------------------------------------------------------------


@dataclass
class Evidence:
    """What the parser hands to identity for one document."""

    lines: list[Line]  # the document's first lines (running headers stripped), reading order, with layout
    headings: list[Classified]  # the document's classified headings, in order (merged multi-line labels)
    tail: str = ""  # the text of the document's last lines (signatures, "Dado en…", "Pronunciado por…")
    headers: list[str] = field(default_factory=list)  # the file's running header/footer texts
    page_headers: list[str] = field(default_factory=list)  # the header texts of the document's first pages
    top: list[str] = field(default_factory=list)  # the top rows of the document's first page, repeated or not
    front_matter: bool = False  # an edition's cover / CONTENIDO
    edition_title: str | None = None  # what the edition split found: the document's title heading
    edition_body: str | None = None  # … and the issuing body it inherits
    dof: bool = False
    dof_date: dt.date | None = None
    dof_section: str | None = None
    dof_edition: str | None = None
    source_name: str = ""  # the file's name: a scanned document's last resort for a title, never evidence
    enacted_by: Identity | None = None  # a law carried whole by a decree (`split_annexed_law`): that decree's identity


@dataclass
class Identity:
    title: str
    doc_type: DocType = DocType.otro
    issuing_body: str | None = None
    short_title: str | None = None
    aliases: list[str] = field(default_factory=list)
    number: str | None = None
    gazette: str | None = None
    issue: str | None = None
    publication_date: dt.date | None = None
    last_reform_date: dt.date | None = None
    edition: str | None = None
    section: str | None = None
    amends: list[LegalReference] = field(default_factory=list)
    jurisdiction: str | None = None  # "mx", "es", "co", … : whose law it is, part of its `law_id`
    law_id: str | None = None  # the law, whatever version or file: "mx/ley-de-amparo" (`_law`)
    version_date: dt.date | None = None  # which text of it: its last reform as printed, else its publication
    citation_form: CitationForm | None = None  # volume, court, case number (ingest.citation_forms)


def _text(lines: list[Line], n: int = 80) -> str:
    return " ".join(ln.text.strip() for ln in lines[:n])


def _clean(title: str) -> str:
    return text_quality.trim_junk(" ".join(title.split())).strip(" -–")


def _noise(text: str) -> bool:
    """OCR fragments and page furniture: too few real words to be a title ("SNE //Z", "Ly $ S", "— is a that")."""
    words = re.findall(r"[^\W\d_]{3,}", text)
    letters = sum(c.isalpha() for c in text)
    return len(words) < 1 or letters < 0.6 * len(text.replace(" ", "")) or (len(words) < 2 and len(text) < 8) \
        or not text_quality.is_words(text)


def bound(text: str | None, limit: int = MAX_TITLE_CHARS) -> str | None:
    """`text` cut to at most `limit` characters at a word boundary, marked with "…" when cut."""
    if text is None or len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2:]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-–") + "…"


_SECTION_LABEL = re.compile(r"^(?:T[IÍ]TULO|CAP[IÍ]TULO|SECCI[OÓ]N|ART[IÍ]CULO|LIBRO|TRANSITORIOS?|CONSIDERANDOS?|"
                            r"VISTOS?|DISPONE|RESUELVE|ACUERDA|DECRETA|CONTENIDO|[IÍ]NDICE|PRE[AÁ]MBULO|CHAPTER|"
                            r"TABLE OF CONTENTS|PAGE\b|P[AÁ]GINA)\b", re.I)


# Lines that describe the file, not the document: its format, the device it is laid out for, a banner ("Versión PDF
# para vista en dispositivo móvil Android y Apple iOS", "Versión para imprimir", "TEXTO VIGENTE", "Documento
# descargado de …"). A cover prints them beside the law's name; they are never its title.
_FILE_LINE = re.compile(
    r"^(?:versi[oó]n\s+(?:pdf|para\s+(?:imprimir|impresi[oó]n|vista|dispositivos?|lectura)|m[oó]vil|electr[oó]nica|"
    r"accesible|web|en\s+l[ií]nea|html|word)\b|texto\s+vigente\W*$|documento\s+descargado\b|descargad[oa]\s+de\b|"
    r"formato\s+(?:accesible|pdf|m[oó]vil|para\s+imprimir)\b|(?:copia|documento)\s+(?:de\s+consulta|informativ[oa])\W*$)"
    r"|\bdispositivos?\s+m[oó]vil(?:es)?\b|\bAndroid\b|\bApple\s+iOS\b|\blectores?\s+de\s+pantalla\b", re.I)


def describes_file(text: str) -> bool:
    """Does this line describe the file (format, device, a "texto vigente" banner) rather than name a document?"""
    return bool(_FILE_LINE.search(" ".join(text.split())))


def _acceptable_title(text: str) -> bool:
    return bool(text) and not _SECTION_LABEL.match(text.strip()) and not _noise(text) and len(text) <= 3000 \
        and not describes_file(text)


def _next_row(ln: Line, nxt: Line) -> float | None:
    """How far `nxt` is set right under `ln` (overlapping it along the text), or None: on a page turned landscape
    (vertical lines, an annex's rotated table) the next row lies beside it across the page."""
    if ln.vertical and nxt.vertical:
        gap = max(nxt.x0 - ln.x1, ln.x0 - nxt.x1)
        along = min(nxt.y1, ln.y1) > max(nxt.y0, ln.y0)
        return gap if along and -1 <= gap < 1.5 * max(ln.width, 1) else None
    gap = nxt.y0 - ln.y1
    along = min(nxt.x1, ln.x1) > max(nxt.x0, ln.x0)
    return gap if along and -1 <= gap < 1.5 * max(ln.height, 1) else None


def _opener_block(ev: Evidence, skip: str | None = None) -> str | None:
    """A document opener among the first lines ("ACUERDO GENERAL 01/2021 DEL PLENO…", "ANEXO 4 F"): a bold or
    upper-case line whose first vocabulary word is a type, merged with the lines that continue it in its style."""
    lines = ev.lines[:20]
    for i, ln in enumerate(lines):
        text = ln.text.strip()
        if skip and fold(text) in fold(skip) or not (ln.bold or ln.caps > 0.8) or not _acceptable_title(text):
            continue
        if type_of_title(text) in (None, DocType.indice):
            continue
        block = [ln]
        for nxt in ev.lines[i + 1:]:  # the title's style and its full stop end it, not a line count
            same = nxt.bold == ln.bold and abs(nxt.size - ln.size) < 0.6 and nxt.page == ln.page
            if not same or _SECTION_LABEL.match(nxt.text.strip()) or re.match(r"^(?:PRIMERO|[IVX]+\.)", nxt.text) \
                    or sum(len(b.text) for b in block) > MAX_TITLE_CHARS:
                break
            block.append(nxt)
            if nxt.text.rstrip().endswith(".") and len(block) > 1:
                break
        if len(block) == 1 and not text.endswith("."):  # "ANEXO 4 F" + the subtitle line printed right below it
            below = [nxt for nxt in lines if nxt is not ln and nxt.page == ln.page and len(nxt.text) < 200
                     and _next_row(ln, nxt) is not None and nxt.size >= ln.size - 0.6
                     and not _SECTION_LABEL.match(nxt.text.strip())]
            if below:
                block.append(min(below, key=lambda nxt: _next_row(ln, nxt)))
        return _clean(" ".join(b.text.strip() for b in block))
    return None


# --- families --------------------------------------------------------------------------------------------------

_CONSOLIDATED = re.compile(r"[ÚU]ltima\s+reforma\s+(?:publicada\s+)?(?:DOF|en\s+el\s+Diario)|"
                           r"FECHA\s+DE\s+[ÚU]LTIMA\s+REFORMA|"
                           r"Nuev[oa]\s+(?:Ley|Reglamento|C[oó]digo|Estatuto)\s+(?:publicad[oa]\s+)?(?:DOF|en\s+el)|"
                           r"TEXTO\s+VIGENTE", re.I)
_HEADER_STOP = re.compile(r"C[ÁA]MARA\s+DE\s+DIPUTADOS|Secretar[íi]a\s+General|Servicios\s+Parlamentarios|"
                          r"[ÚU]ltima\s+Reforma|Nuev[oa]\s+\w+\s+DOF|TEXTO\s+VIGENTE|publicad[oa]", re.I)
_LAST_REFORM = re.compile(r"[ÚU]LTIMA\s+REFORMA(?:\s+PUBLICADA)?.{0,60}?"
                          r"(\d{1,2}-\d{1,2}-\d{4}|\d{1,2}\s+DE\s+\w+\s+DE(?:L)?\s+\d{4})", re.I)
_PUBLISHED = re.compile(r"(?:publicad[oa]|PUBLICAD[OA])\s+(?:en\s+el\s+(?:Diario|Peri[oó]dico)\s+Oficial[^,.]{0,40}?"
                        r"|EN\s+EL\s+PERI[OÓ]DICO\s+OFICIAL[^,]{0,20},?|DOF\s+)"
                        r"(?:,?\s*(?:el|de\s+fecha|DE\s+FECHA)\s+)?"
                        r"(\d{1,2}-\d{1,2}-\d{4}|\d{1,2}\s+de\s+\w+\s+de(?:l)?\s+\d{4})", re.I)
_NEW_LAW_HEADER = re.compile(r"Nuev[oa]\s+\w+\s+DOF\s+(\d{1,2}-\d{1,2}-\d{4})", re.I)
_PROMULGATOR = [
    (re.compile(r"\b(?:Que\s+)?el\s+(?:Honorable\s+|H\.\s*)?(Congreso\s+Constituyente)\b", re.I), None),
    (re.compile(r"\b(?:Que\s+)?el\s+(?:Honorable\s+|H\.\s*)(Congreso\s+de\s+la\s+Uni[oó]n)\b", re.I), None),
    (re.compile(r"\b(?:Que\s+)?el\s+(?:Honorable\s+|H\.\s*)?(Congreso\s+de\s+la\s+Uni[oó]n),?\s+se\s+ha\s+servido",
                re.I), None),
    (re.compile(r"\bEL\s+CONGRESO\s+GENERAL\s+DE\s+LOS\s+ESTADOS\s+UNIDOS\s+MEXICANOS,?\s+DECRETA"),
     "Congreso de la Unión"),
    (re.compile(r"\bEl\s+(Congreso\s+de\s+[A-ZÁÉÍÓÚ]\w+),?\s+DECRETA", re.I), None),
    (re.compile(r"Presidente\s+de\s+los\s+Estados\s+Unidos\s+Mexicanos,[^.]{0,400}?he\s+tenido\s+a\s+bien\s+expedir",
                re.I), "Presidencia de la República"),
    (re.compile(r"(?:adoptad[oa]|proclamad[oa]|aprobad[oa])\s+(?:y\s+\w+\s+)?por\s+la\s+"
                r"(Asamblea\s+General(?:\s+de\s+las\s+Naciones\s+Unidas)?)", re.I), None),
]


def _date_of(text: str) -> dt.date | None:
    return parse_date(text)


def _consolidated(ev: Evidence) -> Identity | None:
    evidence = " ".join(ev.headers + ev.top) + " " + _text(ev.lines, 30)
    if not _CONSOLIDATED.search(evidence):
        return None
    name_lines: list[str] = []
    for text in ev.page_headers or ev.top:
        if describes_file(text):  # a cover's device or format line beside the law's name
            continue
        if _HEADER_STOP.search(text) or re.fullmatch(r"\d+(?:\s+de\s+\d+)?", text):
            if name_lines:
                break
            continue
        name_lines.append(text)
    name = _clean(" ".join(name_lines))
    if not name or _noise(name):  # no law name in the header: the first bold lines of the first page
        name = _first_title_block(ev) or ""
    if not name:
        return None
    name = name.rstrip(".")
    ident = Identity(title=legal_case(name), doc_type=type_of_title(name) or DocType.ley, gazette=None,
                     jurisdiction="mx")  # a consolidated text of the Chamber of Deputies
    body_text = _text(ev.lines, 60)
    if m := _LAST_REFORM.search(" ".join(ev.headers + ev.top) + " " + body_text):
        ident.last_reform_date = _date_of(m.group(1))
    if m := _PUBLISHED.search(body_text):
        ident.publication_date = _date_of(m.group(1))
    elif m := _NEW_LAW_HEADER.search(" ".join(ev.headers + ev.top)):
        ident.publication_date = _date_of(m.group(1))
    ident.issuing_body = _promulgator(body_text)
    ident.short_title = _short_law(ident.title)
    if ident.doc_type is DocType.constitucion and "estados unidos mexicanos" in fold(name):
        ident.aliases = ["CPEUM", "Constitución", "Constitución Federal"]
    acronym = "".join(w[0] for w in re.findall(r"\b[A-ZÁÉÍÓÚ]\w+", ident.short_title or ""))
    if len(acronym) >= 3 and acronym not in ident.aliases:
        ident.aliases.append(acronym.upper())
    return ident


def _short_law(title: str) -> str:
    return title.split(",")[0].strip()


def _promulgator(text: str) -> str | None:
    for pattern, fixed in _PROMULGATOR:
        if m := pattern.search(text):
            return fixed or _clean(m.group(1))
    return None


_BOE_RANK = re.compile(r"^(?:Real\s+Decreto(?:-ley|\s+Legislativo)?|Ley\s+Org[áa]nica|Ley|Orden|Resoluci[óo]n|"
                       r"Acuerdo|Instrucci[óo]n|Circular|Decreto(?:-ley)?|Correcci[óo]n\s+de\s+errores|Anuncio|"
                       r"Edicto|Auto|Sentencia|Providencia|Conflicto|Recurso|Cuesti[óo]n)\b")
_BOE_BODY = re.compile(r"^(?:MINISTERIO|JEFATURA|CORTES|CONSEJO|TRIBUNAL|COMUNIDAD|UNIVERSIDAD|BANCO|JUNTA|"
                       r"ADMINISTRACI[ÓO]N|AGENCIA|COMISI[ÓO]N|CIUDAD|AYUNTAMIENTO|DIPUTACI[ÓO]N|CABILDO|"
                       r"CONSEJER[ÍI]A|PARLAMENTO|DEFENSOR|JUZGADO|AUDIENCIA|ENTIDAD|FONDO|INSTITUTO)\b")
_BOE_SECTION = re.compile(r"^(?:[IVX]+\.\s+[A-ZÁÉÍÓÚ ]+|[A-Z]\.\s+\w.*)$")


def _boe(ev: Evidence) -> Identity | None:
    masthead = " ".join(ev.headers + ev.top)
    if "BOLET" not in masthead.upper() or "OFICIAL DEL ESTADO" not in masthead.upper():
        return None
    ident = Identity(title="", gazette="BOE")
    if m := re.search(r"\bN[úu]m\.\s*(\d+)", masthead):
        ident.issue = f"núm. {m.group(1)}"
    ident.publication_date = _date_of(masthead)
    if m := re.search(r"\bSec\.\s*([IVX]+(?:\.[A-Z])?)\.", masthead):
        ident.section = f"Sec. {m.group(1)}"
    text = _text(ev.lines, 60)
    if len(re.findall(r"\bBOE-A-\d{4}-\d+", text)) >= 3:  # the day's summary: an index of dispositions
        ident.title = _clean(f"BOLETÍN OFICIAL DEL ESTADO Núm. {ident.issue.split()[-1] if ident.issue else ''}")
        ident.title += " Sumario"
        ident.doc_type = DocType.indice
        return ident
    lines = ev.lines[:40]
    body: list[str] = []
    i = 0
    while i < len(lines):
        t = lines[i].text.strip()
        if _BOE_BODY.match(t) and lines[i].caps > 0.8:
            body = [t]
            j = i + 1
            while j < len(lines) and lines[j].caps > 0.8 and not _BOE_SECTION.match(lines[j].text.strip()) \
                    and not re.fullmatch(r"\d+", lines[j].text.strip()):
                body.append(lines[j].text.strip())
                j += 1
            i = j
            continue
        t = re.sub(r"^\d{3,6}\s+", "", t)  # the disposition number printed on the title's row
        if body and _BOE_RANK.match(t):
            title = [lines[i]]
            j = i + 1
            while j < len(lines) and not title[-1].text.rstrip().endswith(".") \
                    and lines[j].bold == lines[i].bold and abs(lines[j].size - lines[i].size) < 0.6:
                title.append(lines[j])
                j += 1
            ident.title = _clean(" ".join([t] + [ln.text.strip() for ln in title[1:]]))
            break
        i += 1
    if not ident.title:
        return None
    ident.issuing_body = _clean(" ".join(body)) or None
    ident.doc_type = type_of_title(ident.title) or DocType.otro
    if m := re.match(r"^((?:Real\s+Decreto(?:-ley|\s+Legislativo)?|Orden|Ley(?:\s+Org[áa]nica)?|Decreto|Resoluci[óo]n|Acuerdo)\s+"
                     r"(?:([A-Z]{2,5}/\d+/\d{4})|(\d+/\d{4})|de\s+\d{1,2}\s+de\s+\w+\s+de\s+\d{4}))", ident.title):
        ident.short_title = m.group(1)
        ident.number = m.group(2) or m.group(3)
    return ident


_NUMBERED_ACT = re.compile(
    r"^(LEY|DECRETO|RESOLUCI[ÓO]N|ACUERDO|AUTO|CIRCULAR|ORDENANZA)\s+"
    r"(?:(?:No\.?|N[°º]\.?|N[ÚU]MERO|NRO\.?)\s*)?(\d[\d.\-]*(?:/\d+)?)"
    r"(?:\s+(?:DE|DEL)\s+(?:(?:\d{1,2}\s+DE\s+\w+\s+DE(?:L)?\s+)?)(\d{4}))?\b", re.I)


_ACT_WORD = re.compile(r"^(?:LEY|DECRETO|RESOLUCI[ÓO]N|ACUERDO|AUTO|CIRCULAR|ORDENANZA|Ley|Decreto|Resoluci[óo]n|Acuerdo|"
                       r"Auto|Circular|Ordenanza)\b(?!\s+[a-záéíóúñ])")
_ACT_DATE = re.compile(r"^\((?:([a-záéíóú]+)\s+(\d{1,2})|(\d{1,2})\s+de\s+([a-záéíóú]+))\)$", re.I)  # "(diciembre 22)"
_PURPOSE = re.compile(r"^(?:por\s+(?:la|el|medio)|mediante|que\b|\"|“)", re.I)


def _act_head(lines: list[Line], i: int) -> tuple[str, int] | None:
    """The act's rank, number and year from line `i` on, wherever its lines break them ("ACUERDO" / "No. 123 DE
    2020", "ACUERDO No. 123" / "DE 2020"): the lines in the head's style that the pattern reads whole; the head and
    the index of the line after it."""
    ln = lines[i]
    head, j = ln.text.strip(), i + 1
    while j < min(len(lines), i + 3):
        nxt = lines[j]
        cand = f"{head} {nxt.text.strip()}"
        m = _NUMBERED_ACT.match(cand)
        if nxt.page != ln.page or not (nxt.bold or nxt.caps > 0.6) or not m or m.end() < len(cand.rstrip(" .")):
            break
        head, j = cand, j + 1
    return (head, j) if _NUMBERED_ACT.match(head) else None


def _numbered_act(ev: Evidence) -> Identity | None:
    """A Latin-American numbered act: its head (rank, number, year: "LEY 99 DE 1993"), its date in parentheses
    ("(diciembre 22)"), then its purpose ("por la cual se crea …") over as many lines as the title's style and its
    grammar hold — the title ends at its full stop or where the style changes (the preamble, "EL CONCEJO …")."""
    lines = ev.lines[:25]
    for i, ln in enumerate(lines):
        if not _ACT_WORD.match(ln.text.strip()) or not (ln.bold or ln.caps > 0.6):
            continue
        found = _act_head(lines, i)
        if found is None:
            continue
        head, k = found
        m = _NUMBERED_ACT.match(head)
        rest: list[str] = []
        first: Line | None = None
        act_date = None
        for nxt in ev.lines[k:k + 16]:
            t = nxt.text.strip()
            if (d := _ACT_DATE.match(t)) and not rest:  # "(diciembre 22)": the act's date, its year in the head
                if m.group(3):
                    day, month = (d.group(2), d.group(1)) if d.group(1) else (d.group(3), d.group(4))
                    act_date = _date_of(f"{day} de {month} de {m.group(3)}")
                continue
            if not rest and not _PURPOSE.match(t):
                break
            if rest and (_SECTION_LABEL.match(t) or first is not None and (nxt.bold != first.bold
                                                                            or abs(nxt.size - first.size) >= 0.6)
                         or re.match(r"^(?:El|La|EL|LA)\s+[A-ZÁÉÍÓÚ]", t) and rest[-1].rstrip().endswith((".", ","))):
                break
            first = first or nxt
            rest.append(t)
            if t.rstrip().endswith("."):
                break
        ident = Identity(title=_clean(" ".join([head, *rest])), doc_type=_TYPE_WORDS.get(fold(m.group(1)),
                                                                                         DocType.otro))
        ident.number = m.group(2)
        ident.short_title = _clean(head)
        text = _text(ev.lines, 60)
        ident.issuing_body = _promulgator(text) or _body_heading(ev)
        top = " ".join(ev.top + ev.headers)
        if "DIARIO OFICIAL" in top.upper():
            ident.gazette = "Diario Oficial"
            ident.publication_date = _date_of(top)
            if m2 := re.search(r"\bN\.\s*(\d+)", top):
                ident.issue = f"núm. {m2.group(1)}"
        ident.publication_date = ident.publication_date or act_date or _date_of(text) or _date_of(ev.tail)
        return ident
    return None


_COURT_LINE = re.compile(r"^(?:United\s+States\s+(?:Court|District|Bankruptcy)|Supreme\s+Court|Court\s+of|"
                         r"Suprema\s+Corte|Corte\s+(?:Suprema|Constitucional|Interamericana)|Tribunal\s+(?:Supremo|"
                         r"Constitucional|Colegiado|Superior)|Juzgado)", re.I)
_PRONOUNCED = re.compile(r"Pronunciad[oa]\s+por\s+(?:la|el)\s+((?:[A-ZÁÉÍÓÚ]\w+\s+)?Sala\s+de\s+la\s+"
                         r"[A-ZÁÉÍÓÚ]\w+(?:\s+[A-ZÁÉÍÓÚ]\w+)*|[A-ZÁÉÍÓÚ]\w+(?:\s+(?:de\s+la\s+|de\s+)?"
                         r"[A-ZÁÉÍÓÚ]\w+)*)")
_CASE_NO = re.compile(r"\b(?:Rol\s+N[°º]\s*|No\.\s+|Expediente\s+|Amparo\s+(?:directo|en\s+revisi[oó]n)\s+)"
                      r"(\d[\d.\-/]*\d)")


def _court(ev: Evidence) -> Identity | None:
    head = _text(ev.lines, 12)
    court_lines: list[str] = []
    for i, ln in enumerate(ev.lines[:10]):
        if _COURT_LINE.match(ln.text.strip()):
            court_lines = [ln.text.strip()]
            for nxt in ev.lines[i + 1:i + 3]:
                if re.match(r"^(?:For\s+the|del?\s|de\s+la)", nxt.text.strip(), re.I):
                    court_lines.append(nxt.text.strip())
                else:
                    break
            break
    pronounced = _PRONOUNCED.search(ev.tail)
    opens = re.match(r"^\s*[A-ZÁÉÍÓÚ][\w ]+,\s+(?:a\s+)?[a-záéíóú]+\s+de\s+\w+\s+de", head) and \
        re.search(r"\bVISTOS?\s*:", head)
    if not court_lines and not (pronounced and opens):
        return None
    ident = Identity(title="", doc_type=DocType.sentencia)
    ident.issuing_body = _clean(" ".join(court_lines)) if court_lines else _clean(pronounced.group(1))
    tail_no = list(_CASE_NO.finditer(ev.tail))
    case = (tail_no[-1] if tail_no and not court_lines else None) or _CASE_NO.search(_text(ev.lines, 30))
    if case:
        ident.number = case.group(1)
    dates = _DATE_US.search(" ".join(ev.headers + ev.page_headers))
    ident.publication_date = (date_or_none(int(dates.group(3)), int(dates.group(1)), int(dates.group(2))) if dates
                              else _date_of(head))
    label = "Sentencia" if not court_lines or not re.match(r"^(?:United|Supreme|Court)", court_lines[0]) else None
    if case and label:
        ident.title = f"{label} {case.group(0).strip()}"
    elif case:
        ident.title = f"{ident.issuing_body}, No. {case.group(1)}"
    else:
        ident.title = ident.issuing_body
    return ident


def _first_title_block(ev: Evidence) -> str | None:
    """The first page's title: the biggest (then boldest) acceptable lines near the top, merged while the style
    holds."""
    lines = [ln for ln in ev.lines[:40] if ln.text.strip()]
    if not lines:
        return None
    body = sorted(ln.size for ln in lines)[len(lines) // 2]
    candidates = [ln for ln in lines[:25] if (ln.size >= body * 1.15 or ln.bold or ln.caps > 0.85)
                  and _acceptable_title(ln.text.strip()) and not _COURT_LINE.match(ln.text.strip())]
    if not candidates:
        return None
    biggest = max(ln.size for ln in candidates)
    first = next(ln for ln in candidates if ln.size >= biggest - 0.5)
    i = lines.index(first)
    while i and _same_row_piece(lines[i - 1], first):  # a headline set across the row in pieces (a scanned page)
        i -= 1
    block = lines[i:lines.index(first) + 1]
    for nxt in lines[lines.index(first) + 1:]:  # while the style holds, not a line count
        if sum(len(b.text) for b in block) > MAX_TITLE_CHARS:
            break
        if abs(nxt.size - first.size) < 0.6 and nxt.bold == first.bold and nxt.page == first.page \
                and nxt.y0 - block[-1].y1 < 2.5 * max(first.height, 1) and not _SECTION_LABEL.match(nxt.text) \
                or _same_row_piece(nxt, block[-1]):
            block.append(nxt)
        elif nxt.size < first.size - 0.6 and nxt.page == first.page:
            continue  # a smaller line set beside or between the title's lines ("Revision 1")
        else:
            break
    return _clean(" ".join(ln.text.strip() for ln in block))


def _same_row_piece(ln: Line, ref: Line) -> bool:
    """`ln` sits on `ref`'s row in nearly its size: another piece of the same headline."""
    overlap = min(ln.y1, ref.y1) - max(ln.y0, ref.y0)
    return ln.page == ref.page and overlap > 0.5 * min(ln.height, ref.height) and \
        0.8 * ref.size <= ln.size <= 1.25 * ref.size and _acceptable_title(ln.text.strip())


def _body_heading(ev: Evidence) -> str | None:
    bodies = []
    for h in ev.headings[:6]:
        if h.kind in BODY_KINDS:
            bodies.append(h.label)
        elif bodies:
            break
    return _clean(" ".join(bodies)) or None


_SELF_REF = [
    (re.compile(r"\b(?:esta|la\s+presente)\s+(?:NOM|Norma\s+Oficial\s+Mexicana)\b", re.I), DocType.nom),
    (re.compile(r"\b(?:esta|la\s+presente)\s+Ley\b"), DocType.ley),
    (re.compile(r"\b(?:este|el\s+presente)\s+Reglamento\b"), DocType.reglamento),
    (re.compile(r"\b(?:este|el\s+presente)\s+C[óo]digo\b"), DocType.codigo),
    (re.compile(r"\b(?:este|el\s+presente)\s+Acuerdo\b"), DocType.acuerdo),
    (re.compile(r"\b(?:este|el\s+presente)\s+Decreto\b"), DocType.decreto),
    (re.compile(r"\b(?:esta|la\s+presente)\s+Resoluci[óo]n\b"), DocType.resolucion),
]


# A Federal Register document prints its subject right above "AGENCY:", under its CFR part, docket and RIN lines
# ("RIN 2120–AA64" / "Airworthiness Directives; The Boeing Company Airplanes" / "AGENCY: Federal Aviation
# Administration (FAA), DOT." / "ACTION: Notice of proposed rulemaking"): the section name above them ("Proposed
# Rules", "Rules and Regulations") is the gazette's, not the document's.
_REGISTER_HEAD = re.compile(r"^(?:RIN\s|\[|\d+\s+CFR\b|Billing\s+Code\b)|\]$")


def _register_subject(ev: Evidence) -> str | None:
    lines = [ln.text.strip() for ln in ev.lines[:80] if ln.text.strip()]
    at = next((i for i, text in enumerate(lines) if text.startswith("AGENCY:")), None)
    if at is None or not any(text.startswith("ACTION:") for text in lines[at + 1:at + 6]):
        return None
    block: list[str] = []
    for text in reversed(lines[:at]):
        if _REGISTER_HEAD.search(text) or sum(map(len, block)) > MAX_TITLE_CHARS:
            break
        block.insert(0, text)
    return _clean(" ".join(block)) if block else None


def _generic(ev: Evidence) -> Identity:
    title = _register_subject(ev)
    for h in ([] if title else ev.headings[:8]):  # a title heading on the first page, never a reform decree deeper
        if h.kind == TITLE and _acceptable_title(h.label) and not (_REFORM.search(h.label) and ev.headings.index(h) > 3):
            title = h.label
            break
    title = title or _opener_block(ev) or _first_title_block(ev)
    if not title:
        for h in ev.headings[:10]:
            if h.kind in GENERIC_KINDS and _acceptable_title(h.label):
                title = h.label
                break
    if not title:
        title = next((ln.text.strip() for ln in ev.lines[:40] if _acceptable_title(ln.text.strip())
                      and len(ln.text.split()) >= 2), None)
    ident = Identity(title=_clean(title or UNTITLED))
    text = _text(ev.lines, 80)
    ident.doc_type = type_of_title(ident.title) or _self_reference(text) or DocType.otro
    ident.issuing_body = _body_heading(ev) or _promulgator(text)
    if m := re.search(r"\bDado\s+en\s+[^,]{2,60},\s+(?:a\s+)?(?:los\s+)?(.{4,60})", ev.tail):
        ident.publication_date = _date_of(m.group(1))
    ident.publication_date = (ident.publication_date or _date_of(" ".join(ev.top + ev.page_headers + ev.headers))
                              or _date_of(text[:1500]))
    return ident


def _self_reference(text: str) -> DocType | None:
    counts = [(len(p.findall(text)), t) for p, t in _SELF_REF]
    n, kind = max(counts, key=lambda c: c[0])
    return kind if n >= 1 else None


# The first line of a DOF document's body, after its title: the seal, the legal basis, the recitals.
_BODY_OPENER = re.compile(r"^(?:Al\s+margen|Con\s+fundamento|CONSIDERANDO|Que\s|En\s+(?:la|el)\s|De\s+conformidad|"
                          r"[IVX]+\.\s|\d+\.\s|PRIMER[OA]\b|[ÚU]NIC[OA]\b)", re.I)
_TITLE_END = (".", ".)", ".”", '."')


def _to_its_end(title: str, ev: Evidence) -> str:
    """A title that stops before its grammar does — a DOF title ends with its full stop — carried on to that stop by
    the lines that follow it in the document: the line a page break set on the next page ("…del Instituto Nacional de
    Migración, / y el Estado de Tabasco."), a subtitle printed under a short heading ("ANEXO 4 F" / "Programas-…
    en materia de Salud Pública."). Lines in the title's style go on until one ends the sentence; a line in another
    style is taken only when it ends it. No full stop within a few lines: the title stands as read."""
    if not title or title.rstrip().endswith(_TITLE_END):
        return title
    target = fold(title)
    lines = ev.lines[:80]
    end = first = None
    for i, ln in enumerate(lines):
        acc = fold(ln.text)
        if not acc or not target.startswith(acc):
            continue
        j = i + 1
        while acc != target and j < len(lines) and target.startswith(f"{acc} {fold(lines[j].text)}"):
            acc, j = f"{acc} {fold(lines[j].text)}", j + 1
        if acc == target:
            end, first = j, ln
            break
    if end is None or first is None:
        return title
    more: list[str] = []
    for ln in lines[end:end + 6]:
        text = ln.text.strip()
        if not text or len(text) > 250 or _SECTION_LABEL.match(text) or _BODY_OPENER.match(text):
            break
        styled = ln.bold == first.bold and abs(ln.size - first.size) < 0.6
        if not styled and (more or not text.endswith(_TITLE_END)):
            break
        more.append(text)
        if text.endswith(_TITLE_END):
            return _clean(" ".join([title, *more]))
    return title


def _dof(ev: Evidence) -> Identity:
    title = _to_its_end(_clean(ev.edition_title or ""), ev)
    if not title or not _acceptable_title(title):
        title = _opener_block(ev, skip=ev.edition_body) or _first_title_block(ev) or title or UNTITLED
    ident = Identity(title=title, gazette="DOF", issuing_body=ev.edition_body, publication_date=ev.dof_date,
                     edition=ev.dof_edition, section=ev.dof_section)
    ident.doc_type = type_of_title(title) or DocType.otro
    if m := re.match(r"^(NOM-[\w\-/]+)", title):
        ident.number = m.group(1)
    return ident


def identify(ev: Evidence) -> Identity:
    """Name one document from its evidence."""
    if ev.front_matter and not _contents(ev):  # an edition fragment without boundary: a document, not a cover
        ev.front_matter = False
    if ev.front_matter:
        ident = Identity(title="Contenido", doc_type=DocType.indice)
        if ev.dof:
            ident.gazette, ident.publication_date = "DOF", ev.dof_date
            ident.edition, ident.section = ev.dof_edition, ev.dof_section
        return ident
    if ev.enacted_by is not None:
        ident = _annexed_law(ev, ev.enacted_by)
    elif ev.dof and not _consolidated_header(ev):
        ident = _dof(ev)
    else:
        ident = (_consolidated(ev) or _boe(ev) or _numbered_act(ev) or _court(ev) or _generic(ev))
    if ident.doc_type is DocType.decreto and _REFORM.search(ident.title):
        ident.amends = _amended(ident.title)
    if ev.enacted_by is None:
        _boe_consolidated(ev, ident)
    citation_forms.complete(ident, ev)  # the parts readers cite it by: volume, court, case number, EU act's name
    ident.aliases += _annexed_names(ev, ident.title)
    if ident.short_title is None:
        _spanish_act(ident)
    if ident.issuing_body is None:
        ident.issuing_body = _letterhead(ev.page_headers or ev.headers, ev.top, _above_title(ev, ident.title))
    if ident.last_reform_date is None and (m := _LAST_MODIFIED.search(  # a BOE consolidated text's version, printed
            " ".join([_text(ev.lines, 80), *(h.label for h in ev.headings)]))):  # after its index
        ident.last_reform_date = _date_of(m.group(1))
    ident.title = bound(ident.title) or UNTITLED
    if ident.title == UNTITLED or not text_quality.is_words(ident.title):  # never a noise fragment ("SNE //Z")
        ident.title = bound(_fallback_title(ev, ident)) or UNTITLED
    ident.short_title = bound(ident.short_title)
    ident.issuing_body = bound(ident.issuing_body)
    ident.aliases = [a for a in (bound(alias) for alias in ident.aliases) if a]
    _law(ident)
    return ident


# What a title says its document issues, right before the name of what it issues ("… por el que se emiten los").
_ISSUES = re.compile(r"\bse (?:emite|expide|aprueba|da a conocer|establece)n? (?:el|la|los|las) $")


def issues(title: str, name: str) -> bool:
    """Does a document's title say it issues what `name` names ("ACUERDO por el que se emiten los Lineamientos para
    la revisión de …" / "LINEAMIENTOS PARA LA REVISIÓN DE …")? The name in three words or more, right after "se
    emite(n) / expide(n) / aprueba(n) / da(n) a conocer / establece(n) el / la / los / las"."""
    folded, named = fold(title), fold(name).strip(" .:")
    at = folded.find(named)
    return len(named.split()) >= 3 and at > 0 and _ISSUES.search(folded, 0, at) is not None


def _annexed_names(ev: Evidence, title: str) -> list[str]:
    """The name of what a document issues, in its annex or after its operative clause, as its title spells it: an
    acuerdo "por el que se emiten los Lineamientos para la revisión de …" whose "ANEXO ÚNICO" is headed, or whose
    "ÚNICO.- Se emiten los Lineamientos …, para quedar como sigue:" is followed by, "LINEAMIENTOS PARA LA REVISIÓN DE
    …" is also called "Lineamientos para la revisión de …". Only a name of three words or more that the title
    holds: an annex named otherwise ("ANEXO I" / "Ciclo inicial de grado medio…") is a part of the
    document, not a name of it, and "ANEXO 13 DE LA RESOLUCIÓN …" says whose annex it is. A heading other than an
    annex's counts only in capitals, as the DOF sets the name of what an acuerdo issues, and only where the title
    says it issues it ("… se emiten los Lineamientos …"): a reform decree's "LEY GENERAL DE SALUD" is what it amends,
    not a name of it."""
    folded, names = fold(title), []
    for h in ev.headings:
        if h.kind != ANNEX and (h.kind not in GENERIC_KINDS or h.label.upper() != h.label):
            continue
        printed = (h.title or division_name(h.label)).strip().rstrip(".:")
        name = fold(printed)
        if len(name.split()) < 3 or name.split()[0] in ("de", "del"):  # "ANEXO 13 DE LA RESOLUCIÓN …": whose annex
            continue
        at = folded.find(name)
        # the title's own spelling ("Lineamientos", not "LINEAMIENTOS") where its offsets are the title's
        if at >= 0 and (h.kind == ANNEX or issues(title, printed)):
            names.append(title[at:at + len(name)] if len(folded) == len(title) else legal_case(printed))
    return list(dict.fromkeys(names))  # an annex's name is printed under its label and again as a heading


# Whose law a gazette publishes.
_GAZETTE_JURISDICTION = {"DOF": "mx", "BOE": "es", "Diario Oficial": "co", "Federal Register": "us"}
# Types of text that are a law with versions (a consolidated text, a code, a constitution), not an act of a day.
_LAW_TYPES = {DocType.ley, DocType.codigo, DocType.constitucion, DocType.reglamento, DocType.estatuto,
              DocType.tratado}


def _law(ident: Identity) -> None:
    """Which law a document is and which version of it: `law_id` from the law's name and jurisdiction — never from
    the file — so two consolidated texts of one law, whatever their layout, are two versions of one law;
    `version_date` its last reform as printed, else its publication."""
    ident.jurisdiction = ident.jurisdiction or _GAZETTE_JURISDICTION.get(ident.gazette or "")
    ident.version_date = ident.last_reform_date or ident.publication_date
    name = ident.short_title or ident.title
    if ident.doc_type not in _LAW_TYPES or not name or name == UNTITLED:
        return
    slug = re.sub(r"[^a-z0-9ñ]+", "-", fold(name)).strip("-")
    ident.law_id = f"{ident.jurisdiction or 'xx'}/{slug}"


# The law a decree enacts, as the decree's title names it: "…por el que se aprueba el texto refundido de la Ley de
# Sociedades de Capital", "DECRETO por el que se expide la Ley General de …, y se reforman …".
_ENACTS = re.compile(r"\b(?:aprueba|expide|promulga)n?\s+(?:el\s+|la\s+)?(?:texto\s+refundido\s+de\s+(?:la\s+|el\s+)?)?"
                     r"((?:Ley|C[óo]digo|Estatuto|Reglamento)\b[^.;]*)", re.I)
_REFUNDIDO = re.compile(r"^TEXTO\s+REFUNDIDO\s+DE\s+(LA\s+|EL\s+)?", re.I)


def _annexed_law(ev: Evidence, decree: Identity) -> Identity:
    """A law carried whole by the decree that enacts it: named as the decree's title spells it (the heading that
    opens it is in capitals), typed by its own name, dated and issued as its decree."""
    heading = " ".join((ev.edition_title or "").split())
    own = _REFUNDIDO.sub("", heading)
    name = legal_case(own)
    for m in _ENACTS.finditer(decree.title):
        words = m.group(1).split()
        if fold(" ".join(words)).startswith(fold(own)):
            name = " ".join(words[: len(own.split())]).rstrip(" ,")
            break
    refundido = _REFUNDIDO.match(heading)
    title = f"Texto refundido de {(refundido.group(1) or '').lower()}{name}" if refundido else name
    ident = Identity(title=title, doc_type=type_of_title(name) or DocType.ley, issuing_body=decree.issuing_body,
                     short_title=name, gazette=decree.gazette, issue=decree.issue,
                     publication_date=decree.publication_date, last_reform_date=decree.last_reform_date,
                     edition=decree.edition, section=decree.section, jurisdiction=decree.jurisdiction)
    acronym = "".join(w[0] for w in re.findall(r"\b[A-ZÁÉÍÓÚ]\w+", name))
    if len(acronym) >= 3:
        ident.aliases.append(acronym.upper())
    return ident


# A BOE consolidated text's masthead, under its title: the department, then "«BOE» núm. 281, de 24 de noviembre de
# 1995", then "Referencia: BOE-A-1995-25444".
_BOE_CONSOLIDATED = re.compile(r"«BOE»\s+n[úu]m\.\s*(\d+),\s+de\s+(\d{1,2}\s+de\s+\w+\s+de\s+\d{4})")


def _boe_consolidated(ev: Evidence, ident: Identity) -> None:
    """Gazette, publication date and issuing department of a BOE consolidated text, from its masthead. Not its
    issue: a consolidated law is cited by its name ("Ley de Enjuiciamiento Civil, art. 4"), not by the day's issue
    that first published it (`retrieval.labels` names a document by its issue when it has one)."""
    lines = [ln.text.strip() for ln in ev.lines[:12]]
    for i, text in enumerate(lines):
        if (m := _BOE_CONSOLIDATED.search(text)) and any(t.startswith("Referencia: BOE-") for t in lines[i:i + 3]):
            ident.gazette, ident.jurisdiction = "BOE", "es"
            ident.publication_date = _date_of(m.group(2)) or ident.publication_date
            if i > 0 and ident.issuing_body is None and not lines[i - 1].endswith("."):  # the title ends with "."
                ident.issuing_body = lines[i - 1]
            return


# The institution a letterhead names, printed atop every page of a court's, a municipality's or a district's text
# ("TRIBUNAL SUPERIOR DE JUSTICIA", "H. Ayuntamiento de San Pedro Garza García", "Secretaría de Acuerdos del Distrito
# Judicial de Tula"), in capitals or not.
_INSTITUTION = re.compile(r"^(?:(?:H\.|Honorable)\s*)?(?:TRIBUNAL|JUZGADO|SALA|CORTE|CONSEJO|SECRETAR[ÍI]A|ALCALD[ÍI]A|"
                          r"AYUNTAMIENTO|MUNICIPIO|PRESIDENCIA\s+MUNICIPAL|GOBIERNO|PODER|INSTITUTO|COMISI[ÓO]N|"
                          r"PROCURADUR[ÍI]A|FISCAL[ÍI]A|DIRECCI[ÓO]N|SUBDIRECCI[ÓO]N|CONCEJO|ASAMBLEA|CABILDO|"
                          r"JUNTA|DISTRITO\s+JUDICIAL)\b", re.I)


_LETTERHEAD_LINES = 4  # a letterhead printed on the first page only: among its first lines, above the title


def _above_title(ev: Evidence, title: str) -> list[str]:
    """The first lines of the document above its title: where a letterhead printed on the first page only stands."""
    target = fold(title)
    above = []
    for ln in ev.lines[:_LETTERHEAD_LINES]:
        if fold(ln.text) and target.startswith(fold(ln.text)):
            break
        above.append(ln.text)
    return above


def _letterhead_line(text: str) -> bool:
    """An institution's name set as a letterhead line: it opens with an institution, it is short, it is no sentence
    (no full stop, no digits) and it is not the Chamber of Deputies' publishing header of a consolidated law."""
    return bool(_INSTITUTION.match(text)) and len(text) <= 150 and not text.rstrip().endswith(".") \
        and not re.search(r"\d", text) and not _HEADER_STOP.search(text) and not describes_file(text)


def _letterhead(*sources: list[str]) -> str | None:
    """The issuing body a document's letterhead names: from the first source that has one (its running header, the
    top rows of its first page, its first lines), the first institution line with the lines that continue it — a
    capitalised line without digits ("TRIBUNAL SUPERIOR" / "DE JUSTICIA"), or the unit under it ("Poder Judicial
    del Estado de Hidalgo" / "Secretaría de Acuerdos del Distrito Judicial de Tula de Allende")."""
    for headers in sources:
        for i, text in enumerate(headers):
            text = " ".join(text.split())
            if not _letterhead_line(text):
                continue
            lines = [text]
            for more in headers[i + 1:i + 3]:
                more = " ".join(more.split())
                caps_rest = text.upper() == text and more.upper() == more and not re.search(r"\d", more) \
                    and not _HEADER_STOP.search(more) and len(more) <= 150
                if not (caps_rest or _letterhead_line(more)):
                    break
                lines.append(more)
            return _clean(" ".join(lines))
    return None


# A Spanish act's title: rank, number and date, then its name ("Ley 1/2000, de 7 de enero, de Enjuiciamiento Civil.",
# "Ley Orgánica 10/1995, de 23 de noviembre, del Código Penal.") or what it does ("…, por el que se aprueba …").
_ES_ACT = re.compile(r"^((Real\s+Decreto(?:-ley|\s+Legislativo)?|Ley(?:\s+Org[áa]nica)?|Decreto(?:-ley)?|Orden)\s+"
                     r"(?:[A-Z]{2,5}/)?(\d+/\d{4})),\s+de\s+\d{1,2}\s+de\s+\w+,\s+(.*?)\.?$")
_LAST_MODIFIED = re.compile(r"[ÚU]ltima\s+modificaci[óo]n:\s*(\d{1,2}\s+de\s+\w+\s+de\s+\d{4})")  # BOE consolidado
_OWN_NAME = re.compile(r"^(?:de\s+la\s+|del\s+|de\s+los\s+)((?:Ley|C[óo]digo|Estatuto)\b.*)$")


def _spanish_act(ident: Identity) -> None:
    """Short title, number and aliases of a Spanish act from its title: "Ley de Enjuiciamiento Civil" (LEC,
    "Ley 1/2000"), "Código Penal" ("Ley Orgánica 10/1995"); an act named by what it does keeps its rank and number
    ("Real Decreto Legislativo 1/2010")."""
    m = _ES_ACT.match(" ".join(ident.title.split()))
    if not m:
        return
    cited, rank, number, rest = m.groups()
    ident.number = ident.number or number
    name = None
    if own := _OWN_NAME.match(rest):
        name = own.group(1)
    elif re.match(r"^de\s+[A-ZÁÉÍÓÚ]", rest):
        name = f"{rank} {rest}"
    ident.short_title = name or cited
    if name:
        ident.aliases.append(cited)
        acronym = "".join(w[0] for w in re.findall(r"\b[A-ZÁÉÍÓÚ]\w+", name))
        if len(acronym) >= 3:
            ident.aliases.append(acronym.upper())


def _fallback_title(ev: Evidence, ident: Identity) -> str:
    """No title made of words (a scan whose first lines are seals and stamps): the first words-like line of the
    document, else the masthead printed atop its pages, else its type and date, else its file name."""
    line = next((ln.text.strip() for ln in ev.lines[:60] if _acceptable_title(ln.text.strip())
                 and len(ln.text.split()) >= 2), None)
    masthead = next((t for t in ev.top + ev.page_headers if _acceptable_title(t) and len(t.split()) >= 2
                     and not _date_of(t)), None)
    if line or masthead:
        return _clean(line or masthead)
    if ident.doc_type not in (DocType.otro, DocType.indice):
        kind = ident.doc_type.value.capitalize()
        return f"{kind} {ident.number or ''} {ident.publication_date.isoformat() if ident.publication_date else ''}" \
            .replace("  ", " ").strip()
    name = " ".join(re.sub(r"[_\s]+", " ", ev.source_name).split())
    return name or UNTITLED  # the last resort, words or not: a file name at least finds the file


def _contents(ev: Evidence) -> bool:
    return any(re.match(r"^(?:CONTENIDO|[IÍ]NDICE|SUMARIO)\b", ln.text.strip(), re.I) for ln in ev.lines[:60]) \
        or any(h.kind != TITLE and re.match(r"^(?:CONTENIDO|[IÍ]NDICE)", h.label, re.I) for h in ev.headings)


def _consolidated_header(ev: Evidence) -> bool:
    return bool(_CONSOLIDATED.search(" ".join(ev.headers)))


def _amended(title: str) -> list[LegalReference]:
    from ingest import references

    return references.amended_articles(title)
