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


LONG_TITLE = "Ley de Amparo, Reglamentaria de los Artículos 103 y 107 de la Constitución <i>"


def _labelled_answer() -> Answer:
    from ingest.models import AmendmentKind, AmendmentNote, LegalReference
    from retrieval.models import ResolvedReference

    hits = make_hits(["Artículo 17.- El plazo para presentar la demanda de amparo es de quince días."],
                     title=LONG_TITLE)
    hit = hits[0]
    hit.document.short_title = "Ley de Amparo <i>"
    hit.chunk.heading_path = ["DECRETO", "## TÍTULO PRIMERO", "Última Reforma DOF 14-06-2024", "CAPÍTULO I <b>",
                              "Ley de Amparo <i>", "Artículo 17.-"]
    note = AmendmentNote(kind=AmendmentKind.reformado, target="párrafo", text="Párrafo reformado DOF 06-01-1992 <u>",
                         start=hit.chunk.end, end=hit.chunk.end + 10, article="17")
    labelled = Citation(cited_text=hit.chunk.text, doc_id=hit.chunk.doc_id, document_title="Ley de Amparo <i>",
                        chunk_id=hit.chunk.chunk_id, start=hit.chunk.start, end=hit.chunk.end, pages=[9],
                        verified=True, score=100, source_index=0, label="Ley de Amparo <i>, art. 17, párr. 1, p. 9",
                        article="17", paragraph=1, notes=[note])
    bare = Citation(cited_text="otra cita", doc_id="d", document_title="DECRETO de prueba", chunk_id="d:00001",
                    start=0, end=9, pages=[4, 5], verified=True, score=99)
    ref = ResolvedReference(reference=LegalReference(text="artículo 17 de la Ley de Amparo", articles=["17"],
                                                     law="Ley de Amparo"),
                            doc_ids=[hit.chunk.doc_id], titles=[LONG_TITLE], resolved=True, chunks=1)
    law_only = ResolvedReference(reference=LegalReference(text="Ley de Amparo", law="Ley de Amparo"),
                                 doc_ids=[hit.chunk.doc_id], titles=[LONG_TITLE], resolved=True)
    missing = ResolvedReference(reference=LegalReference(text="art. 5 de la LFT", articles=["5"], law="LFT"))
    return Answer(question="¿Plazo de la demanda?", backend="extractive", sources=hits,
                  content=[TextSegment(text="El plazo es de quince días.", citations=[labelled, bare])],
                  coverage=Coverage(ratio=1.0, sentences=1, cited=1), references=[ref, law_only, missing])


def test_citations_read_as_a_lawyer_cites_them_with_their_amendment_notes():
    page = render_answer_html(_labelled_answer())
    sources = page.split('<ol class="sources">', 1)[1]
    first, second = sources.split('<li id="src-2">')
    # The label, escaped; the note after the quote, small and dim; no raw title + page for a labelled citation.
    assert "<strong>Ley de Amparo &lt;i&gt;, art. 17, párr. 1, p. 9</strong>" in first
    note = '<ul class="notes"><li>Párrafo reformado DOF 06-01-1992 &lt;u&gt;</li></ul>'
    assert first.index("<blockquote>") < first.index(note)
    # The hover tip names the citation the same way and carries the note.
    answer_text = page.split('<div class="answer">', 1)[1].split("</div>")[0]
    assert "↳ Párrafo reformado DOF 06-01-1992 &lt;u&gt;" in answer_text
    assert "— Ley de Amparo &lt;i&gt;, art. 17, párr. 1, p. 9 · cita verificada" in page
    # No label: the title and the pages.
    assert "<strong>DECRETO de prueba, pp. 4-5</strong>" in second and 'class="notes"' not in second
    assert "<u>" not in page and "<i>" not in page


def test_breadcrumb_is_plain_headings_and_references_are_understood():
    page = render_answer_html(_labelled_answer())
    # No Markdown marks, no running header, no bare "DECRETO", not the document's name again, no trailing ".-";
    # markup escaped.
    assert '<div class="crumbs">TÍTULO PRIMERO › CAPÍTULO I &lt;b&gt; › Artículo 17</div>' in page
    assert "##" not in page and "Última Reforma" not in page
    # Above the answer: what the question named (by the law's short name), once per law, and what is missing.
    understood = page.split('<p class="understood">', 1)[1].split("</p>", 1)[0]
    assert page.index('<p class="understood">') < page.index('<div class="answer">')
    assert understood == ("<span>Entendido:</span> art. 17 de Ley de Amparo &lt;i&gt;; "
                          "art. 5 de «LFT» (no está en el índice)")


def test_a_law_found_in_two_versions_is_named_once():
    """An article looked up in the two versions of a law the index holds resolves to both documents, one name."""
    from gaceta.answer_html import reference_text
    from ingest.models import LegalReference
    from retrieval.models import ResolvedReference

    both = ResolvedReference(reference=LegalReference(text="artículo 7o. de la Ley de Amparo", articles=["7"],
                                                      law="Ley de Amparo"),
                             doc_ids=["new-000", "old-000"], titles=[LONG_TITLE, LONG_TITLE], resolved=True)
    assert reference_text(both, {"new-000": "Ley de Amparo", "old-000": "Ley de Amparo"}) == "art. 7 de Ley de Amparo"
    # only the version in force among the sources: the other, of the same title, is named by its short title too
    assert reference_text(both, {"new-000": "Ley de Amparo"}) == "art. 7 de Ley de Amparo"
    assert reference_text(both) == f"art. 7 de {LONG_TITLE}"


def test_no_understood_line_without_references(embedder):
    hits = make_hits([HOSTILE])
    answer = answer_hits("¿Cuándo deberá publicarse el aviso?", hits, ExtractiveAnswerer(embedder))
    assert 'class="understood"' not in render_answer_html(answer)


def test_support_and_relevance_are_shown_and_escaped():
    from retrieval.answers.support import Support, SupportJudgement

    cite = Citation(cited_text="El plazo es de quince días.", doc_id="d", document_title="T", chunk_id="d:00000",
                    start=0, end=27, pages=[2], verified=True, score=100, label="Ley de Amparo, art. 17")
    seg = TextSegment(text="El plazo es de 30 días <b>hábiles</b>.", citations=[cite],
                      support=SupportJudgement(label=Support.unsupported, score=0.1, missing=["30"]))
    answer = Answer(question="¿Cuál es la capital de Australia?", backend="tags", content=[seg],
                    coverage=Coverage(ratio=1.0, sentences=1, cited=1, unsupported=[seg.text], relevant=False,
                                      relevance=0.05, flagged=True, flag_reasons=["unsupported", "not_relevant"]))
    page = render_answer_html(answer)
    assert '<span class="support unsupported" title="su cita no respalda esta oración">' in page
    assert "&lt;b&gt;hábiles&lt;/b&gt;" in page and "<b>hábiles" not in page
    assert "0 de 1 oración respaldada por el texto citado, 1 sin respaldo" in page and "redactada por un modelo" in page
    assert "backend" not in page and "relevancia" not in page
    assert "las fuentes citadas no parecen tratar lo que se pregunta" in page
    assert "baja cobertura" not in page  # every sentence cites a verified span: the flag is for other reasons


def test_a_quote_the_answer_already_says_is_not_printed_twice(embedder):
    hits = make_hits([HOSTILE])
    answer = answer_hits("¿Cuándo deberá publicarse el aviso en el Diario Oficial?", hits, ExtractiveAnswerer(embedder))
    cite = answer.content[0].citations[0]
    assert cite.verified and " ".join(cite.cited_text.split()) in " ".join(answer.content[0].text.split())
    page = render_answer_html(answer)
    sources = page.split('<ol class="sources">', 1)[1]
    assert "<blockquote>" not in sources  # the extractive sentence is its own quote
    assert "de 1 oración respaldada por el texto citado" in page and "respuesta extractiva" in page
