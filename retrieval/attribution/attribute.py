"""Attribution of any text (a model's answer, a lawyer's memo, a brief): each sentence to the source spans that
back it, each quote to the official wording and the article it claims.

    result = attribute(index, memo_text, question="¿…?")     # or doc_ids=["<doc id>", …]
    result.content      # the text, one segment per sentence, each with the verified citations that back it
    result.sentences    # supported / partial / unsupported, with the evidence and what no source states
    result.quotes       # exact / altered / misattributed / not_found, with the official wording and a word diff

How it decides:
- The text is split into sentences (`ingest.sentences`); a quote that runs over several sentences keeps them one
  unit. Units under `MIN_WORDS` words are connectors, not claims.
- A quote (`retrieval.attribution.quotes`) is looked for where the sentence says it comes from (its legal reference
  — "el artículo 14 constitucional", "artículo 17 de la Ley de Amparo" — parsed by `ingest.references`, the law
  resolved against the index's catalogue; an article named without its law takes the law the text named last) and
  wherever a search with the quote's words finds it. Verbatim where claimed: exact. Verbatim elsewhere, in another
  article or law than the one claimed: misattributed. A close match (one word changed): altered, with the official
  wording and the word diff (misattributed when the close match lies elsewhere than claimed). Nothing close:
  not_found. With no claim in the sentence, the quote is judged on its words alone.
- A sentence without quotes is judged by `retrieval.answers.support.judge_support` against the sentences of the
  chunks a search with the sentence itself (plus the question's sources, when a question is given) retrieves; a
  sentence with quotes takes its quotes' verdict (exact → supported, altered → partial, otherwise unsupported).
- Every citation goes through the citation verifier (`retrieval.answers.verify.Verifier`) like any answer's; only
  supported and partly supported sentences carry citations in `content`. Coverage is built from these verdicts (the
  fields and flag rule of an answer's coverage: `retrieval.answers.coverage`), and with a question, whether the
  cited sources address it (`judge_relevance`).

- With `llm=True` a chat model (the OpenAI-compatible endpoint of the `tags` answerer) re-judges the sentences without
  quotes against their candidate spans, in one call (`retrieval.attribution.llm_pass`); its verdicts are marked
  `method="llm"`. Offline is the default, and what stands when no endpoint is configured or the call fails.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ingest.models import Chunk, LegalDocument, LegalReference
from ingest.references import parse_references
from ingest.sentences import sentence_spans
from retrieval import labels
from retrieval.answers.base import AnswerError
from retrieval.answers.base import claim as claim_citation
from retrieval.answers.base import sentences_of
from retrieval.answers.coverage import MIN_WORDS, flag_reasons
from retrieval.answers.models import Citation, Coverage, TextSegment
from retrieval.answers.support import Support, SupportJudgement, judge_relevance, judge_support
from retrieval.answers.verify import Verifier
from retrieval.attribution.models import (AttributionResult, AttributionSummary, QuoteCheck, QuoteStatus,
                                          SentenceAttribution)
from retrieval.attribution.llm_pass import LLMJudge
from retrieval.attribution.quotes import QuoteMatch, QuoteSpan, find_quotes, match_quote
from retrieval.index import Search
from retrieval.law_lookup import names_a_law
from retrieval.legal_search import complete, first_stage, legal_search
from retrieval.models import SearchFilters, SearchHit, SearchMode
from retrieval.question_laws import foreign_names, with_qualifier, with_unread
from retrieval.settings import Settings

log = logging.getLogger(__name__)

K_SENTENCE = 5  # chunks retrieved per sentence
K_QUOTE = 6  # chunks retrieved per quote (a plain hybrid search with the quote's words)
MAX_SPANS = 60  # source sentences a claim is judged against
SPAN_MIN_WORDS = 3
WINDOW_PAD = 200  # characters of the document around a candidate chunk, beyond the quote's own length
CLAIMED_PREFERENCE = 3.0  # an altered match where claimed wins over a match elsewhere up to this many points better
MAX_TEXT_CHARS = 50_000
MAX_DOC_IDS = 20

_WORD = re.compile(r"\w+")
_QUOTE_SUPPORT = {QuoteStatus.exact: Support.supported, QuoteStatus.altered: Support.partial,
                  QuoteStatus.misattributed: Support.unsupported, QuoteStatus.not_found: Support.unsupported}


class AttributionInputError(ValueError):
    """The text or the document ids given to `attribute` cannot be checked: the message says why."""


def checked_input(text: str, doc_ids: Sequence[str] | None) -> list[str]:
    """The one check of what `attribute` takes (the CLI asks it before sending a text to the server): a text that is
    not blank and at most MAX_TEXT_CHARS long, at most MAX_DOC_IDS document ids; returns the ids, deduplicated."""
    if not text.strip():
        raise AttributionInputError("the text is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise AttributionInputError(f"the text is {len(text):,} characters; at most {MAX_TEXT_CHARS:,} (split it)")
    ids = list(dict.fromkeys(d.strip() for d in doc_ids or [] if d.strip()))
    if len(ids) > MAX_DOC_IDS:
        raise AttributionInputError(f"at most {MAX_DOC_IDS} document ids")
    return ids


class UnknownDocuments(LookupError):
    """Document ids the index does not hold."""

    def __init__(self, doc_ids: list[str]):
        self.doc_ids = doc_ids
        super().__init__(f"unknown document id(s): {', '.join(doc_ids)}")


class _CachedEmbedder:
    """The index's embedder with each text embedded once per attribution (sentences of one chunk are judged against
    many claims)."""

    def __init__(self, embedder):
        self.embedder = embedder
        self._docs: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self._queries:
            self._queries[text] = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
        return self._queries[text]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._docs]
        if missing:
            for text, vec in zip(missing, np.asarray(self.embedder.embed_documents(missing), dtype=np.float32)):
                self._docs[text] = vec
        return np.stack([self._docs[t] for t in texts]) if texts else np.zeros((0, 1), dtype=np.float32)


@dataclass
class _Claim:
    """Where a sentence says a quote comes from."""

    reference: LegalReference
    articles: list[str]
    doc_ids: list[str]  # the documents its law resolved to (or the documents checked against, no law named)
    law_missing: bool  # it names a law the index does not hold: the claim cannot be checked

    @property
    def checkable(self) -> bool:
        return not self.law_missing and bool(self.doc_ids or self.articles)

    def holds(self, chunk: Chunk) -> bool:
        return (not self.doc_ids or chunk.doc_id in self.doc_ids) and (
            not self.articles or chunk.article in self.articles)


@dataclass
class _Found:
    match: QuoteMatch
    hit: SearchHit  # the chunk the official span starts in
    start: int  # document offsets of the official span
    end: int
    in_claim: bool


@dataclass
class _Unit:
    start: int
    end: int
    text: str
    refs: list[LegalReference] = field(default_factory=list)  # offsets into the whole text


class _Context:
    """The index, the filters, and what one attribution fetched (documents, neighbouring chunks, cited hits)."""

    def __init__(self, index, filters: SearchFilters | None):
        self.index = index
        self.filters = filters
        self.catalog = index.catalog()
        self.text = ""  # the text attributed (references' offsets point into it)
        self._docs: dict[str, LegalDocument | None] = {}
        self._chunks: dict[str, Chunk | None] = {}
        self.pending: list[tuple[SearchHit, int, int]] = []  # citation claims, verified together at the end

    def document(self, doc_id: str) -> LegalDocument | None:
        if doc_id not in self._docs:
            self._docs[doc_id] = self.index.document(doc_id)
        return self._docs[doc_id]

    def neighbour(self, hit: SearchHit, step: int) -> SearchHit | None:
        chunk_id = f"{hit.chunk.doc_id}:{hit.chunk.index + step:05d}"
        if chunk_id not in self._chunks:
            self._chunks[chunk_id] = self.index.chunk(chunk_id) if hit.chunk.index + step >= 0 else None
        chunk = self._chunks[chunk_id]
        return None if chunk is None else SearchHit(chunk=chunk, document=hit.document, score=0.0, rank=1)

    def covering(self, hit: SearchHit, start: int, end: int) -> list[SearchHit]:
        """The chunks (as hits) that hold document span [start, end), from the chunk at `start` on."""
        at = hit
        while at is not None and start < at.chunk.start:
            at = self.neighbour(at, -1)
        while at is not None and start >= at.chunk.end:
            at = self.neighbour(at, 1)
        out = []
        while at is not None and at.chunk.start < end:
            out.append(at)
            at = self.neighbour(at, 1)
        return out

    def cite(self, hits: list[SearchHit], start: int, end: int) -> list[tuple[SearchHit, int, int]]:
        """Claims for the span [start, end), one per chunk it lies in (whitespace-only parts left out)."""
        out = []
        for hit in hits:
            a, b = max(start, hit.chunk.start), min(end, hit.chunk.end)
            if b > a and hit.chunk.text[a - hit.chunk.start:b - hit.chunk.start].strip():
                out.append((hit, a, b))
        return out


def _units(text: str, quotes: list[QuoteSpan]) -> list[_Unit]:
    """Sentences of `text` (the sentences a quote runs over are one unit), with the legal references they make."""
    merged: list[list[int]] = []
    for start, end in sentence_spans(text):
        if merged and any(q.start < merged[-1][1] and q.end > start for q in quotes):
            merged[-1][1] = end
        else:
            merged.append([start, end])
    units = [_Unit(a, b, text[a:b]) for a, b in merged]
    for unit in units:  # the text's own references, not those inside what it quotes
        read = with_unread([r for r in parse_references(unit.text) if r.articles or r.law or r.constitutional],
                           foreign_names(unit.text))
        refs = [r.model_copy(update={"start": r.start + unit.start, "end": r.end + unit.start}) for r in read]
        unit.refs = [r for r in refs if not any(q.start <= r.start and r.end <= q.end for q in quotes)]
    return units


def _names_law(ref: LegalReference) -> bool:
    return bool(ref.law or ref.constitutional)


def _claimed_reference(quote: QuoteSpan, unit: _Unit, previous: _Unit | None) -> LegalReference | None:
    """The reference a quote is attributed to: the nearest before it in its sentence, else the first after it, else
    the last of the sentence that introduces it ("…dispone lo siguiente:")."""
    before = [r for r in unit.refs if r.end <= quote.start]
    if before:
        return before[-1]
    after = [r for r in unit.refs if r.start >= quote.end]
    if after:
        return after[0]
    if previous is not None and previous.refs and previous.text.rstrip().endswith(":"):
        return previous.refs[-1]
    return None


def _claim(ref: LegalReference | None, unit: _Unit, last_law: LegalReference | None, ctx: _Context,
           doc_ids: list[str]) -> _Claim | None:
    if ref is None:
        return None
    law = ref if _names_law(ref) else next((r for r in unit.refs if _names_law(r)), None) or last_law
    law = with_qualifier(law, ctx.text) if law is not None and ctx.text else law
    # the law named is resolved in the whole index: a quote checked against other documents than the one it names
    # is not where claimed; a law held only through the decrees that amend it is checked against their text
    docs = [d.doc_id for d in ctx.catalog.resolve(law) or (ctx.catalog.amending(law) if names_a_law(law) else [])] \
        if law is not None else list(doc_ids)
    return _Claim(reference=ref, articles=list(ref.articles), doc_ids=docs,
                  law_missing=law is not None and not docs and names_a_law(law))


def _search_quotes(ctx: _Context, quotes: list[QuoteSpan], claims: list[_Claim | None]) -> list[list[SearchHit]]:
    """Per quote: the claimed article's chunks, then the hits of a search with its words (also inside the claimed
    law when one is named), in one batch; never outside the documents checked against."""
    allowed = set(ctx.filters.doc_ids) if ctx.filters and ctx.filters.doc_ids else None

    def searchable(claim: _Claim | None) -> list[str]:
        return [d for d in claim.doc_ids if allowed is None or d in allowed] if claim is not None else []

    searches, owners = [], []
    for i, (quote, claim) in enumerate(zip(quotes, claims)):
        searches.append(Search(quote.text, K_QUOTE, SearchMode.hybrid, ctx.filters))
        owners.append(i)
        if searchable(claim):
            searches.append(Search(quote.text, K_QUOTE, SearchMode.hybrid, SearchFilters(doc_ids=searchable(claim))))
            owners.append(i)
    found: list[list[SearchHit]] = [[] for _ in quotes]
    for i, claim in enumerate(claims):
        if searchable(claim) and claim.articles:
            for chunk, document in ctx.index.provisions(searchable(claim), claim.articles, ctx.filters):
                found[i].append(SearchHit(chunk=chunk, document=document, score=0.0, rank=1, via="reference"))
    for owner, hits in zip(owners, ctx.index.search_many(searches) if searches else []):
        found[owner].extend(hits)
    out = []
    for hits in found:
        seen: dict[str, SearchHit] = {}
        for h in hits:
            seen.setdefault(h.chunk.chunk_id, h)
        out.append(list(seen.values()))
    return out


def _locate(ctx: _Context, quote: QuoteSpan, candidates: list[SearchHit], claim: _Claim | None) -> list[_Found]:
    """Every candidate chunk's best match of the quote (in a window around the chunk, so a quote may run over)."""
    out: list[_Found] = []
    seen: set[tuple[str, int, int]] = set()
    pad = len(quote.text) + WINDOW_PAD
    for hit in candidates:
        doc = ctx.document(hit.chunk.doc_id)
        if doc is None:
            continue
        a, b = max(0, hit.chunk.start - pad), min(len(doc.markdown), hit.chunk.end + pad)
        match = match_quote(quote.text, doc.markdown[a:b])
        if match is None:
            continue
        start, end = a + match.start, a + match.end
        if (hit.chunk.doc_id, start, end) in seen:
            continue
        seen.add((hit.chunk.doc_id, start, end))
        held = ctx.covering(hit, start, end)
        if not held:
            continue
        out.append(_Found(match, held[0], start, end, claim is None or claim.holds(held[0].chunk)))
    return out


def _where(found: _Found) -> str:
    article = f"art. {found.hit.chunk.article} of " if found.hit.chunk.article else ""
    return f"{article}{found.hit.document.short_title or found.hit.document.title}"


def _verdict(quote: QuoteSpan, found: list[_Found], claim: _Claim | None) -> tuple[QuoteStatus, _Found | None, str]:
    exact = [f for f in found if f.match.exact]
    close = sorted((f for f in found if not f.match.exact), key=lambda f: -f.match.score)
    checkable = claim is not None and claim.checkable
    claimed_as = f" (the text cites {claim.reference.text!r})" if claim is not None else ""
    if claim is not None and claim.law_missing:
        # attributed to a law no indexed document is: the claim cannot be checked, so the quote is not found where
        # the text says it is — never "misattributed" to a law the index holds (issue 25)
        seen = f"; its words are in {_where((exact or close)[0])}" if exact or close else ""
        return QuoteStatus.not_found, None, f"{claim.reference.law or claim.reference.text} is not among the indexed " \
            f"documents{seen}"
    where_exact = next((f for f in exact if f.in_claim), None)
    if where_exact is not None:
        return QuoteStatus.exact, where_exact, f"verbatim in {_where(where_exact)}"
    if exact:
        best = exact[0]
        if checkable:
            return QuoteStatus.misattributed, best, f"verbatim in {_where(best)}, not where claimed{claimed_as}"
        return QuoteStatus.exact, best, f"verbatim in {_where(best)}"
    if close:
        best = close[0]
        in_claim = next((f for f in close if f.in_claim), None)
        if in_claim is not None and in_claim.match.score >= best.match.score - CLAIMED_PREFERENCE:
            return QuoteStatus.altered, in_claim, f"altered quote of {_where(in_claim)}"
        if checkable:
            return QuoteStatus.misattributed, best, \
                f"close to {_where(best)} (altered), not where claimed{claimed_as}"
        return QuoteStatus.altered, best, f"altered quote of {_where(best)}"
    return QuoteStatus.not_found, None, "nothing close in the documents searched"


def _judge_spans(hits: list[SearchHit]) -> list[tuple[SearchHit, int, int, str]]:
    """The sentences of the retrieved chunks that can back a claim: no headings, no amendment notes, no fragments."""
    out = []
    for hit in hits:
        chunk = hit.chunk
        for span in sentences_of(chunk):
            text = chunk.sentence_text(span)
            if text.startswith("#") or len(_WORD.findall(text)) < SPAN_MIN_WORDS:
                continue
            if any(n.start < span.end and span.start < n.end for n in chunk.notes):
                continue
            out.append((hit, span.start, span.end, text))
            if len(out) >= MAX_SPANS:
                return out
    return out


def _sentence_hits(ctx: _Context, texts: list[str], rerank: bool) -> list[list[SearchHit]]:
    """Each sentence's sources: a legal search with the sentence (first stages batched in one model call)."""
    if not texts:
        return []
    firsts = [first_stage(t, K_SENTENCE, SearchMode.hybrid, ctx.filters, rerank) for t in texts]
    return [complete(ctx.index, f, hits, K_SENTENCE, rerank).hits
            for f, hits in zip(firsts, ctx.index.search_many(firsts))]


def attribute(index, text: str, question: str | None = None, doc_ids: Sequence[str] | None = None,
              rerank: bool = True, llm: bool = False, settings: Settings | None = None,
              as_of: dt.date | None = None) -> AttributionResult:
    """Attribute `text` against the index (or only the documents `doc_ids`), retrieving with each sentence and,
    when given, `question`; each law in the version in force on `as_of` (default today: `retrieval.versions`).
    `llm`: re-judge the sentences without quotes with the configured chat model
    (`retrieval.attribution.llm_pass`); when it is not configured or fails, the offline verdicts stand and
    `fallback_reason` says why."""
    doc_ids = checked_input(text, doc_ids)
    unknown = [d for d in doc_ids if not index.has_document(d)]
    if unknown:
        raise UnknownDocuments(unknown)
    question = (question or "").strip()
    ctx = _Context(index, SearchFilters(doc_ids=doc_ids, as_of=as_of) if doc_ids or as_of else None)
    ctx.text = text
    embedder = _CachedEmbedder(index.embedder)

    quotes = find_quotes(text)
    units = _units(text, quotes)
    unit_of = [next(i for i, u in enumerate(units) if u.start <= q.start < u.end) for q in quotes]

    # -- quotes: where claimed, where found ------------------------------------------------------------------
    claims: list[_Claim | None] = []
    last_law: LegalReference | None = None
    law_before: list[LegalReference | None] = []
    for unit in units:
        law_before.append(last_law)
        last_law = next((r for r in reversed(unit.refs) if _names_law(r)), last_law)
    for q, u in zip(quotes, unit_of):
        ref = _claimed_reference(q, units[u], units[u - 1] if u else None)
        claims.append(_claim(ref, units[u], law_before[u], ctx, doc_ids))
    checks: list[QuoteCheck] = []
    quote_claims: list[list[tuple[SearchHit, int, int]]] = []
    for quote, u, claim, candidates in zip(quotes, unit_of, claims, _search_quotes(ctx, quotes, claims)):
        status, best, reason = _verdict(quote, _locate(ctx, quote, candidates, claim), claim)
        check = QuoteCheck(text=quote.text, start=quote.start, end=quote.end, sentence=u, status=status,
                           reason=reason, claimed=claim.reference if claim else None,
                           claimed_doc_ids=claim.doc_ids if claim else [])
        spans: list[tuple[SearchHit, int, int]] = []
        if best is not None:
            doc = ctx.document(best.hit.chunk.doc_id)
            check.verbatim = best.match.exact
            check.score = best.match.score
            check.official = doc.markdown[best.start:best.end] if doc else None
            check.diff = list(best.match.diff)
            check.found_doc_id = best.hit.chunk.doc_id
            check.found_article = best.hit.chunk.article
            spans = ctx.cite(ctx.covering(best.hit, best.start, best.end), best.start, best.end)
        checks.append(check)
        quote_claims.append(spans)

    # -- sentences without quotes: retrieval + support judgement ----------------------------------------------
    question_hits: list[SearchHit] = []
    references = []
    if question:
        result = legal_search(index, question, k=K_SENTENCE * 2, mode=SearchMode.hybrid, filters=ctx.filters,
                              rerank=rerank)
        question_hits, references = result.hits, result.references
    quoted_units = set(unit_of)
    judged = [i for i, u in enumerate(units) if i not in quoted_units and len(_WORD.findall(u.text)) >= MIN_WORDS]
    retrieved = _sentence_hits(ctx, [units[i].text for i in judged], rerank)
    pools: dict[int, list[tuple[SearchHit, int, int, str]]] = {}
    judgements: dict[int, SupportJudgement] = {}
    for i, hits in zip(judged, retrieved):
        known = {h.chunk.chunk_id for h in hits}
        pools[i] = _judge_spans(hits + [h for h in question_hits if h.chunk.chunk_id not in known])
        judgements[i] = judge_support(units[i].text, [p[3] for p in pools[i]], embedder=embedder)
    model, fallback_reason = None, None
    if llm:
        try:
            judge = LLMJudge(settings or Settings())
            second = judge.judge([(units[i].text, [p[3] for p in pools[i]], judgements[i]) for i in judged])
            judgements.update(zip(judged, second))
            model = judge.model if judged else None
        except AnswerError as exc:
            fallback_reason = f"LLM pass not used ({exc}); sentences judged offline"
            log.warning(fallback_reason)
    sentence_claims: dict[int, list[tuple[SearchHit, int, int]]] = {}
    sentences: list[SentenceAttribution] = []
    content: list[TextSegment] = []
    pos = 0
    for i, unit in enumerate(units):
        if unit.start > pos:
            content.append(TextSegment(text=text[pos:unit.start]))
        pos = unit.end
        entry = SentenceAttribution(text=unit.text, start=unit.start, end=unit.end, segment=len(content))
        content.append(TextSegment(text=unit.text))
        if i in quoted_units:
            mine = [j for j, u in enumerate(unit_of) if u == i]
            entry.quotes = mine
            worst = max((checks[j] for j in mine), key=lambda c: list(_QUOTE_SUPPORT).index(c.status))
            entry.support = _QUOTE_SUPPORT[worst.status]
            entry.score = min(_quote_support_score(checks[j]) for j in mine)
            entry.reason = "; ".join(f"«{_short(checks[j].text)}»: {checks[j].status.value}, {checks[j].reason}"
                                     for j in mine)
            judgements[i] = SupportJudgement(label=entry.support, score=entry.score, method="quote")
            if entry.support is not Support.unsupported:
                sentence_claims[i] = [c for j in mine if checks[j].status is not QuoteStatus.misattributed
                                      for c in quote_claims[j]]
        elif i in judged:
            judgement = judgements[i]
            entry.support, entry.score, entry.missing = judgement.label, judgement.score, judgement.missing
            if judgement.label is not Support.unsupported:
                sentence_claims[i] = [pools[i][e][:3] for e in judgement.evidence]
            entry.reason = {Support.supported: "the cited spans state it",
                            Support.partial: "the cited spans state part of it",
                            Support.unsupported: "no retrieved span states it"}[judgement.label]
            if judgement.method == "llm":
                entry.reason += f" (judged by {model})"
            if judgement.missing:
                entry.reason += f" (no source states: {', '.join(judgement.missing)})"
        sentences.append(entry)
    if pos < len(text):
        content.append(TextSegment(text=text[pos:]))

    # -- one verifier over every cited chunk: sources, labels, pages ------------------------------------------
    sources: dict[str, SearchHit] = {}
    for spans in [*quote_claims, *sentence_claims.values()]:
        for hit, _, _ in spans:
            sources.setdefault(hit.chunk.chunk_id, hit)
    versioned = index.versioned_laws()
    hits = [h.model_copy(update={"rank": r, "versioned": h.document.law_id in versioned})
            for r, h in enumerate(sources.values(), start=1)]
    verifier = Verifier(hits)

    def verified(spans: list[tuple[SearchHit, int, int]]) -> list[Citation]:
        out = []
        for hit, a, b in spans:
            c = verifier.verify(claim_citation(hit, hit.chunk.text[a - hit.chunk.start:b - hit.chunk.start], a, b))
            if c is not None:
                out.append(c)
        return out

    for check, spans in zip(checks, quote_claims):
        check.citations = verified(spans)
        if check.citations:
            check.found_label = check.citations[0].label
    for i, spans in sentence_claims.items():
        sentences[i].citations = verified(spans)
        content[sentences[i].segment].citations = sentences[i].citations
    for hit in hits:
        hit.label = labels.label(hit.document, hit.chunk, versioned=hit.versioned)

    summary = AttributionSummary(
        sentences=sum(s.support is not None for s in sentences),
        supported=sum(s.support is Support.supported for s in sentences),
        partial=sum(s.support is Support.partial for s in sentences),
        unsupported=sum(s.support is Support.unsupported for s in sentences),
        quotes={status.value: sum(c.status is status for c in checks) for status in QuoteStatus},
    )
    for i, sentence in enumerate(sentences):
        if i in judgements:
            content[sentence.segment].support = judgements[i]
    coverage = _coverage(sentences, question, embedder)
    return AttributionResult(question=question, content=content, sources=hits, coverage=coverage, model=model,
                             fallback_reason=fallback_reason,
                             found=bool(hits), references=references, doc_ids=doc_ids, sentences=sentences,
                             quotes=checks, summary=summary)


def _coverage(sentences: list[SentenceAttribution], question: str, embedder) -> Coverage:
    """The answer's coverage from this attribution's own verdicts (the same fields and flag rule as an answer's):
    cited = sentences that carry citations (supported or partly), uncited = the rest, unsupported = the sentences
    judged unsupported (which carry no citation: they are uncited too)."""
    claims = [s for s in sentences if s.support is not None]
    total = len(claims)
    cited = [s for s in claims if s.citations]
    supported = sum(s.support is Support.supported for s in cited)
    partial = [s.text for s in cited if s.support is Support.partial]
    ratio = len(cited) / total if total else 1.0
    relevant, relevance = True, 1.0
    if question and cited:
        judgement = judge_relevance(question, list(dict.fromkeys(
            f"{c.label}\n{c.cited_text}" for s in cited for c in s.citations)), embedder)
        relevant, relevance = judgement.relevant, judgement.score
    reasons = flag_reasons(ratio, (supported + len(partial)) / total, relevant) if total else []
    return Coverage(ratio=round(ratio, 4), sentences=total, cited=len(cited),
                    uncited=[s.text for s in claims if not s.citations], flagged=bool(reasons), supported=supported,
                    partial=partial, unsupported=[s.text for s in claims if s.support is Support.unsupported],
                    relevant=relevant, relevance=round(relevance, 4), flag_reasons=reasons)


def _quote_support_score(check: QuoteCheck) -> float:
    """How far a quote backs its sentence: its similarity where claimed; nothing when it is not where claimed."""
    if check.status in (QuoteStatus.exact, QuoteStatus.altered):
        return round(check.score / 100, 4)
    return 0.0


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + " …"
