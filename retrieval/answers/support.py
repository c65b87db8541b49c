"""Support and relevance judgements: does a cited span back the sentence that cites it, do the sources address the
question?

Offline by default, language-neutral (the answers are Spanish, WiCE is English):
- the claim's *facts* are its content terms (the project's analyzer: folded, stemmed, stopwords of the detected
  language out), its numbers ("260,000" = "260000") and its names (capitalised words not opening the sentence);
- each term weighs by how rare it is among the spans (a word every sentence of the page repeats proves little);
- the evidence is chosen greedily: the span that states most of what is still unstated, while it adds enough;
- the score is the weighted share of the claim the evidence states, lowered by each number or name that no span
  of the whole source states (the fact a not-supported claim usually adds), and raised toward the embedding
  similarity of the best span when an embedder is given (paraphrase).
The label follows two cut-offs of that score. It is a signal for a reader, not a proof of entailment.
"""

from __future__ import annotations

import math
import re
from enum import Enum

import numpy as np
from pydantic import BaseModel
from rapidfuzz import fuzz

from retrieval.text_analysis import LANGUAGES, analyze, content_terms, detect_languages

SUPPORTED_AT = 0.75  # score from which a claim is supported
PARTIAL_AT = 0.4  # score from which it is partly supported; below, unsupported
MIN_GAIN = 0.1  # a further evidence span must state at least this share of the claim's weight
MAX_EVIDENCE = 4
MISSING_FACT = 0.5  # each claim number / name the whole source never states multiplies the score by this
EMBED_WEIGHT = 0.3  # share of the score given to the best span's embedding similarity, when an embedder is given
RELEVANT_AT = 0.35  # relevance score from which the sources address the question
IDF_FLOOR = 0.5

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"\w+")
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-ZÁÉÍÓÚÑÜ][\w'’-]+")


class Support(str, Enum):
    supported = "supported"
    partial = "partial"
    unsupported = "unsupported"


class SupportJudgement(BaseModel):
    label: Support
    score: float  # 0–1
    evidence: list[int] = []  # indices into the judged spans that back the claim
    missing: list[str] = []  # the claim's numbers and names that no span states
    method: str = "offline"  # offline | llm


class RelevanceJudgement(BaseModel):
    relevant: bool
    score: float  # 0–1
    method: str = "offline"


def numbers(text: str) -> set[str]:
    """The numbers of `text`, separators dropped ("260,000" and "260000" are one number; "1.500" is "1500")."""
    return {re.sub(r"[.,]", "", n).lstrip("0") or "0" for n in _NUMBER.findall(text)}


def names(text: str, languages) -> set[str]:
    """Capitalised words not opening a sentence (a name, a place, a title word), folded and stemmed; stopwords out."""
    out: set[str] = set()
    for match in _NAME.finditer(text):
        out.update(analyze(match.group(0), languages))
    return {n for n in out if not n.isdigit()}


def _label(score: float) -> Support:
    if score >= SUPPORTED_AT:
        return Support.supported
    return Support.partial if score >= PARTIAL_AT else Support.unsupported


def _similarities(embedder, query: str, spans: list[str]) -> np.ndarray:
    q = np.asarray(embedder.embed_query(query), dtype=np.float32)
    docs = np.asarray(embedder.embed_documents(spans), dtype=np.float32)
    q /= np.linalg.norm(q) or 1.0
    docs /= np.linalg.norm(docs, axis=1, keepdims=True).clip(1e-9)
    return np.clip(docs @ q, 0.0, 1.0)


def judge_support(claim: str, spans: list[str], embedder=None) -> SupportJudgement:
    """How far `spans` (the cited text, one or more sentences) back `claim`; `evidence` points at the spans that
    state it, best first."""
    if not spans or not claim.strip():
        return SupportJudgement(label=Support.unsupported, score=0.0)
    languages = detect_languages(claim + " " + " ".join(spans[:20]))
    claim_terms = set(analyze(claim, languages))
    span_terms = [set(analyze(s, languages)) for s in spans]
    span_numbers = [numbers(s) for s in spans]
    facts = numbers(claim) | names(claim, languages)
    if not claim_terms:
        return SupportJudgement(label=Support.supported, score=1.0, evidence=[])
    n = len(spans)
    df = {t: sum(t in terms for terms in span_terms) for t in claim_terms}
    weight = {t: IDF_FLOOR + math.log(1 + n / (1 + df[t])) for t in claim_terms}
    total = sum(weight.values())
    sims = _similarities(embedder, claim, spans) if embedder is not None else None

    evidence: list[int] = []
    stated: set[str] = set()
    while len(evidence) < MAX_EVIDENCE:
        best, best_gain = -1, 0.0
        for i, terms in enumerate(span_terms):
            if i in evidence:
                continue
            gain = sum(weight[t] for t in (claim_terms & terms) - stated) / total
            if sims is not None:
                gain += 1e-3 * float(sims[i])  # ties go to the closer paraphrase
            if gain > best_gain:
                best, best_gain = i, gain
        if best < 0 or (evidence and best_gain < MIN_GAIN) or best_gain <= 1e-3:
            break
        evidence.append(best)
        stated |= claim_terms & span_terms[best]
    coverage = sum(weight[t] for t in stated) / total
    page_numbers = set().union(*span_numbers)
    page_terms = set().union(*span_terms)
    missing = sorted(f for f in facts if f not in page_numbers and f not in page_terms)
    score = coverage * MISSING_FACT ** len(missing)
    if sims is not None:
        score = (1 - EMBED_WEIGHT) * score + EMBED_WEIGHT * float(sims.max())
    return SupportJudgement(label=_label(score), score=round(score, 4), evidence=evidence, missing=missing)


def judge_relevance(question: str, spans: list[str], embedder=None) -> RelevanceJudgement:
    """Do `spans` (the sources an answer cites, with their labels) address `question`? The share of the question's
    content terms the best span states (alignment when it states none), toward embedding similarity when given."""
    terms = content_terms(question)
    if not spans:
        return RelevanceJudgement(relevant=False, score=0.0)
    if not terms:
        return RelevanceJudgement(relevant=True, score=1.0)
    lexical = max(len(terms & content_terms(s)) / len(terms) for s in spans)
    if lexical == 0.0:
        lexical = max(fuzz.token_set_ratio(question, s) for s in spans) / 100 * 0.5
    score = lexical
    if embedder is not None:
        score = (1 - EMBED_WEIGHT) * lexical + EMBED_WEIGHT * float(_similarities(embedder, question, spans).max())
    return RelevanceJudgement(relevant=score >= RELEVANT_AT, score=round(score, 4))


__all__ = ["LANGUAGES", "RelevanceJudgement", "Support", "SupportJudgement", "judge_relevance", "judge_support"]
