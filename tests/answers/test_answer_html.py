"""The standalone answer page: hoverable markers, and document/model text that can never become markup."""

from __future__ import annotations

from retrieval.answers import answer_hits
from retrieval.answers.extractive import ExtractiveAnswerer
from retrieval.answers.models import Answer, Citation, Coverage, TextSegment
from gaceta.answer_html import render_answer_html
from tests.answers.factory import make_hits

HOSTILE = ('Artículo 5.- El aviso <script>alert("x")</script> deberá publicarse en el Diario Oficial '
           '<img src=x onerror=alert(1)> dentro de los diez días hábiles siguientes.')


def test_document_text_is_escaped_everywhere(embedder):
    hits = make_hits([HOSTILE], title='DECRETO <b onmouseover="alert(2)">')
    answer = answer_hits("¿Cuándo deberá publicarse el aviso en el Diario Oficial?", hits, ExtractiveAnswerer(embedder))
    assert answer.found and answer.content[0].citations[0].verified
    page = render_answer_html(answer)
    assert "<script>" not in page and "<img" not in page and "<b " not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "&lt;b onmouseover=&quot;alert(2)&quot;&gt;" in page
    assert page.count('class="tip"') == 1 and page.count('id="src-') == 1


def test_unverified_citations_are_marked_as_such():
    cite = Citation(cited_text="cita inventada", doc_id="d", document_title="T", chunk_id="d:00000", start=0,
                    end=5, pages=[2], verified=False, score=40)
    answer = Answer(question="¿?", backend="tags", content=[TextSegment(text="Afirmación.", citations=[cite])],
                    coverage=Coverage(ratio=0.0, sentences=1, cited=0, flagged=True))
    page = render_answer_html(answer)
    assert 'class="cite unverified"' in page and "[1?]" in page and "no verificada" in page
    assert 'class="cite verified"' not in page and "baja cobertura" in page
