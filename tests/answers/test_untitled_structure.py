"""A gazette text without articles is read by its structure (issue 25: answers that carry over to texts nobody tuned
on). Durango's Acuerdo General 01/2021 of its Consejo de la Judicatura numbers three recitals under no heading,
prints "A C U E R D O" letter-spaced, then points PRIMERO–SÉPTIMO whose sentences never repeat what the title says
(Durango, the COVID-19 pandemic, sanitary safety). Beside it, Durango's Ley del Periódico Oficial, a law of the same
state. The recitals motivate; the points answer, read under the document's title."""

from __future__ import annotations

import pytest

from ingest.parse import parse_pdf
from retrieval.answers import ask
from retrieval.index import Index
from retrieval.legal_search import legal_search
from retrieval.settings import Settings
from tests.conftest import pdf

ACUERDO = "mx_durango_acuerdo_general_01-2021_judicatura.pdf"
LEY = "mx_durango_ley_del_periodico_oficial.pdf"


@pytest.fixture(scope="module")
def durango(tmp_path_factory):
    settings = Settings(home=tmp_path_factory.mktemp("durango"), answerer="extractive", judge="offline",
                        _env_file=None)
    index = Index.open(settings)
    index.add_documents([d for name in (ACUERDO, LEY) for d in parse_pdf(pdf(name)).documents])
    index.optimize()
    yield index, settings
    index.close()


def cited(answer):
    return [c for seg in answer.content for c in seg.citations if c.verified]


@pytest.mark.parametrize(("question", "states"), [
    ("¿Cuántos usuarios pueden estar a la vez dentro de cada juzgado del Poder Judicial de Durango durante la "
     "contingencia sanitaria?", "más de 5 usuarios"),
    ("¿Qué consecuencias tiene para los servidores judiciales de Durango incumplir las medidas de seguridad "
     "sanitaria por COVID-19?", "dará lugar a sanciones administrativas"),
])
def test_the_acuerdos_points_answer_and_its_title_is_what_they_stand_under(durango, question, states):
    """Point TERCERO ("…no se permita el acceso de más de 5 usuarios para cada uno de los juzgados…", p. 3) and point
    SÉPTIMO ("La inobservancia de los presentes lineamientos … dará lugar a sanciones administrativas…", p. 12) are
    quoted, and not flagged: that they do not name Durango or the pandemic is no missing fact, their document's title
    does. The second recital, which names them all ("Ante el aumento de casos de Coronavirus (COVID-19) tanto en el
    País, Estado de Durango…"), is not the answer."""
    index, settings = durango
    answer = ask(index, question, k=8, settings=settings)
    quotes = [c.cited_text for c in cited(answer)]
    assert any(states in q for q in quotes), quotes
    assert not any("Ante el aumento de casos de Coronavirus" in q for q in quotes), quotes
    assert answer.coverage.relevant, answer.coverage


def test_openings_do_not_outvote_a_best_match_that_holds_no_article(durango):
    """The law's article openings rank its articles; they cannot weigh the acuerdo's points, which are no articles.
    Asked about the acuerdo, whose text the search matches best, the candidates stay the acuerdo's: the Ley del
    Periódico Oficial's arts. 7, 21, 32 and 35 (on publishing the gazette) no longer join and outrank its points."""
    index, _ = durango
    question = ("¿Con qué temperatura corporal se impide la entrada a los edificios del Poder Judicial de Durango "
                "durante la pandemia de COVID-19?")
    result = legal_search(index, question, k=8, openings=True)
    assert [h.via for h in result.hits] == ["search"] * 8
    assert {h.document.doc_type.value for h in result.hits} == {"ACUERDO"}
