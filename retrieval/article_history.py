"""What a reform changed: an article of a law across the versions the index holds (issue 24).

    law = find_law(index, "Ley de Amparo")                      # the law and its versions, oldest first
    article_diff(index, law, "129", after=dt.date(2025, 10, 20))   # its text in two versions, word by word
    article_history(index, law, "129")                           # every version's text, dated, and what changed
    law_diff(index, law)                                         # which articles changed, came or went

A version of an article is its own chunks in that version's document (`Index.articles`: the body, never the index,
preamble, transitory articles or the reform decrees a consolidated text appends), from its heading line to the end of
its last chunk. Its *wording* is that text less the amendment notes the gazette prints in it (typed `AmendmentNote`
spans: "Artículo reformado DOF 16-10-2025" dates the text, it is not the law's words) and less the Markdown marks;
two versions of an article differ when the words or punctuation of their wordings do. Which version is read on a day
is `retrieval.versions`' decision (the latest whose version date is on or before it).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from itertools import groupby
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field
from rapidfuzz.distance import Levenshtein

from ingest.models import AmendmentNote, Chunk, DocumentInfo, HeadingKind
from ingest.references import article_key
from retrieval import labels
from retrieval.question_laws import understood
from retrieval.versions import versions_of

if TYPE_CHECKING:
    from retrieval.index import Index

_TOKEN = re.compile(r"\w+|[^\w\s#*_|>`]")  # words and punctuation, not Markdown marks
_MARKS = re.compile(r"[#*_|>`]+")


class HistoryError(ValueError):
    """The versions asked for cannot be compared (one version held, two dates in force under the same one)."""


class NotInIndex(HistoryError):
    """The law asked about is not in the index, or no version of it held has the article."""


class LawVersion(BaseModel):
    """One version of a law held in the index."""

    doc_id: str
    title: str
    version_date: dt.date | None = Field(description="Its last reform as printed, else its publication date.")
    last_reform_date: dt.date | None = None
    publication_date: dt.date | None = None
    gazette: str | None = None


class Law(BaseModel):
    law_id: str
    name: str = Field(description="As a lawyer names it: its short title, else its title.")
    versions: list[LawVersion] = Field(description="Oldest first.")


class ArticleText(BaseModel):
    """One article as one version of its law prints it."""

    version: LawVersion
    article: str
    label: str = Field(description="As cited, naming the version: \"Ley de Amparo (texto vigente al 13-03-2025), "
                                   "art. 129, p. 60\".")
    text: str = Field(description="The article verbatim (the version's Markdown from its heading line to its end).")
    wording: str = Field(description="The text less amendment notes and Markdown marks: what is compared.")
    notes: list[AmendmentNote] = Field([], description="The amendment notes printed in it.")
    page: int
    pages: list[int]
    start: int = Field(description="Offsets into the version's Markdown.")
    end: int
    chunk_id: str = Field(description="Its first chunk (GET /chunks/{id}).")


class WordChange(BaseModel):
    """One step from the earlier wording to the later: equal words, or words replaced, added or removed."""

    op: str = Field(description="equal | replace | insert (words the later version adds) | delete (words it drops)")
    before: str = ""
    after: str = ""


class ReformDecree(BaseModel):
    """A reform decree the later version prints after the law whose title amends the article."""

    title: str
    label: str
    chunk_id: str
    page: int


class ArticleDiff(BaseModel):
    law_id: str
    law: str
    article: str
    status: str = Field(description="changed | unchanged | added (only in the later version) | removed")
    before: ArticleText | None = None
    after: ArticleText | None = None
    before_version: LawVersion
    after_version: LawVersion
    changes: list[WordChange] = Field([], description="The later wording against the earlier, aligned word by word "
                                                      "(empty when unchanged, added or removed).")
    reform_decrees: list[ReformDecree] = []


class ArticleVersion(BaseModel):
    version: LawVersion
    status: str = Field(description="first (the earliest version held) | changed | unchanged | added | removed | "
                                    "absent (neither in this version nor the one before)")
    text: ArticleText | None = None


class ArticleHistory(BaseModel):
    law_id: str
    law: str
    article: str
    versions: list[ArticleVersion] = Field(description="Oldest first.")


class LawDiff(BaseModel):
    law_id: str
    law: str
    before_version: LawVersion
    after_version: LawVersion
    changed: list[str] = Field(description="Articles whose wording differs, in the later version's order.")
    added: list[str] = []
    removed: list[str] = []
    unchanged: int = 0


def law_version(doc: DocumentInfo) -> LawVersion:
    return LawVersion(doc_id=doc.doc_id, title=doc.title, version_date=doc.version_date,
                      last_reform_date=doc.last_reform_date, publication_date=doc.publication_date,
                      gazette=doc.gazette)


def find_law(index: Index, law: str) -> tuple[Law, list[DocumentInfo]]:
    """The law `law` names — a law id ("mx/ley-de-amparo"), its name, short name or acronym ("Ley de Amparo",
    "CPEUM", "Constitución") — and its versions held, oldest first; none: `NotInIndex`, naming the closest laws."""
    law = " ".join(law.split())
    if not law:
        raise NotInIndex("name the law: its name as cited (Ley de Amparo), its acronym (CPEUM) or its law id")
    documents = index.document_infos()
    law_id = law if any(d.law_id == law for d in documents) else None
    if law_id is None:
        # read as a reference: "artículo 1 de <law>" resolves names, acronyms and "la Constitución" alike
        resolved = [d for _, docs in understood(f"artículo 1 de {law}", index.catalog()) for d in docs if d.law_id]
        law_id = resolved[0].law_id if resolved else None
    if law_id is None:
        closest = index.catalog().closest(law)
        hint = f"; the closest indexed laws: {', '.join(closest)}" if closest else ""
        raise NotInIndex(f"{law!r} is not a law in the index{hint}")
    versions = versions_of(documents, law_id)
    name = versions[-1].short_title or versions[-1].title
    return Law(law_id=law_id, name=name, versions=[law_version(d) for d in versions]), versions


def version_on(versions: Sequence[DocumentInfo], day: dt.date | None) -> DocumentInfo:
    """The version in force on `day` (None: the latest); a day before every version reads the earliest."""
    if day is None:
        return versions[-1]
    held = [d for d in versions if d.version_date is not None and d.version_date <= day]
    return held[-1] if held else versions[0]


def _pair(law: Law, versions: Sequence[DocumentInfo], before: dt.date | None,
          after: dt.date | None) -> tuple[DocumentInfo, DocumentInfo]:
    """The two versions to compare: the one in force on `after` (default the latest) and the one in force on
    `before` (default the version just before it)."""
    if len(versions) < 2:
        only = versions[0].version_date
        raise HistoryError(f"the index holds one version of {law.name}"
                           f"{f' ({only:%d-%m-%Y})' if only else ''}: there is nothing to compare it with")
    later = version_on(versions, after)
    if before is None:
        at = versions.index(later)
        if at == 0:
            raise HistoryError(f"on {after:%d-%m-%Y} {law.name} reads its earliest version held "
                               f"({_dated(later)}): there is no earlier one to compare it with")
        earlier = versions[at - 1]
    else:
        earlier = version_on(versions, before)
    if earlier.doc_id == later.doc_id:
        raise HistoryError(f"both dates read the same version of {law.name} "
                           f"({_dated(earlier)}): name dates in force under two versions")
    return earlier, later


def _dated(doc: DocumentInfo) -> str:
    return f"{doc.version_date:%d-%m-%Y}" if doc.version_date else doc.doc_id


def article_start(chunk: Chunk) -> int:
    """Where the article starts in its first chunk: the line of its own heading ("###### Artículo 17."), not the
    chapter headings the chunk may open with."""
    title = next((text for text, kind in zip(reversed(chunk.heading_path), reversed(chunk.heading_kinds))
                  if kind is HeadingKind.articulo), None)
    at = chunk.text.find(title) if title else -1
    return chunk.start + chunk.text.rfind("\n", 0, at) + 1 if at > 0 else chunk.start


def first_run(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The article's first run of consecutive chunks (a law's article key names one provision)."""
    run = [chunks[0]]
    for chunk in chunks[1:]:
        if chunk.index != run[-1].index + 1:
            break
        run.append(chunk)
    return run


def _read(doc: DocumentInfo, key: str, chunks: Sequence[Chunk]) -> ArticleText:
    run = first_run(chunks)
    start = article_start(run[0])
    text, wording, at = [], [], start
    notes = [n for c in run for n in c.notes]
    for chunk in run:
        piece_start = max(at, chunk.start)
        if text and piece_start > at:
            text.append("\n")
        piece = chunk.text[piece_start - chunk.start:]
        text.append(piece)
        # the wording: the piece less the notes inside it
        cut, kept = piece_start, []
        for note in sorted((n for n in chunk.notes if piece_start <= n.start < chunk.end), key=lambda n: n.start):
            kept.append(chunk.text[cut - chunk.start:note.start - chunk.start])
            cut = max(cut, note.end)
        kept.append(chunk.text[cut - chunk.start:])
        wording.append(" ".join(kept))
        at = chunk.end
    page, _ = run[0].page_at(start)
    return ArticleText(
        version=law_version(doc), article=key, label=labels.label(doc, run[0], start, versioned=True),
        text="".join(text), wording=" ".join(_MARKS.sub(" ", " ".join(wording)).split()), notes=notes, page=page,
        pages=sorted({p for c in run for p in c.pages if p >= page}), start=start, end=run[-1].end,
        chunk_id=run[0].chunk_id)


def checked_key(article: str) -> str:
    key = article_key(article)
    if key is None:
        raise NotInIndex(f"{article!r} is not an article number (write it as the law does: 27, 3 Bis, 330-A)")
    return key


def _article(index: Index, doc: DocumentInfo, key: str) -> ArticleText | None:
    chunks = index.articles(doc.doc_id, [key])
    return _read(doc, key, chunks) if chunks else None


def _tokens(wording: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(wording)]


def _same(before: ArticleText, after: ArticleText) -> bool:
    return [t for t, _, _ in _tokens(before.wording)] == [t for t, _, _ in _tokens(after.wording)]


def word_changes(before: str, after: str) -> list[WordChange]:
    """`after` against `before`, word by word (punctuation counts as a word; the texts are wordings)."""
    old, new = _tokens(before), _tokens(after)

    def span(tokens: list[tuple[str, int, int]], text: str, lo: int, hi: int) -> str:
        return text[tokens[lo][1]:tokens[hi - 1][2]] if hi > lo else ""

    return [WordChange(op=op.tag, before=span(old, before, op.src_start, op.src_end),
                       after=span(new, after, op.dest_start, op.dest_end))
            for op in Levenshtein.opcodes([t for t, _, _ in old], [t for t, _, _ in new])]


def _decrees(index: Index, doc: DocumentInfo, key: str) -> list[ReformDecree]:
    out = []
    for chunk, document in index.reform_decrees([doc.doc_id], [key]):
        title = next((text for text, kind in zip(chunk.heading_path, chunk.heading_kinds)
                      if kind is HeadingKind.title), "")
        out.append(ReformDecree(title=title, label=labels.label(document, chunk), chunk_id=chunk.chunk_id,
                                page=chunk.pages[0]))
    return out


def article_diff(index: Index, law: Law, versions: Sequence[DocumentInfo], article: str,
                 before: dt.date | None = None, after: dt.date | None = None) -> ArticleDiff:
    """The article in the version in force on `before` and the one in force on `after` (defaults: the version
    before the latest, and the latest), word by word, with the reform decrees the later version prints for it."""
    key = checked_key(article)
    earlier, later = _pair(law, versions, before, after)
    old, new = _article(index, earlier, key), _article(index, later, key)
    if old is None and new is None:
        raise NotInIndex(f"neither version of {law.name} ({_dated(earlier)}, {_dated(later)}) has an article {key}")
    if old is None or new is None:
        status = "added" if old is None else "removed"
    else:
        status = "unchanged" if _same(old, new) else "changed"
    return ArticleDiff(law_id=law.law_id, law=law.name, article=key, status=status, before=old, after=new,
                       before_version=law_version(earlier), after_version=law_version(later),
                       changes=word_changes(old.wording, new.wording) if status == "changed" else [],
                       reform_decrees=_decrees(index, later, key))


def article_history(index: Index, law: Law, versions: Sequence[DocumentInfo], article: str) -> ArticleHistory:
    """The article in every version held, oldest first, each marked against the version before it."""
    key = checked_key(article)
    rows: list[ArticleVersion] = []
    previous: ArticleText | None = None
    for i, doc in enumerate(versions):
        text = _article(index, doc, key)
        if i == 0:
            status = "first" if text is not None else "absent"
        elif text is None:
            status = "removed" if previous is not None else "absent"
        elif previous is None:
            status = "added"
        else:
            status = "unchanged" if _same(previous, text) else "changed"
        rows.append(ArticleVersion(version=law_version(doc), status=status, text=text))
        previous = text
    if all(r.text is None for r in rows):
        raise NotInIndex(f"no version of {law.name} held has an article {key}")
    return ArticleHistory(law_id=law.law_id, law=law.name, article=key, versions=rows)


def _all_articles(index: Index, doc: DocumentInfo) -> dict[str, ArticleText]:
    chunks = index.articles(doc.doc_id)
    out: dict[str, ArticleText] = {}
    for key, group in groupby(chunks, key=lambda c: c.article):
        if key is not None and key not in out:
            out[key] = _read(doc, key, list(group))
    return out


def law_diff(index: Index, law: Law, versions: Sequence[DocumentInfo], before: dt.date | None = None,
             after: dt.date | None = None) -> LawDiff:
    """Which of the law's articles read differently in the two versions, which the later one adds or drops."""
    earlier, later = _pair(law, versions, before, after)
    old, new = _all_articles(index, earlier), _all_articles(index, later)
    changed = [k for k, text in new.items() if k in old and not _same(old[k], text)]
    return LawDiff(law_id=law.law_id, law=law.name, before_version=law_version(earlier),
                   after_version=law_version(later), changed=changed, added=[k for k in new if k not in old], removed=[k for k in old if k not in new],
                   unchanged=sum(1 for k in new if k in old) - len(changed))
