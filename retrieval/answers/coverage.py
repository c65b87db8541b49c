"""Citation coverage: the share of an answer's sentences backed by at least one verified citation.

A hallucination signal, not a proof: a sentence counts as backed when it overlaps a text segment that carries a
verified citation. Connectors and fragments under `MIN_WORDS` words are not claims and are left out.
"""

from __future__ import annotations

import re

from ingest.sentences import split_sentences
from retrieval.answers.models import Coverage, TextSegment

MIN_WORDS = 5
FLAG_BELOW = 0.5

_WORD = re.compile(r"\w+")


def compute_coverage(content: list[TextSegment]) -> Coverage:
    """Coverage of the answer made of `content` (no claim sentences at all: ratio 1.0, nothing to flag)."""
    text = "".join(seg.text for seg in content)
    backed: list[tuple[int, int]] = []
    pos = 0
    for seg in content:
        if any(c.verified for c in seg.citations):
            backed.append((pos, pos + len(seg.text)))
        pos += len(seg.text)
    total = cited = 0
    uncited: list[str] = []
    for sent in split_sentences(text):
        s, e = sent.start, sent.end
        sentence = text[s:e]
        if len(_WORD.findall(sentence)) < MIN_WORDS:
            continue
        total += 1
        if any(bs < e and s < be for bs, be in backed):
            cited += 1
        else:
            uncited.append(sentence)
    ratio = cited / total if total else 1.0
    return Coverage(ratio=round(ratio, 4), sentences=total, cited=cited, uncited=uncited, flagged=ratio < FLAG_BELOW)
