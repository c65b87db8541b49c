"""Questions nobody wrote by hand, from a law's own structure: what carries over is measured on them (issue 22).

A BOE law gives each article a title ("Artículo 14. Periodo de prueba."); ingest keeps it on the typed heading
(`Heading.kind` articulo, `Heading.title`). Three sets come out of a parsed (or indexed) law:

- ``title``: "¿Qué dispone la ley sobre periodo de prueba?" — a free-form question, no article named;
- ``title_law``: "¿Qué dispone la Ley de Enjuiciamiento Civil sobre periodo de prueba?" — the same naming the law;
- ``named``: "¿Qué establece el artículo 14 de la Ley de Enjuiciamiento Civil?" — every article of the law's outline.

The gold of a question is its article: the keys `Chunk.article` carries (`ingest.references.article_key`), and the
article's place in the document Markdown (`ArticleSpan`: its heading line, then its body up to the next article or
the next heading at its level or above). A title several articles share ("Ámbito de aplicación.") asks about all of
them: each is gold. Only articles whose chunks are the law's own text (`ProvisionRole.text`) are asked about;
repealed ones ("Artículo 5. (Derogado)") and those of a preamble or index are not. Nothing here re-reads the text:
articles, titles and roles are the ones ingest typed.

A citation lies in an article when it quotes the article's body (`ArticleSpan.holds`): a quote of its heading line
(the title) is not in it — a title names the topic, it does not answer.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel

from ingest.headings import fold
from ingest.models import Chunk, HeadingKind, LegalDocument, ProvisionRole
from ingest.references import article_key
from retrieval.labels import of_the, the

QuestionSet = Literal["title", "title_law", "named"]
SETS: tuple[QuestionSet, ...] = ("title", "title_law", "named")

# The number as the law prints it after "Artículo": "14", "189 bis", "80 Bis", "330-A", "5o".
_LABEL = re.compile(r"^\s*art[íi]culo\s+(\d+[\w-]*(?:\s+(?:bis|ter|qu[aá]ter|[a-z]+ies|[A-Z])\b)?)", re.I)
# Names a lawyer writes with "el": "del Código Penal", "del Real Decreto …", "del Estatuto …".


class ArticleSpan(BaseModel):
    """One article of a document, where it lies in the document Markdown."""

    doc_id: str
    key: str  # canonical key, as `Chunk.article` carries it: "14", "189 Bis"
    label: str  # the number as printed: "14", "189 bis"
    heading: str  # the heading line's text: "Artículo 14. Periodo de prueba."
    title: str | None  # the article's title: "Periodo de prueba."
    start: int  # the heading line
    body_start: int  # where the heading line ends and the article's text starts
    end: int  # the next article, or the next heading at the article's level or above

    def holds(self, doc_id: str, start: int, end: int) -> bool:
        """Does the span [start, end) of `doc_id` quote this article's own text (not its heading line)?"""
        return doc_id == self.doc_id and self.body_start <= start and end <= self.end and start < end


class TitleQuestion(BaseModel):
    qid: str
    set: QuestionSet
    question: str
    law: str  # the law's name as the question (or the report) names it
    doc_id: str
    gold: list[str]  # article keys; any of them answers
    spans: list[ArticleSpan]

    def holds(self, doc_id: str, start: int, end: int) -> bool:
        """Does a citation of [start, end) in `doc_id` quote one of the gold articles' text?"""
        return any(s.holds(doc_id, start, end) for s in self.spans)

    def in_gold(self, chunk: Chunk) -> bool:
        """Is `chunk` (a search hit's) part of a gold article?"""
        return chunk.doc_id == self.doc_id and chunk.article in self.gold and chunk.role is ProvisionRole.text


def law_name(doc: LegalDocument) -> str:
    """How a question names the law: its short title ("Ley de Enjuiciamiento Civil"), else its title."""
    return (doc.short_title or doc.title).strip()


def article_spans(doc: LegalDocument, chunks: Sequence[Chunk]) -> list[ArticleSpan]:
    """The document's articles (typed `articulo` headings) whose chunks are the law's own text, in order.

    `chunks`: the document's chunks (`Index.chunk_document(doc)` or the index's own): their `role` says which
    articles are the text in force, their `article` is the key a gold answer carries."""
    roles: dict[str, Counter] = defaultdict(Counter)
    for chunk in chunks:
        if chunk.doc_id == doc.doc_id and chunk.article is not None:
            roles[chunk.article][chunk.role] += len(chunk.text)
    headings = sorted(doc.headings, key=lambda h: h.start)
    spans: list[ArticleSpan] = []
    seen: set[str] = set()
    for i, h in enumerate(headings):
        if h.kind is not HeadingKind.articulo:
            continue
        key, label = article_key(h.text), _LABEL.match(h.text)
        if key is None or label is None or key in seen:
            continue
        role = roles.get(key)
        if not role or role.most_common(1)[0][0] is not ProvisionRole.text:
            continue
        end = next((n.start for n in headings[i + 1:] if n.kind is HeadingKind.articulo or n.level <= h.level),
                   len(doc.markdown))
        seen.add(key)
        spans.append(ArticleSpan(doc_id=doc.doc_id, key=key, label=label.group(1).strip().rstrip("."),
                                 heading=h.text, title=_title(h.title), start=h.start, body_start=h.end, end=end))
    return spans


def _title(title: str | None) -> str | None:
    """The title when it is words (not "(Derogado)", "(Sin contenido)", a lone number)."""
    if not title:
        return None
    text = title.strip()
    if text.startswith("(") or len(re.findall(r"[^\W\d_]{3,}", text)) == 0:
        return None
    return text


def title_topic(title: str) -> str:
    """"Periodo de prueba." → "periodo de prueba": what "¿Qué dispone la ley sobre …?" asks about."""
    return re.sub(r"[\s.;:]+$", "", title).strip().lower()


def questions(doc: LegalDocument, chunks: Sequence[Chunk], sets: Iterable[QuestionSet] = SETS) -> list[TitleQuestion]:
    """The questions of `sets` about `doc`, in article order (one per distinct title; one per article for "named")."""
    sets = tuple(sets)
    spans = article_spans(doc, chunks)
    name = law_name(doc)
    out: list[TitleQuestion] = []
    by_title: dict[str, list[ArticleSpan]] = defaultdict(list)
    for span in spans:
        if span.title:
            by_title[fold(title_topic(span.title))].append(span)
    for topic_key, group in by_title.items():
        topic = title_topic(group[0].title or "")
        if not topic_key:
            continue
        gold = [s.key for s in group]
        for qset, question in (("title", f"¿Qué dispone la ley sobre {topic}?"),
                               ("title_law", f"¿Qué dispone {the(name)} sobre {topic}?")):
            if qset in sets:
                out.append(TitleQuestion(qid=f"{doc.doc_id}:{qset}:{group[0].key}", set=qset, question=question,
                                         law=name, doc_id=doc.doc_id, gold=gold, spans=group))
    if "named" in sets:
        for span in spans:
            out.append(TitleQuestion(qid=f"{doc.doc_id}:named:{span.key}", set="named",
                                     question=f"¿Qué establece el artículo {span.label} {of_the(name)}?", law=name,
                                     doc_id=doc.doc_id, gold=[span.key], spans=[span]))
    order = {s: i for i, s in enumerate(SETS)}
    return sorted(out, key=lambda q: (order[q.set], q.spans[0].start))


def law_documents(documents: Iterable[LegalDocument]) -> list[LegalDocument]:
    """The documents that are laws with articles of their own (a decree that only approves an annexed law, with its
    one "Artículo único", is not asked about: its law is)."""
    return [d for d in documents if sum(h.kind is HeadingKind.articulo for h in d.headings) > 1]


def sample(items: Sequence, n: int | None) -> list:
    """About `n` items spread over the whole sequence (every k-th); all when `n` is None or not smaller."""
    if not n or n >= len(items):
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]
