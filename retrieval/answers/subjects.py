"""Another subject: a sentence that holds the question's words but speaks of something else.

A sentence can share every word of the question and still not answer it, because the words name another thing of
the same kind. The extractive answerer scores such a sentence 0 (its words are not the question's there), and each
way a text says "this is another subject" is read here:
- **another kind** of a noun the question names a kind of ("el recurso de reclamación"): "El recurso de
  inconformidad procede contra la resolución que:" speaks of another remedy (`other_kinds`), read in the divisions
  a sentence stands in when it names no kind itself ("Sección Segunda Recurso de Queja");
- **another office** whose requirements an article states ("Para ser diputado se requiere:" is no answer to "¿Qué edad
  se requiere para ser Presidente?": `text_analysis.offices`, `office_of`);
- **a special regime** of the law ("TÍTULO XIII Sociedad anónima europea" of the Ley de Sociedades de Capital; an
  article titled "Casos especiales en la tramitación inicial del juicio verbal.": `retrieval.regimes`), whose sentence
  yields to a sentence of the law's general rule that holds as much of the question (`yielding`);
- **another form** of the kind's word ("el acto reclamado" for the "recurso de reclamación"), which holds the term only
  weakly (`other_forms`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from ingest.models import Sentence
from retrieval.models import SearchHit
from retrieval.regimes import special_regime
from retrieval.rerank import article_title, division_names, names_topic, term_matches, title_words
from retrieval.text_analysis import kind_words, kinds, normalize, offices


class Quoted(Protocol):
    """A candidate sentence: the hit it lies in, its text and its span in the hit's chunk."""

    hit: SearchHit
    text: str
    span: Sentence


def other_subjects(asked_topic: str, question: str, q_terms: set[str], quoted: Sequence[Quoted]) -> list[set[str]]:
    """For each sentence, the question's terms that name another subject there: a kind of a noun the question names
    (`other_kinds`) or the office whose requirements it asks for (`office_of`) that the sentence names as another."""
    chunks = {q.hit.chunk.chunk_id: q.hit.chunk for q in quoted}  # each chunk read once, whatever its sentences
    asked = {t: k for t, k in kinds(asked_topic).items() if t in q_terms}
    places = {chunk_id: kinds(" ; ".join(division_names(chunk))) for chunk_id, chunk in chunks.items()} \
        if asked else {}
    other = [other_kinds(asked, q.text, places.get(q.hit.chunk.chunk_id, {})) for q in quoted]
    asked_office = {term for _, term in offices(question)[:1]}
    if not asked_office:
        return other
    named = {chunk_id: offices(chunk.text) for chunk_id, chunk in chunks.items()}
    for i, q in enumerate(quoted):
        office = office_of(q.hit.chunk.text, q.span.end, named[q.hit.chunk.chunk_id])
        if office is not None and not term_matches(asked_office, office):
            other[i] = other[i] | asked_office
    return other


def other_kinds(asked: dict[str, set[str]], text: str, placed: dict[str, set[str]] | None = None) -> set[str]:
    """The nouns the question names a kind of (`asked`: `text_analysis.kinds`) that a sentence names as another
    kind only: asked about the "recurso de reclamación", "El recurso de inconformidad procede…" speaks of another
    remedy, and its "recurso" is not the question's. A sentence that names the asked kind anywhere may list it among
    others ("bajo la influencia de drogas tóxicas … o de bebidas alcohólicas") and is not read so; the kind's word
    in another use ("el acto reclamado") does not name it. A sentence that names no kind of the noun is read in the
    divisions it stands in (`placed`: the kinds their names name): under "Sección Segunda Recurso de Queja", "En caso
    de resultar fundado el recurso…" speaks of the queja."""
    if not asked:
        return set()
    named = kinds(text)
    if not named.keys() & asked.keys():
        named = placed or {}
    if not named.keys() & asked.keys():
        return set()
    listed = set().union(*named.values())
    return {t for t, wanted in asked.items() if t in named and not listed & wanted}


def office_of(chunk_text: str, end: int, named: list[tuple[int, str]]) -> set[str] | None:
    """The offices the requirements a sentence (ending at `end` in its chunk's text) states are for: the first
    named in the last sentence of its chunk, up to itself, that names one, with those named together with it ("Para
    ser senador se requieren los mismos requisitos que para ser diputado…" is about the senador; a fraction under
    "Para ser diputado se requiere:" about the diputado; under "Para ser electo Magistrada o Magistrado de Circuito,
    así como Jueza o Juez de Distrito…" about both). `named`: the offices its chunk names (`text_analysis.offices`)."""
    before = chunk_text[:end]
    found = [(at, term) for at, term in named if at < end]
    if not found:
        return None
    last = found[-1][0]
    start = max(before.rfind(".", 0, last), before.rfind(":", 0, last), before.rfind("\n\n", 0, last))
    first = next(at for at, _ in found if at > start)
    return {term for at, term in found if at == first}


def yielding(quoted: Sequence[Quoted], held: Sequence[set[str]], q_terms: set[str]) -> list[str | None]:
    """For each sentence, the name of its special regime (`special_regime`) when a sentence of the same law outside
    any, standing where the regime's general rule stands (`Regime.within`), holds every question term it holds
    (`held`: in the sentence, its article's title or its divisions' names), else None. Not for one whose article's
    title names the question's topic (`rerank.names_topic`: "¿Qué dispone la ley sobre derecho de separación de los
    accionistas?" asks for the SE's art. 468 by its title)."""
    hits = {q.hit.chunk.chunk_id: q.hit for q in quoted}
    regimes = {chunk_id: special_regime(hit, q_terms) for chunk_id, hit in hits.items()}
    if not any(regimes.values()):
        return [None] * len(quoted)
    titled = {chunk_id for chunk_id, hit in hits.items()
              if regimes[chunk_id] and names_topic(q_terms, title_words(article_title(hit.chunk))) is not None}
    general: dict[str, list[tuple[set[str], tuple[str, ...]]]] = {}
    for q, terms in zip(quoted, held):
        if not regimes[q.hit.chunk.chunk_id] and terms:
            general.setdefault(q.hit.document.doc_id, []).append((terms, tuple(q.hit.chunk.heading_path)))
    out: list[str | None] = []
    for q, terms in zip(quoted, held):
        regime = regimes[q.hit.chunk.chunk_id]
        yields = (regime is not None and bool(terms) and q.hit.chunk.chunk_id not in titled
                  and any(rule >= terms and path[:len(regime.within)] == regime.within
                          for rule, path in general.get(q.hit.document.doc_id, ())))
        out.append(regime.name if yields else None)
    return out


def other_forms(asked_topic: str, q_terms: set[str], quoted: Sequence[Quoted]) -> list[set[str]]:
    """For each sentence, the question's kind terms it holds only in another word of their family: the kind is named
    by its own word ("recurso de reclamación"), and "Al reclamarse la sentencia", "el acto reclamado" hold another
    form of it."""
    names = {t: words for t, words in kind_words(asked_topic).items() if t in q_terms}
    if not names:
        return [set() for _ in quoted]
    return [{t for t, words in names.items() if not _holds_word(q.text, words)} for q in quoted]


def _holds_word(text: str, words: set[str]) -> bool:
    """Whether `text` holds one of the folded `words`, singular or plural."""
    return any(w in words or w[:-1] in words or w[:-2] in words for w in re.findall(r"\w+", normalize(text)))
