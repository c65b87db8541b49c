"""Hand-built search hits for unit tests (a document Markdown with chunks at real offsets and page breaks), a
streamed answer collected event by event, `gaceta ask --json` run the way a user runs it, and the verified citations
of an answer over a test index."""

from __future__ import annotations

import hashlib
import json

from ingest.models import Chunk, DocumentInfo, PageBreak
from ingest.sentences import split_sentences
from retrieval.models import SearchHit


def make_hits(bodies: list[str], title: str = "DECRETO de prueba", pages_per_chunk: int = 1,
              preamble: str = "# PREÁMBULO\n\nTexto previo que no se cita.\n\n") -> list[SearchHit]:
    """One document whose Markdown is `preamble` + the bodies joined by blank lines; chunk i starts on page 3+i.

    Each chunk body's second half lies on the next page when `pages_per_chunk` is 2, so page mapping is testable.
    """
    doc_id = hashlib.sha256(title.encode()).hexdigest()[:16]
    info = DocumentInfo(doc_id=doc_id, title=title, source_path="/tmp/prueba.pdf", source_sha256="0" * 64,
                        pdf_pages=(1, 20), label="DOF 2024-12-15 MAT", doc_type="DECRETO")
    hits, offset = [], len(preamble)
    page = 3
    for i, body in enumerate(bodies):
        start, end = offset, offset + len(body)
        breaks = [PageBreak(offset=start, page=page, printed=str(page + 10))]
        pages = [page]
        if pages_per_chunk == 2:
            middle = start + len(body) // 2
            breaks.append(PageBreak(offset=middle, page=page + 1, printed=str(page + 11)))
            pages.append(page + 1)
        chunk = Chunk(
            chunk_id=f"{doc_id}:{i:05d}", doc_id=doc_id, index=i,
            header=f"# Document: DOF 2024-12-15 MAT | page: {page}\n## SECRETARÍA DE PRUEBAS",
            text=body, pages=pages, start=start, end=end, sentences=split_sentences(body, offset=start),
            page_breaks=breaks,
        )
        hits.append(SearchHit(chunk=chunk, document=info, score=1.0 / (i + 1), rank=i + 1))
        offset = end + 2
        page = pages[-1] + 1
    return hits


def streamed(backend, hits: list[SearchHit], question: str, embedder=None) -> tuple[list, object]:
    """The pipeline's verified stream of `backend`'s answer: its events (in order) and the final Answer."""
    from retrieval.answers.pipeline import _stream_answer

    events, gen = [], _stream_answer(question, hits, backend, embedder, None)
    while True:
        try:
            events.append(next(gen))
        except StopIteration as stop:
            return events, stop.value


def cli_answer(home, monkeypatch, question: str) -> dict:
    """`gaceta ask QUESTION --json` (extractive) over the index at `home`: the answer as the CLI prints it."""
    from typer.testing import CliRunner

    from gaceta.cli import app

    monkeypatch.setenv("GACETA_HOME", str(home))
    monkeypatch.setenv("GACETA_ANSWERER", "extractive")
    result = CliRunner().invoke(app, ["ask", question, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def verified_citations(index, question: str) -> list:
    """The verified citations of the extractive answer to `question` over `index` (settings of its home only)."""
    from retrieval.answers import ask
    from retrieval.settings import Settings

    answer = ask(index, question, settings=Settings(home=index.settings.home, _env_file=None))
    return [c for seg in answer.content for c in seg.citations if c.verified]
