"""Amendment notes: the grammar on the shapes printed in the consolidated texts, and the share recognised on the real
Constitution and Ley de Amparo (counted in the PDF text with a plain regex, independent of ingest.amendments)."""

from __future__ import annotations

import datetime as dt
import functools
import re

import pymupdf
import pytest

from ingest.amendments import continues_note, is_note, parse_note, starts_note
from ingest.chunker import chunk_document
from ingest.models import AmendmentKind, Chunk, LegalDocument
from tests.conftest import pdf
from tests.ingest.parsed_cache import parsed

CPEUM = "mx_ley_CPEUM_constitucion_politica.pdf"
AMPARO = "mx_ley_de_amparo.pdf"
# A printed line that opens an amendment note: a target word (not followed by an article number: "Artículo 47. El
# Estado del (sic DOF 05-02-1917) Nayarit…" is text) and a DOF date on the same line.
NOTE_LINE = re.compile(
    r"^(?:Párrafo|Artículo|Fracción|Inciso|Apartado|Base|Numeral|Sección|Capítulo|Título|Denominación|Encabezado"
    r"|Fe de erratas|Reforma DOF)\b(?!\s+\d)[^\n]*DOF \d{2}-\d{2}-\d{4}"
)
# Note text that must never sit inside a quoted sentence of the provision.
NOTE_TEXT = re.compile(
    r"(?:Párrafo|Artículo|Fracción|Inciso|Apartado)\s+(?:[\w()]+\s+){0,4}?(?:reformad|adicionad|derogad)[oa]s?"
    r"\s+DOF \d{2}-\d{2}-\d{4}"
)


def d(day: str) -> dt.date:
    return dt.datetime.strptime(day, "%d-%m-%Y").date()


@pytest.mark.parametrize(
    ("text", "kind", "target", "dates"),
    [
        ("Párrafo reformado DOF 06-02-1976, 10-08-1987, 06-01-1992", "reformado", "párrafo",
         ["06-02-1976", "10-08-1987", "06-01-1992"]),
        ("Artículo reformado DOF 14-08-2001", "reformado", "artículo", ["14-08-2001"]),
        ("Fracción adicionada DOF 20-12-2019", "adicionado", "fracción", ["20-12-2019"]),
        ("Inciso derogado DOF 29-01-2016", "derogado", "inciso", ["29-01-2016"]),
        ("Párrafo con fracciones reformado DOF 10-02-2014", "reformado", "párrafo", ["10-02-2014"]),
        ("Fe de erratas al párrafo tercero DOF 06-02-1917", "fe_de_erratas", "párrafo", ["06-02-1917"]),
        ("Artículo adicionado DOF 08-10-1974", "adicionado", "artículo", ["08-10-1974"]),
        ("Denominación del Capítulo reformada DOF 10-06-2011", "reformado", "denominación del capítulo",
         ["10-06-2011"]),
        ("Reforma DOF 14-06-2024: Derogó del Artículo el entonces párrafo tercero", "derogado", "párrafo",
         ["14-06-2024"]),
        ("Reforma DOF 20-12-2024: Eliminó del artículo las entonces fracciones XXV y XXVI", "derogado", "fracción",
         ["20-12-2024"]),
        # the state the provision is left in: the last change, errata and history in parentheses aside
        ("Apartado C adicionado DOF 10-02-2014. Derogado DOF 20-12-2024", "derogado", "apartado",
         ["10-02-2014", "20-12-2024"]),
        ("Párrafo adicionado DOF 29-12-1960. Fe de erratas al párrafo DOF 07-01-1961. Reformado DOF 06-02-1975",
         "reformado", "párrafo", ["29-12-1960", "07-01-1961", "06-02-1975"]),
        ("Fracción adicionada DOF 20-08-1928. Derogada DOF 10-02-1944. Adicionada DOF 29-12-1982", "adicionado",
         "fracción", ["20-08-1928", "10-02-1944", "29-12-1982"]),
        ("Reforma DOF 10-02-2014: Derogó del artículo el entonces párrafo segundo (antes adicionado DOF 14-08-2001)",
         "derogado", "párrafo", ["10-02-2014", "14-08-2001"]),
        ("Fracción reformada y recorrida (antes fracción V) DOF 12-02-2007", "reformado", "fracción", ["12-02-2007"]),
        ("Artículo original DOF 05-02-1917", "otro", "artículo", ["05-02-1917"]),
        ("Fracción recorrida DOF 10-02-2014", "otro", "fracción", ["10-02-2014"]),
    ],
)
def test_note_grammar(text: str, kind: str, target: str, dates: list[str]) -> None:
    assert starts_note(text) and is_note(text)
    note = parse_note("\n" + text + "\n", 100, "27")
    assert note is not None
    assert (note.kind, note.target, note.dates) == (AmendmentKind(kind), target, [d(x) for x in dates])
    assert (note.text, note.start, note.end, note.article) == (text, 101, 101 + len(text), "27")


@pytest.mark.parametrize(
    "text",
    [
        "Artículo 47. El Estado del (sic DOF 05-02-1917) Nayarit tendrá la extensión territorial",
        "La (sic DOF 02-08-2007) leyes determinarán las relaciones entre las entidades paraestatales",
        "Última Reforma DOF 15-10-2025",
        "Artículo 27. La propiedad de las tierras y aguas comprendidas dentro de los límites del territorio",
        "Párrafo reformado por el Congreso",  # no DOF date: not a note
    ],
)
def test_text_is_not_a_note(text: str) -> None:
    assert not starts_note(text) and not is_note(text) and parse_note(text, 0) is None


def test_wrapped_notes_continue_and_new_notes_do_not() -> None:
    assert continues_note("Fracción recorrida (antes fracción XXX) por derogación de fracciones XXV y XXVI DOF "
                          "10-02-2014. Derogada DOF 29-01-2016. Adicionada", "DOF 06-06-2019. Reformada DOF 2020")
    assert continues_note("Párrafo reformado (se suprime la última oración) DOF 06-12-1977.",
                          "Reformado DOF 22-08-1996")
    assert continues_note("Artículo reformado DOF 31-12-1994, 22-08-1996,", "17-11-1982, 20-08-1993")
    assert not continues_note("Apartado adicionado DOF 10-02-2014. Derogado DOF 20-12-2024",
                              "Artículo reformado DOF 03-02-1983, 07-04-2006")
    assert not continues_note("Párrafo adicionado DOF 27-01-2016", "Las obligaciones y supuestos denominados")


# -- the real consolidated texts -------------------------------------------------------------------------------


@functools.cache
def pdf_note_lines(name: str) -> list[str]:
    with pymupdf.open(pdf(name)) as doc:
        lines = [" ".join(line.split()) for page in doc for line in page.get_text().split("\n")]
    return [line for line in lines if NOTE_LINE.match(line)]


@functools.cache
def law(name: str) -> tuple[LegalDocument, list[Chunk]]:
    doc = parsed(name).documents[0]
    return doc, chunk_document(doc, lambda text: len(text.split()), 256)


def recognised_share(name: str) -> tuple[int, int, int]:
    doc, _ = law(name)
    notes = " || ".join(" ".join(n.text.split()) for n in doc.amendments)
    lines = pdf_note_lines(name)
    return len(lines), sum(line in notes for line in lines), len(doc.amendments)


@pytest.mark.parametrize("name", [CPEUM, AMPARO])
def test_notes_recognised_on_the_real_laws(name: str) -> None:
    printed, found, notes = recognised_share(name)
    print(f"{name}: {printed} note lines in the PDF text, {found} inside a recognised note "
          f"({found / printed:.3f}); {notes} AmendmentNotes")
    assert printed > 400
    assert found / printed >= 0.95


@pytest.mark.parametrize("name", [CPEUM, AMPARO])
def test_no_sentence_holds_a_note_unless_it_is_one(name: str) -> None:
    doc, chunks = law(name)
    notes = {(n.start, n.end) for n in doc.amendments}
    note_sentences = leaks = 0
    for ch in chunks:
        for s in ch.sentences:
            if NOTE_TEXT.search(ch.sentence_text(s)):
                note_sentences += 1
                leaks += (s.start, s.end) not in notes
    print(f"{name}: {note_sentences} sentences hold note text, {leaks} of them are not exactly a note")
    assert note_sentences > 400 and leaks == 0
    # every note is one sentence of exactly one chunk, and listed in that chunk's notes
    in_chunks = [(n.start, n.end) for ch in chunks for n in ch.notes]
    assert sorted(in_chunks) == sorted(notes)
    sentences = {(s.start, s.end) for ch in chunks for s in ch.sentences}
    assert notes <= sentences


def test_cpeum_article_27_notes() -> None:
    doc, _ = law(CPEUM)
    by_text = {n.text: n for n in doc.amendments}
    first = by_text["Párrafo reformado DOF 06-02-1976, 10-08-1987, 06-01-1992"]
    assert (first.kind, first.target, first.article) == (AmendmentKind.reformado, "párrafo", "27")
    assert first.dates == [d("06-02-1976"), d("10-08-1987"), d("06-01-1992")]
    assert doc.markdown[first.start : first.end] == first.text
    # the paragraph it annotates ends just before it, in a block of its own
    assert doc.markdown[: first.start].endswith("perjuicio de la sociedad.\n\n")
    nuclear = by_text["Párrafo adicionado DOF 29-12-1960. Fe de erratas al párrafo DOF 07-01-1961. "
                      "Reformado DOF 06-02-1975"]
    assert (nuclear.kind, nuclear.article) == (AmendmentKind.reformado, "27")
    # two notes printed on consecutive lines after article 26 stay two notes, both of article 26
    apartado = by_text["Apartado adicionado DOF 10-02-2014. Derogado DOF 20-12-2024"]
    article = by_text["Artículo reformado DOF 03-02-1983, 07-04-2006"]
    assert (apartado.kind, apartado.target, apartado.article) == (AmendmentKind.derogado, "apartado", "26")
    assert (article.kind, article.target, article.article) == (AmendmentKind.reformado, "artículo", "26")
    fractions = [n for n in doc.amendments if n.article == "27" and n.target == "fracción"]
    assert len(fractions) >= 15


def test_amparo_two_line_note_is_one_note() -> None:
    doc, _ = law(AMPARO)
    [invalid] = [n for n in doc.amendments if n.text.startswith("Artículo declarado inválido")]
    assert invalid.text.endswith("DOF 18-02-2022") and invalid.kind is AmendmentKind.otro
