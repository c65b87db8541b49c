"""Sentence spans for Spanish (and English) legal Markdown, with exact character offsets.

Citations point at sentences, so a split in the wrong place cuts a legal reference in half ("Art." | "27"),
and a missed split glues a heading or table row onto prose. The rules, in order:

- Markdown structure first: a heading line (`# …`) and a table row (`| … |`) are each one unit; a blank line ends a
  paragraph; a line that opens a list item or clause (`- `, `1. `, `a) `, `I.-`, `1.2.3 `, `PRIMERO.-`) starts a new
  unit. Other line breaks inside a paragraph are just wrapped text.
- An amendment note of a consolidated text ("Párrafo adicionado DOF 20-12-2013. Reformado DOF 11-06-2014"; grammar
  in `ingest.amendments`) is always exactly one sentence: a line that opens one starts a new unit, and the note is
  never split at its inner periods nor merged with the provision's text around it.
- Inside a paragraph a sentence ends at `.`, `?` or `!` (plus closing quotes/brackets/emphasis) followed by
  whitespace and a character that can open a sentence (capital, digit, `¿`, `¡`, opening quote or bracket), unless
  the period closes an abbreviation (`Art.`, `fracc.`, `Lic.`, `Núm.`, `No. 5`), an initial or dotted acronym
  (`C.P.`, `S.A. de C.V.`), a pair of doubled initials (the Spanish plural abbreviation: `EE. UU.`, `FF. AA.`), an
  ordinal (`1o.`), or the enumerator that opens the unit (`27.`, `IV.`). Ellipses (`...`, `…`, dot leaders) never
  end a sentence.

Spans cover the non-whitespace text exactly: `text[s.start - offset : s.end - offset]` is the sentence, stripped,
and every non-whitespace character belongs to exactly one sentence.
"""

from __future__ import annotations

import re

from ingest.amendments import continues_note, is_note, starts_note
from ingest.models import Sentence

HEADING_LINE = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
# the Markdown heading lines a text opens with (a chunk's headings above its first sentence)
LEADING_HEADINGS = re.compile(r"\A\s*(?:#{1,6}[ \t][^\n]*(?:\n\s*|\Z))+")
TABLE_ROW = re.compile(r"[ \t]*\|")
ITEM_START = re.compile(
    r"""[ \t]*(?:
        [-*+•][ \t]                                  # bullet
      | \d+(?:\.\d+)*[.)]-?[ \t]                     # 1.  1)  27.-  1.2.
      | \d+(?:\.\d+)+[ \t]                           # 1.2.3 Section
      | [a-zA-Zñ][.)][ \t]                           # a)  b.
      | [IVXLCDM]+[.)]-?[ \t]                        # IV.  IV.-
      | \([a-zA-Z0-9]{1,5}\)[ \t]                    # (a)  (iv)
      | [A-ZÁÉÍÓÚÑ]{4,}(?:[ \t][A-ZÁÉÍÓÚÑ]+)*\.-     # PRIMERO.-  ARTÍCULO ÚNICO.-
    )""",
    re.VERBOSE,
)
# A terminator, its closers, then the whitespace before the next sentence.
CANDIDATE = re.compile(r"([.!?…]+)([\"'»”’)\]*_]*)(\s++)(?![a-zñáéíóúü])")
OPENS_SENTENCE = re.compile(r"[^\W\d_]|\d|[¿¡\"'“«(\[*_]")
ENUMERATOR = re.compile(r"\d+(?:\.\d+)*|[IVXLCDM]+|[a-zA-Z]")
ORDINAL = re.compile(r"\d+[oaº°]")
INITIAL = re.compile(r"[^\W\d_]")
DOTTED = re.compile(r"(?:[^\W\d_]{1,4}\.)+[^\W\d_]{1,4}")
# A Spanish plural abbreviation doubles each initial and comes in pairs: "EE. UU.", "FF. AA.", "RR. HH." (a lone
# "II." or "XX." is a Roman numeral that may end a sentence).
DOUBLED_PAIR = re.compile(r"([^\W\d_])\1\.\s+([^\W\d_])\2\.")
LEADING_PUNCT = "([\"'«“¿¡*_"

# Abbreviations that never end a sentence (compared lower-case, without the final period).
ABBREVIATIONS = frozenset(
    """
    art arts artº fracc fraccs frac fracs fr inc incs núm núms num nums párr parr pár cap caps tít tit secc sec
    pág págs pag pags pp vol vols ed eds lic licda lics dr dra dres dras ing ings arq mtro mtra prof profa sr sra
    srta sres sras gral gob admón dir depto dpto edo col av blvd tel ext exp expte ref cfr cf vid vs op cit ob loc
    ibíd ibid id ss sigs ene feb abr jun jul ago sep sept oct nov dic jan apr aug dec mr mrs ms st jr esq corp ltd
    ltda cía cia co fig figs eq eqs al approx dept
    """.split()
)
# Abbreviations that are also ordinary words: only an abbreviation before a number ("No. 5", "Nos. 3 y 4").
NUMBER_ABBREVIATIONS = frozenset({"no", "nos"})


def split_sentences(text: str, offset: int = 0) -> list[Sentence]:
    """Sentence spans of `text`, shifted by `offset` so they are offsets in the enclosing document."""
    return [Sentence(start=s + offset, end=e + offset) for s, e in sentence_spans(text)]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`: `split_sentences` without the models, for bulk callers."""
    spans: list[tuple[int, int]] = []
    for start, end, prose in _units(text):
        if prose and not is_note(text[start:end]):
            spans.extend(_split_prose(text, start, end))
        else:
            spans.append((start, end))
    return spans


def _units(text: str):
    """Yield (start, end, is_prose) for headings, table rows and paragraphs/list items, stripped of whitespace."""
    para_start = para_end = None
    in_note = False  # the open paragraph is an amendment note
    pos = 0
    for line in text.splitlines(keepends=True):
        line_start, pos = pos, pos + len(line)
        body = line.strip()
        if not body:
            if para_start is not None:
                yield para_start, para_end, True
                para_start = None
            continue
        lead = len(line) - len(line.lstrip())
        trail = len(line.rstrip())
        b_start, b_end = line_start + lead, line_start + trail
        if HEADING_LINE.match(line) or TABLE_ROW.match(line):
            if para_start is not None:
                yield para_start, para_end, True
                para_start = None
            yield b_start, b_end, False
            continue
        opens_note = starts_note(body)
        if para_start is not None and (
            ITEM_START.match(line) or opens_note or (in_note and not continues_note(text[para_start:para_end], body))
        ):
            yield para_start, para_end, True
            para_start = None
        if para_start is None:
            para_start = b_start
            in_note = opens_note
        para_end = b_end
    if para_start is not None:
        yield para_start, para_end, True


def _split_prose(text: str, start: int, end: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    sent_start = start
    for m in CANDIDATE.finditer(text, start, end):
        nxt = m.end()
        if nxt >= end:
            break
        if _is_boundary(text, m, sent_start, nxt):
            pieces.append((sent_start, m.start(3)))
            sent_start = nxt
    pieces.append((sent_start, end))
    return pieces


def _is_boundary(text: str, m: re.Match[str], sent_start: int, nxt: int) -> bool:
    term, following = m.group(1), text[nxt]
    if not OPENS_SENTENCE.match(following) or following.islower():
        return False
    if "…" in term or ".." in term:
        return False
    if term != ".":
        return True
    region_start = max(sent_start, m.start() - 40)
    space = max(text.rfind(" ", region_start, m.start()), text.rfind("\n", region_start, m.start()))
    word_start = space + 1 if space >= 0 else region_start
    word = text[word_start : m.start()].lstrip(LEADING_PUNCT)
    lower = word.lower()
    if not word:
        return False
    if lower in ABBREVIATIONS or (lower in NUMBER_ABBREVIATIONS and following.isdigit()):
        return False
    if INITIAL.fullmatch(word) or DOTTED.fullmatch(word) or ORDINAL.fullmatch(word):
        return False
    if any(p.start() < m.start() < p.end() for p in DOUBLED_PAIR.finditer(text, max(0, m.start() - 16), nxt + 3)):
        return False
    at_unit_start = word_start == sent_start
    return not (at_unit_start and ENUMERATOR.fullmatch(word))
