"""The answer object, shaped like Anthropic's citation blocks so code written for Claude reads it unchanged."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from ingest.models import AmendmentNote
from retrieval.answers.support import SupportJudgement
from retrieval.models import Division, NamedCountry, ResolvedReference, SearchHit


class Citation(BaseModel):
    type: Literal["char_location"] = "char_location"
    cited_text: str
    doc_id: str
    document_title: str
    chunk_id: str
    start: int  # offsets into the document Markdown (LegalDocument.markdown)
    end: int
    pages: list[int]  # PDF pages the span lies on
    printed_page: str | None = None
    verified: bool = False
    score: float = 0.0  # rapidfuzz alignment score, 0–100
    source_index: int | None = None  # position of the chunk in Answer.sources
    label: str = ""  # as a lawyer cites it: "Constitución Política de los Estados Unidos Mexicanos, art. 27, párr. 1, p. 33"
    article: str | None = None  # canonical article key of the cited span (ingest.references.article_key)
    paragraph: int | None = None
    notes: list[AmendmentNote] = []  # amendment history of the cited provision ("párrafo reformado DOF 06-01-1992")


class TextSegment(BaseModel):
    type: Literal["text"] = "text"
    text: str
    citations: list[Citation] = []
    # Does what this segment's verified citations quote back the sentence it lies in? None: nothing verified to
    # judge (uncited prose, a connector, a fragment under 5 words).
    support: SupportJudgement | None = None


class Coverage(BaseModel):
    """How far the answer is backed: sentences (≥ 5 words) that cite a verified span (`cited`), whose cited spans
    state them (`supported`), and whether the cited sources address the question at all (`relevant`)."""

    ratio: float  # cited / sentences
    sentences: int
    cited: int
    uncited: list[str] = []
    flagged: bool = False  # any flag reason: see `flag_reasons`
    supported: int = 0  # cited sentences their cited spans state (judged supported)
    partial: list[str] = []  # cited sentences their cited spans state only in part
    unsupported: list[str] = []  # cited sentences their cited spans do not state
    relevant: bool = True  # the cited sources address the question
    relevance: float = 1.0  # 0–1, the relevance judgement's score
    flag_reasons: list[str] = []  # "uncited" (cited < half), "unsupported" (backed < half), "not_relevant"
    # why the cited provisions do not answer the question (its named article/law, their legal role, the kind of
    # answer it asks for): "the question names art. 17 of Ley de Amparo; the answer cites art. 18"
    relevance_reasons: list[str] = []
    judge: str = "offline"  # who judged support and relevance: offline | llm | "offline (the LLM judge failed: …)"


class Usage(BaseModel):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    context_tokens_saved: int | None = None  # prompt tokens (characters / 4) context trimming left out; None: not trimmed


class Answer(BaseModel):
    question: str
    content: list[TextSegment] = []
    sources: list[SearchHit] = []
    backend: str
    model: str | None = None
    usage: Usage | None = None
    coverage: Coverage
    found: bool = True  # False: nothing relevant was retrieved; the text says so
    fallback_reason: str | None = None  # set when an LLM backend failed and extractive answered instead
    references: list[ResolvedReference] = []  # the legal references read in the question and what they resolved to
    country: NamedCountry | None = None  # the one country the question names: other countries' documents set aside
    divisions: list[Division] = []  # where the law regulates what a question asking so asks about (named first)

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.content)


# Streaming events (SSE in the API, live rendering in the CLI), in this order:
# sources, then text/citation interleaved, then coverage, then done (or error at any point).
class SourcesEvent(BaseModel):
    event: Literal["sources"] = "sources"
    sources: list[SearchHit]
    references: list[ResolvedReference] = []
    country: NamedCountry | None = None


class TextEvent(BaseModel):
    event: Literal["text"] = "text"
    segment: int  # index into Answer.content
    text: str


class CitationEvent(BaseModel):
    event: Literal["citation"] = "citation"
    segment: int  # the segment this citation belongs to (may arrive after the segment's text)
    citation: Citation


class CoverageEvent(BaseModel):
    event: Literal["coverage"] = "coverage"
    coverage: Coverage


class DoneEvent(BaseModel):
    event: Literal["done"] = "done"
    answer: Answer


class ErrorEvent(BaseModel):
    event: Literal["error"] = "error"
    message: str


AnswerEvent = Annotated[
    SourcesEvent | TextEvent | CitationEvent | CoverageEvent | DoneEvent | ErrorEvent, Field(discriminator="event")
]
