"""Is a page's text words, or junk? One measure for text layers, OCR output and title candidates.

A scanned page can carry a text layer made by some OCR engine years ago; when that engine did badly the layer is
junk ("wi im 5,1985 — is a that ahas ft"), and indexing it as text hides the page from search. The measure reads
general signals of the text alone — never the file it comes from:

- **word shape**: the share of tokens that look like words (letters only, a vowel, no long consonant or repeated
  runs, a sane case pattern: "ley", "Ley", "LEY" but not "OcIAL") or like numbers, dates and codes;
- **character classes**: symbols and stray single characters ("|", "’", "S|", "»fie") among the tokens;
- **function words**: the share of the most common Spanish and English function words among the words. Prose sits
  near a third; an OCR layer that kept only the short words ("the", "of", "to", "a") sits far above, a table or a
  list of names far below (which is not junk, so only the high side counts).

`quality(text)` gives the signals and one score in [0, 1]; `is_junk` turns a score into the decision, stricter when
the page itself says its text came from an OCR engine (invisible text over a page image, or an OCR product in the
file's metadata). The same score decides whether new OCR text replaces an old layer and whether a title candidate
is words.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

# The most frequent function words of Spanish and English prose (accents folded). Short on purpose: these are the
# words an OCR engine keeps when it loses the rest, and the words any paragraph of prose is full of.
FUNCTION_WORDS = frozenset("""
de la que el en y a los del se las por un para con no una su al lo como mas pero sus le ya o este si porque esta
entre cuando muy sin sobre tambien hasta hay donde desde todo nos durante todos les ni contra ante e esto u
the of and to in a is that for it as was with be by on not he i this are or his from at which but an they you were
had her she there been have has its their one all would will we who so if out up what when into than them can only
other do no some may said
""".split())

# A word: letters, optionally joined by a hyphen, apostrophe or slash ("co-operation", "d'Hondt", "ALICANTE/ALACANT");
# accented letters, ñ and ü count.
_WORD = re.compile(r"^[^\W\d_]+(?:['’\-/][^\W\d_]+)*$")
_JOINERS = re.compile(r"['’\-/]")
# An abbreviation or acronym: "A.C.", "I.A.P.", "U.S.", "RFC", "CFDI" (capitals need no vowel).
_ABBREVIATION = re.compile(r"^(?:[^\W\d_]{1,3}\.){1,5}(?:[^\W\d_]{1,3})?$|^[A-ZÁÉÍÓÚÑ]{2,5}$")
# A number, date, code or reference: digits with letters and separators ("1985", "2023-02-06", "$1,500.00", "3o.",
# "NOM-001-SEDE-2012", "BOE-B-2024-13548", an RFC "ASI090210TLA", a bearing 76°25'01.88"W), at least one digit.
_CODE = re.compile(r"^[\$€#№]?(?=[^\s]*\d)[\w.,:/\-°º ª'’\"″′+%]+$")
_ROMAN = re.compile(r"^[IVXLCDM]+[.)\-]?$")
_LIST_MARK = re.compile(r"^\(?[a-zA-Z]\)$|^[a-zA-Z]\.$")
_VOWELS = set("aeiouyáéíóúàèìòùâêîôûäëïöüý")
_CONSONANT_RUN = re.compile(r"[^aeiouyáéíóúàèìòùâêîôûäëïöüý]{5,}", re.I)
_REPEAT = re.compile(r"(.)\1\1")
_EDGE_PUNCT = "\"'“”‘’«»()[]{}¿?¡!.,;:…*"
_MARKS = frozenset("- – — § & % … / • · ¶ = + ×".split())  # plain punctuation tokens: neutral
_SINGLE_WORDS = frozenset("a y o e u i".split())  # one-letter words of the two languages

MIN_TOKENS = 12  # below this a text says too little for a verdict (a caption, a stamp): never junk by itself
FUNCTION_PER_CONTENT = 1.5  # prose carries about one function word per content word (the shared laws: ≤ 1.04)
JUNK_SCORE = 0.5  # a text scoring below this is junk
JUNK_SCORE_OCR_LAYER = 0.7  # … and below this when the page says its text came from an OCR engine
HIDDEN_LAYER = 0.5  # a page whose text is mostly invisible carries an OCR layer over its image
TITLE_SCORE = 0.6  # a title candidate must score at least this (on its own few tokens: no minimum length)

# Producers and creators that are OCR engines or scan-capture suites: their text layer is an OCR guess.
OCR_PRODUCER = re.compile(r"\bOCR|OmniPage|FineReader|ABBYY|Tesseract|ocrmypdf|Paper\s*Capture|ReadIris|"
                          r"ScanSoft|Nuance|Kofax|Capture\s+Perfect|PrimeOCR", re.I)


# Text whose letters are all Latin: ASCII and the Latin-1 / Latin Extended-A and -B letters (× and ÷ are not letters).
_LATIN_ONLY = re.compile(r"[\x00-\x7f\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]*\Z")


def _fold(word: str) -> str:
    text = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in text if not unicodedata.combining(c))


def _other_script(token: str) -> bool:
    """Mostly letters of a script that is not Latin (CJK, Cyrillic, Greek…): its word shapes are not ours to judge."""
    if _LATIN_ONLY.match(token):  # the common case, without a Unicode name lookup per letter
        return False
    letters = [c for c in token if c.isalpha()]
    return len(letters) >= 0.5 * len(token) and sum("LATIN" not in unicodedata.name(c, "") for c in letters) \
        > 0.5 * len(letters)


def _word_like(token: str) -> bool:
    """Letters that could be a word of a natural language; each part of a joined word is judged on its own."""
    if not _WORD.match(token):
        return _other_script(token)
    if len(token) == 1:
        return token.lower() in _SINGLE_WORDS
    return all(_part_like(part) for part in _JOINERS.split(token))


def _part_like(letters: str) -> bool:
    if len(letters) == 1:
        return True  # "d'", "l'", "e-"
    if _other_script(letters):
        return True
    low = letters.lower()
    if not any(c in _VOWELS for c in low) or _CONSONANT_RUN.search(low) or _REPEAT.search(low):
        return letters.isupper() and len(letters) <= 5  # an acronym: "RFC", "CFDI"
    if len(low) >= 3 and all(c in _VOWELS for c in low):
        return False  # "aeao": no word of three letters is all vowels
    rest = letters[1:]
    return letters.islower() or letters.isupper() or (letters[0].isupper() and rest.islower()) or \
        _camel_ok(letters)


def _camel_ok(word: str) -> bool:
    """Mixed case inside a word is an OCR tell, except names like "McDonald", "DeLuca": two capitals at most,
    each followed by lower case."""
    caps = [i for i, c in enumerate(word) if c.isupper()]
    return len(caps) <= 2 and caps[0] == 0 and all(i + 1 < len(word) and word[i + 1].islower() for i in caps)


@dataclass(frozen=True)
class Quality:
    """The signals of one text and the score they make (1.0 = clean prose, 0.0 = no words at all)."""

    tokens: int  # whitespace-separated tokens
    words: int  # word-like tokens
    numbers: int  # numbers, dates, codes, list marks
    function_words: int  # words in FUNCTION_WORDS
    score: float

    @property
    def word_share(self) -> float:
        return (self.words + self.numbers) / self.tokens if self.tokens else 0.0

    @property
    def function_share(self) -> float:
        return self.function_words / self.words if self.words else 0.0


@lru_cache(maxsize=1 << 16)
def _classify(token: str) -> str:
    if token in _MARKS:
        return "mark"
    core = token.strip(_EDGE_PUNCT)
    if not core:
        return "junk"
    if _word_like(core):
        return "function" if _fold(core) in FUNCTION_WORDS else "word"
    if _ABBREVIATION.match(token.strip(_EDGE_PUNCT.replace(".", ""))):
        return "word"
    if _CODE.match(core) or _ROMAN.match(core) or _LIST_MARK.match(token):
        return "number"
    return "junk"


def quality(text: str) -> Quality:
    """Score `text`: the share of its tokens that are words, numbers or codes, where function words beyond
    FUNCTION_PER_CONTENT per content token count as junk (an OCR layer that kept only the short words). Plain
    punctuation tokens ("—", "§") are neutral."""
    counts = Counter(map(_classify, text.split()))
    content = counts["word"] + counts["number"]
    tokens = content + counts["function"] + counts["junk"]
    if not tokens:
        return Quality(0, 0, 0, 0, 0.0)
    function_ok = min(counts["function"], FUNCTION_PER_CONTENT * content)
    score = (content + function_ok) / tokens
    return Quality(tokens, counts["word"] + counts["function"], counts["number"], counts["function"],
                   round(score, 4))


def is_junk(text: str, ocr_layer: bool = False) -> bool:
    """True when `text` (a page's text layer) is not worth indexing as it is. `ocr_layer`: the page says its text
    came from an OCR engine (then a lower-quality text is already suspect). Too short a text is never junk."""
    q = quality(text)
    if q.tokens < MIN_TOKENS:
        return False
    return q.score < (JUNK_SCORE_OCR_LAYER if ocr_layer else JUNK_SCORE)


def layer_is_junk(text: str, hidden_share: float = 0.0, ocr_producer_named: bool = False) -> bool:
    """The one decision on a scanned page's text layer: junk (OCR the page instead) or text to keep.

    `hidden_share`: the share of the page's characters drawn invisibly (an OCR layer over the image);
    `ocr_producer_named`: the file's producer or creator is an OCR product. Either one makes the page's text an OCR
    guess, judged by the stricter threshold."""
    return is_junk(text, ocr_layer=hidden_share > HIDDEN_LAYER or ocr_producer_named)


def better(candidate: str, current: str) -> bool:
    """True when `candidate` (fresh OCR) is better text than `current` (the old layer) by the same measure: a
    higher score, or the same score with more words."""
    new, old = quality(candidate), quality(current)
    if new.score != old.score:
        return new.score > old.score
    return new.words > old.words


def is_words(text: str) -> bool:
    """A title candidate made of words: at least one real word of three letters and a score of TITLE_SCORE
    ("SNE //Z", "OcIAL Dg," and "Ly $ S" are not)."""
    q = quality(text)
    long_word = any(_word_like(t.strip(_EDGE_PUNCT)) and len(t.strip(_EDGE_PUNCT)) >= 3 for t in text.split())
    return long_word and q.score >= TITLE_SCORE


def _stray(token: str) -> bool:
    return not any(c.isalnum() for c in token) and token not in _MARKS


def trim_junk(text: str) -> str:
    """`text` without the stray symbols at either end ("| Legal Scholar Recalls |" → "Legal Scholar Recalls"):
    tokens without a letter or digit that are not plain punctuation ("—", "§")."""
    tokens = text.split()
    while tokens and _stray(tokens[0]):
        tokens.pop(0)
    while tokens and _stray(tokens[-1]):
        tokens.pop()
    return " ".join(tokens)


def ocr_producer(*names: str | None) -> bool:
    """The file's producer or creator names an OCR engine or a scan-capture suite."""
    return any(name and OCR_PRODUCER.search(name) for name in names)
