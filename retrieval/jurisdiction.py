"""Jurisdiction: which country, state or level a law's name, a document or a question speaks of.

A law's name may end in its jurisdiction (`qualifiers`: "Federal", "del Estado de X" or a Mexican state's name alone,
"de la Ciudad de México" / "para el Distrito Federal", a country or its adjective), and a document holds one
(`jurisdiction_of`: its names' qualifiers, its gazette's country and level — DOF: Mexico, federal; BOE: Spain;
Diario Oficial: Colombia; Federal Register: United States — and its issuing body's). A question names a country by
a word or phrase of `_COUNTRIES` (`countries_named`; a language, "en español", is none) and a state by what its laws
call it (`polity_words`: "la República", "la Nación"). `law_lookup.LawCatalog` matches names and documents with
these; `answers.coverage` reads the countries a question names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ingest.headings import fold
from ingest.models import DocumentInfo


# -- jurisdiction: the qualifier that ends a law's name, and the one a document holds -----------------------------
_COUNTRIES = {  # in Spanish and in English ("the Mexican Constitution", "the Spanish Criminal Code")
    "mx": "mexico mexicano mexicana mexicanos mexicanas estados unidos mexicanos mexican",
    "es": "espana espanol espanola espanoles reino de espana spain spanish",
    "co": "colombia colombiano colombiana republica de colombia colombian",
    "cl": "chile chileno chilena republica de chile chilean",
    "ar": "argentina argentino nacion argentina republica argentina argentine argentinian",
    "pe": "peru peruano peruana peruvian",
    "us": "estados unidos estadounidense united states",
    "fr": "francia frances francesa france french",
    "de": "alemania aleman alemana germany german",
    "it": "italia italiano italiana italy italian",
    "br": "brasil brasileno brasilena brazil brazilian",
    "eu": "union europea european union",
}
_COUNTRY_WORDS = {}
for _code, _words in _COUNTRIES.items():
    for _w in ["estados unidos mexicanos", "reino de espana", "republica de colombia", "republica de chile",
               "nacion argentina", "republica argentina", "estados unidos", "united states", "union europea",
               "european union"]:
        if _w in _words:
            _COUNTRY_WORDS[_w] = _code
    for _w in _words.split():
        if _w not in {"de", "estados", "unidos", "reino", "republica", "nacion", "union", "united", "states",
                      "european"}:
            _COUNTRY_WORDS.setdefault(_w, _code)
# the English adjectives that name a country before a law's name ("the Mexican Constitution")
LEADING_NATIONALITIES = frozenset({"mexican", "spanish", "colombian", "chilean", "argentine", "argentinian",
                                   "peruvian", "french", "german", "italian", "brazilian"})
_COUNTRY_ALT = "|".join(sorted(map(re.escape, _COUNTRY_WORDS), key=len, reverse=True))
# Mexico's states (folded), each with the words its official name may add ("Coahuila de Zaragoza"): a state's law
# is called by the state's name alone as often as by "del Estado de …" ("la Ley del Periódico Oficial de Durango").
# The Estado de México is named only so: a bare "de México" is the country.
_MX_STATES = {
    "aguascalientes": "", "baja california sur": "", "baja california": "", "campeche": "", "chiapas": "",
    "chihuahua": "", "coahuila": r"(?:\s+de\s+zaragoza)?", "colima": "", "durango": "", "guanajuato": "",
    "guerrero": "", "hidalgo": "", "jalisco": "", "michoacan": r"(?:\s+de\s+ocampo)?", "morelos": "", "nayarit": "",
    "nuevo leon": "", "oaxaca": "", "puebla": "", "queretaro": r"(?:\s+de\s+arteaga)?", "quintana roo": "",
    "san luis potosi": "", "sinaloa": "", "sonora": "", "tabasco": "", "tamaulipas": "", "tlaxcala": "",
    "veracruz": r"(?:\s+de\s+ignacio\s+de\s+la\s+llave)?", "yucatan": "", "zacatecas": "",
}
_MX_STATE = "|".join(rf"{re.escape(name)}{more}" for name, more in _MX_STATES.items())
# a qualifier at the end of a folded name: "… del estado de jalisco", "… de jalisco", "… de la ciudad de mexico",
# "… federal", "… para el distrito federal", "… de colombia", "… espanol"
_SUBNATIONAL = (r"(?:(?:libre y soberano\s+)?(?:del\s+)?estado\s+(?:libre\s+y\s+soberano\s+)?de\s+[a-z ]+?"
                rf"|(?:la\s+)?ciudad\s+de\s+mexico|(?:el\s+)?distrito\s+federal|(?:{_MX_STATE}))")
_QUALIFIER = re.compile(
    rf"\s+(?:(?:de|del|para|en)\s+(?:la\s+|el\s+|los\s+)?)?(?P<q>{_SUBNATIONAL}|federal|{_COUNTRY_ALT})$")
# what a gazette tells of the documents it publishes
_GAZETTE_JURISDICTION = {"dof": {"mx", "federal"}, "boe": {"es"}, "diario oficial": {"co"},
                         "federal register": {"us", "federal"}}


# the same qualifier right after a name typed in lower case: "el código penal federal", "… del estado de jalisco"
AFTER_NAME = re.compile(
    rf"\s+(?:(?:de|del|para|en)\s+(?:la\s+|el\s+|los\s+)?)?(?P<q>(?:(?:libre y soberano\s+)?(?:del\s+)?estado\s+"
    rf"(?:libre\s+y\s+soberano\s+)?de\s+)?(?:{_MX_STATE})|(?:la\s+)?ciudad\s+de\s+mexico|(?:el\s+)?distrito\s+federal"
    rf"|federal|{_COUNTRY_ALT})\b")


def _qualifier(q: str) -> str:
    """The canonical form of one qualifier: a country code, "federal", or "sub:<place>"."""
    q = " ".join(q.split())
    if q in _COUNTRY_WORDS:
        return _COUNTRY_WORDS[q]
    if q == "federal":
        return "federal"
    if re.fullmatch(r"(?:el\s+)?distrito federal|(?:la\s+)?ciudad de mexico", q):
        return "sub:ciudad de mexico"  # the Distrito Federal is today's Ciudad de México
    place = re.sub(r"^.*?estado\s+(?:libre\s+y\s+soberano\s+)?de\s+", "", q).strip()
    state = next((name for name in _MX_STATES if place == name or place.startswith(name + " ")), None)
    return f"sub:{state or place}"  # "coahuila de zaragoza" and "coahuila" are one state


def qualifiers(name: str) -> tuple[str, set[str]]:
    """A folded law name split into its core and the jurisdiction qualifiers that end it: "codigo penal del estado
    de jalisco" → ("codigo penal", {"sub:jalisco"}); "codigo penal federal" → ("codigo penal", {"federal"});
    "ley federal del trabajo" keeps "federal" (it is inside the name, not its qualifier)."""
    quals: set[str] = set()
    first, _, rest = name.partition(" ")
    if rest and first in LEADING_NATIONALITIES:  # in English the nationality comes first: "spanish criminal code"
        quals.add(_COUNTRY_WORDS[first])
        name = rest
    while True:
        m = _QUALIFIER.search(name)
        if m is None or len(name[: m.start()].split()) < 1 or m.start() == 0:
            return name, quals
        quals.add(_qualifier(m.group("q")))
        name = name[: m.start()].rstrip(" ,")


# … and of the bodies that issue them: Mexico's Congreso de la Unión is its federal legislature (CPEUM art. 50)
_BODY_JURISDICTION = {"congreso de la union": {"mx", "federal"}}


def jurisdiction_of(doc: DocumentInfo, names: Sequence[str]) -> set[str]:
    """What a document holds of jurisdiction: its gazette's country and level, its issuing body's, its names'
    qualifiers."""
    held = set(_GAZETTE_JURISDICTION.get(fold(doc.gazette or ""), set()))
    body = fold(doc.issuing_body or "")
    held |= next((level for name, level in _BODY_JURISDICTION.items() if name in body), set())
    for n in names:
        held |= qualifiers(n)[1]
        padded = f" {n} "
        for words in sorted((w for w in _COUNTRY_WORDS if " " in w), key=len, reverse=True):
            if f" {words} " in padded:  # "de los estados unidos mexicanos" inside a name (not "estados unidos")
                held.add(_COUNTRY_WORDS[words])
                padded = padded.replace(f" {words} ", " ")
    if any(q.startswith("sub:") for q in held):
        held.discard("federal")
        if "es" not in held:
            held.add("mx")  # a Mexican state's or the capital's law
    return held


_PLACES = {"mx": "México", "es": "España", "co": "Colombia", "cl": "Chile", "ar": "Argentina", "pe": "Perú",
           "us": "Estados Unidos", "fr": "Francia", "de": "Alemania", "it": "Italia", "br": "Brasil",
           "eu": "Unión Europea"}


COUNTRY_CODES = frozenset(_COUNTRIES)
# a country's adjective that names its language after these words: "redactada en español", "el idioma francés"
_LANGUAGE_CUE = frozenset({"en", "al", "idioma", "lengua", "in", "into", "language"})
_LANGUAGES = frozenset({"espanol", "espanola", "frances", "francesa", "aleman", "alemana", "italiano", "italiana",
                        "spanish", "french", "german", "italian"})
# what a country's own laws call it: "Presidente de la República", "Suprema Corte de Justicia de la Nación", "el
# Supremo Poder de la Federación", "el Congreso de la Unión"
POLITY = frozenset({"republica", "nacion", "federacion", "union"})
_WORD = re.compile(r"[^\W\d_]+")


def countries_named(query: str) -> dict[str, list[str]]:
    """The countries the query names by a word or phrase of `_COUNTRIES` ("México", "mexicanos", "Reino de España";
    "Estados Unidos Mexicanos" before "Estados Unidos"), each with the query's words that name it. A language
    ("redactada en español") is not a country."""
    tokens = list(_WORD.finditer(query))
    folded = [fold(t.group()) for t in tokens]
    found: dict[str, list[str]] = {}
    i = 0
    while i < len(tokens):
        for n in (3, 2, 1):
            phrase = " ".join(folded[i:i + n])
            if i + n > len(tokens) or phrase not in _COUNTRY_WORDS:
                continue
            if n == 1 and phrase in _LANGUAGES and i and folded[i - 1] in _LANGUAGE_CUE:
                break
            found.setdefault(_COUNTRY_WORDS[phrase], []).append(query[tokens[i].start():tokens[i + n - 1].end()])
            i += n - 1
            break
        i += 1
    return found


def polity_words(query: str) -> list[str]:
    """The query's capitalised words for a state itself ("la República", "la Nación"): its laws call it so."""
    return [t.group() for t in _WORD.finditer(query) if t.group()[0].isupper() and fold(t.group()) in POLITY]


def place_name(code: str) -> str:
    """A country code as a lawyer reads it: "mx" → "México"."""
    return _PLACES.get(code, code)


def places_label(jurisdiction: frozenset[str]) -> str:
    """The places a jurisdiction is, as a label reads them: " (Jalisco)", " (México)"; "" when none is known."""
    subs = sorted(q[4:].title() for q in jurisdiction if q.startswith("sub:"))
    countries = [_PLACES[c] for c in sorted(jurisdiction) if c in _PLACES]
    parts = subs or countries
    return f" ({', '.join(parts)})" if parts else ""
