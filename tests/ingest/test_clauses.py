"""A provision numbered in words without "Artículo" is a provision: it carries its number as the chunk's article key.

A DOF acuerdo numbers its points "PRIMERO.-", "SEGUNDO.-"; lineamientos, bases and reglas number theirs the same way;
a convenio's cláusulas are "PRIMERA.-", "SEGUNDA.- OBJETO.". Before, only an "Artículo" heading gave a chunk its
article, so "¿Qué dice el lineamiento décimo cuarto …?" named nothing the index could look up, and a citation of
such a point said only its page. Now the point open at a chunk's start is its key when it is a provision of the text
itself (`Provisions.article`); the points of its considerandos and transitorios are not (they are no text in
force, and their numbers repeat the body's). The lawyer's words for such a point are references
(`parse_references`: "lineamiento décimo cuarto", "punto tercero", "cláusula única"), and a citation names it
("numeral Quinto", "cláusula Segunda").

Read on Durango's Acuerdo General 01/2021 as printed (../shared/data/pdfs: numbered recitals, then seven points
under "ACUERDO", then four transitorios, each numbered in words) and on an acuerdo built in the DOF's layout whose one
point issues lineamientos numbered in words (`tests/ingest/test_annexes.py::lineamientos_pdf`).
"""

from __future__ import annotations

import pytest

from ingest.chunker import chunk_document
from ingest.models import ProvisionRole
from ingest.parse import parse_pdf
from ingest.references import article_key, parse_references
from retrieval.labels import label
from tests.ingest.parsed_cache import parsed
from tests.ingest.test_annexes import lineamientos_pdf


def _chunks(doc):
    return chunk_document(doc, lambda t: len(t.split()), 350)


def test_an_acuerdos_points_are_its_provisions_and_its_recitals_and_transitorios_are_not():
    [doc] = parsed("mx_durango_acuerdo_general_01-2021_judicatura.pdf").documents
    chunks = _chunks(doc)
    keyed = [c for c in chunks if c.article]
    assert list(dict.fromkeys(c.article for c in keyed)) == [str(n) for n in range(1, 8)]
    assert {c.role for c in keyed} == {ProvisionRole.text}
    assert all(c.heading_path[-1].startswith(("PRIMERO", "SEGUNDO", "TERCERO", "CUARTO", "QUINTO", "SEXTO",
                                              "SÉPTIMO")) for c in keyed if c.text.startswith("#"))
    # the recitals "PRIMERO." / "TERCERO." and the transitorios "PRIMERO." … "CUARTO." keep no key
    assert {c.article for c in chunks if c.role in (ProvisionRole.preamble, ProvisionRole.transitory)} == {None}
    fifth = next(c for c in keyed if c.article == "5")
    assert "oficialías de partes" in fifth.text
    assert ", numeral Quinto, párr. 1, p. " in label(doc.info(), fifth)


def test_lineamientos_numbered_in_words_are_provisions_of_the_acuerdo_that_issues_them(tmp_path):
    [doc] = parse_pdf(lineamientos_pdf(tmp_path / "lineamientos.pdf")).documents
    # what the acuerdo issues, printed in capitals after its point, is a name of the acuerdo
    assert doc.aliases == ["Lineamientos para la revisión de las objeciones de los trabajadores"]
    chunks = _chunks(doc)
    keys = list(dict.fromkeys(c.article for c in chunks if c.article))
    assert keys == ["Único"] + [str(n) for n in range(1, 30)]  # the acuerdo's point, then the 29 lineamientos
    assert {c.role for c in chunks if c.article} == {ProvisionRole.text}
    assert {c.article for c in chunks if c.role is ProvisionRole.transitory} == {None}
    fourteenth = [c for c in chunks if c.article == "14"]
    assert fourteenth[0].heading_path[-1] == "DÉCIMO CUARTO.-"
    assert all("DÉCIMO CUARTO.-" not in c.text for c in chunks if c.article == "13")  # 13 ends where 14 opens
    assert ", numeral Décimo Cuarto, " in label(doc.info(), fourteenth[0])


@pytest.mark.parametrize("text,articles", [
    ("¿Qué dice el lineamiento décimo cuarto de los Lineamientos para la revisión?", ["14"]),
    ("según el punto tercero del Acuerdo General 01/2021", ["3"]),
    ("la cláusula única del Convenio de Coordinación", ["Único"]),
    ("el vigésimo segundo lineamiento", ["22"]),
    ("la regla primera", ["1"]),
    ("desde el punto de vista del trabajador", None),
    ("la base de datos", None),
])
def test_a_lawyers_words_for_a_point_numbered_in_words_are_a_reference(text, articles):
    refs = parse_references(text)
    assert ([r.articles for r in refs][0] if refs else None) == articles


def test_a_convenios_clausulas_are_cited_as_its_clausulas():
    """The DOF edition of 2023-01-11 prints a convenio's annex whose "CLÁUSULAS" are "PRIMERA.-" … (feminine, and
    "ÚNICA" where there is one): each is a provision, cited by the noun its heading prints."""
    documents = parsed("dof_2023-01-11_MAT_first20pages.pdf").documents
    doc = next(d for d in documents if d.title.startswith("AMPLIACIÓN al Anexo de asignación"))
    chunks = [c for c in _chunks(doc) if "CLÁUSULAS" in c.heading_path]
    assert chunks and chunks[0].article == "1" and chunks[0].heading_path[-1] == "PRIMERA.-"
    assert ", cláusula Primera, " in label(doc.info(), chunks[0])
    assert [article_key(k) for k in ("SEGUNDA.- OBJETO.", "ÚNICA.-", "DÉCIMA PRIMERA.-")] == ["2", "Único", "11"]
