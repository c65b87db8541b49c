"""Amendment notes of consolidated Mexican texts: the one place that knows their grammar.

The Cámara de Diputados' consolidated laws print, after the paragraph, fracción, inciso or article they annotate, a
line (small italic, right-aligned, sometimes wrapped over two lines) such as

    Párrafo reformado DOF 06-02-1976, 10-08-1987, 06-01-1992
    Fracción adicionada DOF 10-02-2014. Reformada DOF 29-01-2016
    Apartado C adicionado DOF 10-02-2014. Derogado DOF 20-12-2024
    Fe de erratas al párrafo tercero DOF 06-02-1917
    Denominación del Capítulo reformada DOF 26-05-2011
    Fracción reformada y recorrida (antes fracción V) DOF 12-02-2007
    Reforma DOF 14-06-2024: Derogó del Artículo el entonces párrafo segundo
    Artículo declarado inválido por sentencia de la SCJN … publicada DOF 17-11-2021
    Nota: Por Decreto DOF 07-06-2021 se derogó el entonces Capítulo V …

A note is never provision text: `ingest.markdown_build` writes each as its own Markdown block, `ingest.sentences`
keeps it one sentence, and the chunker attaches it to its chunk as an `AmendmentNote`.

- `opens_note(line)`, `starts_note(line)`, `continues_note(note, line)`: the line-level decisions of the Markdown builder.
- `is_note(block)`: is a whole Markdown block a note (its opener, and at least one "DOF dd-mm-yyyy")?
- `parse_note(block, start)`: the `AmendmentNote` (kind, target, dates) of a block that is a note.

`kind` is the state the note leaves the provision in: the last change it records (reformado, adicionado, derogado;
"Reforma DOF …: Derogó/Eliminó …" is derogado), ignoring errata, "publicado sin cambios" and history in parentheses
("(antes adicionado DOF …)"); a note recording only errata is fe_de_erratas; one recording no change of text
(original, recorrido, reubicado, declarado inválido) is otro. An editorial "Nota: Por Decreto DOF … se derogó …"
follows the same rule.
"""

from __future__ import annotations

import datetime as dt
import re

from ingest.dates import date_or_none
from ingest.models import AmendmentKind, AmendmentNote

DATE = re.compile(r"\b(\d{1,2})-(\d{1,2})-(\d{4})\b")
DOF_DATE = re.compile(r"\bDOF\s+\d{1,2}-\d{1,2}-\d{4}\b")
MAX_NOTE_CHARS = 700

_TARGET = (r"(?:(?:Denominaci[oó]n|Encabezado)\s+(?:del|de\s+la|de)\s+[A-Za-zÁÉÍÓÚáéíóú]+"
           r"|P[aá]rrafos?|Art[ií]culos?|Fracci(?:ones|[oó]n)|Incisos?|Subincisos?|Apartados?|Bases?"
           r"|Numeral(?:es)?|Secci[oó]n(?:es)?|Cap[ií]tulos?|T[ií]tulos?|Libros?|Disposici[oó]n(?:es)?)")
_VERB = (r"(?:reformad|adicionad|derogad|recorrid|reubicad|publicad|declarad|reestructurad|modificad|abrogad|"
         r"suprimid|eliminad|original)")
_OPENER = re.compile(
    r"^(?:(?P<fe>Fe\s+de\s+erratas)\b"
    r"|(?P<reforma>Reforma\s+DOF\s+\d{1,2}-\d{1,2}-\d{4}\s*:)"
    r"|(?P<nota>Nota\s*:)"
    r"|(?P<target>" + _TARGET + r")(?:\s+(?!DOF\b)[^\s.:;]+){0,10}?\s+" + _VERB + r"[oa]?s?\b)"
)
# Events inside a note, in order; the state word of each.
_EVENT = re.compile(
    r"(?P<erratas>fe\s+de\s+erratas)|(?P<sin>publicad[oa]s?\s+sin\s+cambios)"
    r"|(?P<ref>reformad[oa]s?)|(?P<add>adicionad[oa]s?)|(?P<der>derogad[oa]s?|derog[oó]|elimin[oó])",
    re.I,
)
_PARENS = re.compile(r"\([^()]*\)")
_WHAT = re.compile(r"\b(?:el|la|los|las)\s+entonces\s+(?:[úu]ltim[oa]s?\s+)?(p[aá]rrafos?|fracci(?:ones|[oó]n)|"
                   r"incisos?|apartados?|bases?|numerales?)\b", re.I)
_ERRATA_TARGET = re.compile(r"^Fe\s+de\s+erratas\s+(?:al|a\s+la|a\s+los|a\s+las)\s+([A-Za-zÁÉÍÓÚáéíóú]+)", re.I)
_CONTINUATION = re.compile(r"^(?:[a-zñáéíóú(\d]|DOF\b|(?:Reformad|Adicionad|Derogad|Recorrid|Reubicad|Publicad)"
                           r"[oa]s?\b|Fe\s+de\s+erratas)")
_SINGULAR = {"párrafos": "párrafo", "parrafos": "párrafo", "fracciones": "fracción", "incisos": "inciso",
             "apartados": "apartado", "bases": "base", "numerales": "numeral", "artículos": "artículo",
             "articulos": "artículo", "secciones": "sección", "capítulos": "capítulo", "títulos": "título",
             "libros": "libro", "subincisos": "subinciso", "disposiciones": "disposición"}


def opens_note(line: str) -> bool:
    """Does this printed line open with the note grammar ("Párrafo reformado …", "Fe de erratas …")?"""
    return bool(_OPENER.match(line.strip()))


def starts_note(line: str) -> bool:
    """Does this printed line open an amendment note (so it starts a block of its own)?

    It must open with the note grammar and carry a "DOF dd-mm-yyyy" itself, so body text that happens to start
    with "Artículo …" never breaks a paragraph; a note whose first line has no date is still set apart by its
    typography (the builder breaks on a change of size or style)."""
    text = line.strip()
    return bool(_OPENER.match(text)) and bool(DOF_DATE.search(text))


def continues_note(note: str, line: str) -> bool:
    """Is `line` the wrapped continuation of the note printed so far (`note`), not a new note or body text?"""
    text, note = line.strip(), note.rstrip()
    if not text or starts_note(text):
        return False
    if _CONTINUATION.match(text):
        return True
    return not re.search(r"\d{4}\)?\.?$", note)  # the note stopped mid-phrase ("… Reformada", "… y")


def is_note(block: str) -> bool:
    """Is this whole Markdown block an amendment note?"""
    text = block.strip()
    return len(text) <= MAX_NOTE_CHARS and bool(_OPENER.match(text)) and bool(DOF_DATE.search(text))


def parse_dates(text: str) -> list[dt.date]:
    """Every dd-mm-yyyy of `text`, in order, repeated dates once; impossible dates skipped."""
    out: list[dt.date] = []
    for m in DATE.finditer(text):
        day = date_or_none(int(m.group(3)), int(m.group(2)), int(m.group(1)))
        if day is not None and day not in out:
            out.append(day)
    return out


def note_kind(text: str) -> AmendmentKind:
    """The state the note leaves its provision in (see the module docstring)."""
    events = [m.lastgroup for m in _EVENT.finditer(_PARENS.sub(" ", text))]
    changes = [e for e in events if e in ("ref", "add", "der")]
    if changes:
        return {"ref": AmendmentKind.reformado, "add": AmendmentKind.adicionado,
                "der": AmendmentKind.derogado}[changes[-1]]
    if "erratas" in events:
        return AmendmentKind.fe_de_erratas
    return AmendmentKind.otro


def note_target(text: str) -> str | None:
    """What the note amends, as printed and lower-cased ("párrafo", "fracción", "denominación del capítulo")."""
    m = _OPENER.match(text.strip())
    if not m:
        return None
    if m.group("target"):
        target = " ".join(m.group("target").split()).lower()
    elif m.group("reforma"):
        what = _WHAT.search(text)
        target = what.group(1).lower() if what else None
    elif m.group("fe"):
        what = _ERRATA_TARGET.match(text.strip())
        target = what.group(1).lower() if what else None
    else:
        target = None
    return _SINGULAR.get(target, target) if target else None


def parse_note(block: str, start: int, article: str | None = None) -> AmendmentNote | None:
    """The note of a Markdown block that starts at document offset `start`, or None when it is not a note.
    Offsets exclude surrounding whitespace; `text` is the block verbatim."""
    lead = len(block) - len(block.lstrip())
    text = block.strip()
    if not is_note(text):
        return None
    return AmendmentNote(kind=note_kind(text), target=note_target(text), dates=parse_dates(text), text=text,
                         start=start + lead, end=start + lead + len(text), article=article)
