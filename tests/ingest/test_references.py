"""Legal references: article keys, references in questions and texts, and what reform-decree titles amend."""

from __future__ import annotations

import csv
import re

import pymupdf
import pytest

from ingest.models import DocType
from ingest.references import amended_articles, article_key, law_type_of, parse_references, regulated
from tests.conftest import pdf


def one(text: str):
    refs = parse_references(text)
    assert len(refs) == 1, refs
    ref = refs[0]
    assert text[ref.start:ref.end] == ref.text
    return ref


# -- article_key ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("label, key", [
    ("27", "27"), ("3o.", "3"), ("3o Bis", "3 Bis"), ("Artículo 3o. Bis.-", "3 Bis"), ("330-A", "330-A"),
    ("Artículo 14.-", "14"), ("ARTÍCULO 1o.-", "1"), ("Article 5", "5"), ("1.4", "1.4"), ("§ 1.4", "1.4"),
    ("Artículo Primero.-", "1"), ("ARTÍCULO DÉCIMO SEGUNDO", "12"), ("Artículo Vigésimo Primero.-", "21"),
    ("Artículo Único", "Único"), ("ARTICULO UNICO.-", "Único"), ("Artículo 17-H Bis.-", "17-H Bis"),
    ("Artículo 14.- A los trabajadores", "14"), ("Artículo 41 Quáter", "41 Quater"), ("art. 007", "7"),
    ("Artículo 283 bis a).", "283 Bis a)"), ("283 bis k). Consecuencias del incumplimiento", "283 Bis k)"),
])
def test_article_key(label, key):
    assert article_key(label) == key


@pytest.mark.parametrize("label", ["Artículo", "TRANSITORIOS", "", "Ley de Amparo"])
def test_article_key_none_without_a_number(label):
    assert article_key(label) is None


# -- parse_references: articles and their parts ---------------------------------------------------------------

def test_single_article():
    ref = one("¿Qué dice el artículo 27?")
    assert ref.articles == ["27"] and ref.text == "artículo 27" and ref.law is None and not ref.constitutional


def test_article_apartado_fraccion():
    ref = one("art. 123, apartado B, fracción IV")
    assert (ref.articles, ref.apartado, ref.fraccion) == (["123"], "B", "IV")


def test_article_list_and_range():
    assert one("los artículos 14 y 16").articles == ["14", "16"]
    assert one("arts. 5o. a 9o.").articles == ["5", "6", "7", "8", "9"]
    assert one("los artículos 16, 19, 22 y 123").articles == ["16", "19", "22", "123"]


def test_constitutional_article_without_law_name():
    ref = one("¿qué protege el 27 constitucional?")
    assert ref.articles == ["27"] and ref.constitutional and ref.law_type is DocType.constitucion
    assert ref.text == "27 constitucional"
    assert one("el artículo 4o. Constitucional").constitutional


@pytest.mark.parametrize("text, written", [
    ("¿Qué normas son la Ley Suprema de toda la Unión?", "Ley Suprema"),
    ("Según la Ley Fundamental, ¿quién puede ser Presidente?", "Ley Fundamental"),
    ("el artículo 3o. de la Carta Magna", "artículo 3o. de la Carta Magna"),
    ("la NORMA FUNDAMENTAL", "NORMA FUNDAMENTAL"),
])
def test_the_constitution_by_another_of_its_names(text, written):
    """"la Carta Magna", "la Ley Fundamental", "la Ley Suprema de toda la Unión" (CPEUM art. 133's words) are what
    Spanish legal usage calls the Constitution: read as "la Constitución" is (no name of its own to match), not as a
    law called "Ley Suprema" that no document is."""
    ref = one(text)
    assert ref.text == written and ref.constitutional and ref.law is None
    assert ref.law_type is DocType.constitucion


@pytest.mark.parametrize("text, law", [
    ("¿Qué dice la Ley Fundamental de la República Federal de Alemania?",
     "Ley Fundamental de la República Federal de Alemania"),
    ("la Ley Fundamental del Estado de Durango", "Ley Fundamental del Estado de Durango"),
])
def test_a_name_of_its_own_after_those_words_is_another_law(text, law):
    ref = one(text)
    assert ref.law == law and not ref.constitutional


@pytest.mark.parametrize("text, law, articles, law_type", [
    ("¿Qué dice el artículo 1o. de la Ley Reglamentaria de los artículos 103 y 107 de la Constitución?",
     "Ley Reglamentaria de los artículos 103 y 107 de la Constitución", ["1"], DocType.ley),
    ("el plazo según la Ley Reglamentaria de los artículos 103 y 107 constitucionales",
     "Ley Reglamentaria de los artículos 103 y 107 constitucionales", [], DocType.ley),
    ("el artículo 5 del Reglamento de los Artículos 121 y 122 de la LFT",
     "Reglamento de los Artículos 121 y 122 de la LFT", ["5"], DocType.reglamento),
    ("la Ley Reglamentaria de las fracciones I y II del artículo 105 de la Constitución Política de los Estados "
     "Unidos Mexicanos", "Ley Reglamentaria de las fracciones I y II del artículo 105 de la Constitución Política de "
     "los Estados Unidos Mexicanos", [], DocType.ley),
    ("¿qué dice la ley reglamentaria de los artículos 103 y 107 constitucionales?",  # typed in small letters
     "ley reglamentaria de los artículos 103 y 107 constitucionales", [], DocType.ley),
    ("se reforman los artículos 3 y 5 de la Ley Reglamentaria del Artículo 27 Constitucional en el Ramo del Petróleo",
     "Ley Reglamentaria del Artículo 27 Constitucional en el Ramo del Petróleo", ["3", "5"], DocType.ley),
])
def test_a_law_named_by_the_provisions_it_regulates(text, law, articles, law_type):
    """Mexican usage names a regulating law by what it regulates: the articles in its name are part of the name (one
    reference, of that law), not articles of the Constitution or of the LFT the question asks about."""
    [ref] = parse_references(text)
    assert (ref.law, ref.articles, ref.law_type, ref.constitutional) == (law, articles, law_type, False)


@pytest.mark.parametrize("name, provisions, law", [
    ("Ley Reglamentaria de los artículos 103 y 107 constitucionales", {"103", "107"}, "constitución"),
    ("Ley de Amparo, Reglamentaria de los Artículos 103 y 107 de la Constitución Política de los Estados Unidos "
     "Mexicanos", {"103", "107"}, "constitución"),
    ("LEY REGLAMENTARIA DE LAS FRACCIONES I Y II DEL ARTÍCULO 105 DE LA CONSTITUCIÓN POLÍTICA DE LOS ESTADOS UNIDOS "
     "MEXICANOS", {"105 fr. I", "105 fr. II"}, "constitución"),
    ("LEY REGLAMENTARIA DEL ARTÍCULO 5o. CONSTITUCIONAL, RELATIVO AL EJERCICIO DE LAS PROFESIONES", {"5"},
     "constitución"),
    ("Reglamento de los Artículos 121 y 122 de la Ley Federal del Trabajo", {"121", "122"}, "Ley Federal del Trabajo"),
])
def test_what_a_regulating_laws_name_says_it_regulates(name, provisions, law):
    assert regulated(name) == (frozenset(provisions), law)


@pytest.mark.parametrize("name", ["Reglamento de la Ley Federal del Trabajo", "Ley Federal del Trabajo",
                                  "Ley de Amparo"])
def test_a_name_that_regulates_no_numbered_provision_says_none(name):
    assert regulated(name) is None


def test_an_apartado_numbered_in_figures():
    """Spain's and the EU's apartados are numbered ("artículo 2, apartado 1"); a decimal is a section, not one."""
    assert one("el artículo 2, apartado 1, de la Ley de Sociedades de Capital").apartado == "1"
    assert one("el apartado 2 del artículo 4 de la LSC").apartado == "2"
    assert one("el apartado B del artículo 102").apartado == "B"
    assert parse_references("el apartado 1.5 de la norma") == []


def test_qualified_articles():
    assert one("el artículo 3o Bis").articles == ["3 Bis"]
    assert one("Artículo 330-A").articles == ["330-A"]
    assert one("conforme al artículo 6o.?").articles == ["6"]
    # a letter after the Latin ordinal numbers an article; after a bare number it is an inciso
    assert one("el artículo 283 bis a) de la Ley de Enjuiciamiento Civil").articles == ["283 Bis a)"]
    assert parse_references("los artículos 283 bis a) y 283 bis b)")[0].articles == ["283 Bis a)", "283 Bis b)"]
    assert (one("el artículo 5, inciso a)").articles, one("el artículo 5, inciso a)").inciso) == (["5"], "a")


def test_paragraphs():
    assert one("párrafo tercero").paragraph == 3
    assert one("el segundo párrafo").paragraph == 2
    assert one("párrafo 2").paragraph == 2
    assert one("los párrafos decimoséptimo").paragraph == 17
    ref = one("¿Qué derecho reconoce el primer párrafo del artículo 123?")
    assert (ref.paragraph, ref.articles) == (1, ["123"])


def test_a_fraccion_typed_in_small_letters():
    """After "fracción" a roman numeral typed in small letters is one ("la fracción iii", "fracciones i y ii")."""
    assert one("la fracción iii del apartado A del artículo 123").fraccion == "III"
    assert one("la fracción vi bis").fraccion == "VI Bis"
    assert one("las fracciones i y ii del artículo 105").articles == ["105"]


def test_inciso_and_fracciones():
    assert one("inciso b)").inciso == "b"
    assert one("fracción IV").fraccion == "IV"
    assert one("fracciones I a III").fraccion == "I"
    assert one("la fracción XXIX-M").fraccion == "XXIX-M"
    assert one("fraccion tercera del articulo 115").fraccion == "III"  # accents optional, ordinal → roman
    ref = one("el inciso c) de la fracción II del artículo 3o.")
    assert (ref.inciso, ref.fraccion, ref.articles) == ("c", "II", ["3"])


def test_english_and_section_numbers():
    ref = one("Article 5(2)")
    assert (ref.articles, ref.paragraph) == (["5"], 2)
    assert one("Articles 12 to 14").articles == ["12", "13", "14"]
    assert one("see § 1.4 above").articles == ["1.4"]


def test_word_ordinal_article_heading():
    assert one("ARTÍCULO DÉCIMO SEGUNDO.- Se abroga").articles == ["12"]


# -- parse_references: laws ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, law, law_type", [
    ("según la Ley de Amparo", "Ley de Amparo", DocType.ley),
    ("la Ley Federal del Trabajo vigente", "Ley Federal del Trabajo", DocType.ley),
    ("el Código Fiscal de la Federación", "Código Fiscal de la Federación", DocType.codigo),
    ("el Estatuto de los Trabajadores", "Estatuto de los Trabajadores", DocType.estatuto),
    ("el Reglamento de la Ley Federal del Trabajo", "Reglamento de la Ley Federal del Trabajo", DocType.reglamento),
    ("la LFT", "LFT", DocType.ley),
    ("la LOPJF", "LOPJF", DocType.ley),  # not in the seed list: an acronym by its shape
    ("LEY FEDERAL DEL TRABAJO", "LEY FEDERAL DEL TRABAJO", DocType.ley),
])
def test_law_names(text, law, law_type):
    ref = one(text)
    assert (ref.law, ref.law_type, ref.articles, ref.constitutional) == (law, law_type, [], False)


@pytest.mark.parametrize("text, law", [
    ("la Constitución", "Constitución"),
    ("la Constitucion", "Constitucion"),
    ("Constitución Política de los Estados Unidos Mexicanos",) * 2,
    ("CPEUM", "CPEUM"),
])
def test_constitution_names(text, law):
    ref = one(text)
    assert (ref.law, ref.law_type, ref.constitutional) == (law, DocType.constitucion, True)


def test_state_constitution_is_not_the_constitution():
    ref = one("la Constitución Política del Estado Libre y Soberano de Tabasco")
    assert ref.law_type is DocType.constitucion and not ref.constitutional


@pytest.mark.parametrize("text, law, law_type, number", [
    ("el Real Decreto 353/2024, de 2 de abril", "Real Decreto 353/2024", DocType.real_decreto, "353/2024"),
    ("Orden AUC/319/2024", "Orden AUC/319/2024", DocType.orden, "AUC/319/2024"),
    ("la Ley 99 de 1993", "Ley 99 de 1993", DocType.ley, "99 de 1993"),
    ("la Ley Orgánica 3/2018", "Ley Orgánica 3/2018", DocType.ley, "3/2018"),
    ("NOM-001-SEDE-2012", "NOM-001-SEDE-2012", DocType.nom, "NOM-001-SEDE-2012"),
])
def test_numbered_dispositions(text, law, law_type, number):
    ref = one(text)
    assert (ref.law, ref.law_type, ref.law_number) == (law, law_type, number)


def test_article_and_law_in_one_phrase_are_one_reference():
    ref = one("Según el artículo 17 de la Ley de Amparo, ¿cuál es el plazo?")
    assert (ref.articles, ref.law, ref.text) == (["17"], "Ley de Amparo", "artículo 17 de la Ley de Amparo")
    ref = one("¿Qué dispone el artículo 27 de la Constitución sobre la propiedad de las tierras y aguas?")
    assert (ref.articles, ref.law, ref.constitutional) == (["27"], "Constitución", True)
    ref = one("el art. 5o. de la LFT")
    assert (ref.articles, ref.law) == (["5"], "LFT")


def test_law_name_stops_before_lower_case_words_and_punctuation():
    text = ("Ley de Amparo, Reglamentaria de los artículos 103 y 107 de la Constitución Política de los Estados "
            "Unidos Mexicanos")
    amparo, constitution = parse_references(text)
    assert (amparo.law, amparo.articles) == ("Ley de Amparo", [])
    assert constitution.articles == ["103", "107"] and constitution.constitutional
    laws = [r.law for r in parse_references("la Ley de Amparo y la Ley Federal del Trabajo regulan el juicio")]
    assert laws == ["Ley de Amparo", "Ley Federal del Trabajo"]


def test_several_references_in_order_with_offsets():
    text = "Véanse el artículo 14 de la CPEUM, la fracción II del artículo 5 y el Código Civil."
    refs = parse_references(text)
    assert [(r.articles, r.law, r.fraccion) for r in refs] == [
        (["14"], "CPEUM", None), (["5"], None, "II"), ([], "Código Civil", None)]
    assert all(text[r.start:r.end] == r.text for r in refs)
    assert refs[0].start < refs[1].start < refs[2].start


@pytest.mark.parametrize("text", [
    "El Decreto por el que se aprueba el programa.",  # a type word alone names no law
    "la ley aplicable al caso",  # lower case: the generic word
    "LIZBETH RICARDO RIVAS, Secretaria de Acuerdos, CDMX, CNDH",  # all-caps names and bodies are no acronyms
    "Código Postal 06600",
    "Se publicó el 27 de enero de 2025.",
])
def test_no_false_references(text):
    assert parse_references(text) == []


def test_law_type_of():
    assert law_type_of("Ley de Amparo") is DocType.ley
    assert law_type_of("Real Decreto 353/2024") is DocType.real_decreto
    assert law_type_of("CÓDIGO FISCAL DE LA FEDERACIÓN") is DocType.codigo
    assert law_type_of("Constitucion Politica") is DocType.constitucion
    assert law_type_of("CPEUM") is DocType.constitucion
    assert law_type_of("RLFT") is DocType.reglamento
    assert law_type_of("Estatuto de los Trabajadores") is DocType.estatuto
    assert law_type_of("Secretaría de Marina") is None


# -- amended_articles on reform-decree titles ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def cpeum_titles() -> list[str]:
    """Every reform-decree title printed in the consolidated Constitution, whitespace collapsed."""
    with pymupdf.open(pdf("mx_ley_CPEUM_constitucion_politica.pdf")) as doc:
        text = "".join(page.get_text() for page in doc)
    titles = re.finditer(r"^DECRETO por el que.*?(?=\n\s*\n)", text, re.M | re.S)
    return [" ".join(m.group().split()) for m in titles]


def title(titles: list[str], start: str) -> str:
    found = [t for t in titles if t.startswith(start)]
    assert found, start
    return found[0]


@pytest.mark.parametrize("start, articles", [
    ("DECRETO por el que se reforman los artículos 65 y 66 de la Constitución", ["65", "66"]),
    ("DECRETO por el que se declaran reformados los artículos 16, 19, 22 y 123 de la", ["16", "19", "22", "123"]),
    ("DECRETO por el que se declara reformado el párrafo primero; el inciso c) de la", ["3", "31"]),
    ("DECRETO por el que se adiciona la fracción XXIX-M al artículo 73 y se reforma", ["73", "89"]),
    ("DECRETO por el que se reforman, adicionan y derogan diversas disposiciones de la Constitución", []),
    ("DECRETO por el que se reforma el Artículo Quinto Transitorio del Decreto", []),  # a decree's, not the text's
])
def test_amended_articles_of_real_constitution_reforms(cpeum_titles, start, articles):
    t = title(cpeum_titles, start)
    refs = amended_articles(t)
    assert len(refs) == 1, refs
    ref = refs[0]
    assert ref.articles == articles and ref.constitutional
    assert ref.law == "Constitución Política de los Estados Unidos Mexicanos"
    assert t[ref.start:ref.end] == ref.text


def test_every_constitution_reform_title_amends_the_constitution(cpeum_titles):
    assert len(cpeum_titles) > 100
    for t in cpeum_titles:
        refs = amended_articles(t)
        assert refs and any(r.constitutional for r in refs), t


def test_amended_articles_of_law_reforms():
    refs = amended_articles("DECRETO por el que se reforman, adicionan y derogan diversas disposiciones de la Ley de "
                            "Amparo, Reglamentaria de los artículos 103 y 107 de la Constitución Política de los "
                            "Estados Unidos Mexicanos.")
    assert [(r.law, r.articles, r.constitutional) for r in refs] == [("Ley de Amparo", [], False)]
    refs = amended_articles("DECRETO por el que se reforman los artículos 129 y 148 de la Ley de Amparo, "
                            "Reglamentaria de los Artículos 103 y 107 de la Constitución Política de los Estados "
                            "Unidos Mexicanos, en materia de suspensión del acto reclamado.")
    assert [(r.law, r.articles) for r in refs] == [("Ley de Amparo", ["129", "148"])]


# -- the evaluation questions that name an article --------------------------------------------------------------

def test_questions_naming_an_article(eval_dir):
    with open(eval_dir / "mx_legal_qa" / "questions.tsv", encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["style"] == "names_article"]
    assert rows
    for row in rows:
        articles = [a for r in parse_references(row["question"]) for a in r.articles]
        assert articles == [article_key(row["article"])], row["question"]


def test_a_sentence_end_separates_an_article_from_the_next_law():
    refs = parse_references("Lo dispone el artículo 5. La Ley Federal del Trabajo lo reglamenta.")
    assert [(r.articles, r.law) for r in refs] == [(["5"], None), ([], "Ley Federal del Trabajo")]
