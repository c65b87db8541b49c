"""Coverage: share of answer sentences (≥ 5 words) backed by a verified citation."""

from __future__ import annotations

from retrieval.answers.coverage import compute_coverage
from retrieval.answers.models import Citation, TextSegment


def cite(verified: bool) -> Citation:
    return Citation(cited_text="x", doc_id="d", document_title="t", chunk_id="d:00000", start=0, end=1, pages=[1],
                    verified=verified)


def test_backed_unbacked_and_short_sentences():
    content = [
        TextSegment(text="En resumen: "),  # a connector, under 5 words
        TextSegment(text="La Nación es la propietaria originaria de las tierras.", citations=[cite(True)]),
        TextSegment(text=" Además, el Congreso puede expropiar cualquier bien sin indemnización alguna."),
        TextSegment(text=" El plazo es de treinta días naturales.", citations=[cite(False)]),
    ]
    cov = compute_coverage(content)
    assert (cov.sentences, cov.cited) == (3, 1)
    assert cov.ratio == round(1 / 3, 4) and cov.flagged
    assert cov.uncited == [
        "Además, el Congreso puede expropiar cualquier bien sin indemnización alguna.",
        "El plazo es de treinta días naturales.",
    ]


def test_sentence_partly_inside_a_cited_segment_counts_as_backed():
    content = [
        TextSegment(text="Según el decreto, "),
        TextSegment(text="la propiedad corresponde originariamente a la Nación", citations=[cite(True)]),
        TextSegment(text=". Fin."),
    ]
    cov = compute_coverage(content)
    assert (cov.sentences, cov.cited, cov.ratio, cov.flagged) == (1, 1, 1.0, False)


def test_no_claims_is_not_flagged():
    cov = compute_coverage([TextSegment(text="Sí. No.")])
    assert cov.sentences == 0 and not cov.flagged
