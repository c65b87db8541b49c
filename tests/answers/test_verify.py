"""Quote verification: real offsets replace the model's, hallucinations fail, unretrieved chunks are rejected."""

from __future__ import annotations

from retrieval.answers.base import claim, orphan_claim
from retrieval.answers.verify import PASS_SCORE, Verifier, align, normalize
from tests.answers.factory import make_hits

BODY = (
    "Artículo 27.- La propiedad de las tierras y   aguas\ncomprendidas dentro de los límites del territorio "
    "nacional corresponde originariamente a la Nación. La Nación tendrá en todo tiempo el derecho de imponer a la "
    "propiedad privada las modalidades que dicte el “interés público”."
)


def doc_text(hit, start, end):
    return hit.chunk.text[start - hit.chunk.start : end - hit.chunk.start]


def test_normalize_maps_every_character_back_to_the_raw_text():
    raw = "  Uno\n\n  “dos” — **tres**\u00ad "
    norm, index = normalize(raw)
    assert norm == 'uno "dos" - tres'
    assert [raw[i] for i in index][:3] == ["U", "n", "o"]
    assert raw[index[norm.index("t")]] == "t"


def test_reflowed_quote_verifies_with_the_real_span_of_the_document():
    hits = make_hits([BODY], pages_per_chunk=2)
    quote = "la propiedad de las tierras y aguas comprendidas dentro de los límites"  # whitespace re-flowed, lower case
    cit = Verifier(hits).verify(claim(hits[0], quote, 0, 3))  # the model's offsets are wrong
    assert cit.verified and cit.score >= PASS_SCORE
    assert cit.cited_text == "La propiedad de las tierras y   aguas\ncomprendidas dentro de los límites"
    assert doc_text(hits[0], cit.start, cit.end) == cit.cited_text
    assert cit.start == hits[0].chunk.start + BODY.index("La propiedad")
    assert cit.pages == [3] and cit.printed_page == "13"
    assert cit.source_index == 0


def test_curly_quotes_and_page_break_spanning_quote():
    hits = make_hits([BODY], pages_per_chunk=2)
    middle = len(BODY) // 2  # where make_hits puts the page break
    assert BODY.index("originariamente") < middle < BODY.index("imponer")
    quote = 'originariamente a la Nación. La Nación tendrá en todo tiempo el derecho de imponer a la propiedad privada las modalidades que dicte el "interés público".'
    cit = Verifier(hits).verify(claim(hits[0], quote))
    assert cit.verified and cit.score == 100.0
    assert cit.cited_text.endswith("“interés público”.")
    assert cit.pages == [3, 4] and cit.printed_page == "13"  # the span starts before the chunk's page break and ends after it


def test_exact_claimed_offsets_are_kept():
    hits = make_hits(["Primero. Segundo enunciado. Primero."])
    start = hits[0].chunk.start + len("Primero. Segundo enunciado. ")
    cit = Verifier(hits).verify(claim(hits[0], "Primero.", start, start + len("Primero.")))
    assert cit.verified and cit.start == start  # the second occurrence, as claimed, not the first


def test_hallucinated_quote_is_kept_but_never_verified():
    hits = make_hits([BODY])
    quote = "Las aguas nacionales pertenecen a los particulares que las exploten comercialmente."
    cit = Verifier(hits).verify(claim(hits[0], quote))
    assert cit is not None and not cit.verified
    assert cit.score < PASS_SCORE
    assert cit.cited_text == quote


def test_quote_longer_than_its_chunk_fails():
    hits = make_hits(["La Nación es propietaria."])
    cit = Verifier(hits).verify(claim(hits[0], "La Nación es propietaria. Y además de todo lo demás que se me ocurra."))
    assert not cit.verified


def test_citation_of_a_chunk_that_was_not_retrieved_is_rejected():
    hits = make_hits([BODY])
    assert Verifier(hits).verify(orphan_claim("chunk 99", "La propiedad de las tierras")) is None
    other = make_hits([BODY], title="OTRO DECRETO")[0]
    assert Verifier(hits).verify(claim(other, "La propiedad de las tierras")) is None


def test_align_reports_raw_offsets():
    text = "Hola,\n   “mundo”   cruel"
    al = align('mundo" cruel', text)
    assert al.score == 100.0 and text[al.start : al.end] == "mundo”   cruel"
