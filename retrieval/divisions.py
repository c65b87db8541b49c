"""Where a law regulates a matter: the divisions of its body (LIBRO, TÍTULO, CAPÍTULO, SECCIÓN) named by it.

    asks_where("¿Dónde regula la Ley de Amparo la suspensión del acto reclamado?")          # True
    matching(query, spans, index.divisions(doc_id))   # its Secciones "Suspensión del Acto Reclamado": arts. 125–169
                                                      # (amparo indirecto) and 190–191 (amparo directo)

A lawyer asks where a law regulates something ("¿Dónde…?", "¿Qué artículos…?", "¿En qué capítulo…?"), and the law
answers in its own structure: the division whose name is the matter. Each division keeps its name
(`ingest.headings.names_division`) and each chunk the divisions it stands in (`Chunk.heading_path`), so a law's
outline is read from its chunks' fields (`Index.divisions`). The search leads with the first article of each
division found, and the answer names the divisions and the articles they hold (`retrieval.labels.division`). A
question whose matter no division's name holds is answered as any other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ingest.headings import division_name, fold
from ingest.models import DIVISIONS
from retrieval.models import Division
from retrieval.rerank import term_matches
from retrieval.text_analysis import analyze, content_terms, detect_languages

MAX_DIVISIONS = 3  # divisions an answer names (a matter a law regulates in several places: each)

# The question asks where the law regulates something, not where something happens ("¿Dónde se presenta la
# demanda?", "¿dónde se ubica el parque?"): "dónde" with a verb of regulating, the articles (plural) or a division
# asked for ("¿En qué capítulo…?", "¿Qué título del Código…?"; not "¿Qué títulos llevan aparejada ejecución?", "¿Qué
# parte del beneficio…?").
_WHERE = re.compile(
    r"\b(?:donde\s+(?:se\s+|lo\s+|la\s+|los\s+|las\s+)?(?:regul|trat|establec|contempl|prev|recog|norm|abord)\w*"
    r"|donde\s+(?:esta|estan)\s+(?:regulad|previst|contemplad|establecid|normad|recogid)\w*"
    r"|(?:que|cuales)\s+(?:articulos|preceptos)\b"
    r"|en\s+que\s+(?:libro|titulo|capitulo|seccion)\b"
    r"|que\s+(?:libros?|titulos?|capitulos?|seccion|secciones)\s+(?:de|del)\b"
    r"|where\s+(?:does|do|is|are)\b|which\s+(?:articles|chapters?|sections?)\b)")
# The words of such a question that are no part of its matter.
_WHERE_TERMS = frozenset(analyze(
    "regula regulan regulado regulada regulados reguladas trata tratan refiere refieren contempla contemplan prevé "
    "prevén previsto prevista previstos previstas establece establecen establecido establecida recoge recogen "
    "norma normado aborda abordan ubica encuentra encuentran ley artículo artículos precepto preceptos capítulo "
    "capítulos título títulos sección secciones libro libros parte partes", ("spanish",)) + analyze(
    "regulate regulates regulated deal deals dealt address addresses govern governs cover covers law article "
    "articles chapter chapters section sections title titles part parts", ("english",)))
# The kind of what is asked about, which a division's name may leave implicit ("el delito de estafa": "De las
# estafas"; "los delitos" of the Ley de Amparo: "CAPÍTULO III Delitos").
_KIND_TERMS = frozenset(analyze("delito delitos", ("spanish",))
                        + analyze("offence offences crime crimes", ("english",)))


# The kind of division a question asks for ("¿En qué título…?", "¿Qué capítulo del Código…?", "Which chapter…"): the
# label its divisions' names begin with, folded.
_ASKED_KIND = re.compile(r"\b(?:que|cual|which|what)\s+(libro|titulo|capitulo|seccion|chapter|section)s?\b")
_SPANISH_LABEL = {"chapter": "capitulo", "section": "seccion"}


def asks_where(query: str) -> bool:
    """Does the question ask where a law regulates something (its articles, its division)?"""
    return bool(_WHERE.search(fold(query).lower()))


def outline(doc_id: str, law: str, payloads: Iterable[dict[str, Any]]) -> list[Division]:
    """The divisions of one document's body, in order, from its chunks' `index`, `article`, `pages`, `heading_path`
    and `heading_kinds` fields: each with the articles and pages of the chunks that stand in it."""
    found: dict[tuple[str, ...], Division] = {}
    for p in sorted(payloads, key=lambda p: p["index"]):
        path = [text for text, kind in zip(p.get("heading_path", []), p.get("heading_kinds", [])) if kind in DIVISIONS]
        article, pages = p.get("article"), p.get("pages") or [0]
        for depth in range(1, len(path) + 1):
            key = tuple(path[:depth])
            division = found.get(key)
            if division is None:
                division = found[key] = Division(doc_id=doc_id, law=law, path=list(key), name=division_name(key[-1]),
                                                 page=pages[0])
            if article:
                division.first_article = division.first_article or article
                division.last_article = article
    return list(found.values())


def matching(query: str, spans: Sequence[tuple[int, int]], divisions: Sequence[Division]) -> list[Division]:
    """The divisions whose names hold every word of the matter the query asks about (the query less the spans of the
    laws it names and the words of asking where): those whose names hold the largest share of it, outermost first
    (a TÍTULO "Del juicio verbal" and not each of its chapters), at most MAX_DIVISIONS. When no name holds it all,
    the words a division's name may leave implicit are let go, one kind after the other: the law's own name (the Ley
    de Amparo's "CAPÍTULO VII Improcedencia" regulates "la improcedencia del amparo", the LSC's "CAPÍTULO I La
    disolución" "la disolución de la sociedad"), then the kind of the thing (a code names the division by the offence:
    "De las estafas" for "el delito de estafa"). A query asking for a kind of division ("¿En qué título…?", "Which
    chapter…") is answered by divisions of that kind when one of them holds the matter. None when no name holds what
    is left, or the query asks about no matter."""
    kept, last = [], 0
    for start, end in sorted(spans):
        kept.append(query[last:start])
        last = max(last, end)
    asked = content_terms(" ".join([*kept, query[last:]])) - _WHERE_TERMS
    languages = detect_languages(query)  # names read as the question is: "Ley de Sociedades de Capital" has no accent
    divisions = [d for d in divisions if d.first_article]
    # not by a subsección of another título that repeats the matter's name ("Cuentas anuales" of the cotizadas)
    kind = _ASKED_KIND.search(fold(query).lower())
    if kind is not None:
        label = _SPANISH_LABEL.get(kind.group(1), kind.group(1))
        found = _holding(asked, [d for d in divisions if fold(d.path[-1]).lower().startswith(label)], languages)
        if found:
            return found
    return _holding(asked, divisions, languages)


def _holding(asked: set[str], divisions: Sequence[Division], languages) -> list[Division]:
    """`matching`'s choice among `divisions`, for the matter's terms `asked`."""
    names = [set(analyze(d.name, languages)) for d in divisions]
    laws = {law: set(analyze(law, languages)) for law in {d.law for d in divisions}}
    for relaxed in range(3):
        scored = []
        for division, name in zip(divisions, names):
            matter = asked
            if relaxed >= 1:
                matter = matter - set(term_matches(matter, laws[division.law]))
            if relaxed >= 2:
                matter = matter - _KIND_TERMS
            if matter and set(term_matches(matter, name)) == matter:  # "sociedad(es)"
                scored.append((len(matter) / len(name), division))
        if scored:
            return _best(scored)
    return []


def _best(scored: list[tuple[float, Division]]) -> list[Division]:
    best = max(score for score, _ in scored)
    chosen: list[Division] = []
    for _, division in sorted((sd for sd in scored if sd[0] == best), key=lambda sd: len(sd[1].path)):
        if not any(division.path[:len(c.path)] == c.path for c in chosen):  # not inside one already named
            chosen.append(division)
    return sorted(chosen, key=lambda d: d.page)[:MAX_DIVISIONS]
