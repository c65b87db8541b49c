"""The title-question set (issue 22, item 5) built from the real Ley de Sociedades de Capital — a texto refundido
annexed to a Real Decreto Legislativo — and the Código Penal: free-form questions from article titles, named-article
questions over the whole outline, gold spans that are the article's text and never its title line."""

from __future__ import annotations

import re

import pymupdf
import pytest

from ingest.chunker import chunk_document
from ingest.models import ProvisionRole
from ingest.parse import parse_pdf
from retrieval.embedders import load_embedder
from retrieval.evaluation.title_questions import article_spans, law_documents, questions, sample
from retrieval.labels import of_the
from retrieval.settings import Settings
from tests.conftest import SHARED

LAWS = SHARED / "data" / "laws"
LSC = LAWS / "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf"
CP = LAWS / "boe_consolidado_BOE-A-1995-25444_codigo_penal.pdf"


@pytest.fixture(scope="module")
def counter():
    embedder = load_embedder(Settings(_env_file=None).embedding_model)
    return embedder.count_tokens, embedder.max_tokens


def parsed(path, counter):
    assert path.exists(), f"shared law missing: {path} (set GACETA_SHARED)"
    docs = law_documents(parse_pdf(path).documents)
    assert len(docs) == 1, [d.title for d in docs]
    return docs[0], chunk_document(docs[0], *counter)


@pytest.fixture(scope="module")
def lsc(counter):
    return parsed(LSC, counter)


@pytest.fixture(scope="module")
def lsc_questions(lsc):
    return questions(*lsc)


def test_the_annexed_law_not_its_decree_is_asked_about(lsc):
    doc, _ = lsc
    assert doc.short_title == "Ley de Sociedades de Capital"


def test_a_titled_article_becomes_a_free_form_question_with_the_article_as_gold(lsc_questions):
    by_text = {q.question: q for q in lsc_questions}
    q = by_text["¿Qué dispone la ley sobre capital social mínimo?"]
    assert q.gold == ["4"] and q.spans[0].heading == "Artículo 4. Capital social mínimo."
    named_law = by_text["¿Qué dispone la Ley de Sociedades de Capital sobre capital social mínimo?"]
    assert named_law.gold == ["4"] and named_law.set == "title_law"
    # hundreds of questions nobody wrote, one per distinct title
    titles = [q for q in lsc_questions if q.set == "title"]
    assert len(titles) >= 400 and len({q.question for q in titles}) == len(titles)


def test_a_title_several_articles_share_has_each_of_them_as_gold(lsc_questions):
    shared = [q for q in lsc_questions if q.set == "title" and len(q.gold) > 1]
    assert shared, "the LSC repeats titles (e.g. 'Publicación.')"
    for q in shared:
        assert len({s.title.lower().rstrip(".") for s in q.spans}) == 1


def test_every_article_of_the_outline_is_named_once_and_repealed_ones_are_not(lsc, lsc_questions):
    doc, chunks = lsc
    named = [q for q in lsc_questions if q.set == "named"]
    text_articles = {c.article for c in chunks if c.article and c.role is ProvisionRole.text}
    assert {q.gold[0] for q in named} <= text_articles and len(named) == len({q.gold[0] for q in named})
    # independent of our parser: the articles of the PDF's own outline ("Artículo 4 bis. Sociedades en …")
    with pymupdf.open(LSC) as pdf:
        outline = [m.group(1) for _, entry, _ in pdf.get_toc()
                   if (m := re.match(r"Artículo\s+(\d+(?:\s[^\W\d]+)?)\.\s*(.+)", entry))
                   and "derogado" not in m.group(2).lower() and "sin contenido" not in m.group(2).lower()]
    asked = [q.question.split("artículo ")[1].split(" de la ")[0] for q in named]
    assert len(set(asked) - set(outline)) <= 2, set(asked) - set(outline)  # the outline itself misses a few
    # left out: repealed articles (the outline keeps their titles; their text says "(Derogado)") and, for now, the
    # 24 articles ingest does not type as articles ("527 sexies" … "529 tervicies")
    assert len(asked) >= 0.9 * len(outline), sorted(set(outline) - set(asked), key=len)[:20]
    assert named[3].question == "¿Qué establece el artículo 4 de la Ley de Sociedades de Capital?"


def test_a_quote_of_the_title_line_is_not_in_the_article_its_text_is(lsc):
    doc, chunks = lsc
    art4 = next(s for s in article_spans(doc, chunks) if s.key == "4")
    body = doc.markdown[art4.body_start:art4.end]
    sentence = "El capital social de la sociedad anónima no podrá ser inferior a sesenta mil euros"
    at = art4.body_start + body.index(sentence)
    assert art4.holds(doc.doc_id, at, at + len(sentence))
    title = art4.start + doc.markdown[art4.start:art4.body_start].index("Capital social mínimo.")
    assert not art4.holds(doc.doc_id, title, title + len("Capital social mínimo."))
    assert not art4.holds("another-doc", at, at + len(sentence))


def test_the_codigo_penal_titles_no_article_so_only_named_questions(counter):
    doc, chunks = parsed(CP, counter)
    qs = questions(doc, chunks)
    assert qs and {q.set for q in qs} == {"named"}
    assert qs[0].question == "¿Qué establece el artículo 1 del Código Penal?"


def test_law_names_take_their_article():
    assert of_the("Código Penal") == "del Código Penal"
    assert of_the("Ley de Enjuiciamiento Civil") == "de la Ley de Enjuiciamiento Civil"


def test_a_sample_spreads_over_the_whole_law():
    picked = sample(list(range(100)), 10)
    assert picked == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90] and sample([1, 2], 5) == [1, 2]
