"""Provision roles, articles and paragraph numbers of chunks, on the real Constitution and Ley de Amparo.

Expected values are read from the PDFs (pymupdf get_text of the pages named), not from the code's output."""

from __future__ import annotations

import functools
import re

import pytest

from ingest.chunker import chunk_document
from ingest.models import Chunk, HeadingKind, LegalDocument, ParagraphMark, ProvisionRole
from tests.ingest.parsed_cache import parsed

CPEUM = "mx_ley_CPEUM_constitucion_politica.pdf"
AMPARO = "mx_ley_de_amparo.pdf"


@functools.cache
def law(name: str) -> tuple[LegalDocument, list[Chunk]]:
    doc = parsed(name).documents[0]
    return doc, chunk_document(doc, lambda text: len(text.split()), 256)


def article_chunks(name: str, key: str) -> list[Chunk]:
    return [c for c in law(name)[1] if c.article == key]


def mark_at(name: str, startswith: str) -> tuple[Chunk, ParagraphMark]:
    """The chunk and paragraph mark of the paragraph whose text starts with `startswith`."""
    doc, chunks = law(name)
    offset = doc.markdown.index("\n\n" + startswith) + 2
    for ch in chunks:
        if ch.start <= offset < ch.end:
            marks = [m for m in ch.paragraphs if m.offset <= offset]
            return ch, marks[-1]
    raise AssertionError(startswith)


def body(ch: Chunk) -> str:
    """The chunk's text after its leading heading lines."""
    return re.sub(r"^(?:#+ [^\n]*\n\n)+", "", ch.text)


def test_cpeum_article_27_first_chunk() -> None:
    first = article_chunks(CPEUM, "27")[0]
    assert first.role is ProvisionRole.text
    assert first.heading_path[-1] == "Artículo 27." and first.heading_kinds[-1] is HeadingKind.articulo
    assert first.heading_kinds[:2] == [HeadingKind.titulo, HeadingKind.capitulo]  # Título Primero, Capítulo I
    assert body(first).startswith("La propiedad de las tierras y aguas comprendidas dentro de los límites")
    assert first.paragraphs[0].paragraph == 1 and first.paragraphs[0].offset == first.start
    assert first.paragraphs[0].fraccion is None
    assert "#######" not in first.header and first.header.endswith("\n###### Artículo 27.")
    assert 33 in first.pages


@pytest.mark.parametrize(
    ("startswith", "paragraph", "fraccion"),
    [  # CPEUM pp. 33-38: the article's paragraphs as a lawyer counts them (notes are no paragraphs)
        ("Las expropiaciones sólo podrán hacerse", 2, None),
        ("Corresponde a la Nación el dominio directo", 4, None),  # "el párrafo cuarto" the article itself cites
        ("Tratándose del petróleo y de los hidrocarburos", 7, None),
        ("La capacidad para adquirir el dominio", 10, None),
        ("I. Sólo los mexicanos por nacimiento", 10, "I"),  # the fracciones enumerate paragraph 10
        ("VII.  Se reconoce la personalidad jurídica", 10, "VII"),
        ("La ley protegerá la integridad de las tierras de los grupos indígenas.", 10, "VII"),  # fr. VII's own
        ("XX.  El Estado promoverá", 10, "XX"),
    ],
)
def test_cpeum_article_27_paragraph_numbers(startswith: str, paragraph: int, fraccion: str | None) -> None:
    ch, mark = mark_at(CPEUM, startswith)
    assert ch.article == "27"
    assert (mark.paragraph, mark.fraccion) == (paragraph, fraccion)


def test_cpeum_incisos_carry_their_fraccion() -> None:
    _, mark = mark_at(CPEUM, "b) Todas las concesiones")
    assert (mark.paragraph, mark.fraccion, mark.inciso) == (10, "VIII", "b")


def test_cpeum_roles_of_transitorios_and_reform_decrees() -> None:
    _, chunks = law(CPEUM)
    own = [c for c in chunks if "Artículos Transitorios" in c.heading_path
           and c.heading_path[-1] == "Artículo Primero."]
    assert own and own[0].role is ProvisionRole.transitory and body(own[0]).startswith("Esta Constitución")
    decree = [c for c in chunks if any(h.startswith("DECRETO por el que se reforman los artículos 65 y 66")
                                       for h in c.heading_path)]
    assert decree and all(c.role is ProvisionRole.reform_decree for c in decree)
    assert any(HeadingKind.transitorios in c.heading_kinds for c in decree)  # its own transitorios stay a decree's
    # the last pages of the file are reform decrees; the articles in force are text
    assert chunks[-1].role is ProvisionRole.reform_decree and 402 in chunks[-1].pages
    in_force = [c for c in chunks if c.article in ("1", "27", "123", "136") and c.role is not ProvisionRole.reform_decree
                and HeadingKind.transitorios not in c.heading_kinds]
    assert in_force and {c.role for c in in_force} == {ProvisionRole.text}


def test_an_annexs_contents_end_where_their_first_entry_comes_round_again() -> None:
    # Anexo 13 of the RMF 2025: "Contenido" lists "A. Parques Nacionales." … "F. Áreas de Protección…", then
    # "A. Parques Nacionales." again over the first table; no heading follows, so only the repeated entry says where
    # the listed body begins: its rows (the reserves and where they lie) are text, not an index's lines
    _, chunks = law("dof_2025-01-14_RMF2025_anexo13_landscape.pdf")
    [contents] = [c for c in chunks if "B. Reservas de la Biosfera." in c.text and "|" not in c.text]
    assert contents.role is ProvisionRole.index
    rows = [c for c in chunks if "| 18. Mapimí | Durango, Chihuahua y Coahuila de Zaragoza |" in c.text]
    assert rows and all(c.role is ProvisionRole.text for c in rows)
    assert [c.role for c in chunks].count(ProvisionRole.index) == 1


def test_amparo_roles_and_article_17() -> None:
    _, chunks = law(AMPARO)
    [repealed] = [c for c in chunks if c.article == "43"]
    assert repealed.role is ProvisionRole.repealed and body(repealed).startswith("Se deroga.")
    # the law's articles are text; articles of the same numbers inside the appended decrees (of other laws) are not
    law_part = [c for c in chunks if c.role is not ProvisionRole.reform_decree]
    assert {c.role for c in law_part if c.article in ("1", "17", "107")} == {ProvisionRole.text}
    assert law_part[-1].index < min(c.index for c in chunks if c.role is ProvisionRole.reform_decree)
    first = article_chunks(AMPARO, "17")[0]
    assert body(first).startswith("El plazo para presentar la demanda de amparo es de quince días, salvo:")
    assert first.paragraphs[0].paragraph == 1
    fracciones = list(dict.fromkeys((m.paragraph, m.fraccion) for m in first.paragraphs if m.fraccion))
    assert fracciones[:2] == [(1, "I"), (1, "II")]
    transitory = [c for c in chunks if c.heading_path[-2:] == ["TRANSITORIOS", "PRIMERO."]]
    assert transitory[0].role is ProvisionRole.transitory
    assert body(transitory[0]).startswith("La presente Ley entrará en vigor")
    decree = [c for c in chunks if any(h.startswith("DECRETO por el que se reforman los artículos 129 y 148")
                                       for h in c.heading_path)]
    assert decree and all(c.role is ProvisionRole.reform_decree for c in decree)


@pytest.mark.parametrize("name", [CPEUM, AMPARO])
def test_every_article_chunk_has_its_key_and_paragraphs(name: str) -> None:
    _, chunks = law(name)
    for ch in chunks:
        open_articles = [t for t, k in zip(ch.heading_path, ch.heading_kinds) if k is HeadingKind.articulo]
        if ch.role is ProvisionRole.text and open_articles and re.search(r"\d", open_articles[-1]):
            assert ch.article is not None, ch.heading_path
            assert ch.paragraphs and ch.paragraphs[0].offset == ch.start
            assert all(m.paragraph >= 1 for m in ch.paragraphs)
        if not open_articles:
            assert ch.article is None
