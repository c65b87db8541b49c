"""Spanish text → BM25 terms: lowercase, accent folding (ñ kept), stopwords, Snowball stemming.

Legal references must stay findable, so the analyzer keeps numbers and emits codes twice: a hyphenated or
dotted code ("NOM-035-STPS-2018", "1.500") is one unstemmed term *and* its parts; "art. 27" / "artículo 27"
both yield the terms `articul`, `27` and the reference term `articulo_27`, so a query for an article number
prefers chunks that cite that very article over chunks that merely contain the number.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

# Snowball's Spanish stop list (accents folded), plus the common forms of ser/estar/haber/tener it lists.
_STOPWORDS = """
de la que el en y a los del se las por un para con no una su al lo como mas pero sus le ya o este si porque esta
entre cuando muy sin sobre tambien me hasta hay donde quien desde todo nos durante todos uno les ni contra otros ese
eso ante ellos e esto mi antes algunos que unos yo otro otras otra el tanto esa estos mucho quienes nada muchos cual
poco ella estar estas algunas algo nosotros mis tu te ti tus ellas nosotras vosotros vosotras os mio mia mios mias
tuyo tuya tuyos tuyas suyo suya suyos suyas nuestro nuestra nuestros nuestras vuestro vuestra vuestros vuestras esos
esas estoy estas esta estamos estais estan este estes estemos esteis esten estare estaras estara estaremos estareis
estaran estaria estarias estariamos estariais estarian estaba estabas estabamos estabais estaban estuve estuviste
estuvo estuvimos estuvisteis estuvieron estuviera estuvieras estuvieramos estuvierais estuvieran estuviese
estuvieses estuviesemos estuvieseis estuviesen estando estado estada estados estadas estad he has ha hemos habeis
han haya hayas hayamos hayais hayan habre habras habra habremos habreis habran habria habrias habriamos habriais
habrian habia habias habiamos habiais habian hube hubiste hubo hubimos hubisteis hubieron hubiera hubieras
hubieramos hubierais hubieran hubiese hubieses hubiesemos hubieseis hubiesen habiendo habido habida habidos habidas
soy eres es somos sois son sea seas seamos seais sean sere seras sera seremos sereis seran seria serias seriamos
seriais serian era eras eramos erais eran fui fuiste fue fuimos fuisteis fueron fuera fueras fueramos fuerais fueran
fuese fueses fuesemos fueseis fuesen siendo sido tengo tienes tiene tenemos teneis tienen tenga tengas tengamos
tengais tengan tendre tendras tendra tendremos tendreis tendran tendria tendrias tendriamos tendriais tendrian tenia
tenias teniamos teniais tenian tuve tuviste tuvo tuvimos tuvisteis tuvieron tuviera tuvieras tuvieramos tuvierais
tuvieran tuviese tuvieses tuviesemos tuvieseis tuviesen teniendo tenido tenida tenidos tenidas tened
"""
STOPWORDS = frozenset(_STOPWORDS.split())

# Abbreviations that legal texts and their readers use for the same word.
_ABBREVIATIONS = {"art": "articulo", "arts": "articulos", "fracc": "fraccion", "frac": "fraccion"}
_ARTICLE_STEM = "articul"

# A token: word characters, optionally joined by - / . , into a code ("nom-035-stps-2018", "1.500", "3/2024").
_TOKEN = re.compile(r"\w+(?:[-/.,]\w+)*")
_JOINERS = re.compile(r"[-/.,_]")
_NUMBER = re.compile(r"\d[\d.,]*")
_ORDINAL = re.compile(r"(\d+)(?:o|a|º|ª)")  # "ARTÍCULO 1o.-", "1º", "3a" → 1, 1, 3


def _folding_table() -> dict[int, str]:
    """Map accented Latin letters to their base letter, keeping ñ (año ≠ ano)."""
    table: dict[int, str] = {}
    for code in range(0xC0, 0x250):
        char = chr(code)
        if char in "ñÑ":
            continue
        base = unicodedata.normalize("NFD", char)[0]
        if base != char and base.isascii() and base.isalpha():
            table[code] = base.lower()
    return table


_FOLD = _folding_table()
_stemmer = Stemmer.Stemmer("spanish")


def normalize(text: str) -> str:
    """Lowercase and fold accents (ñ kept)."""
    return text.lower().translate(_FOLD)


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _stemmer.stemWord(word)


def _word_terms(word: str) -> str | None:
    """One plain word → its stemmed term, or None for a stopword."""
    word = _ABBREVIATIONS.get(word, word)
    if word in STOPWORDS:
        return None
    if word[0].isdigit():
        ordinal = _ORDINAL.fullmatch(word)
        return ordinal.group(1) if ordinal else word
    return _stem(word)


def analyze(text: str) -> list[str]:
    """The BM25 terms of `text`, in order (duplicates kept: term frequency counts them)."""
    terms: list[str] = []
    previous: str | None = None
    for token in _TOKEN.findall(normalize(text)):
        if _JOINERS.search(token):
            terms.append(token)
            parts = [p for p in _JOINERS.split(token) if p]
        else:
            parts = [token]
        for part in parts:
            term = _word_terms(part)
            if term is None:
                continue
            if previous == _ARTICLE_STEM and _NUMBER.fullmatch(term):
                terms.append(f"articulo_{term}")
            terms.append(term)
            previous = term
    return terms
