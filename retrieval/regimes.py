"""Special regimes: the parts of a law that rule a special kind of what it regulates, or special cases only.

A law states its general rule once and gives parts of itself to special kinds of what it regulates ("TÍTULO XIII
Sociedad anónima europea", "TÍTULO XIV Sociedades anónimas cotizadas" of the Ley de Sociedades de Capital) or to
special cases ("Casos especiales en la tramitación inicial del juicio verbal."). Their articles repeat the general
words ("La junta general de la sociedad anónima europea deberá ser convocada…") and would answer a question about
the general rule. Read here, used by the reranker (`set_apart`: a kind the question names none of the words of ranks
after its law's other hits) and by the extractive answerer (`special_regime`, through `answers.subjects.yielding`: a
special sentence yields to a general one that says as much).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ingest.headings import division_name
from ingest.models import DocumentInfo, HeadingKind
from retrieval.law_lookup import LINKING
from retrieval.models import SearchHit
from retrieval.rerank import NAMED_VIA, article_title, names_topic, term_matches, title_words
from retrieval.text_analysis import content_terms

_NAME_WORD = re.compile(r"[^\W\d_]+")
# What a law's name says it regulates, after its type: "… el texto refundido de la Ley de Sociedades de Capital".
_LAW_MATTER = re.compile(r"\b(?:ley|c[oó]digo|reglamento|estatuto)\s+(?:(?:de|del|sobre)\s+)?([^,;(]+)", re.I)


def law_subject(doc: DocumentInfo) -> set[str]:
    """The terms of what a law's name says it regulates ("Ley de Sociedades de Capital": sociedad, capital), from its
    short title, else its title (the decree that enacts it names it last)."""
    for name in (doc.short_title, doc.title):
        found = _LAW_MATTER.findall(name or "")
        if found:
            words = [w for w in _NAME_WORD.findall(found[-1].lower()) if w not in LINKING]
            return set().union(*(content_terms(w) for w in words[:3])) if words else set()
    return set()


# How a law titles an article of rules for special cases: "Casos especiales en la tramitación inicial del juicio
# verbal.", "Documentos exigidos en casos especiales.", "Especialidades de las sociedades unipersonales públicas.",
# "Supuestos especiales de cese de administradores…"; not a kind of a thing the law names ("Impuesto Especial sobre
# Producción y Servicios", "Instrumentos especiales de información", "poder especial")
_SPECIAL_CASES = re.compile(r"(?:^|[.:]\s+)especialidad(?:es)?\b|\b(?:casos?|supuestos?|reglas|normas|procesos|"
                            r"procedimientos|r[ée]gimen|disposiciones)\s+especial(?:es)?\b", re.I)
_TITLE_SENTENCE = re.compile(r"(?<=\.)\s+(?=[A-ZÁÉÍÓÚÑ])")
_SPECIAL = content_terms("especial")


def special_cases(title: str) -> bool:
    """Is `title` (an article's) the title of rules for special cases only? Each thing it names is ("Especialidades
    del incidente de recusación en juicios verbales. Otros casos especiales."); a title that names a matter and then
    its special cases ("Consecuencias de la falta de presentación inicial. Casos especiales.") gives the general rule
    too."""
    parts = [p for p in _TITLE_SENTENCE.split(title.strip()) if p]
    return bool(parts) and all(_SPECIAL_CASES.search(p) for p in parts)


@dataclass(frozen=True)
class Regime:
    """What makes a text a special regime of its law (`name`), and where the general rule it yields to stands:
    under the headings `within` (a chunk's `heading_path` prefix; empty: anywhere in the law)."""

    name: str
    within: tuple[str, ...] = ()


def _kinds_of_subject(hit: SearchHit) -> Iterator[tuple[str, list[set[str]]]]:
    """The Títulos the hit stands in that are named by a kind of what its law regulates — the noun its name says it
    regulates (`law_subject`: sociedad), then words of its own ("Sociedad anónima europea", "Sociedades anónimas
    cotizadas") — each with the terms of its own words (anónima, europea)."""
    subject = law_subject(hit.document)
    for text, kind in zip(hit.chunk.heading_path, hit.chunk.heading_kinds) if subject else ():
        if kind is not HeadingKind.titulo:
            continue
        title = division_name(text)
        named = [w for w in _NAME_WORD.findall(title.lower()) if w not in LINKING]
        if len(named) < 2 or not content_terms(named[0]) & subject:
            continue
        own = [terms for w in named[1:] if (terms := content_terms(w) - subject)]
        if own:
            yield title, own


def set_apart(hits: Sequence[SearchHit], q_terms: set[str]) -> set[str]:
    """The chunk ids of the hits that stand in a Título of a special kind of what their law regulates
    (`_kinds_of_subject`) when the question names none of that kind's own words: asked "¿Quién convoca la junta
    general?" or about "una sociedad limitada", the Ley de Sociedades de Capital's "TÍTULO XIV Sociedades anónimas
    cotizadas" rules another kind of sociedad than the one asked about, however close its words ("Plazo de
    convocatoria de las juntas generales extraordinarias."), and the reranker ranks its hits after the other hits of
    their law, in the places that law's hits hold (`rerank.rerank`'s `apart`). A question naming any of its words
    ("una sociedad cotizada", "la sociedad anónima") may ask about it: the answerer weighs its sentences against the
    general rule (`special_regime`, all words). Not a provision the question names (`rerank.NAMED_VIA`: "el artículo
    455"), nor a hit whose article's title names the question's topic (`rerank.names_topic`: "¿Qué dispone la ley
    sobre derecho de separación de los accionistas?" asks for the SE's art. 468 by its title). `q_terms`: the terms
    of what the question asks, without the laws it names (`question_laws.topic`)."""
    out = set()
    for hit in hits:
        if hit.via in NAMED_VIA:
            continue
        if any(not any(term_matches(terms, q_terms) for terms in own) for _, own in _kinds_of_subject(hit)) \
                and names_topic(q_terms, title_words(article_title(hit.chunk))) is None:
            out.add(hit.chunk.chunk_id)
    return out


def special_regime(hit: SearchHit, q_terms: set[str]) -> Regime | None:
    """What makes the hit's text a special regime of its law, when the question does not name it; else None:
    - the Título it stands in, named by a kind of what its law regulates — the noun its name says it regulates
      (`law_subject`: sociedad), then words of its own ("Sociedad anónima europea") — unless the question names every
      one of those ("sociedad anónima" names a kind the SE is one of, not the SE): the general rule is the law's;
    - its article's title, when it titles rules for special cases only (`special_cases`: "Casos especiales en la
      tramitación inicial del juicio verbal.") and the question does not speak of special cases: the general rule
      stands in the article's division ("Del juicio verbal": art. 438). A division of special rules is none
      ("Sección 2.ª Reglas especiales para la aplicación de las penas" holds the Código Penal's rule for two or more
      offences, art. 73, which no general rule states)."""
    for title, own in _kinds_of_subject(hit):
        if not all(term_matches(terms, q_terms) for terms in own):
            return Regime(title)
    path, heading_kinds = hit.chunk.heading_path, hit.chunk.heading_kinds
    title = article_title(hit.chunk)
    if not title or not special_cases(title) or term_matches(_SPECIAL, q_terms):
        return None
    at = next((i for i, kind in enumerate(heading_kinds) if kind is HeadingKind.articulo), len(path))
    return Regime(title, tuple(path[:at]))
