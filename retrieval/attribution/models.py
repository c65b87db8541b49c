"""What attribution returns: the answer shape of `/ask` (content segments with verified citations, sources,
coverage), plus each sentence's support and each quote's verdict."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel

from ingest.models import LegalReference
from retrieval.answers.models import Answer, Citation
from retrieval.answers.support import Support
from retrieval.attribution.quotes import DiffOp

__all__ = ["AttributionResult", "AttributionSummary", "Citation", "DiffOp", "QuoteCheck", "QuoteStatus",
           "SentenceAttribution", "Support"]


class QuoteStatus(str, Enum):
    exact = "exact"  # verbatim in the official text (modulo whitespace, case, hyphenation, elisions), where claimed
    altered = "altered"  # a close match: the official wording differs (see `diff`)
    misattributed = "misattributed"  # in the official text, but not in the article or law the text says it is
    not_found = "not_found"  # nothing close in the documents searched


class QuoteCheck(BaseModel):
    text: str  # the quote as written
    start: int  # offsets of the quoted words in the checked text
    end: int
    sentence: int  # index into AttributionResult.sentences
    status: QuoteStatus
    verbatim: bool = False  # the words are the official words (an exact or a misattributed verbatim quote)
    score: float = 0.0  # 0–100 character similarity with the official wording
    official: str | None = None  # the official wording, a verbatim slice of the document
    diff: list[DiffOp] = []  # quote → official wording, word by word (altered quotes)
    citations: list[Citation] = []  # where the official wording is (one per chunk it spans)
    claimed: LegalReference | None = None  # what the text says it quotes ("el artículo 14 constitucional")
    claimed_doc_ids: list[str] = []  # the documents that claim resolved to (empty: no law named, or not indexed)
    found_doc_id: str | None = None
    found_article: str | None = None
    found_label: str | None = None  # "Constitución Política …, art. 16, párr. 2, p. 17"
    reason: str = ""  # one line for a reader


class SentenceAttribution(BaseModel):
    text: str
    start: int  # offsets in the checked text
    end: int
    segment: int  # index into AttributionResult.content
    support: Support | None = None  # None: not a claim (a connector or fragment under 5 words)
    score: float = 0.0  # 0–1
    citations: list[Citation] = []  # the source spans that back it (empty when unsupported)
    quotes: list[int] = []  # indices into AttributionResult.quotes
    missing: list[str] = []  # numbers and names it states that no retrieved span states
    reason: str = ""


class AttributionSummary(BaseModel):
    sentences: int = 0  # claim sentences judged
    supported: int = 0
    partial: int = 0
    unsupported: int = 0
    quotes: dict[str, int] = {}  # QuoteStatus value → count


class AttributionResult(Answer):
    """`Answer` (the text as content segments, one per sentence, with the citations that back it) plus verdicts."""

    backend: str = "attribution"
    doc_ids: list[str] = []  # the documents the text was checked against (empty: the whole index)
    sentences: list[SentenceAttribution] = []
    quotes: list[QuoteCheck] = []
    summary: AttributionSummary = AttributionSummary()
