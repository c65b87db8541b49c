"""Issue 25: a law the question names that no indexed document is, is said to be absent — never answered from
another law.

One index, built once for the module, of real laws and gazette files: the Mexican Constitution and Ley de Amparo
(../shared/data/laws), Spain's Código Penal (BOE consolidated text), the Reglamento of articles 121-122 of the Ley
Federal del Trabajo and Durango's Ley del Periódico Oficial (../shared/data/pdfs). The three long laws are cut to
their first pages (their names, titles and opening articles are all the point needs; embedding 700 pages would cost
minutes). Questions naming five laws the index does not hold — a federal code, the capital's and a state's code, a
foreign code, a federal law whose Reglamento is indexed — and a foreign constitution each answer "not indexed";
real questions naming indexed laws (mx_legal_qa) are answered from those laws as before. A law named with a year
(or a lower-case name, a topic after the name, an Act named in English) is read as lawyers write it.
"""

from __future__ import annotations

import csv
import json
from contextlib import contextmanager

import pymupdf
import pytest

from ingest.references import article_key
from retrieval.answers import ask, ask_stream
from retrieval.index import Index
from retrieval.legal_search import legal_search
from retrieval.settings import Settings
from tests.conftest import EVAL, PDFS, SHARED

LAWS = SHARED / "data" / "laws"
FILES = [  # (path, pages kept: None = all)
    (LAWS / "mx_ley_CPEUM_constitucion_politica_DOF_2025-04-15.pdf", 40),
    (LAWS / "mx_ley_de_amparo_DOF_2025-03-13.pdf", 12),
    (LAWS / "boe_consolidado_BOE-A-1995-25444_codigo_penal.pdf", 12),
    (PDFS / "mx_reglamento_arts_121_122_LFT.pdf", None),
    (PDFS / "mx_durango_ley_del_periodico_oficial.pdf", None),
]

# (question, what the answer must open with, an indexed law it must list among the closest)
ABSENT = [
    ("¿Cuál es la pena por homicidio según el Código Penal Federal?",
     "El Código Penal Federal no está entre los documentos indexados", "Código Penal (España)"),
    ("¿Qué establece el artículo 10 del Código Penal de la Ciudad de México?",
     "El Código Penal de la Ciudad de México no está entre los documentos indexados", "Código Penal (España)"),
    ("¿Qué dispone el artículo 5 del Código Civil del Estado de Jalisco sobre la capacidad?",
     "El Código Civil del Estado de Jalisco no está entre los documentos indexados", None),
    ("¿Qué pena prevé el artículo 138 del Código Penal de Colombia?",
     "El Código Penal de Colombia no está entre los documentos indexados", "Código Penal (España)"),
    ("¿Cuántos días de vacaciones concede la Ley Federal del Trabajo?",
     "La Ley Federal del Trabajo no está entre los documentos indexados", None),
    ("¿Qué dice la Constitución Española sobre la libertad de expresión?",
     "La Constitución Española no está entre los documentos indexados",
     "Constitución Política de los Estados Unidos Mexicanos (México)"),
    # typed in lower case, as people type: the parser wants capitals, the indexed "Código Penal" is found by its
    # name, and the jurisdiction after it still decides
    ("¿cuál es la pena por homicidio según el código penal federal?",
     "El Código Penal Federal no está entre los documentos indexados", "Código Penal (España)"),
    ("¿qué dice la constitución de chile sobre el derecho de propiedad?",
     "La Constitución de Chile no está entre los documentos indexados",
     "Constitución Política de los Estados Unidos Mexicanos (México)"),
    # … and laws the index holds nothing like, named in lower case where the question marks the name's end
    ("¿qué multas prevé el código fiscal de la federación?",
     "El Código Fiscal de la Federación no está entre los documentos indexados", None),
    ("¿cuántos días de vacaciones concede la ley federal del trabajo a un trabajador?",
     "La Ley Federal del Trabajo no está entre los documentos indexados", None),
    ("¿la ley general de salud obliga a los hospitales privados a atender urgencias?",
     "La Ley General de Salud no está entre los documentos indexados", None),
    # … and a law named with a year no indexed law of that name was given: the Ley de Amparo indexed is of 2013
    # (DOF 02-04-2013), the Constitution of 1917
    ("¿Qué decía la Ley de Amparo de 1936 sobre la suspensión del acto reclamado?",
     "La Ley de Amparo de 1936 no está entre los documentos indexados", "Ley de Amparo (México)"),
    ("¿Qué decía el artículo 27 de la Constitución de 1857?",
     "La Constitución de 1857 no está entre los documentos indexados",
     "Constitución Política de los Estados Unidos Mexicanos (México)"),
    # … and regulating laws named by the provisions they regulate, which the indexed Ley de Amparo (regulating arts.
    # 103 and 107) is not
    ("¿Qué dice la Ley Reglamentaria de las fracciones I y II del artículo 105 de la Constitución sobre las "
     "controversias constitucionales?", "La Ley Reglamentaria de las fracciones I y II del artículo 105 de la "
     "Constitución no está entre los documentos indexados", None),
    ("¿Qué exige la Ley Reglamentaria del artículo 5o. constitucional para ejercer una profesión?",
     "La Ley Reglamentaria del artículo 5o. constitucional no está entre los documentos indexados", None),
    # … and laws named by an acronym no indexed document has, the article said to be "of" it: not another law's
    # article of that number
    ("¿Qué dice el artículo 28 de la LGEEPA sobre el impacto ambiental?",
     "La LGEEPA no está entre los documentos indexados", None),
    ("¿Qué dispone el artículo 1 del CC?", "El CC no está entre los documentos indexados", None),
    # … and a foreign law named in English, an Act with its year when its short title has one
    ("What does the California Consumer Privacy Act say about the right to delete personal information?",
     "California Consumer Privacy Act no está entre los documentos indexados", None),
    ("Under the Civil Rights Act of 1964, can an employer refuse to hire someone because of their religion?",
     "Civil Rights Act of 1964 no está entre los documentos indexados", None),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from ingest.parse import parse_pdf

    root = tmp_path_factory.mktemp("absent-law")
    idx = Index.open(Settings(home=root / "home", _env_file=None))
    try:
        for path, pages in FILES:
            if pages is not None:  # the law's first pages, under its own file name
                cut = root / path.name
                with pymupdf.open(path) as src, pymupdf.open() as out:
                    out.insert_pdf(src, to_page=pages - 1)
                    out.save(cut)
                path = cut
            result = parse_pdf(path)
            assert result.documents, f"{path.name}: {result.message}"
            idx.add_documents(result.documents)
        idx.optimize()
        yield idx
    finally:
        idx.close()


@pytest.fixture(scope="module")
def settings(index):
    return Settings(home=index.settings.home, answerer="extractive", judge="offline", _env_file=None)


@pytest.mark.parametrize("question,opening,closest", ABSENT, ids=[q[1].split(" no está")[0] for q in ABSENT])
def test_a_named_law_not_indexed_is_said_to_be_absent(index, settings, question, opening, closest):
    answer = ask(index, question, k=6, settings=settings)
    data = json.loads(answer.model_dump_json())
    assert data["found"] is False
    assert answer.text.startswith(opening), answer.text
    assert "Las leyes indexadas más cercanas por su nombre son:" in answer.text
    # no provision of another law is presented as the answer
    assert answer.sources == []
    assert not any(seg.citations for seg in answer.content)
    absent = [r for r in answer.references if r.absent]
    assert absent and not absent[0].resolved and absent[0].reason == opening
    assert len(absent[0].closest) >= 1
    if closest is not None:
        assert closest in absent[0].closest, absent[0].closest


def test_search_reports_the_absent_law_with_its_reason(index):
    result = legal_search(index, "¿Cuál es la pena por homicidio según el Código Penal Federal?", k=5)
    [ref] = [r for r in result.references if r.reference.law]
    assert ref.resolved is False and ref.absent is True
    assert ref.reason == "El Código Penal Federal no está entre los documentos indexados"
    assert ref.closest[0] == "Código Penal (España)"


def test_the_stream_says_the_same(index, settings):
    events = list(ask_stream(index, "¿Qué establece el artículo 10 del Código Penal de la Ciudad de México?", k=6,
                             settings=settings))
    kinds = [e.event for e in events]
    assert kinds == ["sources", "text", "coverage", "done"]
    assert events[0].sources == []
    assert events[1].text.startswith("El Código Penal de la Ciudad de México no está entre los documentos indexados")
    assert events[-1].answer.found is False


def _legal_qa_naming_a_law() -> list[tuple[str, str, str, str | None]]:
    """mx_legal_qa questions that name the law their gold article is of (the Constitution or the Ley de Amparo),
    with the gold article."""
    rows = list(csv.DictReader((EVAL / "mx_legal_qa" / "questions.tsv").open(encoding="utf-8"), delimiter="\t"))
    law = {"mx_ley_CPEUM_constitucion_politica.pdf": "Constitución", "mx_ley_de_amparo.pdf": "Ley de Amparo"}
    named = [r for r in rows if law.get(r["file"], "?") in r["question"]]  # the law the gold article is of
    return [(r["id"], r["question"], law[r["file"]], r["article"]) for r in named]


# Spain's code named as a lawyer names it, with and without its jurisdiction
SPANISH = [("es-cp", "¿Qué dispone el artículo 1 del Código Penal?", "Código Penal", "1"),
           ("es-cp-adj", "¿Qué dispone el artículo 1 del Código Penal español sobre los delitos?", "Código Penal", "1")]


@pytest.mark.parametrize("qid,question,law,article", _legal_qa_naming_a_law() + SPANISH,
                         ids=[q[0] for q in _legal_qa_naming_a_law() + SPANISH])
def test_a_named_law_that_is_indexed_is_answered_from_it(index, settings, qid, question, law, article):
    answer = ask(index, question, k=6, settings=settings)
    assert not any(r.absent for r in answer.references)
    assert "no está entre los documentos indexados" not in answer.text
    named = [r for r in answer.references if r.reference.law or r.reference.constitutional]
    assert named and all(r.resolved for r in named)
    assert any(law in t for r in named for t in r.titles), [r.titles for r in named]
    if not answer.found:  # only the law's first pages are indexed: nothing found is right when the gold is not there
        held = {c.article for r in named for d in r.doc_ids for c in index.articles(d)}
        assert article_key(article) not in held, (question, answer.text)
        return
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and law in cited[0].document_title, [c.document_title for c in cited]


def test_a_law_named_inside_an_indexed_documents_name_is_not_absent(index, settings):
    """"…del Reglamento de los artículos 121 y 122 de la Ley Federal del Trabajo": the LFT is part of the indexed
    Reglamento's name, not a law the question asks about; the answer is the Reglamento's art. 16 (ARTÍCULO 16, p. 3:
    "El escrito de objeciones deberá precisar las partidas…")."""
    answer = ask(index, "¿Qué dispone el artículo 16 del Reglamento de los artículos 121 y 122 de la Ley Federal del "
                 "Trabajo?", k=6, settings=settings)
    assert answer.found is True and not any(r.absent for r in answer.references)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and "El escrito de objeciones deberá precisar las partidas" in cited[0].cited_text


@pytest.mark.parametrize("question,title,article,opening", [
    ("¿Qué dice el artículo 1o. de la Ley Reglamentaria de los artículos 103 y 107 de la Constitución?",
     "Ley de Amparo", "1", "El juicio de amparo tiene por objeto resolver toda controversia"),
    ("¿Qué dice el artículo 5 del Reglamento de los Artículos 121 y 122 de la LFT?",
     "Reglamento de los Artículos 121 y 122", "5", "Los trabajadores deberán acreditar la personalidad"),
])
def test_a_law_named_by_the_provisions_it_regulates_is_that_law(index, settings, question, title, article, opening):
    """"la Ley Reglamentaria de los artículos 103 y 107 constitucionales" is what lawyers also call the Ley de Amparo
    (its title's subtitle): its art. 1 answers, not the Constitution's arts. 103 and 107, and no "Ley Reglamentaria"
    is said to be absent. "… de la LFT" after the Reglamento is part of its name, not an absent LFT."""
    answer = ask(index, question, k=6, settings=settings)
    assert answer.found is True and not any(r.absent for r in answer.references), answer.text
    [named] = answer.references
    assert named.resolved and named.reference.articles == [article] and title in named.titles[0]
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == article and title in cited[0].document_title
    assert cited[0].cited_text.startswith(opening), cited[0].cited_text


def test_a_numbered_apartado_the_question_names_opens_the_answer(index, settings):
    """Spain's laws number their apartados ("artículo 2, apartado 2"): the answer opens with that apartado of the
    Código Penal's art. 2 ("2. No obstante, tendrán efecto retroactivo aquellas leyes penales que favorezcan al
    reo…"), not its apartado 1."""
    for question in ("¿Qué dice el apartado 2 del artículo 2 del Código Penal?",
                     "¿Qué dice el artículo 2, apartado 2, del Código Penal?"):
        answer = ask(index, question, k=6, settings=settings)
        cited = [c for seg in answer.content for c in seg.citations if c.verified]
        assert cited and ", art. 2, apdo. 2, p. " in cited[0].label, [c.label for c in cited]
        assert "tendrán efecto retroactivo aquellas leyes penales que favorezcan al reo" in cited[0].cited_text


def test_a_law_named_by_its_mixed_case_acronym_is_that_law(index, settings):
    """"LAmp" (the DOF's acronym of the Ley de Amparo: "L" for Ley, "Amp" for Amparo) names the Ley de Amparo; its
    art. 1 answers, not the Constitution's or Spain's Código Penal's art. 1."""
    answer = ask(index, "¿Qué dice el artículo 1 de la LAmp?", k=6, settings=settings)
    [named] = answer.references
    assert named.resolved and named.reference.law == "LAmp" and "Ley de Amparo" in named.titles[0]
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "1" and "Ley de Amparo" in cited[0].document_title


@contextmanager
def first_pages(tmp_path, path, last_page: int):
    """An index of one PDF's first pages (through page `last_page`, 0-based), with extractive settings over it."""
    from ingest.parse import parse_pdf

    cut = tmp_path / path.name
    with pymupdf.open(path) as src, pymupdf.open() as out:
        out.insert_pdf(src, to_page=last_page)
        out.save(cut)
    with Index.open(Settings(home=tmp_path / "home", _env_file=None)) as index:
        index.add_documents(parse_pdf(cut).documents)
        yield index, Settings(home=index.settings.home, answerer="extractive", judge="offline", _env_file=None)


def test_a_law_numbered_with_its_year_either_way_is_that_law(tmp_path):
    """Colombia's "LEY 99 DE 1993" is the "Ley 99/1993" a lawyer elsewhere writes (as Spain's "Ley 1/2000"): its
    art. 2 answers ("Créase el Ministerio del Medio Ambiente…", p. 2); a law of another year is absent."""
    with first_pages(tmp_path, PDFS / "co_diario_oficial_ley_99_1993.pdf", 3) as (index, settings):
        for question in ("¿Qué dice el artículo 2 de la Ley 99/1993?", "¿Qué dice el artículo 2 de la Ley 99 de 1993?"):
            answer = ask(index, question, k=6, settings=settings)
            cited = [c for seg in answer.content for c in seg.citations if c.verified]
            assert answer.references[0].resolved, answer.references
            assert cited and cited[0].article == "2"
            assert "Créase el Ministerio del Medio Ambiente" in cited[0].cited_text
        answer = ask(index, "¿Qué dice el artículo 2 de la Ley 99/1994?", k=6, settings=settings)
        assert answer.found is False and answer.text.startswith("La Ley 99/1994 no está entre los documentos indexados")


def test_a_states_law_named_by_the_state_alone_is_that_states_law(index, settings):
    """Lawyers drop "del Gobierno del Estado": "la Ley del Periódico Oficial de Durango" is the indexed "Ley del
    Periódico Oficial del Gobierno del Estado de Durango", and its art. 10 answers (p. 3: "En ningún caso se publicará
    documento alguno … si no está debidamente firmado"); Sonora's law of the same name is not indexed."""
    answer = ask(index, "Según la Ley del Periódico Oficial de Durango, ¿se puede publicar un documento que no esté "
                 "firmado?", k=6, settings=settings)
    assert answer.found is True and not any(r.absent for r in answer.references), answer.text
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "10" and "Durango" in cited[0].document_title
    answer = ask(index, "Según la Ley del Periódico Oficial de Sonora, ¿se puede publicar un documento que no esté "
                 "firmado?", k=6, settings=settings)
    assert answer.found is False
    assert answer.text.startswith("La Ley del Periódico Oficial de Sonora no está entre los documentos indexados")


@pytest.mark.parametrize("question,law", [
    ("¿Qué establece la Ley de Amparo sobre la Suprema Corte de Justicia de la Nación?", "Ley de Amparo"),
    ("¿Qué dice el Código Penal sobre el Ministerio Fiscal?", "Código Penal"),
    ("¿Qué dispone la Ley del Periódico Oficial de Durango en materia de Edictos?", "Ley del Periódico Oficial"),
])
def test_what_a_question_asks_of_a_law_is_no_part_of_its_name(index, settings, question, law):
    """The parser reads capitalised words on after a law's name ("Ley del Impuesto sobre la Renta" needs it), so "la
    Ley de Amparo sobre la Suprema Corte" read as one name that no document has, and the Ley de Amparo was said to
    be absent. The name is cut where the topic begins when what comes before is an indexed law's whole name."""
    answer = ask(index, question, k=6, settings=settings)
    assert "no está entre los documentos indexados" not in answer.text, answer.text
    [named] = [r for r in answer.references if r.reference.law]
    assert named.resolved and not named.absent and named.reference.law.startswith(law), named
    assert " sobre " not in named.reference.law and " en materia " not in named.reference.law
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert answer.found is False or (cited and law in cited[0].document_title), [c.document_title for c in cited]


def test_a_law_the_congreso_de_la_union_issued_is_federal(index, settings):
    """The Ley de Amparo printed by the Cámara de Diputados names no gazette; its issuing body, the Congreso de la
    Unión, is Mexico's federal legislature, so "la Ley de Amparo Federal" (in any case) is the indexed law."""
    for question in ("¿Qué dice la Ley de Amparo Federal sobre el plazo para presentar la demanda?",
                     "¿qué dice la ley de amparo federal sobre el plazo para presentar la demanda?"):
        answer = ask(index, question, k=6, settings=settings)
        assert not any(r.absent for r in answer.references), answer.text
        cited = [c for seg in answer.content for c in seg.citations if c.verified]
        assert cited and cited[0].document_title.startswith("Ley de Amparo"), answer.text


def test_a_law_named_in_lower_case_is_that_law_and_the_law_in_general_is_none(index, settings):
    """"la ley de amparo" in lower case is the indexed Ley de Amparo (art. 17, p. 8: "El plazo para presentar la
    demanda de amparo es de quince días"); "la ley de la materia", "la ley penal" and "¿qué dispone la ley sobre …?"
    name no law, so nothing is said to be absent."""
    answer = ask(index, "¿cuál es el plazo para presentar la demanda según la ley de amparo?", k=6, settings=settings)
    [named] = [r for r in answer.references if r.reference.law]
    assert named.resolved and named.titles[0].startswith("Ley de Amparo") and named.reference.law == "Ley de Amparo"
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "17", answer.text
    for question in ("¿qué dice la ley de la materia sobre el plazo para presentar la demanda?",
                     "¿qué dice la ley penal sobre la tentativa?", "¿qué dispone la ley sobre la retroactividad?"):
        answer = ask(index, question, k=6, settings=settings)
        assert not any(r.reference.law for r in answer.references), question
        assert "no está entre los documentos indexados" not in answer.text, question


def test_a_law_named_with_the_year_it_was_given_is_that_law(index, settings):
    """ "la Constitución de 1917" is the indexed Constitution (published 5 February 1917), "la Ley de Amparo de 2013"
    the indexed Ley de Amparo; a year said otherwise ("en 2020") is not part of the law's name."""
    answer = ask(index, "¿Qué dice el artículo 1o. de la Constitución de 1917?", k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert answer.found and cited and cited[0].article == "1", answer.text
    for question in ("¿Qué dice la Ley de Amparo de 2013 sobre la demanda de amparo?",
                     "¿Qué decía la Ley de Amparo en 2020 sobre la demanda de amparo?"):
        answer = ask(index, question, k=6, settings=settings)
        [named] = [r for r in answer.references if r.reference.law]
        assert named.resolved and named.titles[0].startswith("Ley de Amparo"), question
        assert "no está entre los documentos indexados" not in answer.text, question


def test_an_absent_law_is_named_up_to_its_place_not_on_into_the_topic(index, settings):
    answer = ask(index, "¿Qué dispone la Constitución del Estado de Durango sobre el Poder Judicial?", k=6,
                 settings=settings)
    assert answer.found is False
    assert answer.text.startswith("La Constitución del Estado de Durango no está entre los documentos indexados.")


def test_a_law_whose_name_differs_by_a_word_is_another_law_and_a_typo_is_not(tmp_path):
    """The Ley de Enjuiciamiento Criminal is not the Ley de Enjuiciamiento Civil, though their names are 91 %
    alike letter for letter; "Enjuciamiento" (one letter dropped) still names the civil one."""
    with first_pages(tmp_path, LAWS / "boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf", 5) \
            as (index, settings):
        answer = ask(index, "¿Qué dice la Ley de Enjuiciamiento Criminal sobre la detención?", k=6,
                     settings=settings)
        assert answer.found is False
        assert answer.text.startswith("La Ley de Enjuiciamiento Criminal no está entre los documentos indexados")
        assert "Ley de Enjuiciamiento Civil" in answer.references[0].closest[0]
        typed = legal_search(index, "¿Qué dice la Ley de Enjuciamiento Civil sobre la demanda?", k=4)
        assert typed.references[0].resolved and "Enjuiciamiento Civil" in typed.references[0].titles[0]


def test_the_constitution_called_by_another_name_is_not_absent(index, settings, tmp_path):
    """"la Carta Magna" / "la Ley Fundamental" is the indexed Constitution (art. 3, p. 8: "Toda persona tiene
    derecho a la educación"); "la Ley Suprema" was said to be an absent law. The German Basic Law, named by its own
    name, stays absent; over an index holding no constitution "la Carta Magna" is left to the search."""
    from ingest.parse import parse_pdf

    for question in ("¿Qué dice la Carta Magna sobre el derecho a la educación?",
                     "Según la Ley Fundamental, ¿qué derecho tiene toda persona a la educación?"):
        answer = ask(index, question, k=6, settings=settings)
        assert "no está entre los documentos indexados" not in answer.text, answer.text
        [named] = answer.references
        assert named.resolved and named.titles[0].startswith("Constitución Política"), named
        cited = [c for seg in answer.content for c in seg.citations if c.verified]
        assert cited and cited[0].article == "3", [c.label for c in cited]
    # typed in lower case, CPEUM art. 133's words (p. 157, beyond the pages indexed here) are no law's name either
    answer = ask(index, "¿qué normas son la ley suprema de toda la unión?", k=6, settings=settings)
    assert not any(r.absent for r in answer.references), answer.text
    # where no constitution is held, those words may mean something else (the Magna Carta of 1215): no law said absent
    with Index.open(Settings(home=tmp_path / "home", _env_file=None)) as other:
        other.add_documents(parse_pdf(PDFS / "mx_reglamento_arts_121_122_LFT.pdf").documents)
        found = legal_search(other, "¿En qué año se firmó la Carta Magna?", k=3)
        assert not found.references and found.hits, found.references
    answer = ask(index, "¿Qué dice la Ley Fundamental de la República Federal de Alemania sobre la dignidad humana?",
                 k=6, settings=settings)
    assert answer.found is False
    assert answer.text.startswith("La Ley Fundamental de la República Federal de Alemania no está entre los "
                                  "documentos indexados")


def test_an_article_followed_by_an_indexed_laws_acronym_is_that_laws(index, settings):
    """"art. 1 CP", "el artículo 1 del CP": Spain's Código Penal, which the index knows as "CP" (two letters, too few
    for the parser to read as a law's name anywhere else). The Constitution and the Ley de Amparo have an article 1
    too, and the question's other words do not say which."""
    for question in ("¿Qué dice el art. 1 CP?", "¿Qué dice el artículo 1 del CP?"):
        answer = ask(index, question, k=6, settings=settings)
        cited = [c for seg in answer.content for c in seg.citations if c.verified]
        assert cited and cited[0].article == "1" and cited[0].document_title.startswith("Ley Orgánica 10/1995"), \
            [c.label for c in cited]
        [named] = answer.references
        assert named.resolved and named.reference.law == "CP", named


def test_a_bill_is_no_law_the_question_names(index, settings):
    """"la iniciativa de Ley de Ingresos" is a bill the Constitution's art. 74 sets a date for (p. 80 of the full
    text, beyond the pages indexed here): no "Ley de Ingresos" is said to be absent, the Constitution is searched."""
    answer = ask(index, "¿Hasta qué fecha puede el Ejecutivo Federal enviar a la Cámara de Diputados la iniciativa de "
                 "Ley de Ingresos?", k=6, settings=settings)
    assert "no está entre los documentos indexados" not in answer.text
    assert not any(r.absent for r in answer.references)


def test_a_question_naming_an_indexed_and_an_absent_law_opens_with_the_notice(index, settings):
    answer = ask(index, "¿Qué dice el artículo 1 de la Ley de Amparo y qué dice el Código Penal Federal?", k=6,
                 settings=settings)
    assert answer.found is True
    assert answer.text.startswith("El Código Penal Federal no está entre los documentos indexados")
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and all("Código Penal" not in c.document_title for c in cited)


def test_a_quote_attributed_to_an_absent_law_is_not_found_not_misattributed(index):
    from retrieval.attribution import attribute
    from retrieval.attribution.models import QuoteStatus

    quote = "todas las personas gozarán de los derechos humanos reconocidos en esta Constitución"
    wrong = attribute(index, f'El artículo 1 del Código Penal Federal dispone que "{quote}".')
    [check] = wrong.quotes
    assert check.status is QuoteStatus.not_found
    assert "Código Penal Federal is not among the indexed documents" in check.reason
    right = attribute(index, f'El artículo 1 de la Constitución dispone que "{quote}".')
    assert right.quotes[0].status is QuoteStatus.exact
    elsewhere = attribute(index, f'El artículo 1 de la Ley de Amparo dispone que "{quote}".')
    assert elsewhere.quotes[0].status is QuoteStatus.misattributed  # an indexed law: checked, and not there


def test_an_act_named_in_english_is_read_up_to_its_kind_and_the_act_alone_names_none(index, settings):
    """ "What does Section 5 of the FTC Act prohibit?" names the FTC Act (not "What", "Section 5", "the"); "the Act"
    alone names no law; a quote attributed to an Act the index does not hold is not found, not matched elsewhere."""
    from retrieval.attribution import attribute
    from retrieval.attribution.models import QuoteStatus

    answer = ask(index, "What does Section 5 of the FTC Act prohibit?", k=6, settings=settings)
    assert answer.found is False and answer.text.startswith("FTC Act no está entre los documentos indexados")
    answer = ask(index, "What does the Act say about the rights of persons?", k=6, settings=settings)
    assert not any(r.absent for r in answer.references)
    quote = "todas las personas gozarán de los derechos humanos reconocidos en esta Constitución"
    [check] = attribute(index, f'Section 1 of the Civil Rights Act of 1964 provides that "{quote}".').quotes
    assert check.status is QuoteStatus.not_found
    assert "Civil Rights Act of 1964 is not among the indexed documents" in check.reason


def test_an_eu_act_is_its_number_in_any_language_and_a_text_printed_before_its_number_is_of_its_year(tmp_path):
    """The GDPR as the Council's position at first reading prints "REGULATION (EU) 2016/…" (its number was given on
    adoption): "Regulation (EU) 2016/679" and "Reglamento (UE) 2016/679" are that text, and the article they name is
    answered from it; "Directive 95/46/EC" (which the GDPR's recitals name) and "Regulation (EU) 2017/745" are
    absent."""
    from ingest.parse import parse_pdf

    cut = tmp_path / "eu_gdpr_council_position_5419-16.pdf"
    with pymupdf.open(PDFS / cut.name) as src, pymupdf.open() as out:
        out.insert_pdf(src, to_page=2)  # the title pages
        out.insert_pdf(src, from_page=139, to_page=140)  # articles 16 to 17
        out.save(cut)
    with Index.open(Settings(home=tmp_path / "home", _env_file=None)) as index:
        index.add_documents(parse_pdf(cut).documents)
        settings = Settings(home=index.settings.home, answerer="extractive", judge="offline", _env_file=None)
        for question in ("What does Article 17 of Regulation (EU) 2016/679 say?",
                         "¿Qué dice el artículo 17 del Reglamento (UE) 2016/679?"):
            answer = ask(index, question, k=6, settings=settings)
            cited = [c for seg in answer.content for c in seg.citations if c.verified]
            assert answer.found and cited and cited[0].article == "17", (question, answer.text)
            assert any(r.resolved and r.reference.law for r in answer.references), question
        for question, named in (("What does Directive 95/46/EC say about consent?", "Directive 95/46/EC"),
                                ("Under Regulation (EU) 2017/745 on medical devices, who is a manufacturer?",
                                 "Regulation (EU) 2017/745")):
            answer = ask(index, question, k=6, settings=settings)
            assert answer.found is False
            assert answer.text.startswith(f"{named} no está entre los documentos indexados"), answer.text


def test_a_law_named_in_the_other_language_is_that_law(tmp_path):
    """The Universal Declaration of Human Rights is indexed in Spanish ("Declaración Universal de Derechos Humanos"),
    the GDPR in English ("General Data Protection Regulation"). "article 14 of the Universal Declaration of Human
    Rights" was answered from the GDPR's Art. 14 (the English name was read as no law, so the article went to the
    best hit's document), and "el Reglamento General de Protección de Datos" was said not to be indexed. A name
    written with the same words in the other language names the same law; an English name no document is ("the
    European Convention on Human Rights") is no reference, left to the search (a regulator's rulebook cites codes
    that are no text of their own); a jurisdiction still decides (`ABSENT`: the "Código Penal Federal")."""
    from ingest.parse import parse_pdf

    gdpr = tmp_path / "eu_gdpr_council_position_5419-16.pdf"
    with pymupdf.open(PDFS / gdpr.name) as src, pymupdf.open() as out:
        out.insert_pdf(src, to_page=2)  # the title pages
        out.insert_pdf(src, from_page=133, to_page=134)  # its own article 14
        out.insert_pdf(src, from_page=139, to_page=140)  # articles 16 to 17
        out.save(gdpr)
    with Index.open(Settings(home=tmp_path / "home", _env_file=None)) as index:
        for path in (gdpr, PDFS / "es_declaracion_universal_derechos_humanos.pdf"):
            index.add_documents(parse_pdf(path).documents)
        settings = Settings(home=index.settings.home, answerer="extractive", judge="offline", _env_file=None)
        answer = ask(index, "What does article 14 of the Universal Declaration of Human Rights say?", k=6,
                     settings=settings)
        cited = [c for seg in answer.content for c in seg.citations if c.verified]
        assert cited and cited[0].article == "14", [c.label for c in cited]
        assert cited[0].document_title.startswith("Declaración Universal"), cited[0].label
        answer = ask(index, "¿Qué dice el artículo 17 del Reglamento General de Protección de Datos?", k=6,
                     settings=settings)
        assert "no está entre los documentos indexados" not in answer.text, answer.text
        cited = [c for seg in answer.content for c in seg.citations if c.verified]
        assert cited and cited[0].article == "17" and "Data Protection" in cited[0].label, answer.text
        found = legal_search(index, "What does the European Convention on Human Rights say about torture?", k=4)
        assert not found.references, found.references


# -- issue 25 (2): the relevance flag judges whether the cited provisions answer the question ---------------------
def test_an_answer_from_another_article_than_the_one_named_is_not_relevant(index, settings):
    # article 150 of the Ley de Amparo lies beyond the pages indexed: whatever is cited, it is not article 150
    answer = ask(index, "¿Qué dispone el artículo 150 de la Ley de Amparo sobre la suspensión?", k=6,
                 settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and all(c.article != "150" for c in cited)
    assert answer.coverage.relevant is False and "not_relevant" in answer.coverage.flag_reasons
    assert any(r.startswith("the question names art. 150 of Ley de Amparo") for r in answer.coverage.relevance_reasons)


def test_an_answer_from_the_named_article_keeps_its_relevance(index, settings):
    answer = ask(index, "Según el artículo 17 de la Ley de Amparo, ¿cuál es el plazo para presentar la demanda?", k=6,
                 settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "17"
    assert answer.coverage.relevance_reasons == [] and answer.coverage.relevant is True


def test_a_question_asking_for_a_duration_is_not_answered_by_text_that_states_none(index, settings):
    from retrieval.answers.coverage import answers_the_question

    answer = ask(index, "¿Qué derechos humanos reconoce la Constitución?", k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and not any("plazo" in c.cited_text or "días" in c.cited_text for c in cited)
    # the same citations, asked for a time limit: they state no duration, so they cannot be its answer
    assert answers_the_question("¿Cuál es el plazo para presentar la demanda?", cited) == [
        "the question asks for a duration; the cited text states none"]
    assert answers_the_question("¿Qué derechos humanos reconoce la Constitución?", cited) == []
    # a question about what the Ley de Amparo regulates, naming no law, is not answered by the Constitution alone
    question = "¿Quiénes son partes en el juicio de amparo?"
    topics = index.catalog().topic_laws(question)
    assert [subject for subject, _ in topics] == ["amparo"]
    assert answers_the_question(question, cited, topics=topics) == [
        "the question is about amparo, which Ley de Amparo regulates; the answer leads with another document"]
    answer = ask(index, question, k=6, settings=settings)
    assert answer.coverage.relevance_reasons == []  # answered from the Ley de Amparo: nothing against it


def test_days_named_without_a_count_do_not_answer_how_many_days(index, settings):
    # the queja's five days (art. 98) lie beyond the pages indexed; what is found speaks of días hábiles (art. 19:
    # "Son días hábiles … todos los del año, con excepción de … cinco de febrero…"): days, and dates, but no count
    answer = ask(index, "¿Cuántos días tengo para promover una queja en el juicio de amparo?", k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and all(c.article != "98" for c in cited)
    assert "the question asks for a duration; the cited text states none" in answer.coverage.relevance_reasons
    assert answer.coverage.relevant is False
    # a count of days answers it: art. 17, "El plazo para presentar la demanda de amparo es de quince días"
    answer = ask(index, "¿Cuántos días hay para presentar la demanda de amparo?", k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "17"
    assert answer.coverage.relevance_reasons == []


def _printed(path, start: str, end: str):
    """A verified citation of the text `path` prints from `start` through `end` (its lines joined)."""
    from retrieval.answers.models import Citation

    with pymupdf.open(path) as doc:
        text = " ".join(" ".join(page.get_text() for page in doc).split())
    at = text.index(start)
    quoted = text[at:text.index(end, at) + len(end)]
    return Citation(cited_text=quoted, doc_id="d", document_title=path.name, chunk_id="c", start=0, end=len(quoted),
                    pages=[1], verified=True)


def test_a_duration_from_one_event_to_another_and_a_minimum_term_are_stated():
    """What a law states as a duration without a count of days: the CPEUM's "desde que se dicte la orden de
    aprehensión hasta que prescriba la acción penal" (art. 38, fr. V); and a minimum term is a duration, so the LSC's
    "no podrá ser inferior a un mes" (art. 305.2) answers "¿cuál es el plazo mínimo…?" (both were flagged)."""
    from retrieval.answers.coverage import answers_the_question

    fugitive = _printed(PDFS / "mx_ley_CPEUM_constitucion_politica.pdf", "V. Por estar prófugo", "la acción penal;")
    assert answers_the_question("¿Quien está prófugo de la justicia pierde temporalmente sus derechos como "
                                "ciudadano, y durante cuánto tiempo?", [fugitive]) == []
    minimum = _printed(LAWS / "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf",
                       "2. El plazo para el ejercicio del derecho no podrá", "Registro Mercantil.")
    assert answers_the_question("Según la LSC, ¿cuál es el plazo mínimo para ejercer el derecho de preferencia en un "
                                "aumento de capital?", [minimum]) == []
    # the same article's first paragraph names the term without stating it
    named = _printed(LAWS / "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf",
                     "1. En las sociedades de responsabilidad limitada, el derecho de preferencia", "administradores.")
    assert answers_the_question("¿Cuál es el plazo mínimo para ejercer el derecho de preferencia?", [named]) == [
        "the question asks for a duration; the cited text states none"]


def test_a_bound_asked_for_is_a_number_and_an_articles_number_is_none(index, settings):
    # art. 6 of the Ley de Amparo holds a digit only in "la fracción I del artículo 5": a reference, not a quantity
    answer = ask(index, "¿Cuál es el número máximo de amparos que se pueden promover?", k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and {c.article for c in cited} == {"6"} and "artículo 5" in cited[0].cited_text
    assert answer.coverage.relevance_reasons == ["the question asks for a number; the cited text states none"]
    assert answer.coverage.relevant is False
    # the Reglamento's "dentro de los sesenta días naturales" states the bound
    answer = ask(index, "¿Cuál es el número máximo de días para efectuar el reparto de utilidades?", k=6,
                 settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "6" and "sesenta días" in cited[0].cited_text
    assert answer.coverage.relevance_reasons == [] and answer.coverage.relevant is True


def test_an_acronym_the_cited_text_spells_out_is_stated(index, settings):
    # the Reglamento never writes "SAT": it names the Servicio de Administración Tributaria in full
    question = ("Si el sindicato ya objetó ante el SAT la declaración anual del patrón para efectos del reparto de "
                "utilidades, ¿puede después retirarse y dar por terminado el procedimiento?")
    answer = ask(index, question, k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].document_title.startswith("Reglamento de los Artículos 121 y 122")
    assert "Servicio de Administración Tributaria" in cited[0].cited_text
    assert not any("SAT" in c.cited_text for c in cited)
    assert answer.coverage.relevant is True


def test_a_number_the_cited_text_writes_out_in_words_is_stated(index, settings):
    # the user's "60 días" is the Reglamento's "sesenta días naturales" (art. 6)
    answer = ask(index, "Si ya pasaron 60 días desde que el patrón debía pagar el impuesto anual, ¿venció el plazo "
                        "para repartir las utilidades?", k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "6" and "sesenta días" in cited[0].cited_text
    assert not any("60" in c.cited_text for c in cited)
    assert answer.coverage.relevant is True


def test_the_issuer_of_the_cited_document_is_no_fact_its_articles_must_state(index, settings):
    # the Reglamento was issued by the Presidencia de la República; its art. 6 does not repeat who issued it
    question = "En el reglamento que expidió la {}, ¿dentro de qué plazo debe efectuarse el reparto de utilidades?"
    answer = ask(index, question.format("Presidencia de la República"), k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "6" and "sesenta días" in cited[0].cited_text
    assert not any("Presidencia" in c.cited_text for c in cited)
    assert answer.coverage.relevant is True
    # a body that neither issued it nor is named in it stays a fact no source states
    answer = ask(index, question.format("Secretaría de Marina"), k=6, settings=settings)
    assert answer.coverage.relevant is False


# -- a country the question names: its law answers, and a law does not say whose it is -------------------------------
def test_a_question_naming_a_country_is_answered_from_that_countrys_law(index, settings):
    # the index holds Mexico's Constitution beside Spain's Código Penal, whose first articles speak of "delitos":
    # asked what Mexico punishes, the answer cited Spain's code (art. 1 and 2) before the search set it aside
    question = "¿Qué delitos se castigan en México?"
    spain = {d.doc_id for d in index.document_infos() if d.law_id and d.law_id.startswith("es/")}
    assert spain
    found = legal_search(index, question, k=8)
    assert found.country is not None and found.country.code == "mx" and found.country.words == ["México"]
    assert found.country.set_aside == len(spain)
    assert found.hits and not any(h.chunk.doc_id in spain for h in found.hits)
    answer = ask(index, question, k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert answer.found and cited and not any(c.doc_id in spain for c in cited)
    # a question naming Spain keeps Spain's code, and one naming a law decides by the law, not the country
    assert legal_search(index, "¿Qué leyes penales son retroactivas en España?", k=4).country.code == "es"
    assert legal_search(index, "¿Qué dice el artículo 22 de la Constitución mexicana?", k=4).country is None


@pytest.mark.parametrize("question,article", [
    # the Constitution's articles never write "CPEUM": whether art. 1 of it is cited is judged by structure
    ("¿Qué dice el artículo 1 de la CPEUM?", "1"),
    ("¿Qué establece el artículo 3 de la CPEUM?", "3"),
    # a law does not say whose it is: art. 22 ("Quedan prohibidas las penas de muerte…") never writes "México",
    # art. 1 says "los Estados Unidos Mexicanos", not "la República"; Spain's art. 2 never writes "España"
    ("¿Está prohibida la pena de muerte en México?", "22"),
    ("¿Qué derechos humanos gozan las personas en la República?", "1"),
    ("¿Qué leyes penales son retroactivas en España?", "2"),
    # "¿Puede …" opens the question: it is no name (art. 14: "A ninguna ley se dará efecto retroactivo…")
    ("¿Puede una ley aplicarse retroactivamente en perjuicio de una persona?", "14"),
])
def test_a_right_answer_is_not_flagged_for_words_its_article_need_not_state(index, settings, question, article):
    # each of these words, read as a name no cited span states, halved a right answer's score under the cut-off
    answer = ask(index, question, k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == article
    assert answer.coverage.relevant is True and "not_relevant" not in answer.coverage.flag_reasons


def test_an_answer_from_another_countrys_law_is_not_relevant_and_search_says_whose_law_it_drew_on(tmp_path,
                                                                                              monkeypatch):
    # an index of Spain's Código Penal alone has nothing to set aside: the question about Mexico is answered from
    # it, and the flag says whose law that is. Beside a Mexican law, `gaceta search` draws on the Mexican one only.
    from typer.testing import CliRunner

    from gaceta.cli import app
    from ingest.parse import parse_pdf

    cut = tmp_path / FILES[2][0].name
    with pymupdf.open(FILES[2][0]) as src, pymupdf.open() as out:
        out.insert_pdf(src, to_page=11)
        out.save(cut)
    spain_code = parse_pdf(cut).documents
    question = "¿Qué delitos se castigan en México?"
    settings = Settings(home=tmp_path / "spain", answerer="extractive", judge="offline", _env_file=None)
    with Index.open(settings) as spain:
        spain.add_documents(spain_code)
        answer = ask(spain, question, k=6, settings=settings)
        assert answer.found and legal_search(spain, question, k=4).country is None
        assert answer.coverage.relevant is False and "not_relevant" in answer.coverage.flag_reasons
        assert "the question asks about 'México' (México); the answer cites only the law of España" in \
            answer.coverage.relevance_reasons
        answer = ask(spain, "¿Qué leyes penales son retroactivas en España?", k=6, settings=settings)
        assert answer.coverage.relevance_reasons == []

    both = tmp_path / "both"
    with Index.open(Settings(home=both, _env_file=None)) as index:
        index.add_documents(spain_code + parse_pdf(FILES[4][0]).documents)  # Durango's Ley del Periódico Oficial
    monkeypatch.setenv("GACETA_HOME", str(both))
    result = CliRunner().invoke(app, ["search", question, "--json", "-k", "5"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["country"] == {"code": "mx", "name": "México", "words": ["México"], "set_aside": 1}
    assert found["hits"] and all(h["document"]["doc_id"] not in {d.doc_id for d in spain_code} for h in found["hits"])
    shown = CliRunner().invoke(app, ["search", question, "-k", "2"])
    assert "understood: 'México' → the law of México (1 document of another country set aside)" in shown.stdout


def test_a_language_is_not_a_country_and_the_word_that_opens_a_question_is_not_a_name():
    from retrieval.answers.support import names
    from retrieval.jurisdiction import countries_named

    assert names("¿Pueden los extranjeros adquirir tierras en México?", ("spanish",)) == names(" México", ("spanish",))
    assert names("Hola. ¡Viva la República!", ("spanish",)) == names(" República", ("spanish",))

    assert countries_named("¿Debe redactarse en español la demanda?") == {}
    assert countries_named("¿Qué derechos tienen los españoles?") == {"es": ["españoles"]}
    assert countries_named("¿Quiénes son ciudadanos de los Estados Unidos Mexicanos?") == {
        "mx": ["Estados Unidos Mexicanos"]}
    assert countries_named("¿Puede extraditar México a un ciudadano de Estados Unidos?") == {
        "mx": ["México"], "us": ["Estados Unidos"]}
    # in English too: a nationality before a law's name, a language after "in"; "European" alone is no union
    assert countries_named("What does the Spanish Criminal Code say?") == {"es": ["Spanish"]}
    assert countries_named("Must the claim be written in Spanish?") == {}
    assert countries_named("the European Convention on Human Rights") == {}


def test_a_law_named_in_english_after_its_nationality_is_that_countrys_law(index, settings):
    """"the Spanish Criminal Code" is Spain's Código Penal, "the Mexican Constitution" the CPEUM (the nationality is
    the jurisdiction, as "el Código Penal español"'s is); "the Spanish Constitution", not indexed, is absent, not
    answered from another text."""
    for question, title in (("What does the Spanish Criminal Code say about murder?", "Ley Orgánica 10/1995"),
                            ("What does the Mexican Constitution say about education?", "Constitución Política")):
        [named] = legal_search(index, question, k=5).references
        assert named.resolved and named.titles[0].startswith(title), named
    answer = ask(index, "What does the Spanish Constitution say about freedom of speech?", k=6, settings=settings)
    assert answer.found is False and answer.sources == []
    assert answer.text.startswith("Spanish Constitution no está entre los documentos indexados"), answer.text
