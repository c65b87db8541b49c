"""Context trimming on real chunks of the Constitution: what matters stays (in order, verbatim, verifiable), a named
article is never cut, and the prompt shrinks."""

from __future__ import annotations

import functools
import re

import pytest

from ingest.chunker import chunk_document
from retrieval.answers.base import claim, sentences_of
from retrieval.answers.trim import GAP, count_tokens, trim_context
from retrieval.answers.verify import Verifier
from retrieval.models import SearchHit
from tests.ingest.parsed_cache import parsed

CPEUM = "mx_ley_CPEUM_constitucion_politica.pdf"
# Read from the PDF: art. 27, first paragraph; art. 82, the list of requirements to be President.
ART27_P1 = ("La propiedad de las tierras y aguas comprendidas dentro de los límites del territorio nacional, "
            "corresponde originariamente a la Nación")
ART82_LEAD = "Para ser Presidente se requiere:"
ART82_AGE = "Tener 35 años cumplidos al tiempo de la elección"


@functools.cache
def chunks():
    doc = parsed(CPEUM).documents[0]
    return doc.info(), chunk_document(doc, lambda text: len(text.split()), 256)


def hits_of(*articles: str, via: str = "search") -> list[SearchHit]:
    """Search-hit-shaped copies of the chunks of `articles` (in that order)."""
    info, all_chunks = chunks()
    picked = [c for key in articles for c in all_chunks if c.article == key]
    assert picked, articles
    return [SearchHit(chunk=c, document=info, score=1.0, rank=i, via=via) for i, c in enumerate(picked, 1)]


def squash(text: str) -> str:
    return " ".join(text.split())


def test_the_answering_sentence_stays_and_the_context_shrinks():
    hits = hits_of("27", "28", "3")
    question = "¿A quién corresponde originariamente la propiedad de las tierras y aguas del territorio nacional?"
    trimmed = trim_context(question, hits)
    assert any(ART27_P1 in squash(s.text) for s in trimmed.sources)
    assert trimmed.tokens_after < 0.6 * trimmed.tokens_before
    assert trimmed.tokens_before == sum(count_tokens(h.chunk.header) + count_tokens(h.chunk.text) for h in hits)
    # every chunk says something, and nothing but whole sentences of it
    for hit, source in zip(hits, trimmed.sources):
        assert source.kept and source.kept == sorted(source.kept)
        spans = sentences_of(hit.chunk)
        for i in source.kept:
            assert hit.chunk.sentence_text(spans[i]) in source.text
    # art. 3 (education) shares no term with the question: it keeps one sentence at most
    art3 = [s for h, s in zip(hits, trimmed.sources) if h.chunk.article == "3"]
    assert all(len(s.kept) == 1 for s in art3)


def test_a_named_article_is_never_trimmed():
    hits = hits_of("27", "28")
    question = "¿Qué dispone el artículo 27 de la Constitución sobre la propiedad de las tierras y aguas?"
    trimmed = trim_context(question, hits)
    for hit, source in zip(hits, trimmed.sources):
        if hit.chunk.article == "27":
            assert source.whole and source.text == hit.chunk.text
    assert any(not s.whole for h, s in zip(hits, trimmed.sources) if h.chunk.article == "28")


def test_chunks_looked_up_by_reference_are_kept_whole():
    hits = hits_of("28", via="reference")
    trimmed = trim_context("¿Qué prohíbe la Constitución sobre los monopolios?", hits)
    assert all(s.whole and s.text == h.chunk.text for h, s in zip(hits, trimmed.sources))


def test_a_list_item_keeps_the_sentence_that_announces_the_list():
    hits = hits_of("82")
    trimmed = trim_context("¿Cuántos años cumplidos hay que tener al tiempo de la elección?", hits)
    text = squash(" ".join(s.text for s in trimmed.sources))
    assert ART82_AGE in text and ART82_LEAD in text
    assert text.index(ART82_LEAD) < text.index(ART82_AGE)  # document order
    assert not all(s.whole for s in trimmed.sources)


def test_quotes_from_trimmed_text_verify_against_the_full_chunk_at_document_offsets():
    hits = hits_of("27", "123")
    question = "¿Qué dice la Constitución sobre la jornada máxima de trabajo y la propiedad de las aguas?"
    trimmed = trim_context(question, hits)
    verifier = Verifier(hits)
    checked = 0
    for hit, source in zip(hits, trimmed.sources):
        chunk = hit.chunk
        for piece in source.pieces:  # each run is a verbatim slice of the document
            run = source.text[piece.at : piece.at + piece.end - piece.start]
            assert run == chunk.text[piece.start - chunk.start : piece.end - chunk.start]
            assert source.document_offset(piece.at) == piece.start
        if source.whole:
            continue
        assert GAP.strip() in source.text
        for part in source.text.split(GAP.strip()):
            quote = part.strip()
            if len(quote) < 20:
                continue
            checked += 1
            cite = verifier.verify(claim(hit, quote))
            assert cite.verified and cite.score == 100.0
            assert chunk.text[cite.start - chunk.start : cite.end - chunk.start] == quote
            at = source.text.index(quote)
            assert source.document_offset(at) == cite.start
    assert checked >= 2
    # a quote across a gap is not verbatim: it does not verify
    cut = next(s for s in trimmed.sources if not s.whole and s.text.count(GAP.strip()) >= 1 and len(s.pieces) >= 2)
    hit = hits[trimmed.sources.index(cut)]
    a, b = cut.pieces[0], cut.pieces[1]
    across = cut.text[a.at + (a.end - a.start) - 60 : b.at + 60]
    assert not Verifier(hits).verify(claim(hit, across)).verified


@pytest.mark.parametrize("question", ["", "¿?"])
def test_a_question_without_content_terms_keeps_each_chunks_first_sentence(question):
    hits = hits_of("28")
    trimmed = trim_context(question, hits)
    assert all(s.kept == [0] for s in trimmed.sources)
    assert all(re.sub(r"\s+", " ", s.text).startswith(h.chunk.sentence_text(sentences_of(h.chunk)[0]).split("\n")[0])
               for h, s in zip(hits, trimmed.sources))
