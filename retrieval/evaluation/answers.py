"""`evaluate_answers`: cited answers on a SQuAD-format set (XQuAD-es) — do the verified citations hold the gold span?

The corpus goes into a throw-away index through the same path as the retrieval evaluation; each question is answered
with `ask` by the chosen backend. Per question we record whether a *verified* citation covers the gold answer span
(same passage, offsets containing it: the citation hit), the answer's coverage, and the share of its citations that
verified. Retrieval misses are counted apart (`gold_retrieved`) so a citation miss can be told from a search miss.
The relevance judgement (`Coverage.relevant`) is scored against the same gold: the share flagged not relevant among
answers that miss the gold span should be well above the share among answers that hit it.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from retrieval.evaluation.corpus import build_corpus
from retrieval.evaluation.datasets import DatasetFormatError, squad_file, load_dataset
from retrieval.evaluation.runner import index_corpus
from retrieval.settings import Settings

Progress = Callable[[str, int, int], None]  # (stage, done, total)


class AnswerRow(BaseModel):
    qid: str
    question: str
    gold: str
    found: bool
    gold_retrieved: bool  # the gold passage was among the retrieved sources
    hit: bool  # a verified citation covers the gold answer span
    coverage: float
    citations: int
    verified: int
    seconds: float
    relevant: bool = True  # the answer's relevance judgement (Coverage.relevant)
    relevance: float = 1.0
    supported: int = 0  # sentences their cited spans back (Coverage.supported)
    flag_reasons: list[str] = []


class AnswersReport(BaseModel):
    dataset: str
    answerer: str
    model: str | None
    k: int
    questions: int
    limited: bool
    citation_hit_rate: float  # share of questions with a verified citation covering the gold span
    gold_retrieved_rate: float
    hit_rate_when_retrieved: float  # citation hits among questions whose gold passage was retrieved
    mean_coverage: float  # over answered questions
    verified_share: float  # verified citations / all citations, pooled
    found_rate: float
    fallbacks: int  # answers where an LLM backend failed and extractive answered
    # the relevance flag against the gold: share flagged not-relevant among answered questions whose verified
    # citations miss the gold span, and among those that hit it (the flag should separate them)
    not_relevant_when_missed: float
    not_relevant_when_hit: float
    seconds_per_question: float
    index_seconds: float
    rows: list[AnswerRow]


def not_relevant_share(rows: list[AnswerRow]) -> float:
    """Share of `rows` whose answer was flagged not relevant (0 when there are none)."""
    return sum(not r.relevant for r in rows) / len(rows) if rows else 0.0


def gold_answers(dataset_path: str | Path) -> dict[str, tuple[str, int]]:
    """qid → (answer text, offset in its paragraph) from the SQuAD file the dataset loader reads."""
    squad = squad_file(Path(dataset_path))
    if squad is None:
        raise DatasetFormatError(f"{dataset_path}: the answers evaluation needs a SQuAD-format set with gold spans")
    gold = {}
    for article in json.loads(squad.read_text(encoding="utf-8"))["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                answer = qa["answers"][0]
                gold[qa["id"]] = (answer["text"], answer["answer_start"])
    return gold


def evaluate_answers(
    dataset_path: str | Path,
    answerer: str = "extractive",
    limit: int | None = None,
    k: int = 8,
    settings: Settings | None = None,
    progress: Progress | None = None,
) -> AnswersReport:
    """Answer the first `limit` questions (all if None) of a SQuAD-format set and score the citations."""
    from retrieval.answers import ask
    from retrieval.index import Index

    dataset = load_dataset(dataset_path)
    gold = gold_answers(dataset_path)
    queries = dataset.queries[:limit] if limit else dataset.queries
    corpus = build_corpus(dataset)
    chunk_of = {pid: chunk_id for chunk_id, pid in corpus.passage_of.items()}
    chunks = {c.chunk_id: c for _, cs in corpus.documents for c in cs}
    base = settings or Settings()
    rows: list[AnswerRow] = []
    fallbacks, models = 0, set()
    with tempfile.TemporaryDirectory(prefix="gaceta-eval-answers-") as home:
        index = Index.open(base.model_copy(update={"home": Path(home), "qdrant_url": None}))
        try:
            index_seconds, _ = index_corpus(index, corpus, progress)
            for number, query in enumerate(queries, start=1):
                text, offset = gold[query.qid]
                gold_chunk = chunks[chunk_of[query.gold[0][0]]]
                span = (gold_chunk.start + offset, gold_chunk.start + offset + len(text))
                t0 = time.perf_counter()
                answer = ask(index, query.text, k=k, answerer=answerer, settings=base)
                seconds = time.perf_counter() - t0
                cites = [c for seg in answer.content for c in seg.citations]
                fallbacks += answer.fallback_reason is not None
                models.add(answer.model)
                rows.append(AnswerRow(
                    qid=query.qid, question=query.text, gold=text, found=answer.found,
                    gold_retrieved=any(h.chunk.chunk_id == gold_chunk.chunk_id for h in answer.sources),
                    hit=any(c.verified and c.chunk_id == gold_chunk.chunk_id and c.start <= span[0] and span[1] <= c.end
                            for c in cites),
                    coverage=answer.coverage.ratio, citations=len(cites), verified=sum(c.verified for c in cites),
                    seconds=seconds, relevant=answer.coverage.relevant, relevance=answer.coverage.relevance,
                    supported=answer.coverage.supported, flag_reasons=answer.coverage.flag_reasons,
                ))
                if progress:
                    progress("answers", number, len(queries))
        finally:
            index.close()
    n = len(rows) or 1
    answered = [r for r in rows if r.found]
    retrieved = [r for r in rows if r.gold_retrieved]
    total_cites = sum(r.citations for r in rows)
    return AnswersReport(
        dataset=dataset.name, answerer=answerer, model=next(iter(models)) if len(models) == 1 else None, k=k,
        questions=len(rows), limited=len(rows) < len(dataset.queries),
        citation_hit_rate=sum(r.hit for r in rows) / n,
        gold_retrieved_rate=len(retrieved) / n,
        hit_rate_when_retrieved=sum(r.hit for r in retrieved) / (len(retrieved) or 1),
        mean_coverage=statistics.fmean(r.coverage for r in answered) if answered else 0.0,
        verified_share=sum(r.verified for r in rows) / total_cites if total_cites else 0.0,
        found_rate=len(answered) / n, fallbacks=fallbacks,
        not_relevant_when_missed=not_relevant_share([r for r in answered if not r.hit]),
        not_relevant_when_hit=not_relevant_share([r for r in answered if r.hit]),
        seconds_per_question=statistics.fmean(r.seconds for r in rows) if rows else 0.0,
        index_seconds=index_seconds, rows=rows,
    )
