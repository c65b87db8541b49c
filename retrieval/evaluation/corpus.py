"""Turn an evaluation corpus into our own `LegalDocument` + `Chunk` models, so it is indexed by the same path as a PDF.

Each dataset document becomes one LegalDocument whose Markdown is its passages joined by blank lines; each passage
becomes one Chunk (verbatim text, real offsets) with the structured header built from the document title and the
section headings the dataset gives. What gets embedded is therefore `Chunk.embedding_text()`, as in production.

Given the embedder's token counter and budget, a passage too long for the model's window is cut into several chunks
at line, then sentence, then word boundaries, exactly as DESIGN.md asks of our chunker ("nothing silently
truncated"); its chunks all map back to the passage, and a passage ranks where its best chunk ranks.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable

from pydantic import BaseModel

from ingest.chunker import strip_span
from ingest.models import Chunk, LegalDocument
from retrieval.evaluation.datasets import EvalDataset, Passage

SEPARATOR = "\n\n"
MARGIN = 4  # tokens kept free: counts of pieces add up to the count of their concatenation only nearly
_LEVELS = (re.compile(r"[^\n]*\n*"), re.compile(r".*?(?:[.!?;:]+\s+|$)", re.S), re.compile(r"\S+\s*"))


class EvalCorpus(BaseModel):
    """The documents and their chunks, plus the map back from chunk ids to the dataset's passage ids."""

    documents: list[tuple[LegalDocument, list[Chunk]]]
    passage_of: dict[str, str]  # chunk_id -> passage id

    @property
    def chunk_count(self) -> int:
        return sum(len(chunks) for _, chunks in self.documents)


def chunk_header(passage: Passage) -> str:
    """The structured header ("# Document: …" then one deeper level per section heading)."""
    lines = [f"# Document: {passage.doc_title}"]
    lines += [f"{'#' * (level + 2)} {heading}" for level, heading in enumerate(passage.headings)]
    return "\n".join(lines)


def split_spans(text: str, count_tokens: Callable[[str], int], budget: int, level: int = 0) -> list[tuple[int, int]]:
    """Cut `text` into (start, end) spans of at most `budget` tokens, packing whole lines, else sentences, else words."""
    if count_tokens(text) <= budget or level == len(_LEVELS):
        return [(0, len(text))]
    units: list[tuple[int, int]] = []
    for match in _LEVELS[level].finditer(text):
        if match.end() == match.start():
            continue
        piece = text[match.start() : match.end()]
        if count_tokens(piece) > budget:
            units += [(match.start() + a, match.start() + b) for a, b in split_spans(piece, count_tokens, budget, level + 1)]
        else:
            units.append((match.start(), match.end()))
    spans: list[tuple[int, int]] = []
    start, used = None, 0
    for a, b in units:
        cost = count_tokens(text[a:b])
        if start is not None and used + cost > budget:
            spans.append((start, a))
            start, used = None, 0
        if start is None:
            start = a
        used += cost
    if start is not None:
        spans.append((start, units[-1][1]))
    return spans



def build_corpus(
    dataset: EvalDataset, count_tokens: Callable[[str], int] | None = None, max_tokens: int | None = None
) -> EvalCorpus:
    """Group passages by document, in dataset order, and build the models (one chunk per passage unless a passage
    overflows `max_tokens` of `count_tokens` with its header)."""
    grouped: dict[str, list[Passage]] = defaultdict(list)
    for passage in dataset.passages:
        grouped[passage.doc_key].append(passage)
    documents, passage_of = [], {}
    for position, (doc_key, passages) in enumerate(grouped.items()):
        doc_id = hashlib.sha256(f"{dataset.name}/{doc_key}".encode()).hexdigest()[:16]
        markdown, chunks, offset = [], [], 0
        for passage in passages:
            header = chunk_header(passage)
            spans = [(0, len(passage.text))]
            if count_tokens is not None and max_tokens is not None:
                budget = max(max_tokens - count_tokens(header) - MARGIN, 16)
                spans = [strip_span(passage.text, a, b) for a, b in split_spans(passage.text, count_tokens, budget)]
            for a, b in spans:
                if b <= a:
                    continue
                chunk_id = f"{doc_id}:{len(chunks):05d}"
                chunks.append(
                    Chunk(
                        chunk_id=chunk_id, doc_id=doc_id, index=len(chunks), header=header, text=passage.text[a:b],
                        heading_path=passage.headings, pages=[1], start=offset + a, end=offset + b,
                    )
                )
                passage_of[chunk_id] = passage.pid
            markdown.append(passage.text)
            offset += len(passage.text) + len(SEPARATOR)
        text = SEPARATOR.join(markdown)
        document = LegalDocument(
            doc_id=doc_id, title=passages[0].doc_title, source_path=f"{dataset.name}/{doc_key}",
            source_sha256=hashlib.sha256(text.encode()).hexdigest(), position=position, pdf_pages=(1, 1),
            label=passages[0].doc_title[:60], markdown=text,
        )
        documents.append((document, chunks))
    return EvalCorpus(documents=documents, passage_of=passage_of)
