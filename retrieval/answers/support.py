"""Support and relevance judgements: does a cited span back the sentence that cites it, do the sources address the
question?

Offline, language-neutral (the answers are Spanish, WiCE is English). A claim's terms are the project analyzer's
(folded, stemmed, stopwords of the detected language out) plus its numbers read without separators ("260,000" =
"260000"); each weighs by how rare it is among the spans (a word every sentence of a page repeats proves little).
The support score is the mean of three shares, each 0–1:
- clause coverage: the claim split into clauses (punctuation, dashes, "and/y", "which/cual", "after/después de"…);
  per clause, the weighted share the best run of `WINDOW` consecutive spans states; averaged over clauses;
- pair coverage: the weighted share of pairs of claim terms that one span states *together* (a relation, not two
  stray words);
- stated facts: the share of its specific facts (names, numbers, terms at most `RARE_DF` spans hold) that a span
  states along with `CONTEXT_TERMS` other claim terms.
Below `PARTIAL_AT` the claim is unsupported, from `SUPPORTED_AT` supported (never while a number of the claim is
stated nowhere). A month name in a date reads as its number ("Nov 05, 2018" states "November 5, 2018"). On WiCE
dev (docs: `gaceta eval attribution`) this reaches F1(not supported) 0.625 with these cut-offs and 0.625 two-fold
cross-validated; embedding similarity (USE v3) separated the labels worse (AUC 0.76
vs 0.85–0.88 for the term features), so an embedder only breaks ties when choosing evidence spans.
The evidence is chosen greedily: the span that states most of what is still unstated, while it adds `MIN_GAIN`.
Relevance: the share of the question's content terms that the best cited source states (its label included),
toward embedding similarity when an embedder is given. Both are signals for a reader, not proofs of entailment.
With GACETA_JUDGE=llm, `LLMJudge` asks an OpenAI-compatible endpoint for both, one call an answer, as strict JSON;
the caller keeps the offline judgement when it raises `JudgeError`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from enum import Enum
from itertools import combinations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from rapidfuzz import fuzz
from text_to_num import alpha2digit

from retrieval.text_analysis import LANGUAGES, acronyms, analyze, content_terms, detect_languages

SUPPORTED_AT = 0.6  # score from which a claim is supported
PARTIAL_AT = 0.15  # score from which it is partly supported; below, unsupported
MIN_GAIN = 0.1  # a further evidence span must state at least this share of the claim's weight
MAX_EVIDENCE = 4
WINDOW = 3  # a clause may be stated across this many consecutive spans
RARE_DF = 2  # a claim term found in at most this many spans is a specific fact
CONTEXT_TERMS = 2  # a fact counts as stated where a span also states this many other terms of the claim
MISSING_FACT = 0.5  # each name or number of the question no source states halves the relevance score
EMBED_WEIGHT = 0.3  # share of the relevance score given to embedding similarity, when an embedder is given
RELEVANT_AT = 0.35  # relevance score from which the sources address the question
IDF_FLOOR = 0.5

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# Month names (English and Spanish, full or abbreviated) next to a number: a date, whose month reads as its number
# so "November 5, 2018", "Nov 05, 2018", "5 de noviembre de 2018" and "11/05/2018" state the same month.
_MONTHS = {m: i for i, group in enumerate((
    "january jan enero ene", "february feb febrero", "march mar marzo", "april apr abril abr", "may mayo",
    "june jun junio", "july jul julio", "august aug agosto ago", "september sep sept septiembre setiembre",
    "october oct octubre", "november nov noviembre", "december dec diciembre dic"), start=1) for m in group.split()}
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_MONTH = re.compile(
    rf"(?<=\d\s)(?:de\s+)?\b({_MONTH_NAMES})\b\.?|\b({_MONTH_NAMES})\b\.?(?=\s*(?:de\s+)?\d)", re.IGNORECASE)
# a capitalised word that does not open a sentence, a question or an exclamation ("¿Pueden los extranjeros…")
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)(?<![¿¡])(?<![.!?:]\s[¿¡])\b[A-ZÁÉÍÓÚÑÜ][\w'’-]+")
# Where a sentence joins its clauses (English and Spanish): punctuation, dashes, coordinating and relative words.
_CLAUSE = re.compile(
    r"[,;:()\[\]]|\s[–—-]\s|\s(?:and|but|while|which|who|whose|where|after|before|although|as well as|including"
    r"|y|e|pero|mientras|cual|cuales|cuyo|cuya|donde|después de|antes de|aunque|así como|incluidos?|incluidas?)\s",
    re.IGNORECASE,
)


class Support(str, Enum):
    supported = "supported"
    partial = "partial"
    unsupported = "unsupported"


class SupportJudgement(BaseModel):
    label: Support
    score: float  # 0–1
    evidence: list[int] = []  # indices into the judged spans that back the claim
    missing: list[str] = []  # the claim's numbers and names that no span states
    method: str = "offline"  # offline | llm | "offline (the LLM judge failed: …)"


class RelevanceJudgement(BaseModel):
    relevant: bool
    score: float  # 0–1
    missing: list[str] = []  # the question's names and numbers that no source states
    method: str = "offline"


def numbers(text: str) -> set[str]:
    """The numbers of `text`, separators dropped ("260,000" and "260000" are one number; "1.500" is "1500")."""
    return {re.sub(r"[.,]", "", n).lstrip("0") or "0" for n in _NUMBER.findall(text)}


_TEXT2NUM = {"spanish": "es", "english": "en"}


def numbers_stated(text: str) -> set[str]:
    """`numbers`, and the numbers `text` writes out in words ("el cinco por ciento" states 5, "sesenta días" 60,
    "fewer than two hundred fifty persons" 250), read by text2num in the text's language."""
    found = numbers(text)
    for language in detect_languages(text):
        found |= numbers(alpha2digit(text, _TEXT2NUM[language]))
    return found


def dated(text: str) -> str:
    """`text` with each month name that stands in a date replaced by the month's number."""
    return _DATE_MONTH.sub(lambda m: str(_MONTHS[(m.group(1) or m.group(2)).lower()]), text)


def names(text: str, languages) -> set[str]:
    """Capitalised words not opening a sentence (a name, a place, a title word), folded and stemmed; stopwords out."""
    out: set[str] = set()
    for match in _NAME.finditer(text):
        out.update(analyze(match.group(0), languages))
    return {n for n in out if not n.isdigit()}


def _similarities(embedder, query: str, spans: list[str]) -> np.ndarray:
    q = np.asarray(embedder.embed_query(query), dtype=np.float32)
    docs = np.asarray(embedder.embed_documents(spans), dtype=np.float32)
    q /= np.linalg.norm(q) or 1.0
    docs /= np.linalg.norm(docs, axis=1, keepdims=True).clip(1e-9)
    return np.clip(docs @ q, 0.0, 1.0)


def judge_support(claim: str, spans: list[str], embedder=None) -> SupportJudgement:
    """How far `spans` (the cited text, one or more sentences; or a whole cited page) back `claim`; `evidence`
    points at the spans that state it, best first. `embedder` only breaks ties between evidence spans (embedding
    similarity separates supported from unsupported claims far worse than the term features: see the module doc)."""
    if not spans or not claim.strip():
        return SupportJudgement(label=Support.unsupported, score=0.0)
    claim_features = _Claim(claim, spans)
    if not claim_features.terms:
        return SupportJudgement(label=Support.supported, score=1.0)
    sims = _similarities(embedder, claim, spans) if embedder is not None else None
    score = (claim_features.clause_coverage() + claim_features.pair_coverage() + claim_features.stated_facts()) / 3
    missing = claim_features.missing()
    label = label_of(score)
    if label is Support.supported and any(m.isdigit() for m in missing):
        label = Support.partial  # a number no span states is never backed, however much else is
    return SupportJudgement(label=label, score=round(score, 4), evidence=claim_features.evidence(sims),
                            missing=missing)


def label_of(score: float, supported_at: float = SUPPORTED_AT, partial_at: float = PARTIAL_AT) -> Support:
    """The label a support score reads as, under the given cut-offs."""
    if score >= supported_at:
        return Support.supported
    return Support.partial if score >= partial_at else Support.unsupported


class _Claim:
    """A claim's terms weighed against the spans that may state it, and the three measures of how far they do."""

    def __init__(self, claim: str, spans: list[str]):
        claim, spans = dated(claim), [dated(s) for s in spans]
        self.claim = claim
        self.languages = detect_languages(claim + " " + " ".join(spans[:20]))
        self.terms = set(analyze(claim, self.languages)) | numbers(claim)
        self.span_numbers = [numbers(s) for s in spans]
        # each span as the claim terms it states (its numbers read without separators, as the claim's are)
        self.stated = [self.terms & (set(analyze(s, self.languages)) | nums)
                       for s, nums in zip(spans, self.span_numbers)]
        n = len(spans)
        self.df = {t: sum(t in st for st in self.stated) for t in self.terms}
        self.weight = {t: IDF_FLOOR + math.log(1 + n / (1 + self.df[t])) for t in self.terms}

    def _share(self, terms: set[str], stated: set[str]) -> float:
        total = math.fsum(self.weight[t] for t in terms)
        return math.fsum(self.weight[t] for t in terms & stated) / total if total else 0.0

    def clause_coverage(self) -> float:
        """Mean over the claim's clauses of the weighted share of the clause that the best run of `WINDOW`
        consecutive spans states: a clause is one fact, and one passage states it."""
        clauses = [set(analyze(c, self.languages)) & self.terms for c in _CLAUSE.split(self.claim)]
        clauses = [c for c in clauses if len(c) >= 2] or [self.terms]
        n = len(self.stated)
        windows = [set().union(*self.stated[i:i + WINDOW]) for i in range(max(n - WINDOW + 1, 1))]
        return math.fsum(max(self._share(c, w) for w in windows) for c in clauses) / len(clauses)

    def pair_coverage(self) -> float:
        """Weighted share of the pairs of claim terms that one span states together: relations, not just words."""
        terms = sorted(self.terms)
        if len(terms) < 2:
            return self._share(self.terms, set().union(*self.stated))
        together: set[tuple[str, str]] = set()
        for st in self.stated:
            together.update(combinations(sorted(st), 2))
        pairs = list(combinations(terms, 2))
        total = math.fsum(self.weight[a] * self.weight[b] for a, b in pairs)
        return math.fsum(self.weight[a] * self.weight[b] for a, b in pairs if (a, b) in together) / total

    def stated_facts(self) -> float:
        """Share of the claim's specific facts (names, numbers, terms few spans state) that a span states along
        with `CONTEXT_TERMS` other terms of the claim: the fact in its context, not a stray match."""
        facts = {t for t in self.terms if self.df[t] <= RARE_DF} | (names(self.claim, self.languages) & self.terms)
        facts |= numbers(self.claim)
        if not facts:
            return self.clause_coverage()
        found = sum(any(f in st and len(st) > CONTEXT_TERMS for st in self.stated) for f in facts)
        return found / len(facts)

    def evidence(self, sims: np.ndarray | None = None) -> list[int]:
        """The spans that state the claim, greedily: each adds the most weight not yet stated (ties: the closer
        embedding), while it adds at least `MIN_GAIN` of the claim."""
        total = math.fsum(self.weight.values())
        chosen: list[int] = []
        covered: set[str] = set()
        while len(chosen) < MAX_EVIDENCE:
            best, best_gain = -1, 0.0
            for i, st in enumerate(self.stated):
                if i in chosen:
                    continue
                gain = math.fsum(self.weight[t] for t in st - covered) / total
                if sims is not None:
                    gain += 1e-3 * float(sims[i])
                if gain > best_gain:
                    best, best_gain = i, gain
            if best < 0 or best_gain < (MIN_GAIN if chosen else 1e-2):
                break
            chosen.append(best)
            covered |= self.stated[best]
        return chosen

    def missing(self) -> list[str]:
        """The claim's numbers and names that no span states."""
        said = set().union(*self.stated)
        facts = numbers(self.claim) | (names(self.claim, self.languages) & self.terms)
        return sorted(f for f in facts if f not in said and f not in set().union(*self.span_numbers))


def judge_relevance(question: str, spans: list[str], embedder=None,
                    referenced: Sequence[str] = ()) -> RelevanceJudgement:
    """Do `spans` (the sources an answer cites, with their labels) address `question`? The share of the question's
    content terms the best span states (alignment when it states none), toward embedding similarity when given;
    halved for each name or number of the question that no span states ("la capital de Australia" answered from a
    text on "capital óseo"; "artículo 27" answered from article 28). `referenced`: the legal references of the
    question the search resolved ("el artículo 107 de la CPEUM"); their names and numbers are not facts a span must
    state, since whether the answer cites that article of that law is judged by structure
    (`coverage.answers_the_question`), and a law's articles do not spell its acronym; and the words naming the
    country whose law the cited documents are ("México", "la República"): a law does not say whose it is; and the
    names of the cited documents and of their issuers ("the GDPR", "the EU", "el Congreso" of the Ley de Amparo): a
    quote does not repeat the name of the text it stands in. A span states an acronym it spells out ("el SAT" in a
    span naming the "Servicio de Administración Tributaria")."""
    terms = content_terms(question)
    if not spans:
        return RelevanceJudgement(relevant=False, score=0.0)
    if not terms:
        return RelevanceJudgement(relevant=True, score=1.0)
    span_terms = [content_terms(s) | numbers_stated(s) | acronyms(s) for s in spans]
    lexical = max(len(terms & st) / len(terms) for st in span_terms)
    if lexical == 0.0:
        lexical = max(fuzz.token_set_ratio(question, s) for s in spans) / 100 * 0.5
    score = lexical
    if embedder is not None:
        score = (1 - EMBED_WEIGHT) * lexical + EMBED_WEIGHT * float(_similarities(embedder, question, spans).max())
    stated = set().union(*span_terms)
    languages = detect_languages(question)
    facts = (names(question, languages) & terms) | numbers(question)
    for ref in referenced:
        facts -= names(f" {ref}", languages) | numbers(ref) | acronyms(ref)  # its first word too: "México" is a name
    missing = sorted(f for f in facts if f not in stated)
    score *= MISSING_FACT ** len(missing)
    return RelevanceJudgement(relevant=score >= RELEVANT_AT, score=round(score, 4), missing=missing)



# LLM judge (GACETA_JUDGE=llm): one chat call an answer, strict JSON verdicts; the caller keeps the offline judgement
# whenever this raises JudgeError.

LLM_SCORE = {Support.supported: 1.0, Support.partial: 0.5, Support.unsupported: 0.0}
_JUDGE_INSTRUCTIONS = (
    "You check whether cited sources back an answer. For each numbered SENTENCE, decide from ITS QUOTES only "
    "(not from what you know) whether they state it: \"supported\" (everything it asserts is stated), \"partial\" "
    "(some of it is stated, some is not) or \"unsupported\" (the quotes do not state it, or contradict it). "
    "Then decide whether the SOURCES address the QUESTION at all. Reply with JSON only, exactly this shape: "
    '{"sentences": [{"id": 1, "label": "supported"}, ...], "relevant": true}'
    " with one entry for every sentence id, no other keys, no prose."
)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class JudgeError(RuntimeError):
    """The LLM judge gave no usable verdict (endpoint failure, or a reply that is not the asked-for JSON)."""


class _SentenceVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    id: int
    label: Support = Field(strict=False)  # the enum's value, as JSON gives it


class _Verdicts(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    sentences: list[_SentenceVerdict]
    relevant: bool | None = None


class LLMVerdicts(BaseModel):
    support: list[SupportJudgement]  # one per judged claim, in order
    relevance: RelevanceJudgement | None = None  # None when no question was given


class LLMJudge:
    """Judges an answer's cited sentences, and its relevance, through an OpenAI-compatible chat endpoint."""

    def __init__(self, settings, backoff_s: float | None = None):
        from retrieval.answers.openai_chat import BACKOFF_S, openai_endpoint

        self.url, self.headers = openai_endpoint(settings) if settings.openai_base_url else (None, {})
        self.model = settings.openai_model
        self.backoff_s = BACKOFF_S if backoff_s is None else backoff_s

    def judge(self, claims: list[tuple[str, list[str]]], question: str | None = None,
              sources: list[str] | None = None) -> LLMVerdicts:
        """Verdicts for `claims` (each a sentence and the quotes it cites) and, when `question` is given, whether
        `sources` address it. Raises JudgeError on any failure: the call, or a reply off the asked-for shape."""
        from retrieval.answers.base import AnswerError
        from retrieval.answers.openai_chat import chat_completion

        if self.url is None:
            raise JudgeError("GACETA_JUDGE=llm needs GACETA_OPENAI_BASE_URL")
        try:
            body = chat_completion(self.url, {"model": self.model, "temperature": 0, "messages": [
                {"role": "system", "content": _JUDGE_INSTRUCTIONS},
                {"role": "user", "content": _judge_prompt(claims, question, sources or [])},
            ]}, self.headers, self.backoff_s, "judge")
        except AnswerError as exc:
            raise JudgeError(str(exc)) from exc
        try:
            content = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise JudgeError("the judge endpoint's reply has no message content") from None
        return self._verdicts(content, len(claims), question is not None)

    @staticmethod
    def _verdicts(content, n: int, asked_relevance: bool) -> LLMVerdicts:
        if not isinstance(content, str):
            raise JudgeError("the judge's reply is not text")
        text = content.strip()
        fenced = _FENCE.match(text)
        try:
            verdicts = _Verdicts.model_validate_json(fenced.group(1) if fenced else text)
        except ValidationError as exc:
            raise JudgeError(f"the judge's reply is not the asked-for JSON ({exc.error_count()} errors)") from None
        ids = [v.id for v in verdicts.sentences]
        if sorted(ids) != list(range(1, n + 1)):
            raise JudgeError(f"the judge gave verdicts for sentences {sorted(ids)}, asked for 1–{n}")
        if asked_relevance and verdicts.relevant is None:
            raise JudgeError("the judge gave no relevance verdict")
        label = {v.id: v.label for v in verdicts.sentences}
        support = [SupportJudgement(label=label[i], score=LLM_SCORE[label[i]], method="llm") for i in range(1, n + 1)]
        relevance = None
        if asked_relevance:
            relevance = RelevanceJudgement(relevant=verdicts.relevant, score=float(verdicts.relevant), method="llm")
        return LLMVerdicts(support=support, relevance=relevance)


def _judge_prompt(claims: list[tuple[str, list[str]]], question: str | None, sources: list[str]) -> str:
    parts = []
    if question is not None:
        parts.append(f"QUESTION: {question}")
        parts.append("SOURCES:\n" + "\n".join(f"[{i}] {s}" for i, s in enumerate(sources, start=1)))
    for i, (sentence, quotes) in enumerate(claims, start=1):
        parts.append(f"SENTENCE {i}: {sentence}\nITS QUOTES:\n" + "\n".join(f"- {q}" for q in quotes))
    return "\n\n".join(parts)


__all__ = ["LANGUAGES", "JudgeError", "LLMJudge", "LLMVerdicts", "RelevanceJudgement", "Support", "SupportJudgement",
           "judge_relevance", "judge_support"]
