"""Quoted passages in a text, and how a quote matches an official text: verbatim, close (with a word diff), or not.

What counts as a quote: the text between «…», “…”, „…“ or a pair of straight double quotes, at least
`MIN_QUOTE_WORDS` words long (shorter quoted runs are terms and names: «amparo», "la Nación"). A quote may leave
words out with an ellipsis ("…", "...", "(…)", "[...]"): each part must then appear, in order, close together.

Matching reuses the citation verifier's normalisation (`retrieval.answers.verify.normalize`: whitespace, curly quotes,
dashes, Markdown emphasis, case), plus two things a quotation from a PDF carries: a word hyphenated at a line end
("consti- tucional") and punctuation at the quote's edges (a lawyer drops or adds the final period). Everything is
mapped back to raw offsets of the official text, so the official wording shown is a verbatim slice.

A close match is found with rapidfuzz (`partial_ratio_alignment` to place it, then a word-level Levenshtein
alignment to cut the official span at word boundaries and list the changed words). It is close when its character
similarity reaches `CLOSE_SCORE` and it keeps at least `CLOSE_WORDS` of the quote's words, in order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from retrieval.answers.verify import normalize

MIN_QUOTE_WORDS = 4
MAX_QUOTE_CHARS = 5000
CLOSE_SCORE = 80.0  # character similarity (0–100) from which a non-verbatim match is the same passage altered
CLOSE_WORDS = 0.6  # share of the quote's words the official span must keep, in order
ELISION_SPREAD = 3.0  # the parts of an elided quote lie within this many times the quote's length (+ ELISION_SLACK)
ELISION_SLACK = 400
EDGE_WORDS = 3  # words of context added on each side before the word alignment trims the span

_QUOTE = re.compile(r"«([^«»]+)»|“([^“”]+)”|„([^„“”]+)[“”]|\"([^\"]+)\"")
_ELISION = re.compile(r"\s*(?:[\[(]\s*(?:\.\s*){3}[\])]|[\[(]\s*…\s*[\])]|(?:\.\s*){3}|…)\s*")
_EDGE_PUNCT = " \t\n.,;:"
_WORD = re.compile(r"\w+")
_HYPHEN = re.compile(r"(?<=[^\W\d_])- (?=[a-záéíóúñü])")


class DiffOp(BaseModel):
    """One step from the quote to the official wording: equal words, or words replaced, added or left out."""

    op: str  # equal | replace | insert (the official text has words the quote lacks) | delete (the quote adds words)
    quoted: str = ""  # the words as the text quotes them
    official: str = ""  # the words as the official text has them


@dataclass(frozen=True)
class QuoteSpan:
    start: int  # offsets of the quoted words (inside the quotation marks) in the text
    end: int
    text: str


@dataclass(frozen=True)
class QuoteMatch:
    exact: bool
    score: float  # 0–100 character similarity of the quote and the official span
    start: int  # raw offsets of the official span in the searched text
    end: int
    diff: tuple[DiffOp, ...] = ()


def find_quotes(text: str) -> list[QuoteSpan]:
    """The quoted passages of `text` long enough to be quotations, in order."""
    out = []
    for m in _QUOTE.finditer(text):
        group = next(g for g in range(1, 5) if m.group(g) is not None)
        start, end = m.start(group), m.end(group)
        inner = text[start:end]
        lead = len(inner) - len(inner.lstrip())
        start, end = start + lead, start + len(inner.rstrip())
        body = text[start:end]
        if len(_WORD.findall(body)) >= MIN_QUOTE_WORDS and len(body) <= MAX_QUOTE_CHARS:
            out.append(QuoteSpan(start, end, body))
    return out


def _dehyphenate(norm: str, index: list[int]) -> tuple[str, list[int]]:
    """Join words hyphenated at a line end ("consti- tucional"), keeping the raw-offset map aligned."""
    cuts = [(m.start(), m.end()) for m in _HYPHEN.finditer(norm)]
    if not cuts:
        return norm, index
    keep = [True] * len(norm)
    for a, b in cuts:
        for i in range(a, b):
            keep[i] = False
    return "".join(c for c, k in zip(norm, keep) if k), [i for i, k in zip(index, keep) if k]


def _prepared(text: str) -> tuple[str, list[int]]:
    return _dehyphenate(*normalize(text))


def _pieces(quote: str) -> list[str]:
    """The quote's raw pieces between elisions, edge punctuation off; pieces without words dropped."""
    return [p for p in (piece.strip(_EDGE_PUNCT) for piece in _ELISION.split(quote)) if _WORD.search(p)]


def _trimmed(text: str) -> tuple[str, list[int]]:
    """`_prepared`, without punctuation at the edges."""
    norm, index = _prepared(text)
    lead = len(norm) - len(norm.lstrip(_EDGE_PUNCT))
    tail = len(norm.rstrip(_EDGE_PUNCT))
    return norm[lead:tail], index[lead:tail]


def _exact(parts: list[str], norm: str, index: list[int], quote_len: int) -> QuoteMatch | None:
    """Every part verbatim, in order, close together (the first occurrence that fits)."""
    start = norm.find(parts[0])
    while start >= 0:
        pos, end = start + len(parts[0]), start + len(parts[0])
        for part in parts[1:]:
            at = norm.find(part, pos)
            if at < 0:
                return None
            pos = end = at + len(part)
        if end - start <= ELISION_SPREAD * quote_len + ELISION_SLACK:
            return QuoteMatch(True, 100.0, index[start], index[end - 1] + 1)
        start = norm.find(parts[0], start + 1)
    return None


def _words(norm: str) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(norm)]


def match_quote(quote: str, text: str) -> QuoteMatch | None:
    """Where `quote` lies in `text`: verbatim (modulo normalisation and elisions), or a close altered match, or
    None. Offsets are raw `text` offsets; the span takes the punctuation mark the quote ends with when the text has
    it there too."""
    found = _match(quote, text)
    last = quote.rstrip()[-1:]
    if found is not None and last and last in _EDGE_PUNCT and text[found.end:found.end + 1] == last:
        return QuoteMatch(found.exact, found.score, found.start, found.end + 1, found.diff)
    return found


def _match(quote: str, text: str) -> QuoteMatch | None:
    pieces = _pieces(quote)
    parts = [p for p in (_trimmed(piece)[0] for piece in pieces) if p]
    norm, index = _prepared(text)
    if not parts or not norm:
        return None
    raw_joined = " ".join(pieces)
    joined, jmap = _trimmed(raw_joined)
    found = _exact(parts, norm, index, len(joined))
    if found is not None:
        return found
    if len(joined) > len(norm):
        return None
    al = fuzz.partial_ratio_alignment(joined, norm)
    if al is None or al.score < CLOSE_SCORE - 10:
        return None
    words = _words(norm)
    inside = [i for i, (_, s, e) in enumerate(words) if s < al.dest_end and al.dest_start < e]
    if not inside:
        return None
    lo, hi = max(0, inside[0] - EDGE_WORDS), min(len(words), inside[-1] + 1 + EDGE_WORDS)
    official = words[lo:hi]
    quoted = _words(joined)
    ops = Levenshtein.opcodes([w for w, _, _ in quoted], [w for w, _, _ in official])
    steps = [(op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end) for op in ops]
    while steps and steps[0][0] == "insert":  # official words before the quote starts
        steps.pop(0)
    while steps and steps[-1][0] == "insert":
        steps.pop()
    if not steps:
        return None
    first, last = steps[0][3], steps[-1][4]
    if last <= first:
        return None
    kept = sum(s2 - s1 for tag, s1, s2, _, _ in steps if tag == "equal")
    start, end = official[first][1], official[last - 1][2]
    score = fuzz.ratio(joined, norm[start:end])
    if score < CLOSE_SCORE or kept < CLOSE_WORDS * len(quoted):
        return None
    raw_start, raw_end = index[start], index[end - 1] + 1
    diff = []
    for tag, s1, s2, d1, d2 in steps:
        q = raw_joined[jmap[quoted[s1][1]]:jmap[quoted[s2 - 1][2] - 1] + 1] if s2 > s1 else ""
        o = text[index[official[d1][1]]:index[official[d2 - 1][2] - 1] + 1] if d2 > d1 else ""
        diff.append(DiffOp(op=tag, quoted=" ".join(q.split()), official=" ".join(o.split())))
    return QuoteMatch(False, round(float(score), 2), raw_start, raw_end, tuple(diff))
