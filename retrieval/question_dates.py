"""The day a question asks a law's text on: "¿Qué establecía el artículo 7o. de la Ley de Amparo el 1 de junio de
2025?", "… vigente al 1o. de junio de 2025", "What did Article 7 say as of 1 June 2025?".

Answers read each law in the version in force on `SearchFilters.as_of` (`retrieval.versions`; today by default).
A question that says the day itself — the text in force then ("vigente", "en vigor", "as in force"), or what the law
said then, in a past tense ("decía", "establecía", "disponía", "said", "provided") — asks for that version, as
`--as-of` does. A date that only names a document ("el DOF del 11 de enero de 2023", "la resolución de 4 de abril de
2024", "la Ley de Amparo de 1936": `question_laws.of_its_year`) asks for no version. A month or a year stands for its
last day: the text as it stood by then.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import NamedTuple

from ingest.headings import fold
from retrieval.models import SearchFilters

_MONTHS = {m: i for i, m in enumerate(
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split(), start=1)}
_MONTHS |= {"setiembre": 9}
_MONTHS |= {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
# "1 de junio de 2025", "1o. de junio de 2025", "1º de junio del 2025", "June 1, 2025", "1 June 2025", "01/06/2025",
# "2025-06-01", "junio de 2025", "June 2025", "2025"
_DATE = (rf"(?:(?P<d1>\d{{1,2}})(?:o\.?|º|°)?\s+(?:de\s+)?(?P<m1>{_MONTH})\s+(?:de(?:l)?\s+)?(?P<y1>\d{{4}})"
         rf"|(?P<m2>{_MONTH})\s+(?P<d2>\d{{1,2}}),?\s+(?P<y2>\d{{4}})"
         rf"|(?P<d3>\d{{1,2}})[/-](?P<m3>\d{{1,2}})[/-](?P<y3>\d{{4}})"
         rf"|(?P<y4>\d{{4}})-(?P<m4>\d{{2}})-(?P<d4>\d{{2}})"
         rf"|(?P<m5>{_MONTH})\s+(?:de(?:l)?\s+)?(?P<y5>\d{{4}})"
         rf"|(?P<y6>(?:19|20)\d\d))(?![\d/-])")
_DATE_PARTS = re.compile(_DATE, re.IGNORECASE)
_ANY_DATE = rf"(?P<date>{re.sub(r'[(][?]P<[a-z0-9]+>', '(?:', _DATE)})"
# the text in force on the day ("vigente al", "en vigor el", "as in force on", "as of")
_IN_FORCE = r"\b(?:vigente|en\s+vigor|in\s+force|as\s+it\s+stood)\s+(?:al|el|en|a|on|in|at)\s+(?:d[ií]a\s+)?"
_AS_OF = r"\bas\s+of\s+"
# what the law said then, in a past tense, and the day after it ("… establecía el artículo 7o. … el 1 de junio de 2025")
_SAID = (r"\b(?:dec[ií]a|establec[ií]a|dispon[ií]a|prev[eé][ií]a|se[ñn]alaba|regulaba|ordenaba|permit[ií]a|"
         r"prohib[ií]a|exig[ií]a|dec[ií]an|establec[ií]an|dispon[ií]an|said|provided|stated|required|"
         r"did\s+[^?]*?\b(?:say|provide|state|require))\b")
_SAID_ON = rf"{_SAID}[^?¿;]*?\b(?:el|en|al|on|in)\s+(?:d[ií]a\s+)?"
_ASKED = re.compile(rf"(?:{_IN_FORCE}|{_AS_OF}|{_SAID_ON}){_ANY_DATE}", re.IGNORECASE)


def _written(date: str) -> tuple[int, int | None, int | None]:
    """(year, month, day) of a date as written; month and day None where it does not give them."""
    g = {k: v for k, v in _DATE_PARTS.match(date).groupdict().items() if v is not None}
    year = int(next(g[k] for k in ("y1", "y2", "y3", "y4", "y5", "y6") if k in g))
    month_text = next((g[k] for k in ("m1", "m2", "m3", "m4", "m5") if k in g), None)
    month = None if month_text is None else (int(month_text) if month_text.isdigit() else _MONTHS[month_text.lower()])
    day = next((int(g[k]) for k in ("d1", "d2", "d3", "d4") if k in g), None)
    return year, month, day


def asked_day(question: str) -> dt.date | None:
    """The day whose version of a law the question asks for (None: it asks for none, so today's)."""
    m = _ASKED.search(question)
    if m is None:
        return None
    year, month, day = _written(m.group("date"))
    try:
        if month is None:
            return dt.date(year, 12, 31)
        if day is None:
            return dt.date(year, month, calendar.monthrange(year, month)[1])
        return dt.date(year, month, day)
    except ValueError:  # "31 de febrero": no day
        return None


# A gazette's edition named by its day: "el DOF del 15 de diciembre de 2024", "publicado en el Diario Oficial de la
# Federación el 11 de enero de 2023", "el BOE de 15 de abril de 2024", "the Federal Register of August 6, 2020". The
# names a gazette is called by, each with the name its documents record (`DocumentInfo.gazette`).
_GAZETTES = {"dof": "DOF", "diario oficial de la federacion": "DOF", "boe": "BOE", "boletin oficial del estado": "BOE",
             "federal register": "Federal Register"}
_GAZETTE_NAME = (r"(?P<gazette>DOF|Diario\s+Oficial\s+de\s+la\s+Federaci[oó]n|BOE|Bolet[ií]n\s+Oficial\s+del\s+Estado"
                 r"|Federal\s+Register)")
_EDITION = re.compile(rf"\b{_GAZETTE_NAME}\s+(?:(?:de|del|de\s+fecha|of|dated|on)\s+|(?:el|del)\s+d[ií]a\s+|el\s+)?"
                      rf"{_ANY_DATE}", re.IGNORECASE)


def _day(date: str) -> dt.date | None:
    """The day a date as written names (None: a month or a year, or no such day)."""
    year, month, day = _written(date)
    try:
        return dt.date(year, month, day) if month is not None and day is not None else None
    except ValueError:
        return None


class Edition(NamedTuple):
    """A gazette's edition a question names: the gazette's recorded name, the day, and where the question names it."""

    gazette: str
    day: dt.date
    text: str
    start: int
    end: int


def edition_named(question: str) -> Edition | None:
    """The gazette edition the question names by its day: "¿Qué publicó el DOF el 15 de diciembre de 2024?" → DOF,
    2024-12-15. None when it names none, or only a month or a year."""
    m = _EDITION.search(question)
    if m is None:
        return None
    day = _day(m.group("date"))
    gazette = _GAZETTES[" ".join(fold(m.group("gazette")).split())]
    return Edition(gazette, day, m.group(0), m.start(), m.end()) if day is not None else None


def with_asked_day(question: str, filters: SearchFilters | None) -> SearchFilters | None:
    """`filters` reading each law on the day the question asks about, unless they already name a day (`--as-of`,
    `as_of`: the caller's word stands)."""
    day = asked_day(question)
    if day is None or (filters is not None and filters.as_of is not None):
        return filters
    return (filters or SearchFilters()).model_copy(update={"as_of": day})
