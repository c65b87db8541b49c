"""Turn an evaluation corpus into our own `LegalDocument` + `Chunk` models, so it is indexed by the same path as a PDF.

Each dataset document becomes one LegalDocument whose Markdown is its passages joined by blank lines; each passage
becomes one Chunk (verbatim text, real offsets) with the structured header built from the document title and the
section headings the dataset gives. What gets embedded is therefore `Chunk.embedding_text()`, as in production.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict

from pydantic import BaseModel

from ingest.models import Chunk, LegalDocument
from retrieval.evaluation.datasets import EvalDataset, Passage

SEPARATOR = "\n\n"


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


def build_corpus(dataset: EvalDataset) -> EvalCorpus:
    """Group passages by document, in dataset order, and build the models."""
    grouped: dict[str, list[Passage]] = defaultdict(list)
    for passage in dataset.passages:
        grouped[passage.doc_key].append(passage)
    documents, passage_of = [], {}
    for position, (doc_key, passages) in enumerate(grouped.items()):
        doc_id = hashlib.sha256(f"{dataset.name}/{doc_key}".encode()).hexdigest()[:16]
        markdown, chunks, offset = [], [], 0
        for index, passage in enumerate(passages):
            start, end = offset, offset + len(passage.text)
            chunk_id = f"{doc_id}:{index:05d}"
            chunks.append(
                Chunk(
                    chunk_id=chunk_id, doc_id=doc_id, index=index, header=chunk_header(passage), text=passage.text,
                    heading_path=passage.headings, pages=[1], start=start, end=end,
                )
            )
            passage_of[chunk_id] = passage.pid
            markdown.append(passage.text)
            offset = end + len(SEPARATOR)
        text = SEPARATOR.join(markdown)
        document = LegalDocument(
            doc_id=doc_id, title=passages[0].doc_title, source_path=f"{dataset.name}/{doc_key}",
            source_sha256=hashlib.sha256(text.encode()).hexdigest(), position=position, pdf_pages=(1, 1),
            label=passages[0].doc_title[:60], markdown=text,
        )
        documents.append((document, chunks))
    return EvalCorpus(documents=documents, passage_of=passage_of)
