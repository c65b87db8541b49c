"""Coverage: sentences (≥ 5 words) cited to a verified span, backed by what they cite, relevant to the question."""

from __future__ import annotations

from retrieval.answers.coverage import compute_coverage
from retrieval.answers.models import Citation, TextSegment
from retrieval.answers.support import Support

ART_27 = ("La propiedad de las tierras y aguas comprendidas dentro de los límites del territorio nacional, corresponde "
          "originariamente a la Nación, la cual ha tenido y tiene el derecho de transmitir el dominio de ellas a los "
          "particulares, constituyendo la propiedad privada.")
ART_27_LABEL = "Constitución Política de los Estados Unidos Mexicanos, art. 27, párr. 1, p. 33"


def cite(verified: bool, text: str = ART_27, label: str = ART_27_LABEL) -> Citation:
    return Citation(cited_text=text, doc_id="d", document_title="t", chunk_id="d:00000", start=0, end=len(text),
                    pages=[1], verified=verified, label=label)


def test_backed_unbacked_and_short_sentences():
    content = [
        TextSegment(text="En resumen: "),  # a connector, under 5 words
        TextSegment(text="La Nación es la propietaria originaria de las tierras.", citations=[cite(True)]),
        TextSegment(text=" Además, el Congreso puede expropiar cualquier bien sin indemnización alguna."),
        TextSegment(text=" El plazo es de treinta días naturales.", citations=[cite(False)]),
    ]
    cov = compute_coverage(content)
    assert (cov.sentences, cov.cited) == (3, 1)
    assert cov.ratio == round(1 / 3, 4) and cov.flagged and "uncited" in cov.flag_reasons
    assert cov.uncited == [
        "Además, el Congreso puede expropiar cualquier bien sin indemnización alguna.",
        "El plazo es de treinta días naturales.",
    ]
    assert content[1].support is not None and content[0].support is None and content[3].support is None


def test_sentence_partly_inside_a_cited_segment_counts_as_backed():
    content = [
        TextSegment(text="Según el artículo 27, "),
        TextSegment(text="la propiedad de las tierras y aguas corresponde originariamente a la Nación",
                    citations=[cite(True)]),
        TextSegment(text=". Fin."),
    ]
    cov = compute_coverage(content, "¿A quién corresponde la propiedad de las tierras y aguas?")
    assert (cov.sentences, cov.cited, cov.ratio, cov.flagged) == (1, 1, 1.0, False)
    assert cov.supported == 1 and cov.relevant
    assert content[1].support.label is Support.supported


def test_a_cited_sentence_its_quote_does_not_state_is_unsupported_and_flagged():
    # A real span cited for something it does not say: covered by a citation, not backed by it.
    sentence = "El plazo para interponer el amparo es de 15 días hábiles contados desde la notificación."
    content = [TextSegment(text=sentence, citations=[cite(True)])]
    cov = compute_coverage(content)
    assert cov.cited == 1 and cov.ratio == 1.0
    assert cov.unsupported == [sentence] and cov.supported == 0
    assert cov.flagged and cov.flag_reasons == ["unsupported"]
    assert content[0].support.label is Support.unsupported


def test_sources_that_do_not_address_the_question_flag_the_answer():
    content = [TextSegment(text=ART_27, citations=[cite(True)])]
    cov = compute_coverage(content, "¿Cuántos días de vacaciones tiene un trabajador con un año de servicio?")
    assert cov.supported == 1 and not cov.relevant
    assert cov.flagged and cov.flag_reasons == ["not_relevant"]
    assert compute_coverage(content, "¿Qué dice el artículo 27 de la Constitución sobre la propiedad?").relevant


def test_no_claims_is_not_flagged():
    cov = compute_coverage([TextSegment(text="Sí. No.")])
    assert cov.sentences == 0 and not cov.flagged and cov.flag_reasons == []
