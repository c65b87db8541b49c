"""retrieve → answer with a backend → verify every citation → judge support and relevance → coverage; whole (`ask`)
or streamed (`ask_stream`: the judgements arrive with the coverage event and the final answer).

Verification lives here, not in the backends, so no backend can vouch for itself. An LLM backend that cannot answer
(no key or endpoint, retries exhausted, timeout) is replaced by the extractive one and the answer says why. With
GACETA_JUDGE=llm an LLM judges support and relevance (`make_judge`); its failure leaves the offline judgement.

A law the question names that no indexed document is (`ResolvedReference.absent`, `retrieval.law_lookup`) is said
to be absent before anything else (issue 25): when every law the question names is absent the answer is only that
notice and the closest indexed laws by name — `found` false, no sources, no backend called, so no provision of
another law stands in for the one asked about; when some named law is indexed, the notice opens the answer.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from retrieval import labels
from retrieval.answers.base import AnswerError, Backend, Draft
from retrieval.answers.coverage import compute_coverage
from retrieval.answers.extractive import NOT_FOUND, ExtractiveAnswerer
from retrieval.answers.models import (
    Answer,
    AnswerEvent,
    CitationEvent,
    Coverage,
    CoverageEvent,
    DoneEvent,
    ErrorEvent,
    SourcesEvent,
    TextEvent,
    TextSegment,
)
from retrieval.answers.reform import ReformAnswerer, what_changed
from retrieval.answers.support import LLMJudge
from retrieval.answers.verify import Verifier
from retrieval.legal_search import legal_search
from retrieval.models import Division, ResolvedReference, SearchFilters, SearchHit, SearchMode, SearchResult
from retrieval.question_dates import with_asked_day
from retrieval.settings import Settings

log = logging.getLogger(__name__)

NO_CLAIMS = Coverage(ratio=1.0, sentences=0, cited=0)


def make_backend(name: str, settings: Settings, embedder) -> Backend:
    """The backend called `name`; raises AnswerError when it is not configured."""
    if name == "extractive":
        return ExtractiveAnswerer(embedder)
    if name == "claude":
        from retrieval.answers.claude import ClaudeAnswerer

        return ClaudeAnswerer(settings)
    if name == "tags":
        from retrieval.answers.tags import TagsAnswerer

        return TagsAnswerer(settings)
    if name == "tools":
        from retrieval.answers.tools import ToolsAnswerer

        return ToolsAnswerer(settings)
    raise ValueError(f"unknown answerer {name!r} (extractive, claude, tags or tools)")


def make_judge(settings: Settings) -> LLMJudge | None:
    """The LLM support judge when GACETA_JUDGE=llm (it falls back to the offline judgement by itself), else None."""
    return LLMJudge(settings) if settings.judge == "llm" else None


def _retrieve(index, question: str, k: int, filters: SearchFilters | None, rerank: bool) -> SearchResult:
    """The sources: named provisions looked up, hybrid hits, re-ranked (unless `rerank` is off)."""
    if not question.strip():
        raise ValueError("the question is empty")
    return legal_search(index, question, k=k, mode=SearchMode.hybrid, filters=filters, rerank=rerank,
                        openings=True)  # the answer is worth one small transformer query (retrieval.openings)


def _for_change(index, question: str, references: list[ResolvedReference], filters: SearchFilters | None,
                hits: list[SearchHit], backend: Backend) -> tuple[list[SearchHit], Backend]:
    """A question about what a reform changed in an article of a law held in several versions is answered from the
    article in both versions (`retrieval.answers.reform`); any other, from `hits` as retrieved."""
    change = what_changed(index, question, references, filters)
    if change is None:
        return hits, backend
    return change.hits, ReformAnswerer(change) if backend.name == "extractive" else backend


def _documents(hits: list[SearchHit]) -> list[str]:
    return list(dict.fromkeys(h.chunk.doc_id for h in hits))


def _roles(hits: list[SearchHit]) -> dict[str, str]:
    return {h.chunk.chunk_id: h.chunk.role.value for h in hits if getattr(h.chunk, "role", None) is not None}


def finish(question: str, hits: list[SearchHit], draft: Draft, backend: str, fallback_reason: str | None = None,
           embedder=None, judge: LLMJudge | None = None, references: list[ResolvedReference] | None = None,
           topics: list | None = None, index=None) -> Answer:
    """Verify the draft's citations against `hits` (rejecting unretrieved ones), judge support and relevance
    (`embedder`, when given, adds embedding similarity to the offline judgements; `judge`, an LLM judge; `index`,
    the structure of its laws) and measure coverage."""
    verifier = Verifier(hits)
    content = []
    for seg in draft.content:
        checked = [c for c in (verifier.verify(c) for c in seg.citations) if c is not None]
        content.append(TextSegment(text=seg.text, citations=checked))
    found = draft.found and bool(hits)
    return Answer(
        question=question, content=content, sources=hits, backend=backend, model=draft.model, usage=draft.usage,
        coverage=compute_coverage(content, question, embedder, judge, references or [], _roles(hits), topics or [],
                                  index, _documents(hits))
        if found else NO_CLAIMS, found=found, fallback_reason=fallback_reason,
    )


def absent_notice(references: list[ResolvedReference]) -> str:
    """ "El Código Penal Federal no está entre los documentos indexados. Las leyes indexadas más cercanas por su
    nombre son: …" — one sentence per absent law, the closest laws once; first, for a named law held only through
    the decrees that amend it, which decrees are cited (`law_lookup.amended_by`)."""
    absent = [r for r in references if r.absent]
    amended = [r.reason for r in references if r.amending and r.reason]  # the law's amending decrees are cited
    unsure = [r.reason for r in references if r.possible and r.reason]  # may be an indexed text that prints no name
    if not absent and not amended and not unsure:
        return ""
    reasons = list(dict.fromkeys([*amended, *unsure, *(r.reason for r in absent if r.reason)]))
    closest = list(dict.fromkeys(c for r in absent for c in r.closest))
    text = " ".join(f"{reason}." for reason in reasons)
    if closest:
        text += " Las leyes indexadas más cercanas por su nombre son: " + "; ".join(closest) + "."
    return text


def answers_nothing(references: list[ResolvedReference]) -> bool:
    """Every law the question names is absent: nothing indexed can answer it."""
    return any(r.absent for r in references) and not any(
        r.resolved and (r.reference.law or r.reference.constitutional) for r in references)


def _absent(question: str, backend: str, references: list[ResolvedReference]) -> Answer:
    return Answer(question=question, content=[TextSegment(text=absent_notice(references))], backend=backend,
                  coverage=NO_CLAIMS, found=False, references=references)


def predates_notice(index, hits: list[SearchHit], filters: SearchFilters | None) -> str:
    """ "El 01-01-2020 es anterior a la versión más antigua de la Ley de Amparo (texto vigente al 13-03-2025) en el
    índice: se cita esa versión." — for each law the answer draws on whose every version held is later than the day
    asked about (`retrieval.versions.InForce.predates`)."""
    day = filters.as_of if filters is not None else None
    if day is None:
        return ""
    early = set(index.in_force(day).predates)
    laws = {h.document.law_id: h.document for h in hits if h.document.law_id in early}
    out = []
    for doc in laws.values():
        oldest = min((d for d in index.document_infos() if d.law_id == doc.law_id and d.version_date),
                     key=lambda d: d.version_date, default=doc)
        out.append(f"El {day:%d-%m-%Y} es anterior a la versión más antigua {labels.of_the(labels.version_name(oldest))} "
                   f"en el índice: se cita esa versión.")
    return " ".join(out)


def divisions_notice(divisions: list[Division]) -> str:
    """ "Dónde se regula: Código Penal, LIBRO II, TÍTULO I «Del homicidio y sus formas», arts. 138 a 143 Bis." — for a
    question asking where a law regulates a matter, the divisions whose names hold it (`retrieval.divisions`)."""
    if not divisions:
        return ""
    return "Dónde se regula: " + "; ".join(labels.division(d) for d in divisions) + "."


def _with_notice(answer: Answer, references: list[ResolvedReference], early: str = "") -> Answer:
    """The answer opened by the notice of the named laws that are absent and of a day before every version held
    (none: unchanged)."""
    notice = " ".join(n for n in (absent_notice(references), early) if n)
    if notice:
        answer.content.insert(0, TextSegment(text=notice + "\n\n"))
    return answer


def _not_found(question: str, backend: str) -> Answer:
    return Answer(question=question, content=[TextSegment(text=NOT_FOUND)], backend=backend, coverage=NO_CLAIMS,
                  found=False)


def answer_hits(question: str, hits: list[SearchHit], backend: Backend, embedder=None,
                judge: LLMJudge | None = None, references: list[ResolvedReference] | None = None,
                topics: list | None = None, index=None) -> Answer:
    """Answer from already-retrieved hits; an LLM backend's failure falls back to extractive (`embedder` needed).
    `judge`: an LLM support judge (`make_judge`); None judges offline. `index`: the relevance judgement reads the
    structure of its laws too (`coverage.structure_reasons`)."""
    if not hits:
        return _not_found(question, backend.name)
    try:
        draft = backend.answer(question, hits)
    except AnswerError as exc:
        if backend.name == "extractive" or embedder is None:
            raise
        reason = f"{backend.name} failed ({exc}); answered extractively instead"
        log.warning(reason)
        return finish(question, hits, ExtractiveAnswerer(embedder).answer(question, hits), "extractive", reason,
                      embedder, judge, references, topics, index)
    return finish(question, hits, draft, backend.name, embedder=embedder, judge=judge, references=references,
                  topics=topics, index=index)


def _backend_or_reason(name: str, settings: Settings, embedder) -> tuple[Backend, str | None]:
    try:
        return make_backend(name, settings, embedder), None
    except AnswerError as exc:
        if name == "extractive":
            raise
        reason = f"{name} is not available ({exc}); answered extractively instead"
        log.warning(reason)
        return ExtractiveAnswerer(embedder), reason


def ask(index, question: str, k: int = 8, filters: SearchFilters | None = None, answerer: str | None = None,
        settings: Settings | None = None, rerank: bool | None = None) -> Answer:
    """Retrieve `k` chunks for `question` and answer with citations (backend: `answerer` or settings.answerer;
    reranker: `rerank` or settings.rerank)."""
    settings = settings or Settings()
    backend, reason = _backend_or_reason(answerer or settings.answerer, settings, index.embedder)
    filters = with_asked_day(question, filters)
    found = _retrieve(index, question, k, filters, settings.rerank if rerank is None else rerank)
    hits, references = found.hits, found.references
    if answers_nothing(references):
        return _absent(question, backend.name, references)
    hits, backend = _for_change(index, question, references, filters, hits, backend)
    early = " ".join(n for n in (divisions_notice(found.divisions), predates_notice(index, hits, filters)) if n)
    answer = _with_notice(answer_hits(question, hits, backend, index.embedder, make_judge(settings), references,
                                      index.catalog().topic_laws(question), index), references, early)
    answer.references, answer.country, answer.divisions = references, found.country, found.divisions
    if reason and answer.fallback_reason is None:
        answer.fallback_reason = reason
    return answer


def ask_stream(index, question: str, k: int = 8, filters: SearchFilters | None = None, answerer: str | None = None,
               settings: Settings | None = None, rerank: bool | None = None) -> Iterator[AnswerEvent]:
    """The same answer as events: sources, text/citation (verified), coverage, done — or error at any point."""
    try:
        settings = settings or Settings()
        backend, reason = _backend_or_reason(answerer or settings.answerer, settings, index.embedder)
        filters = with_asked_day(question, filters)
        found = _retrieve(index, question, k, filters, settings.rerank if rerank is None else rerank)
        hits, references = found.hits, found.references
        if not answers_nothing(references):
            hits, backend = _for_change(index, question, references, filters, hits, backend)
        if answers_nothing(references):
            answer = _absent(question, backend.name, references)
            yield SourcesEvent(sources=[], references=references)
            yield TextEvent(segment=0, text=answer.text)
            yield CoverageEvent(coverage=answer.coverage)
            yield DoneEvent(answer=answer)
            return
        early = " ".join(n for n in (divisions_notice(found.divisions), predates_notice(index, hits, filters)) if n)
        notice = " ".join(n for n in (absent_notice(references), early) if n)
        yield SourcesEvent(sources=hits, references=references, country=found.country)
        if notice:
            yield TextEvent(segment=0, text=notice + "\n\n")
        if not hits:
            answer = _not_found(question, backend.name)
            yield TextEvent(segment=1 if notice else 0, text=answer.text)
        else:
            answer = yield from _stream_answer(question, hits, backend, index.embedder, reason, make_judge(settings),
                                               offset=1 if notice else 0, references=references,
                                               topics=index.catalog().topic_laws(question), index=index)
        if notice:
            answer = _with_notice(answer, references, early)
        answer.references, answer.country, answer.divisions = references, found.country, found.divisions
        yield CoverageEvent(coverage=answer.coverage)
        yield DoneEvent(answer=answer)
    except Exception as exc:  # reported to the client as the stream's last event, and logged with its traceback
        log.exception("ask_stream failed")
        yield ErrorEvent(message=f"{type(exc).__name__}: {exc}")


def _stream_answer(question, hits, backend: Backend, embedder, reason: str | None, judge: LLMJudge | None = None,
                   offset: int = 0, references: list[ResolvedReference] | None = None, topics: list | None = None,
                   index=None):
    """The backend's events, verified; `offset`: segments already sent (the absent-law notice), added to the
    segment numbers the client sees."""
    verifier = Verifier(hits)
    segments: list[TextSegment] = []
    draft: Draft | None = None

    def segment(i: int) -> TextSegment:
        while len(segments) <= i:
            segments.append(TextSegment(text=""))
        return segments[i]

    events = backend.stream(question, hits)
    while True:
        try:
            event = next(events)
        except StopIteration:
            break
        except AnswerError as exc:
            if segments or backend.name == "extractive":
                raise
            reason = f"{backend.name} failed ({exc}); answered extractively instead"
            log.warning(reason)
            backend = ExtractiveAnswerer(embedder)
            events = backend.stream(question, hits)
            continue
        if isinstance(event, TextEvent):
            segment(event.segment).text += event.text
            yield event.model_copy(update={"segment": event.segment + offset}) if offset else event
        elif isinstance(event, CitationEvent):
            checked = verifier.verify(event.citation)
            if checked is not None:
                segment(event.segment).citations.append(checked)
                yield CitationEvent(segment=event.segment + offset, citation=checked)
        else:
            draft = event
    found = bool(draft.found) if draft is not None else True
    return Answer(
        question=question, content=segments, sources=hits, backend=backend.name,
        model=draft.model if draft else None, usage=draft.usage if draft else None,
        coverage=compute_coverage(segments, question, embedder, judge, references or [], _roles(hits), topics or [],
                                  index, _documents(hits))
        if found else NO_CLAIMS, found=found,
        fallback_reason=reason,
    )
