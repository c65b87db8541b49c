"""Law names resolved against the documents an index holds: titles, short titles, aliases, acronyms of titles."""

from __future__ import annotations

from ingest.models import DocType, DocumentInfo, LegalReference
from retrieval.law_lookup import LawCatalog, acronym


def _doc(doc_id: str, title: str, doc_type: DocType | None, short: str | None = None, aliases=()) -> DocumentInfo:
    return DocumentInfo(doc_id=doc_id, title=title, doc_type=doc_type, short_title=short, aliases=list(aliases),
                        source_path="/x.pdf", source_sha256="0" * 64, pdf_pages=(1, 1), label=title[:20])


CPEUM = _doc("cpeum", "Constitución Política de los Estados Unidos Mexicanos", DocType.constitucion)
AMPARO = _doc("amparo", "Ley de Amparo, Reglamentaria de los artículos 103 y 107 de la Constitución Política de los "
              "Estados Unidos Mexicanos", DocType.ley, short="Ley de Amparo")
LFT = _doc("lft", "Ley Federal del Trabajo", DocType.ley)
DECREE = _doc("dof-1", "DECRETO por el que se reforman diversas disposiciones de la Ley de Amparo", DocType.decreto)
RLFT = _doc("rlft", "Reglamento de la Ley Federal del Trabajo", DocType.reglamento)
CATALOG = LawCatalog([DECREE, CPEUM, AMPARO, LFT, RLFT])


def ids(ref: LegalReference) -> list[str]:
    return [d.doc_id for d in CATALOG.resolve(ref)]


def test_acronyms_are_spelled_by_the_titles_capitalised_words():
    assert acronym("Constitución Política de los Estados Unidos Mexicanos") == "CPEUM"
    assert acronym("Ley Federal del Trabajo") == "LFT"
    assert acronym("Código Fiscal de la Federación") == "CFF"


def test_the_constitution_by_any_of_its_names():
    for ref in (LegalReference(text="la Constitución", law="Constitución", constitutional=True),
                LegalReference(text="27 constitucional", articles=["27"], constitutional=True),
                LegalReference(text="CPEUM", law="CPEUM", constitutional=True)):
        assert ids(ref) == ["cpeum"], ref


def test_a_law_resolves_to_the_law_not_to_a_decree_that_amends_it():
    assert ids(LegalReference(text="Ley de Amparo", law="Ley de Amparo")) == ["amparo"]


def test_an_acronym_resolves_through_the_title_it_abbreviates():
    assert ids(LegalReference(text="LFT", law="LFT")) == ["lft"]


def test_a_regulation_is_not_its_law():
    assert ids(LegalReference(text="Reglamento de la Ley Federal del Trabajo",
                              law="Reglamento de la Ley Federal del Trabajo")) == ["rlft"]
    assert ids(LegalReference(text="Ley Federal del Trabajo", law="Ley Federal del Trabajo")) == ["lft"]


def test_a_law_the_index_does_not_hold_resolves_to_nothing():
    assert ids(LegalReference(text="Código Fiscal de la Federación", law="Código Fiscal de la Federación")) == []
    assert ids(LegalReference(text="artículo 5", articles=["5"])) == []


def test_a_law_named_in_lower_case_is_still_the_law_the_question_means():
    from retrieval.law_lookup import understood

    found = understood("¿qué dice el artículo 17 de la ley de amparo?", CATALOG)
    assert [(ref.articles, [d.doc_id for d in docs]) for ref, docs in found] == [(["17"], ["amparo"])]
    found = understood("¿qué establece el artículo 5 de la LFT?", CATALOG)
    assert [d.doc_id for _, docs in found for d in docs] == ["lft"]
