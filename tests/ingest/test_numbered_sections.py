"""A section numbered in figures is a provision: "5.3", "2.1.3.", "110-26." carry their number as the chunk's key.

A NOM numbers its provisions "5.1", "5.2", "5.2.1" (the NOM-001-SEDE, after the NEC, "110-26." inside its "ARTICULO
110"); reglas, lineamientos and guides do the same. Before, only an "Artículo" heading or a point numbered in words
gave a chunk its key, so "¿Qué dice la sección 110-26?" named nothing the index could look up and a citation of it
said only its page. The same start of a line is also an amount ("100.000 Kw de capacidad…"), a table's figure
("57.07 Se otorgó…") or a list inside an article ("1.1. Subdirección de…" in Colombia's Ley 99): a line is a
section only where the document's numbering confirms it (`ingest.headings.numbered_sections`: the longest rising run
of such numbers, at least three, and under an article only those that carry its number).

Read on the PDFs in ../shared/data/pdfs as printed.
"""

from __future__ import annotations

import pytest

from ingest.chunker import chunk_document
from ingest.headings import section_number
from ingest.models import HeadingKind, ProvisionRole
from ingest.references import parse_references
from retrieval.labels import label
from tests.ingest.parsed_cache import parsed


def _chunks(doc):
    return chunk_document(doc, lambda t: len(t.split()), 350)


def _sections(doc) -> list[str]:
    return [h.text for h in doc.headings if h.kind is HeadingKind.numeral]


def test_the_nom_001s_sections_are_its_provisions():
    [doc] = parsed("mx_nom-001-sede-2012_capitulo1.pdf").documents
    sections = _sections(doc)
    # the sections of its ARTICULO 110 as printed, "110-1." to "110-79.", in the order of their numbers
    assert sections[0] == "110-1" and sections[-1] == "110-79" and len(sections) >= 45
    assert [section_number(s) for s in sections] == sorted(section_number(s) for s in sections)
    chunks = _chunks(doc)
    work_space = [c for c in chunks if c.article == "110-26"]
    assert work_space and "Espacio de trabajo alrededor de equipo eléctrico" in work_space[0].text
    assert {c.role for c in chunks if c.article} == {ProvisionRole.text}
    assert all("110-27." not in c.text for c in work_space)  # 110-26 ends where 110-27 opens
    # the definitions of its ARTICULO 100 come before any section and carry none
    assert next(c for c in chunks if "Automático: Realizar una función" in c.text).article is None
    assert ", numeral 110-26, párr. 1, p. 11" in label(doc.info(), work_space[0])


def test_an_english_guides_sections_are_cited_as_sections_and_its_contents_are_not_sections():
    """NIST SP 800-30 numbers its sections "2.3.1 RISK MODELS"; its table of contents lists them first with dot
    leaders ("1.1 PURPOSE AND APPLICABILITY ....... 1"), which are entries, not sections."""
    [doc] = parsed("us_nist_sp800-30r1.pdf").documents
    sections = _sections(doc)
    assert sections[:4] == ["1.1", "1.2", "1.3", "1.4"] and "2.3.1" in sections and len(set(sections)) == len(sections)
    models = next(c for c in _chunks(doc) if c.article == "2.3.1")
    assert "Risk Models" in models.text
    assert ", section 2.3.1, p. " in label(doc.info(), models)


@pytest.mark.parametrize("name,printed", [
    ("co_diario_oficial_ley_99_1993.pdf", "1.2. Subdirección de Educación Ambiental"),  # a list in an article
    ("dof_2023-01-11_MAT_first20pages.pdf", "6.1. Cambios de Rubro"),  # two numbered lines, no numbering
])
def test_a_line_that_only_starts_like_a_section_stays_text(name, printed):
    documents = parsed(name).documents
    assert not [s for doc in documents for s in _sections(doc)]
    holder = next(d for d in documents if printed in d.markdown)
    # the line stays whole in the text: a heading would keep only its number ("###### 1.2"), its words below it
    assert any(printed in c.text for c in _chunks(holder))


@pytest.mark.parametrize("text,articles,law,noun", [
    ("¿Qué dice el numeral 5.3 de la NOM-035-STPS-2018?", ["5.3"], "NOM-035-STPS-2018", "numeral"),
    ("la sección 110-26 de la NOM-001-SEDE-2012", ["110-26"], "NOM-001-SEDE-2012", "sección"),
    ("la regla 2.1.3 de la Resolución Miscelánea Fiscal", ["2.1.3"], "Resolución Miscelánea Fiscal", "regla"),
    ("What does section 2.3.1 say about risk models?", ["2.3.1"], None, "section"),
    ("según los Lineamientos décimo cuarto", ["14"], None, "lineamiento"),  # the noun singular, as a lawyer cites it
    ("el artículo 27 de la Constitución", ["27"], "Constitución", None),  # an article is an article
    ("la Sección 1.ª del Capítulo II", None, None, None),  # a BOE division, not a numbered section
])
def test_a_lawyers_words_for_a_numbered_section_are_a_reference(text, articles, law, noun):
    refs = parse_references(text)
    assert ([r.articles for r in refs][0] if refs else None) == articles
    assert (refs[0].law if refs else None) == law
    assert (refs[0].noun if refs else None) == noun
