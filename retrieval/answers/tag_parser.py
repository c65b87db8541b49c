"""A forgiving parser for `<cite chunk="N" sentences="X-Y">…</cite>` tags written by any chat model.

Models get tags wrong in predictable ways: a closing tag goes missing, quotes are single or curly, ranges use an en
dash, a chunk number does not exist, tags nest. Whatever happens, every character of answer text outside the tags
themselves is kept, in order; the tags only decide which stretches carry which citation.

Matching: closing tags pair with the innermost open tag (so properly nested tags nest). An open tag left unclosed
ends at the next cite tag, the next blank line, or the end of its enclosing tag, whichever comes first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_OPEN = re.compile(r"<\s*cite\b([^<>]*?)(/?)\s*>", re.I)
_CLOSE = re.compile(r"<\s*/\s*cite\s*>?", re.I)
_QUOTE_CHARS = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e`"
_ATTR = re.compile(
    rf"([A-Za-z_]+)\s*=\s*(?:[{_QUOTE_CHARS}]([^{_QUOTE_CHARS}<>]*)[{_QUOTE_CHARS}]?|([^\s<>{_QUOTE_CHARS}]+))"
)
_INT = re.compile(r"\d+")
_CHUNK_KEYS = {"chunk", "source", "doc", "document", "id"}
_SENTENCE_KEYS = {"sentences", "sentence", "sent", "s", "lines"}


@dataclass
class Tag:
    chunk: int | None  # the number the model wrote (1-based), None when missing or unreadable
    sentences: tuple[int, int] | None  # inclusive 1-based range
    start: int  # content span in the tag-free answer text
    end: int
    raw: str  # the opening tag as written


@dataclass
class Parsed:
    text: str  # the answer with every cite tag removed
    tags: list[Tag] = field(default_factory=list)


def parse_attrs(raw: str) -> tuple[int | None, tuple[int, int] | None]:
    chunk = sentences = None
    for key, quoted, bare in _ATTR.findall(raw):
        value = quoted if quoted else bare
        numbers = [int(n) for n in _INT.findall(value)]
        if not numbers:
            continue
        key = key.lower()
        if key in _CHUNK_KEYS and chunk is None:
            chunk = numbers[0]
        elif key in _SENTENCE_KEYS and sentences is None:
            sentences = (min(numbers), max(numbers))
    return chunk, sentences


def parse_cite_tags(answer: str) -> Parsed:
    """Strip the tags from `answer` and say which span of the stripped text each tag covers."""
    tokens = []  # (pos, end, kind, raw)
    for m in _OPEN.finditer(answer):
        tokens.append((m.start(), m.end(), "self" if m.group(2) else "open", m.group(1)))
    for m in _CLOSE.finditer(answer):
        tokens.append((m.start(), m.end(), "close", ""))
    tokens.sort()
    # Text without tags, and the map from raw positions to stripped positions.
    pieces, stripped_at, pos, out_len = [], {}, 0, 0
    for start, end, _, _ in tokens:
        pieces.append(answer[pos:start])
        out_len += start - pos
        stripped_at[start] = stripped_at[end] = out_len
        pos = end
    pieces.append(answer[pos:])
    text = "".join(pieces)

    # Pair closes with the innermost open; remember unclosed opens.
    stack: list[int] = []  # indexes into tokens
    ends: dict[int, int] = {}
    parent: dict[int, int | None] = {}
    for i, (start, end, kind, _) in enumerate(tokens):
        if kind == "open":
            parent[i] = stack[-1] if stack else None
            stack.append(i)
        elif kind == "close" and stack:
            ends[stack.pop()] = stripped_at[start]
    opens = [i for i, t in enumerate(tokens) if t[2] == "open"]
    for i in sorted(set(opens) - set(ends), key=lambda i: -tokens[i][0]):  # inner unclosed ones first
        begin = stripped_at[tokens[i][1]]
        limit = len(text)
        following = [stripped_at[tokens[j][0]] for j in range(i + 1, len(tokens)) if tokens[j][2] != "close"]
        if following:
            limit = min(limit, following[0])
        blank = text.find("\n\n", begin)
        if blank >= 0:
            limit = min(limit, blank)
        p = parent.get(i)
        if p is not None and p in ends:
            limit = min(limit, ends[p])
        ends[i] = max(begin, limit)

    tags = []
    for i, (start, end, kind, raw) in enumerate(tokens):
        if kind == "close":
            continue
        chunk, sentences = parse_attrs(raw)
        begin = stripped_at[end]
        tags.append(Tag(chunk, sentences, begin, ends.get(i, begin), answer[start:end]))
    return Parsed(text=text, tags=tags)
