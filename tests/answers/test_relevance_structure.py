"""The relevance flag reads the structure of the indexed laws (issue 25, `coverage.structure_reasons`): on the real
Ley de Sociedades de Capital, "¿Qué dispone la ley sobre domicilio?" answered from art. 10 ("Discordancia entre
domicilio registral y domicilio real.") is flagged — art. 9 is titled "Domicilio." — and answered from art. 9 it is
not; a question naming the article, or one no title covers, is left to the other rules."""

from __future__ import annotations

import pytest

from ingest.parse import parse_pdf
from retrieval.answers.coverage import compute_coverage, structure_reasons, titled_articles
from retrieval.answers.models import Citation, TextSegment
from retrieval.evaluation.title_questions import law_documents
from retrieval.index import Index
from retrieval.settings import Settings
from tests.conftest import SHARED

LSC = SHARED / "data" / "laws" / "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf"
DOMICILIO = "¿Qué dispone la ley sobre domicilio?"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    assert LSC.exists(), f"shared law missing: {LSC} (set GACETA_SHARED)"
    home = tmp_path_factory.mktemp("relevance-structure")
    with Index.open(Settings(home=home)) as index:
        index.add_documents(parse_pdf(LSC).documents)
        index.optimize()
        yield index


@pytest.fixture(scope="module")
def lsc_id(index) -> str:
    docs = law_documents(d for d in (index.document(e.document.doc_id) for e in index.catalog().entries) if d)
    return next(d.doc_id for d in docs if d.short_title == "Ley de Sociedades de Capital")


def citation_of(index, doc_id: str, article: str) -> Citation:
    """A verified citation of the article's first sentence of text, as the verifier leaves it."""
    chunk = index.articles(doc_id, [article])[0]
    sentence = next(s for s in chunk.sentences if not chunk.sentence_text(s).lstrip().startswith("#")
                    and "Artículo" not in chunk.sentence_text(s))
    return Citation(cited_text=chunk.sentence_text(sentence), doc_id=doc_id, document_title="LSC",
                    chunk_id=chunk.chunk_id, start=sentence.start, end=sentence.end, pages=chunk.pages,
                    verified=True, article=article)


def test_the_article_titled_what_the_question_asks_is_found(index, lsc_id):
    assert list(titled_articles(index, DOMICILIO)) == [(lsc_id, "9")]
    # the named law's own name is not the topic: "sociedades de capital" does not make art. 1 the answer
    named = "¿Qué dispone la Ley de Sociedades de Capital sobre domicilio?"
    assert list(titled_articles(index, named)) == [(lsc_id, "9")]


def test_an_answer_from_a_neighbouring_article_is_flagged_and_one_from_the_titled_article_is_not(index, lsc_id):
    miss = citation_of(index, lsc_id, "10")  # "Discordancia entre domicilio registral y domicilio real."
    hit = citation_of(index, lsc_id, "9")  # "Domicilio."
    reasons = structure_reasons(index, DOMICILIO, [miss])
    assert len(reasons) == 1 and "'Domicilio', the title of art. 9 of Ley de Sociedades de Capital" in reasons[0]
    assert structure_reasons(index, DOMICILIO, [hit]) == []
    assert structure_reasons(index, DOMICILIO, [miss, hit]) == []  # the titled article among the citations

    def coverage(c: Citation):
        text = f"Según la ley, {c.cited_text}"
        return compute_coverage([TextSegment(text=text, citations=[c])], DOMICILIO, index=index)

    flagged = coverage(miss)
    assert not flagged.relevant and "not_relevant" in flagged.flag_reasons and flagged.relevance_reasons == reasons
    assert coverage(hit).relevant
    # without the index (what a caller that has none gets) the structure is not read
    text = f"Según la ley, {miss.cited_text}"
    assert compute_coverage([TextSegment(text=text, citations=[miss])], DOMICILIO).relevance_reasons == []


def test_questions_naming_an_article_or_no_title_are_left_alone(index, lsc_id):
    from retrieval.legal_search import legal_search

    miss = citation_of(index, lsc_id, "10")
    named = "¿Qué establece el artículo 9 de la Ley de Sociedades de Capital?"
    refs = legal_search(index, named, k=5).references
    assert any(r.reference.articles for r in refs)
    assert structure_reasons(index, named, [miss], refs) == []
    # no article of the law is titled what this asks: every word of a title must be in it, covering half its terms
    free = "¿Cuál es el plazo para impugnar los acuerdos de la junta general?"
    assert titled_articles(index, free) == {}
    assert structure_reasons(index, free, [miss]) == []


def test_an_article_titled_what_the_question_asks_beyond_that_title_is_no_miss(index, lsc_id):
    """"¿En qué casos tienen los socios derecho de separación?": art. 93, "Derechos del socio.", is titled part of it;
    art. 346, "Causas legales de separación.", is titled the separación it asks about too, and answers ("…tendrán
    derecho de separación en los casos siguientes:"): not flagged. Art. 10's title holds nothing the question asks, and
    the answer citing it is."""
    question = "¿En qué casos tienen los socios derecho de separación?"
    assert list(titled_articles(index, question)) == [(lsc_id, "93")]
    assert structure_reasons(index, question, [citation_of(index, lsc_id, "346")]) == []
    assert structure_reasons(index, question, [citation_of(index, lsc_id, "10")])
