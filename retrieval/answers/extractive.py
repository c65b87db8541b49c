"""The offline answerer: no LLM; the answer is the provision's own sentences, each cited.

How it reads the sources (already re-ranked: retrieval.rerank):
- When the question names an article and the lookup found it, the answer opens with that article's text: the
  named paragraph ("primer párrafo del artículo 123"), else the article's first sentence; then the article's sentence
  that best matches the rest of the question, if it is another one.
- Otherwise every candidate sentence is scored by embedding similarity to the question plus a lexical score (share
  of the question's IDF-weighted content terms it holds), scaled by the legal role of its text (the text in force
  above transitory articles and appended reform decrees: `retrieval.rerank.ROLE_WEIGHTS`) and by the hit's rank.
  A sentence is also read with the one before it, whose subject it often carries on ("Kenia ocupa un puesto bajo en
  el Índice…" / "En 2012, la nación la colocó en el puesto número 139…"; Spanish drops the subject: "Es la tercera
  megalópolis…"), and with the one after it, which often names what it states ("En 1850 se fundó…" / "Fue la
  primera universidad…"): its lexical score is the largest of its own and `CONTEXT_WEIGHT` × either pair's, so a
  sentence that already says it all gains nothing from its neighbours. A sentence that points back to the one
  before it ("2. Este derecho no podrá ser invocado…" after "1. … toda persona tiene derecho a buscar asilo…", "Dicho
  recurso…", "Lo anterior…": `text_analysis.points_back`) is one statement with it: each counts the pair's whole.
- A sentence is read whole with the title it stands under: its article's title ("Artículo 14. Periodo de prueba.")
  and the names of the divisions its article stands in (`rerank.division_names`: "TÍTULO II Del juicio ordinario"
  over the LEC's art. 404, "TÍTULO III Del juicio verbal" over its art. 438, so a question about the juicio
  ordinario's time to answer the demanda reads the one and not the other), a table's row its table's caption and
  header row (`Chunk.tables`: "| 18. Mapimí | Durango, Chihuahua y Coahuila de Zaragoza | …" under "B. Reservas de
  la Biosfera. Nombre Estado Ubicación Geográfica"), and outside any
  article — a notice's or an acuerdo's numbered points, an annex — its document's title, which those sentences
  never repeat ("… ante el brote de enfermedad por coronavirus (COVID-19)" over "…no se permita el
  acceso de más de 5 usuarios…"). The document's title is read only with a sentence that holds more of the question
  than the title itself does, so a question the title alone answers does not make every sentence equal.
- A noun the question names a kind of ("el recurso de reclamación", "los días de vacaciones": `text_analysis.kinds`)
  is not matched by a sentence that names it only as other kinds ("El recurso de inconformidad procede contra la
  resolución que:", "Por cada seis días de trabajo…"): that sentence speaks of another remedy, another period, and
  its words "recurso", "días" are not the question's (`subjects`: another kind, another office, a special regime).
- The best sentence is cited, and others scoring at least `KEEP_RATIO` of it; a sentence right before or after a
  pick only needs `ADJACENT_RATIO` (the pick's own context, read as one passage).
- A sentence that ends in ":" carries the enumeration it announces (fracciones I., II., incisos a), b)…) within
  `MAX_SPAN_CHARS`, as consecutive citations; an amendment note ("Párrafo reformado DOF …") is never quoted:
  it ends a run and is shown with the citation instead (`Citation.notes`).
- Near-duplicates are dropped (gazettes repeat boilerplate); picks are shown in document order. When nothing
  retrieved is relevant (no named provision, and no sentence shares a content word with the question above the
  floor), it says so plainly instead of citing noise. A question that tells the asker's case before asking ("Mi
  cuñado se llevó mi coche sin permiso el viernes… ¿Qué pena prevé…?") is judged against that floor without the
  case's particulars that no retrieved sentence holds (`text_analysis.case_terms`): a law states a case in general
  words, so "cuñado" and "viernes" are in no source, and they would hide the provision that answers. What the
  question asks always counts.
- A table of contents answers nothing, but a gazette's summary published as a document of its own (the BOE's
  "Sumario", a DOF edition's "Contenido") states in each entry what the act it lists does, and may be all the index
  holds of it: its entries are candidates, weighed as text, except an entry for a document among the sources,
  whose own text answers (`_candidates`, `_without_listed`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import fuzz

from ingest.headings import fold
from ingest.models import DocType, DocumentInfo, ProvisionRole, Sentence, TableRows
from ingest.references import parse_references
from retrieval import labels
from retrieval.answers import subjects
from retrieval.answers.base import Draft, DraftEvent, claim, replay, sentences_of
from retrieval.answers.models import TextSegment
from retrieval.models import SearchHit
from retrieval.question_laws import topic
from retrieval.definitions import defined_term, defines
from retrieval.rulings import disposes
from retrieval.rerank import (FORM_WEIGHT, ROLE_WEIGHTS, article_heading, article_title, asks_about_history,
                              division_names, term_matches)
from retrieval.text_analysis import asks_several, case_terms, points_back, stated_terms

NOT_FOUND = "No encontré en los documentos recuperados información que responda a esta pregunta."
MAX_SENTENCES = 3
MIN_WORDS = 4
DENSE_WEIGHT = 0.4
MIN_SCORE = 0.2  # combined score below which a sentence is noise
KEEP_RATIO = 0.8  # later picks must score at least this share of the best one
ADJACENT_RATIO = 0.7  # … or this share when they stand right before or after a pick
CONTEXT_WEIGHT = 0.7  # a sentence read with its neighbour (before or after) scores this share of what the two hold
DUPLICATE = 90  # rapidfuzz ratio above which two sentences are the same sentence
RANK_DECAY = 0.03  # a sentence of the n-th source weighs 1 / (1 + RANK_DECAY·(n-1))
MAX_SPAN_CHARS = 1500  # a sentence with the enumeration it announces, at most
IDF_FLOOR = 0.5  # every question term counts at least this much, even one all candidates share
TITLE_WEIGHT = 0.3  # added for an article whose title holds all the question's terms (tuned on the LSC: docs)

_TOKEN = re.compile(r"\w+")
# An enumeration item: "IV. …", "IV.- …", "a) …", "1. …", "B. …" (apartados).
_ITEM = re.compile(r"^\s*(?:(?P<roman>[IVXLC]+\s*(?:\.-|\.|-|–|\)))|(?P<letter>[a-zñ]\))|(?P<number>\d{1,2}(?:\.|\))\s)"
                   r"|(?P<capital>[A-Z]\.\s))")


@dataclass
class Candidate:
    hit: SearchHit
    rank: int  # position of the hit among the sources
    span: Sentence
    text: str
    position: int = 0  # index of the sentence in its chunk
    previous: Candidate | None = None  # the chunk's candidate sentence before this one
    score: float = 0.0
    runs: list[Sentence] = field(default_factory=list)  # the cited spans: the sentence (+ its enumeration)


class ExtractiveAnswerer:
    """Selects and cites sentences; keeps an embedding cache so repeated passages (evaluation) embed once."""

    name = "extractive"

    def __init__(self, embedder, max_sentences: int = MAX_SENTENCES):
        self.embedder = embedder
        self.max_sentences = max_sentences
        self._cache: dict[str, np.ndarray] = {}

    def answer(self, question: str, hits: list[SearchHit]) -> Draft:
        chosen = self.select(question, hits)
        if not chosen:
            return Draft(content=[TextSegment(text=NOT_FOUND)], model=None, found=False)
        content: list[TextSegment] = []
        for i, cand in enumerate(chosen):
            for j, run in enumerate(cand.runs or [cand.span]):
                if i or j:
                    content.append(TextSegment(text="\n\n" if not j else "\n"))
                hit = _owner(run, hits) or cand.hit  # an enumeration read on into the article's next chunk
                text = hit.chunk.sentence_text(run)
                content.append(TextSegment(text=text, citations=[claim(hit, text, run.start, run.end)]))
        return Draft(content=content, model=getattr(self.embedder, "model_id", None))

    def stream(self, question: str, hits: list[SearchHit]) -> Iterator[DraftEvent]:
        yield from replay(self.answer(question, hits))

    def select(self, question: str, hits: list[SearchHit]) -> list[Candidate]:
        """The sentences that answer, each with the spans it cites, in reading order (empty: nothing relevant)."""
        cands = [c for rank, hit in enumerate(hits) for c in _candidates(hit, rank)]
        cands = _without_listed(cands, hits)
        if not cands:
            return []
        reach = self._score(question, cands)
        _form_first(question, cands)
        opening = self._opening(question, hits)
        ranked = sorted(cands, key=lambda c: (-c.score, c.rank, c.span.start))
        best = ranked[0].score
        if not opening and reach < MIN_SCORE:
            return []
        chosen: list[Candidate] = list(opening)
        if opening:  # the named article leads; its own best sentence and other sources follow if they score
            article = [c for c in ranked if _same_provision(c, opening[0])]
            best = max(best, article[0].score) if article else best
        for cand in ranked:
            if len(chosen) >= self.max_sentences or cand.score < best * ADJACENT_RATIO:
                break
            ratio = ADJACENT_RATIO if any(_adjacent(c, cand) for c in chosen) else KEEP_RATIO
            if cand.score < best * ratio:
                continue
            if any(_covers(c, cand) or fuzz.ratio(cand.text, c.text) >= DUPLICATE for c in chosen):
                continue
            chosen.append(cand)
        for cand in chosen:
            cand.runs = _with_enumeration(cand, hits)
        # drop a pick whose sentence an earlier pick's enumeration already quotes
        kept: list[Candidate] = []
        for cand in chosen:
            if not any(_covers(k, cand) for k in kept):
                kept.append(cand)
        if opening:
            return kept
        # the answer opens with the provision that answers (the best pick's), each provision in reading order
        lead: dict[tuple, int] = {}
        for cand in sorted(kept, key=lambda c: (-c.score, c.rank)):
            lead.setdefault(_provision(cand), len(lead))
        return sorted(kept, key=lambda c: (lead[_provision(c)], c.span.start))

    def _score(self, question: str, cands: list[Candidate]) -> float:
        """Score every candidate (`Candidate.score`); return how far the best one reaches toward what the question
        asks: its score with the particulars of a told case that no candidate holds left out (`case_terms`)."""
        names = {n for doc in {c.hit.document.doc_id: c.hit.document for c in cands}.values() for n in _names(doc)}
        asked_topic = topic(question, names)
        q_terms = stated_terms(asked_topic) or stated_terms(question)
        cand_terms = [stated_terms(c.text) for c in cands]
        df = {t: sum(t in terms for terms in cand_terms) for t in q_terms}
        weight = {t: IDF_FLOOR + math.log(1 + len(cands) / (1 + df[t])) for t in q_terms}
        total = sum(weight.values())
        # A case told before the question is in the asker's words ("mi cuñado se llevó mi coche el viernes"), which a
        # law states in general ones ("el que sustrajere un vehículo a motor"): a term only the case uses that no
        # retrieved sentence holds is a particular of the case. It still weighs in the ranking, equally against every
        # sentence; whether anything answers at all (`reach`) is judged without it. What is asked counts always.
        particulars = sum(weight[t] for t in case_terms(question) & q_terms if not df[t])
        asked = total - particulars
        # a sentence naming another kind of a noun the question names a kind of, another office, or standing in a
        # special regime of its law that yields to the general rule, speaks of another subject however close its words
        # (`subjects`): they are not the question's there
        other = subjects.other_subjects(asked_topic, question, q_terms, cands)
        other_kind = {id(c): o for c, o in zip(cands, other)}
        matched = {id(c): term_matches(q_terms - other_kind[id(c)], terms) for c, terms in zip(cands, cand_terms)}
        # what each chunk's article title and division names hold of the question, read once for every use below
        chunk_hits = {c.hit.chunk.chunk_id: c.hit for c in cands}
        titles = {chunk_id: term_matches(q_terms, _title_terms(hit)) for chunk_id, hit in chunk_hits.items()}
        divisions = {chunk_id: term_matches(q_terms, _division_terms(hit)) for chunk_id, hit in chunk_hits.items()}
        held = [matched[id(c)].keys() | titles[c.hit.chunk.chunk_id].keys() | divisions[c.hit.chunk.chunk_id].keys()
                for c in cands]
        for cand, regime in zip(cands, subjects.yielding(cands, held, q_terms)):
            if regime:
                other_kind[id(cand)] = other_kind[id(cand)] | {regime}
        for cand, forms in zip(cands, subjects.other_forms(asked_topic, q_terms, cands)):
            own = matched[id(cand)]
            for t in forms & own.keys():
                own[t] = min(own[t], FORM_WEIGHT)
        # a question asking for several of a kind ("¿En qué casos…?") is answered by a sentence that lists them: one
        # announcing an enumeration names the kind it lists ("El amparo indirecto procede:" + its fractions) — in the
        # document the search ranks first (another law's list lists something else: the Ley 99's "El Presidente de la
        # República … procederá a:" is no list of the requisitos para ser Presidente)
        several = asks_several(asked_topic) & q_terms
        lead = cands[0].hit.document.doc_id
        for cand in cands if several else ():
            if cand.hit.document.doc_id == lead and _announces(cand):
                matched[id(cand)] = _union(matched[id(cand)], dict.fromkeys(several, 1.0))
        captions: dict[tuple[str, int], dict[str, float]] = {}
        doc_titles = {doc.doc_id: term_matches(q_terms, _document_terms(doc))
                      for doc in {c.hit.document.doc_id: c.hit.document for c in cands}.values()}
        following = {id(c.previous): c for c in cands if c.previous is not None}
        # a sentence pointing back to the one before it ("Este derecho no podrá ser invocado…") and that one are one
        # statement: each is read whole with the other
        pointing = {id(c) for c in cands if c.previous is not None and points_back(c.text, c.previous.text)}

        def value(m: dict[str, float], other: set[str] = frozenset()) -> float:
            return sum(weight[t] * credit for t, credit in m.items() if t not in other)

        lexical: list[float] = []
        title_share: list[float] = []
        for cand in cands:
            own, other = matched[id(cand)], other_kind[id(cand)]
            held = value(own)
            # read with its neighbours, and with its article's title ("Artículo 14. Periodo de prueba."); a table's
            # row with its table's caption and header row too, which say what the row is but are not its topic
            chunk_id = cand.hit.chunk.chunk_id
            rows = _rows_of(cand)
            if rows is not None and (chunk_id, rows.start) not in captions:
                captions[(chunk_id, rows.start)] = term_matches(q_terms, stated_terms(rows.title))
            above = _union(titles[chunk_id], divisions[chunk_id])
            if rows is not None:
                above = _union(above, captions[(chunk_id, rows.start)])
            for neighbour in (cand.previous, following.get(id(cand))):
                if neighbour is not None and matched[id(neighbour)]:
                    later = cand if neighbour is cand.previous else neighbour
                    share = 1.0 if id(later) in pointing else CONTEXT_WEIGHT
                    held = max(held, share * value(_union(own, matched[id(neighbour)]), other))
            if above:  # the title is the article's own words: read whole with each of its sentences
                held = max(held, value(_union(own, above), other))
            # outside any "Artículo" (a notice's points, numbered in words or not; an annex) the text stands under its
            # document's title: read with each sentence that holds more of the question than the title does
            doc_terms = doc_titles[cand.hit.document.doc_id]
            if article_heading(cand.hit.chunk) is None and doc_terms and own.keys() - doc_terms.keys():
                held = max(held, value(_union(_union(own, above), doc_terms), other))
            lexical.append(held / total if total else 0.0)
            title_share.append(value(titles[chunk_id], other) / total if total else 0.0)
        # a sentence sharing no term with the question (nor its article's title) scores 0 whatever its embedding:
        # only the others are embedded
        matching = [c for c, lex in zip(cands, lexical) if lex]
        dense = dict(zip(map(id, matching), self._similarities(question, [c.text for c in matching]))) \
            if matching else {}
        flat_roles = asks_about_history(question)
        scale = total / asked if asked else 1.0  # a share of the question → a share of what it asks
        reach = 0.0
        for cand, lex, title in zip(cands, lexical, title_share):
            if other_kind[id(cand)]:  # of another kind than the one asked about: another subject, however close
                cand.score = 0.0
                continue
            dense_part = DENSE_WEIGHT * max(float(dense[id(cand)]), 0.0) if lex else 0.0
            score = dense_part + (1 - DENSE_WEIGHT) * lex
            score += TITLE_WEIGHT * title  # the provision whose title names the question's topic answers it
            # a gazette's summary states what the acts it lists do (`_candidates`): its entries weigh as text
            role = 1.0 if flat_roles or _summary(cand.hit) else ROLE_WEIGHTS.get(cand.hit.chunk.role, 1.0)
            cand.score = score * role / (1 + RANK_DECAY * cand.rank)
            asked_score = dense_part + ((1 - DENSE_WEIGHT) * lex + TITLE_WEIGHT * title) * scale
            reach = max(reach, asked_score * role / (1 + RANK_DECAY * cand.rank))
        return reach

    def _opening(self, question: str, hits: list[SearchHit]) -> list[Candidate]:
        """The named article's opening sentence (or its named paragraph's), when the lookup found that article.
        Its sentences count however short they are: "Se deroga." is the whole of a repealed article."""
        if asks_about_history(question):  # "¿qué decretos reformaron el artículo 27?": the decrees the lookup found
            firsts = [cands[0] for rank, hit in enumerate(hits)
                      if hit.via == "reference" and hit.chunk.role is ProvisionRole.reform_decree
                      for cands in [_candidates(hit, rank, 1)] if cands]
            if firsts:  # else the provision named ("el artículo tercero transitorio") is read as any other
                return firsts[: self.max_sentences]
        named = [c for rank, hit in enumerate(hits) if hit.via == "reference" for c in _candidates(hit, rank, 1)]
        if not named:
            return []
        lead = min(named, key=lambda c: c.rank)
        article = sorted((c for c in named if _same_provision(c, lead)), key=lambda c: c.span.start)
        refs = parse_references(question)
        wanted = next((r.paragraph for r in refs if r.paragraph), None)
        from_end = next((r.paragraph_from_end for r in refs if r.paragraph_from_end), None)
        numbers = sorted({n for c in article if (n := _paragraph(c)) is not None})
        if from_end is not None and len(numbers) >= from_end:  # "el último párrafo": counted from the article's end
            wanted = numbers[-from_end]
        if wanted is not None:
            in_paragraph = [c for c in article if _paragraph(c) == wanted]
            if in_paragraph:
                return [in_paragraph[0]]
        part = next((r for r in refs if r.apartado or r.fraccion or r.inciso), None)
        if part is not None:  # "la fracción III del apartado A del artículo 123": that part's first sentence
            in_part = [c for c in article if labels.in_part(labels.paragraph_at(c.hit.chunk, c.span.start), part)]
            if in_part:
                return [in_part[0]]
        first = article[0]
        first.score = max(first.score, self._similarities(question, [first.text])[0])
        return [first]

    def _similarities(self, question: str, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            vectors = np.asarray(self.embedder.embed_documents(missing), dtype=np.float32)
            for text, vec in zip(missing, vectors):
                self._cache[text] = vec / (np.linalg.norm(vec) or 1.0)
        q = np.asarray(self.embedder.embed_query(question), dtype=np.float32)
        q = q / (np.linalg.norm(q) or 1.0)
        return np.stack([self._cache[t] for t in texts]) @ q


def _names(doc: DocumentInfo) -> list[str]:
    """A source document's own names of three words or more, folded: its title, its short title, its other names
    ("Lineamientos para la revisión de …", what its annex issues). A shorter one ("Código Penal", "LSC") is a
    reference `parse_references` reads, and too common a phrase to take out wherever it stands."""
    return [fold(n) for n in (doc.title, doc.short_title, *doc.aliases) if n and len(n.split()) >= 3]


def _provision(cand: Candidate) -> tuple:
    """The provision a candidate lies in, which the answer quotes as one in reading order: its document's article,
    or, where it has none (a judgment, a notice, an annex), its passage (its chunk): passages pages apart are read
    best first, as articles are."""
    chunk = cand.hit.chunk
    return (chunk.doc_id, chunk.article) if chunk.article else (chunk.doc_id, None, chunk.index)


def _title_terms(hit: SearchHit) -> set[str]:
    title = article_title(hit.chunk)
    return stated_terms(title) if title else set()


def _division_terms(hit: SearchHit) -> set[str]:
    return stated_terms(" ".join(division_names(hit.chunk)))


def _rows_of(cand: Candidate) -> TableRows | None:
    """The table rows of its chunk the candidate lies in, if any."""
    return next((t for t in cand.hit.chunk.tables if t.start <= cand.span.start < t.end), None)


def _document_terms(doc: DocumentInfo) -> set[str]:
    """The content terms of a document's title and short title: what every sentence of it is about."""
    return stated_terms(" ".join(n for n in (doc.title, doc.short_title) if n))


def _union(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    return {t: max(a.get(t, 0.0), b.get(t, 0.0)) for t in a.keys() | b.keys()}


_LEADERS = re.compile(r"(?:\.\s?){4,}|…{2,}|_{4,}")  # a table of contents' dot leaders ("De la acumulación . . . . 70")


def _is_title_line(hit: SearchHit, text: str) -> bool:
    """Is the sentence a heading's words (the article's title, a heading of its path) or a table-of-contents entry
    rather than text?"""
    words = fold(text).strip(" .:;-–")
    if not words or _LEADERS.search(text):
        return True
    title = article_title(hit.chunk)
    headings = [title] + list(hit.chunk.heading_path) if title else list(hit.chunk.heading_path)
    headings += [hit.document.title, hit.document.short_title]  # the document's own name, printed at its head
    return any(words == fold(h).strip(" .:;-–") for h in headings if h)


def _same_provision(a: Candidate, b: Candidate) -> bool:
    return a.hit.chunk.doc_id == b.hit.chunk.doc_id and a.hit.chunk.article == b.hit.chunk.article


def _paragraph(cand: Candidate) -> int | None:
    mark = None
    for m in cand.hit.chunk.paragraphs:
        if m.offset <= cand.span.start:
            mark = m
    return mark.paragraph if mark is not None else None


def _adjacent(a: Candidate, b: Candidate) -> bool:
    """Are `a` and `b` consecutive sentences of one chunk?"""
    return a.hit.chunk.chunk_id == b.hit.chunk.chunk_id and abs(a.position - b.position) == 1


def _covers(a: Candidate, b: Candidate) -> bool:
    """Does one of `a`'s cited spans already hold `b`'s sentence?"""
    return a.hit.chunk.doc_id == b.hit.chunk.doc_id and any(
        r.start <= b.span.start and b.span.end <= r.end for r in (a.runs or [a.span]))


def _is_note(hit: SearchHit, span: Sentence) -> bool:
    return any(n.start < span.end and span.start < n.end for n in hit.chunk.notes)


# how a sentence ends: a stop, a colon or semicolon, a closing bracket or quote after one
_ENDS = re.compile(r"[.!?:;…][\s)\]\"'”’»*_]*$|[)\]]$")


def _whole(cand: Candidate) -> Sentence:
    """The candidate's sentence, and its rest when a break the page put inside it split it in two: it stops
    without ending (`_ENDS`) and the next unit of its chunk opens in lower case ("the Chapel's appeal is" /
    "dismissed without prejudice for lack of appellate jurisdiction."), up to `MAX_SPAN_CHARS` in all."""
    span = cand.span
    following = [s for s in sentences_of(cand.hit.chunk) if s.start >= span.end]
    while following and not _ENDS.search(cand.hit.chunk.sentence_text(span)) \
            and cand.hit.chunk.sentence_text(following[0])[:1].islower() and not _is_note(cand.hit, following[0]) \
            and following[0].end - span.start <= MAX_SPAN_CHARS:
        span = Sentence(start=span.start, end=following.pop(0).end)
    return span


def _announces(cand: Candidate) -> bool:
    """The candidate's sentence ends in ":" and an enumeration item follows it in its chunk."""
    whole = _whole(cand)
    if not cand.hit.chunk.sentence_text(whole).rstrip().endswith(":"):
        return False
    after = next((s for s in sentences_of(cand.hit.chunk) if s.start >= whole.end), None)
    return after is not None and bool(_ITEM.match(cand.hit.chunk.sentence_text(after)))


def _with_enumeration(cand: Candidate, hits: list[SearchHit]) -> list[Sentence]:
    """The sentence (`_whole`), and when it ends in ":" the items it announces (also from the next chunk, when
    retrieved), as runs of consecutive sentences: an amendment note between items ends a run and is skipped."""
    whole = _whole(cand)
    if not cand.hit.chunk.sentence_text(whole).rstrip().endswith(":"):
        return [whole]
    chunks = {(h.chunk.doc_id, h.chunk.index): h for h in hits}
    runs = [Sentence(start=whole.start, end=whole.end)]
    size = whole.end - whole.start
    hit, after, broken, series = cand.hit, whole.end, False, None
    while hit is not None:
        spans = [span for span in sentences_of(hit.chunk) if span.start >= after]
        for n, span in enumerate(spans):
            if _is_note(hit, span):
                broken = True
                continue
            text = hit.chunk.sentence_text(span)
            series = series or _series(text)
            if not _ITEM.match(text) and not (not broken and text[:1].islower()) \
                    and not _series_goes_on(hit, spans[n + 1:], series):  # an item's next sentence, or paragraph
                return runs
            if size + span.end - span.start > MAX_SPAN_CHARS:
                return runs
            size += span.end - span.start
            owner = _owner(runs[-1], hits)
            if broken or owner is None or hit.chunk.chunk_id != owner.chunk.chunk_id:
                runs.append(Sentence(start=span.start, end=span.end))
            else:
                runs[-1] = Sentence(start=runs[-1].start, end=span.end)
            broken = False
        nxt = chunks.get((hit.chunk.doc_id, hit.chunk.index + 1))
        if nxt is None or nxt.chunk.article != hit.chunk.article:
            return runs
        hit, after, broken = nxt, nxt.chunk.start, True
    return runs


def _series(text: str) -> str | None:
    """The kind of numbering an enumeration item opens with (`_ITEM`'s group): "I." roman, "a)" letter, "1." number,
    "B." capital."""
    item = _ITEM.match(text)
    return item.lastgroup if item is not None else None


def _series_goes_on(hit: SearchHit, spans: list[Sentence], series: str | None) -> bool:
    """An item of the enumeration's own series follows in the chunk before any heading: the sentence before it is
    a paragraph of the item it stands in (CPEUM art. 82, fr. III: "…el año anterior al día de la elección." / "La
    ausencia del país hasta por treinta días, no interrumpe la residencia." / "IV. No pertenecer…")."""
    for span in spans if series else ():
        text = hit.chunk.sentence_text(span)
        if text.lstrip().startswith("#"):
            return False
        if _series(text) == series:
            return True
    return False


def _owner(span: Sentence, hits: list[SearchHit]) -> SearchHit | None:
    """The hit whose chunk holds the span."""
    return next((h for h in hits if h.chunk.start <= span.start and span.end <= h.chunk.end), None)


# how much of a document's title a summary's entry must hold to be that document's entry
_ENTRY_TITLE = 60


def _form_first(question: str, cands: list[Candidate]) -> None:
    """A question whose answer a legal text gives in a form of its own is answered first by the sentence in that
    form, not by one that only shares its words: what a term means, by the sentence that defines it
    (`definitions.defines`: "Es calumnia la imputación…", "(1) 'personal data' means…"); how a case was decided, by
    the sentence that opens the operative part of the judgment the search found it asks about (`rulings.disposes`,
    in a chunk the search marked via "disposition": "Por estas consideraciones … se rechazan los recursos…"). The
    best-scored such sentence is raised to the best score of all."""
    term = defined_term(question)
    shaped = [c for c in cands if c.score > 0 and (term is not None and defines(c.text, term)
                                                  or c.hit.via == "disposition" and disposes(c.text))]
    if shaped:
        lead = max(shaped, key=lambda c: (c.score, -c.rank))
        lead.score = max(c.score for c in cands) * (1 + 1e-6)


def _summary(hit: SearchHit) -> bool:
    """Is the hit a gazette's summary published as a document of its own (the BOE's "Sumario", a DOF edition's
    "Contenido"), whose entries state what the acts it lists do (`_candidates`)?"""
    return hit.document.doc_type is DocType.indice


def _without_listed(cands: list[Candidate], hits: list[SearchHit]) -> list[Candidate]:
    """`cands` without a gazette summary's entries for documents among `hits`: that document's own text answers,
    not the line that lists it (`_candidates`). The entries kept read after the candidate before them that is kept."""
    if not any(_summary(h) for h in hits):
        return cands
    titles = {fold(h.document.title)[:_ENTRY_TITLE].rstrip(" …") for h in hits if len(h.document.title) >= 20}
    kept: dict[int, Candidate] = {}
    for cand in cands:
        if _summary(cand.hit):
            own = fold(cand.hit.document.title)[:_ENTRY_TITLE].rstrip(" …")
            entry = fold(cand.text)
            if any(t in entry for t in titles - {own}):
                continue
        while cand.previous is not None and id(cand.previous) not in kept:
            cand.previous = cand.previous.previous
        kept[id(cand)] = cand
    return list(kept.values())


def _candidates(hit: SearchHit, rank: int, min_words: int = MIN_WORDS) -> list[Candidate]:
    """The chunk's sentences long enough to state something. Headings and titles name a topic, they do not answer
    (a heading line, an article's title left as a sentence, a line of a law's table of contents); amendment notes
    record history, they do not answer. A gazette's summary published as a document of its own (the BOE's
    "Sumario", a DOF edition's "Contenido") is different: its entry "Real Decreto 354/2024, de 26 de marzo, por el
    que se nombra Decano de los Juzgados de Valladolid al Magistrado …" states what the act it lists does, and may
    be all the index holds of that act (an entry for a retrieved document is left to that document's text:
    `_without_listed`)."""
    chunk = hit.chunk
    out: list[Candidate] = []
    if chunk.role is ProvisionRole.index and not _summary(hit):
        return out
    after_heading = False
    for position, span in enumerate(sentences_of(chunk)):
        text = chunk.sentence_text(span)
        # a heading's wrapped last line ("Article 8 Conditions applicable to child's consent" / "in relation to
        # information society services"): lower case, no closing stop, right under the heading line
        wrapped = after_heading and text[:1].islower() and text.rstrip()[-1:] not in ".:;)"
        after_heading = text.startswith("#")
        if (not after_heading and not wrapped and len(_TOKEN.findall(text)) >= min_words
                and not _is_note(hit, span) and not _is_title_line(hit, text)):
            out.append(Candidate(hit=hit, rank=rank, span=span, text=text, position=position,
                                 previous=out[-1] if out else None))
    return out
