"""Answers to "what did the reform change in article N?" (issue 24): both versions quoted, each cited to its own.

A question that asks what changed ("¿Qué cambió en el artículo 17 de la Ley de Amparo con la reforma de 2025?",
"¿cómo se modificó…?", "antes y después") and names one article of a law the index holds in several versions is
answered from `retrieval.article_history.article_diff`: the sources are the article's chunks in both versions (the
version before the one in force on the day asked about, default today, and that one); the extractive answer says
whether the article changed between the two dates and quotes the sentences whose wording differs — first as the
earlier text had them, then as the later one has them — each citation verified against its own version like any
other (`retrieval.answers.verify`). An LLM backend gets the same two-version sources and writes its own answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ingest.headings import fold
from retrieval import labels
from retrieval.answers.base import Draft, DraftEvent, claim, replay, sentences_of
from retrieval.answers.models import TextSegment
from retrieval.article_history import ArticleDiff, HistoryError, article_diff, find_law
from retrieval.models import ResolvedReference, SearchFilters, SearchHit

# Asking what a reform changed, not what the text says: "qué cambió", "cómo se modificó", "antes y después",
# "qué diferencias hay entre…", "with the reform", "what changed" (on folded text: no accents, lower case).
_ASKS_CHANGE = re.compile(
    r"\b(?:que|como|en que) (?:cambio|cambios|cambiaron|se modifico|modifico|modificaciones|se reformo|reformo|"
    r"quedo|diferencias?)\b|\bantes y despues\b|\bque diferencias?\b|\bwhat changed\b|\bhow did\b.*\bchange\b")
MAX_QUOTES = 3  # changed sentences quoted from each version


def asks_what_changed(question: str) -> bool:
    return _ASKS_CHANGE.search(fold(question)) is not None


@dataclass
class ReformChange:
    """The diff that answers the question and the sources it is quoted from (both versions' article chunks)."""

    diff: ArticleDiff
    hits: list[SearchHit]


def what_changed(index, question: str, references: list[ResolvedReference],
                 filters: SearchFilters | None) -> ReformChange | None:
    """The change the question asks about, or None: it does not ask what changed, names no single article of a law
    held in several versions, or the versions cannot be compared (one held on the day asked about)."""
    if not asks_what_changed(question):
        return None
    versioned = index.versioned_laws()
    infos = {d.doc_id: d for d in index.document_infos()}
    for ref in references:
        laws = {infos[d].law_id for d in ref.doc_ids if d in infos and infos[d].law_id in versioned}
        if not ref.resolved or len(ref.reference.articles) != 1 or len(laws) != 1:
            continue
        law, versions = find_law(index, laws.pop())
        try:
            diff = article_diff(index, law, versions, ref.reference.articles[0],
                                after=filters.as_of if filters is not None else None)
        except HistoryError:
            return None
        return ReformChange(diff, _sources(index, diff, infos))
    return None


def _sources(index, diff: ArticleDiff, infos: dict) -> list[SearchHit]:
    hits: list[SearchHit] = []
    for side in (diff.before, diff.after):
        if side is None:
            continue
        doc = infos[side.version.doc_id]
        for chunk in index.articles(doc.doc_id, [diff.article]):
            hits.append(SearchHit(chunk=chunk, document=doc, score=0.0, rank=len(hits) + 1, via="reference",
                                  versioned=True, label=labels.label(doc, chunk, versioned=True)))
    return hits


def _sentences(hits: list[SearchHit], doc_id: str) -> Iterator[tuple[SearchHit, int, int, str]]:
    """The article's own sentences in one version: not its heading line, not the amendment notes printed in it
    (typed `AmendmentNote` spans: they date the text, they are not the law's words)."""
    for hit in hits:
        if hit.chunk.doc_id != doc_id:
            continue
        for span in sentences_of(hit.chunk):
            text = hit.chunk.sentence_text(span)
            if text.lstrip().startswith("#") or len(text.split()) < 3:
                continue
            if any(note.start < span.end and span.start < note.end for note in hit.chunk.notes):
                continue
            yield hit, span.start, span.end, text


def _changed_sentences(hits: list[SearchHit], doc_id: str, other: str) -> list[tuple[SearchHit, int, int, str]]:
    """The sentences of one version's article whose words the other version's wording does not hold."""
    against = " ".join(re.findall(r"\w+", other))
    return [s for s in _sentences(hits, doc_id) if " ".join(re.findall(r"\w+", s[3])) not in against][:MAX_QUOTES]




def _quote(content: list[TextSegment], picked: list[tuple[SearchHit, int, int, str]]) -> None:
    for i, (hit, start, end, text) in enumerate(picked):
        if i:
            content.append(TextSegment(text="\n"))
        content.append(TextSegment(text=text, citations=[claim(hit, text, start, end)]))


def _day(version) -> str:
    return f"{version.version_date:%d-%m-%Y}" if version.version_date else version.title


class ReformAnswerer:
    """The extractive answer to a change question: what changed between the two dates, quoted from each version."""

    name = "extractive"

    def __init__(self, change: ReformChange):
        self.change = change

    def answer(self, question: str, hits: list[SearchHit]) -> Draft:
        diff = self.change.diff
        before, after = diff.before_version, diff.after_version
        span = f"el texto vigente al {_day(before)} y el vigente al {_day(after)}"
        name = f"El artículo {diff.article} {labels.of_the(diff.law)}"
        content: list[TextSegment] = []
        if diff.status == "changed":
            old = _changed_sentences(hits, before.doc_id, diff.after.wording)
            new = _changed_sentences(hits, after.doc_id, diff.before.wording)
            content.append(TextSegment(text=f"{name} cambió entre {span}."))
            if old:
                content.append(TextSegment(text="\n\nAntes decía:\n"))
                _quote(content, old)
            if new:
                content.append(TextSegment(text="\n\nAhora dice:\n"))
                _quote(content, new)
        elif diff.status == "unchanged":
            content.append(TextSegment(text=f"{name} dice lo mismo en {span}:\n\n"))
            _quote(content, _first(hits, after.doc_id))
        elif diff.status == "added":
            content.append(TextSegment(text=f"{name} no estaba en el texto vigente al "
                                            f"{_day(before)}; se añadió después:\n\n"))
            _quote(content, _first(hits, after.doc_id))
        else:
            content.append(TextSegment(text=f"{name} ya no está en el texto vigente al "
                                            f"{_day(after)}; antes decía:\n\n"))
            _quote(content, _first(hits, before.doc_id))
        return Draft(content=content)

    def stream(self, question: str, hits: list[SearchHit]) -> Iterator[DraftEvent]:
        yield from replay(self.answer(question, hits))


def _first(hits: list[SearchHit], doc_id: str) -> list[tuple[SearchHit, int, int, str]]:
    first = next(_sentences(hits, doc_id), None)
    return [first] if first is not None else []
