"""Which sentences the extractive answerer cites, on real XQuAD-es passages (each passage its own hit, the product's
default embedder): a sentence is read with the one before and the one after it, a near-tie right beside the answer is
cited with it, a short exact answer is not dismissed as noise, and a plural abbreviation ("EE. UU.") never cuts a
sentence."""

from __future__ import annotations

import json

import pytest

from ingest.sentences import sentence_spans
from retrieval.answers import answer_hits
from retrieval.answers.extractive import ExtractiveAnswerer
from retrieval.embedders import USE_V3, load_embedder
from tests.answers.factory import make_hits


@pytest.fixture(scope="module")
def xquad(eval_dir) -> dict[str, tuple[str, dict, str]]:
    """qid → (passage, its question-answer entry, article title)."""
    data = json.loads((eval_dir / "xquad_es" / "xquad.es.json").read_text(encoding="utf-8"))
    return {qa["id"]: (p["context"], qa, art["title"])
            for art in data["data"] for p in art["paragraphs"] for qa in p["qas"]}


@pytest.fixture(scope="module")
def answerer():
    return ExtractiveAnswerer(load_embedder(USE_V3))


def cited(xquad, answerer, qid):
    """The answer to the question over its own passage: (verified citations, the gold span in document offsets)."""
    passage, qa, title = xquad[qid]
    hits = make_hits([passage], title=title)
    answer = answer_hits(qa["question"], hits, answerer)
    gold = qa["answers"][0]
    start = hits[0].chunk.start + gold["answer_start"]
    cites = [c for seg in answer.content for c in seg.citations]
    assert all(c.verified for c in cites)
    return cites, (start, start + len(gold["text"]))


def holds(cites, span) -> bool:
    return any(c.start <= span[0] and span[1] <= c.end for c in cites)


@pytest.mark.parametrize("qid, answer_sentence", [
    # "Kenia ocupa un puesto bajo en el Índice de Percepción de la Corrupción…" names the subject; the next
    # sentence ("En 2012, la nación la colocó en el puesto número 139…") carries the answer.
    ("57290b21af94a219006a9fd1", "En 2012, la nación la colocó en el puesto número 139"),
    # "…Jacksonville ha sufrido huracanes…" / "El efecto más fuerte en Jacksonville fue del Huracán Dora en 1964…"
    ("572824f13acd2414000df58f", "El efecto más fuerte en Jacksonville fue del Huracán Dora"),
])
def test_the_sentence_after_the_one_that_names_the_subject_is_cited(xquad, answerer, qid, answer_sentence):
    cites, gold = cited(xquad, answerer, qid)
    assert holds(cites, gold)
    assert any(c.cited_text.startswith(answer_sentence) for c in cites)
    assert consecutive(xquad, qid, cites)  # the answer with the sentences around it, not picks across the paragraph


def test_the_sentence_before_the_one_that_echoes_the_question_is_cited(xquad, answerer):
    # "¿Qué motivó a Lutero a escribir himnos?": "Determinados acontecimientos de la vida de Lutero … evocaban con
    # frecuencia los himnos de Lutero." holds the answer; the next sentence ("Esta conducta comenzó cuando … lo cual
    # motivó a …") holds the question's verb
    cites, gold = cited(xquad, answerer, "56f8720eaef237190062608f")
    assert holds(cites, gold)
    assert cites[0].cited_text.startswith("Determinados acontecimientos de la vida de Lutero")
    assert len(cites) <= 2 and consecutive(xquad, "56f8720eaef237190062608f", cites)


def consecutive(xquad, qid, cites) -> bool:
    """Are the cited sentences one run of consecutive sentences of the passage?"""
    passage = xquad[qid][0]
    texts = [c.cited_text for c in sorted(cites, key=lambda c: c.start)]
    at = passage.index(texts[0])
    for text in texts:
        found = passage.find(text, at)
        if found < 0 or passage[at:found].strip():
            return False
        at = found + len(text)
    return True


def test_a_short_exact_answer_is_not_dismissed_as_noise(xquad, answerer):
    # "¿En qué género musical está clasificado Lindisfarne?" shares one word with its answer sentence
    cites, gold = cited(xquad, answerer, "5726847f708984140094c8ab")
    assert [c.cited_text for c in cites] == ["Lindisfarne es un grupo de folk-rock con una fuerte conexión en Tyneside."]
    assert holds(cites, gold)


@pytest.mark.parametrize("qid", [
    "572914f46aef051400154a47",  # "…el presidente de EE. UU., Barack Obama eligió no visitar el país…"
    "57115ff82419e314009555c7",  # "Las velocidades típicas son 3600 revoluciones por minuto (RPM) en EE. UU. con 60 Hertz…"
])
def test_a_plural_abbreviation_does_not_cut_the_answer_sentence(xquad, answerer, qid):
    passage, qa, _ = xquad[qid]
    gold = qa["answers"][0]
    start, end = gold["answer_start"], gold["answer_start"] + len(gold["text"])
    sentence = next(passage[a:b] for a, b in sentence_spans(passage) if a <= start < b)
    assert end <= passage.index(sentence) + len(sentence) and "EE. UU." in sentence
    cites, span = cited(xquad, answerer, qid)
    assert holds(cites, span)


def test_a_lone_roman_numeral_still_ends_a_sentence():
    text = "Las reformas se publicaron en el siglo XX. Después vino el Capítulo II. De los derechos humanos."
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "Las reformas se publicaron en el siglo XX.", "Después vino el Capítulo II.", "De los derechos humanos."]


def test_a_sentence_a_blank_line_broke_is_cited_whole_and_bounded(answerer):
    """The First Circuit's "the Chapel's appeal is" / "dismissed without prejudice…" (a blank line inside one
    sentence, as the PDF's text has it) is cited as one sentence; a run of lower-case units after a sentence that
    never ends is cut at `extractive.MAX_SPAN_CHARS`."""
    from retrieval.answers.extractive import MAX_SPAN_CHARS

    broken = ("For the reasons elucidated above, the Chapel's appeal is\n\n"
              "dismissed without prejudice for lack of appellate jurisdiction. The parties shall bear their own costs.")
    answer = answer_hits("How did the court resolve the Chapel's appeal?", make_hits([broken]), answerer)
    first = [c for seg in answer.content for c in seg.citations][0]
    assert first.verified and first.cited_text.endswith("for lack of appellate jurisdiction."), first.cited_text

    endless = "the Chapel's appeal is pending before the court and\n\n" + "\n\n".join(
        f"still more words about the appeal number {i} without an end" for i in range(60))
    answer = answer_hits("How did the court resolve the Chapel's appeal?", make_hits([endless]), answerer)
    cites = [c for seg in answer.content for c in seg.citations]
    assert cites and all(c.verified and len(c.cited_text) <= MAX_SPAN_CHARS for c in cites), \
        [len(c.cited_text) for c in cites]
