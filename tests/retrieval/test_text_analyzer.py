"""The BM25 analyzer: Spanish legal text as before, English and code with their own stemmer, identifiers split."""

from __future__ import annotations

import json

import pytest

from retrieval.text_analysis import analyze, detect_languages, identifiers


@pytest.fixture(scope="module")
def code_chunks(eval_dir) -> list[str]:
    return [c["content"] for d in json.loads((eval_dir / "anthropic_contextual_retrieval" / "codebase_chunks.json")
                                             .read_text()) for c in d["chunks"]]


@pytest.fixture(scope="module")
def xquad_contexts(eval_dir) -> list[str]:
    data = json.loads((eval_dir / "xquad_es" / "xquad.es.json").read_text())
    return [p["context"] for article in data["data"] for p in article["paragraphs"]]


# --- Spanish, as the gazettes need it -------------------------------------------------------------------------
def test_accents_case_and_stemming_fold_together():
    spanish = ("spanish",)
    assert analyze("CONSTITUCIÓN") == analyze("constitucion", spanish) == analyze("Constituciones", spanish)
    assert analyze("las tierras y aguas") == analyze("Tierra agua", spanish)
    assert analyze("año") != analyze("ano")  # ñ is a letter of its own, not an accented n


def test_stopwords_are_dropped_and_content_words_kept():
    assert analyze("de la que el en y a los del se las por") == []
    assert analyze("El trabajador tiene derecho") == analyze("trabajador derecho", ("spanish",))


def test_article_references_match_in_all_spellings():
    for spelling in ("art. 27", "Art 27", "artículo 27", "ARTÍCULO 27.-", "art.27", "el artículo 27-A"):
        terms = analyze(spelling)
        assert "articulo_27" in terms, spelling
        assert "27" in terms, spelling
    assert "articulo_27" not in analyze("el 27 de marzo, conforme al artículo")


def test_nom_codes_are_one_term_and_their_parts():
    terms = analyze("conforme a la NOM-035-STPS-2018, Factores de riesgo")
    assert "nom-035-stps-2018" in terms
    assert {"nom", "035", "stps", "2018"} <= set(terms)
    assert "nom-035-stps-2018" in analyze("NOM-035-STPS-2018")  # a bare code query has the same term


def test_numbers_are_kept():
    assert analyze("1,500 pesos el 15 de enero de 2025")[:1] == ["1,500"]
    assert "2025" in analyze("15 de enero de 2025")


def test_real_spanish_paragraphs_are_spanish_and_analysed_with_spanish_stems(xquad_contexts):
    assert {detect_languages(text) for text in xquad_contexts} == {("spanish",)}
    text = xquad_contexts[0]
    assert analyze(text) == analyze(text, ("spanish",))
    assert detect_languages(text + " the end") == ("spanish",)  # stray English words do not flip a paragraph


def test_a_spanish_keyword_query_meets_spanish_stems():
    """With no function words a query is analysed both ways; its Spanish stems are the paragraph's."""
    query = analyze("despidos injustificados")
    paragraph = analyze("El patrón deberá indemnizar al trabajador en caso de despido injustificado.")
    assert detect_languages("despidos injustificados") == ("spanish", "english")
    assert {"desp", "injustific"} <= set(query) & set(paragraph)


# --- English and code ----------------------------------------------------------------------------------------
def test_english_questions_and_commented_code_are_english(code_chunks):
    assert detect_languages("What is the purpose of the DiffExecutor struct?") == ("english",)
    assert detect_languages(code_chunks[0]) == ("english",)  # Rust with English doc comments


def test_code_without_words_is_analysed_both_ways(code_chunks):
    bare = next(c for c in code_chunks if "def test_baconian_complete_variant" in c)
    assert detect_languages(bare) == ("spanish", "english")
    assert {"library", "librari"} <= set(analyze(bare))  # library_default: Spanish and English stems


def test_english_stopwords_go_and_english_stems_agree():
    assert analyze("What is the purpose of the DiffExecutor struct?") == ["purpos", "diffexecutor", "diff",
                                                                          "executor", "struct"]
    assert set(analyze("How are the executors running?")) == {"executor", "run"}
    assert "executor" in analyze("It wraps two executors that will be run after each other.")


def test_identifiers_are_split_and_kept_whole():
    assert analyze("DiffExecutor") == ["diffexecutor", "diff", "executor"]
    assert analyze("the HTTPServer")[-3:] == ["httpserver", "http", "server"]
    assert analyze("run_target")[:3] == ["run_target", "run", "target"]
    assert analyze("crate::executors::CombinedExecutor")[0] == "crate::executors::combinedexecutor"
    assert {"combinedexecutor", "combin", "executor"} <= set(analyze("crate::executors::CombinedExecutor"))
    assert analyze("self.inner.run()")[0] == "self.inner.run"


def test_acronym_plurals_stay_whole():
    assert "dofs" in analyze("los DOFs") and "do" not in analyze("los DOFs")
    assert "pymes" in analyze("las PyMEs")


def test_a_question_finds_the_code_it_names(code_chunks):
    """The identifiers a cookbook question names are terms of its golden chunk, whole and in parts."""
    question = set(analyze("What happens in the `run_target` method of the DiffExecutor?"))
    assert {"run_target", "run", "target", "diffexecutor", "diff", "executor"} <= question
    assert question - {"happen", "method"} <= set(analyze(code_chunks[0]))


def test_a_number_that_names_one_entry_is_an_identifier_and_a_quantity_date_or_name_is_not():
    """A case file, a court roll, a numbered section name one entry; an amount, a date, a span of years and a
    disease's name ("COVID-19") do not (`legal_search` marks the hits holding an identifier as the entry asked for)."""
    assert identifiers("¿Qué se acordó en el juicio 5929/20 y en el expediente 2433/18?") == {"5929/20", "2433/18"}
    assert identifiers("la causa Rol 161.630-2023, la sección 110-26.") == {"161.630-2023", "110-26"}
    assert identifiers("multa de 1.500 euros, 2.5 metros, el 15/12/2024, la elección 2024-2025, el COVID-19") == set()
    assert all(code in analyze(f"| {code} | MARTINEZ BRAVO") for code in ("5929/20", "161.630-2023"))
