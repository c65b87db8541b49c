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
    from retrieval.question_laws import understood

    found = understood("¿qué dice el artículo 17 de la ley de amparo?", CATALOG)
    assert [(ref.articles, [d.doc_id for d in docs]) for ref, docs in found] == [(["17"], ["amparo"])]
    found = understood("¿qué establece el artículo 5 de la LFT?", CATALOG)
    assert [d.doc_id for _, docs in found for d in docs] == ["lft"]


# -- issue 25: jurisdiction is part of a law's name ------------------------------------------------------------
CP_ES = DocumentInfo(doc_id="cp-es", title="Ley Orgánica 10/1995, de 23 de noviembre, del Código Penal.",
                     doc_type=DocType.ley, short_title="Código Penal", aliases=["Ley Orgánica 10/1995"], gazette="BOE",
                     source_path="/x.pdf", source_sha256="0" * 64, pdf_pages=(1, 1), label="BOE")
DURANGO = _doc("dgo", "Ley del Periódico Oficial del Gobierno del Estado de Durango", DocType.ley)
JURIS = LawCatalog([CPEUM, AMPARO, CP_ES, DURANGO])


def _resolved(question: str) -> list[list[str]]:
    from retrieval.question_laws import understood

    return [[d.doc_id for d in docs] for ref, docs in understood(question, JURIS) if ref.law or ref.constitutional]


def test_a_jurisdiction_in_the_name_must_be_the_documents():
    assert _resolved("¿Qué pena fija el Código Penal Federal para el homicidio?") == [[]]
    assert _resolved("artículo 10 del Código Penal de la Ciudad de México") == [[]]
    assert _resolved("artículo 10 del Código Penal para el Distrito Federal") == [[]]
    assert _resolved("artículo 5 del Código Penal del Estado de Jalisco") == [[]]
    assert _resolved("¿Qué dice el Código Penal de Colombia sobre el hurto?") == [[]]
    assert _resolved("¿Qué dice la Constitución Española sobre la libertad?") == [[]]
    assert _resolved("¿Qué dice la Constitución de Colombia sobre la tutela?") == [[]]


def test_the_same_names_with_the_documents_jurisdiction_resolve():
    assert _resolved("artículo 138 del Código Penal") == [["cp-es"]]
    assert _resolved("¿Qué pena prevé el Código Penal español?") == [["cp-es"]]
    assert _resolved("¿Qué penas prohíbe la Constitución mexicana?") == [["cpeum"]]
    assert _resolved("artículo 1 de la Constitución Política de los Estados Unidos Mexicanos") == [["cpeum"]]
    assert _resolved("la Ley del Periódico Oficial del Estado de Durango") == [["dgo"]]
    assert _resolved("la Ley del Periódico Oficial del Estado de Sonora") == [[]]
    # a state's law is called by the state's name alone, and by its official name's longer form
    assert _resolved("la Ley del Periódico Oficial de Durango") == [["dgo"]]
    assert _resolved("la Ley del Periódico Oficial de Sonora") == [[]]
    assert _resolved("el Código Penal de Coahuila de Zaragoza") == [[]]


def test_a_states_name_is_one_state_however_long_its_official_name():
    from retrieval.jurisdiction import qualifiers

    assert qualifiers("codigo civil del estado de coahuila de zaragoza") == ("codigo civil", {"sub:coahuila"})
    assert qualifiers("codigo civil de coahuila") == ("codigo civil", {"sub:coahuila"})
    assert qualifiers("codigo penal de mexico") == ("codigo penal", {"mx"})  # the country: its state is "Estado de"
    assert qualifiers("ley del estado de mexico") == ("ley", {"sub:mexico"})


def test_a_bill_names_no_law():
    from retrieval.question_laws import understood

    question = "¿Cuándo debe enviar el Ejecutivo la iniciativa de Ley de Ingresos a la Cámara?"
    assert [r.law for r, _ in understood(question, JURIS)] == []
    assert [r.law for r, _ in understood("¿Qué dice la Ley de Ingresos de la Federación?", JURIS)] == [
        "Ley de Ingresos de la Federación"]


def test_an_absent_law_is_reported_with_its_reason_and_the_closest_indexed_laws():
    from retrieval.law_lookup import report
    from retrieval.question_laws import understood

    [(ref, docs)] = [rd for rd in understood("¿Cuál es la pena según el Código Penal Federal?", JURIS)]
    rep = report(ref, docs, 0, JURIS)
    assert (rep.resolved, rep.absent) == (False, True)
    assert rep.reason == "El Código Penal Federal no está entre los documentos indexados"
    assert rep.closest[0] == "Código Penal (España)"
    [(ref, docs)] = understood("¿Qué establece la LFT sobre el aguinaldo?", JURIS)
    assert report(ref, docs, 0, JURIS).reason == "La LFT no está entre los documentos indexados"
    # an article without its law, or a decree's title, is not a law said to be absent
    [(ref, docs)] = understood("¿Qué dice el artículo 5?", JURIS)
    assert report(ref, docs, 0, JURIS).absent is False


def test_a_question_about_what_a_law_regulates_points_at_that_law():
    assert [(s, d.doc_id) for s, d in JURIS.topic_laws("¿Quiénes son partes en el juicio de amparo?")] == [
        ("amparo", "amparo")]
    assert JURIS.topic_laws("¿Qué pena tiene el homicidio?") == []
    assert JURIS.topic_laws("¿Qué derechos reconoce la Constitución?") == []  # a constitution has no one subject
    # the search reads first only a law whose name gives its matter ("Ley de Amparo"); a code named by its branch
    # of law ("Código Penal") is what the answer's relevance checks a question on "proceso penal" against
    question = "¿Cuáles son los derechos de la víctima en el proceso penal?"
    assert [s for s, _ in JURIS.topic_laws(question)] == ["penal"]
    assert JURIS.topic_laws(question, matter=True) == []
    assert [s for s, _ in JURIS.topic_laws("¿Quién promueve el juicio de amparo?", matter=True)] == ["amparo"]
