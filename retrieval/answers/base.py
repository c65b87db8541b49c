"""What every answer backend produces before verification: a draft, whole or streamed.

Backends only write text and *claim* citations (a chunk id, a quote, maybe offsets); the pipeline verifies every
claim against the retrieved chunks, so no backend can mark its own citation verified.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from pydantic import BaseModel

from ingest.models import Chunk, Sentence
from ingest.sentences import split_sentences
from retrieval.answers.models import Citation, CitationEvent, TextEvent, TextSegment, Usage
from retrieval.models import SearchHit


class AnswerError(RuntimeError):
    """An answer backend could not answer (configuration, transport or protocol); the message says why."""


class Draft(BaseModel):
    content: list[TextSegment] = []
    model: str | None = None
    usage: Usage | None = None
    found: bool = True


DraftEvent = TextEvent | CitationEvent | Draft
"""Streamed draft: text and (unverified) citation events, ending with the Draft (its content may be left empty)."""


class Backend(Protocol):
    name: str

    def answer(self, question: str, hits: list[SearchHit]) -> Draft: ...

    def stream(self, question: str, hits: list[SearchHit]) -> Iterator[DraftEvent]: ...


def claim(hit: SearchHit, cited_text: str, start: int | None = None, end: int | None = None) -> Citation:
    """An unverified citation of `hit`'s chunk; offsets default to the whole chunk."""
    chunk = hit.chunk
    return Citation(
        cited_text=cited_text,
        doc_id=chunk.doc_id,
        document_title=hit.document.title,
        chunk_id=chunk.chunk_id,
        start=chunk.start if start is None else start,
        end=chunk.end if end is None else end,
        pages=list(chunk.pages),
    )


def orphan_claim(label: str, cited_text: str) -> Citation:
    """A citation of something that was not retrieved (an out-of-range chunk number): the verifier rejects it."""
    return Citation(cited_text=cited_text, doc_id="", document_title="", chunk_id=f"unretrieved:{label}",
                    start=0, end=0, pages=[])


def replay(draft: Draft) -> Iterator[DraftEvent]:
    """Stream a finished draft segment by segment (for backends that answer in one piece)."""
    for i, seg in enumerate(draft.content):
        yield TextEvent(segment=i, text=seg.text)
        for c in seg.citations:
            yield CitationEvent(segment=i, citation=c)
    yield draft


def sentences_of(chunk: Chunk) -> list[Sentence]:
    """The chunk's sentence spans (document offsets): its own, else split now (evaluation corpora carry none)."""
    return chunk.sentences or split_sentences(chunk.text, offset=chunk.start)
