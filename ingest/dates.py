"""Dates as legal texts write them: "15 de diciembre de 2024", "1o. de octubre de 2024", "06-02-1976", "14 ABR
2024", "April 15, 2024", "quince de julio de dos mil veinticuatro". `parse_date` is the one reader; the running
headers, document identity and amendment notes ask it."""

from __future__ import annotations

import datetime as dt
import re

from ingest.headings import fold

MONTHS = {m: i + 1 for i, m in enumerate(
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split())}
_MONTHS_EN = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_MON3 = {m[:3]: n for m, n in MONTHS.items()} | {"set": 9, "dic": 12, "ene": 1, "abr": 4, "ago": 8}
_UNITS = {"un": 1, "uno": 1, "primero": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
          "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12, "trece": 13, "catorce": 14, "quince": 15,
          "dieciseis": 16, "diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "veinte": 20, "veintiun": 21,
          "veintiuno": 21, "veintidos": 22, "veintitres": 23, "veinticuatro": 24, "veinticinco": 25,
          "veintiseis": 26, "veintisiete": 27, "veintiocho": 28, "veintinueve": 29, "treinta": 30, "cuarenta": 40,
          "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80, "noventa": 90, "mil": 1000}

DATE_ES = re.compile(r"\b(\d{1,2})(?:o\.|º|°)?\s+de\s+(" + "|".join(MONTHS) + r")\s+de(?:l)?\s+(?:año\s+)?(\d{4})",
                      re.I)
_DATE_DMY = re.compile(r"\b(\d{1,2})-(\d{1,2})-(\d{4})\b")
_DATE_MON3 = re.compile(r"\b(\d{1,2})\s+(" + "|".join(_MON3) + r")\.?\s+(\d{4})\b", re.I)
_DATE_COMMA = re.compile(r"\b(\d{1,2}),\s*(" + "|".join(MONTHS) + r"),\s*(\d{4})\b", re.I)
_DATE_EN = re.compile(r"\b(" + "|".join(_MONTHS_EN) + r")\s+(\d{1,2}),\s*(\d{4})\b", re.I)
_DATE_EN_DMY = re.compile(r"\b(\d{1,2})\s+(" + "|".join(_MONTHS_EN) + r")\s+(\d{4})\b", re.I)
_DATE_WORDS = re.compile(r"\b([a-záéíóú]+)\s+de\s+(" + "|".join(MONTHS) + r")\s+de(?:l)?\s+(?:año\s+)?"
                         r"(dos\s+mil(?:\s+[a-záéíóú]+){0,2}|mil\s+novecientos(?:\s+[a-záéíóú]+){0,3})", re.I)


def date_or_none(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def _words_number(words: str) -> int | None:
    total = 0
    for w in fold(words).replace(" y ", " ").split():
        if w == "mil":
            total = (total or 1) * 1000
        elif w == "novecientos":
            total += 900
        elif w in _UNITS:
            total += _UNITS[w]
        else:
            return None
    return total or None


def _words_date(m: re.Match) -> tuple[int | None, int, int | None]:
    return _words_number(m.group(3)), MONTHS[m.group(2).lower()], _words_number(m.group(1))


# Each form and how its match gives (year, month, day).
_FORMS = (
    (DATE_ES, lambda m: (int(m.group(3)), MONTHS[m.group(2).lower()], int(m.group(1)))),
    (_DATE_DMY, lambda m: (int(m.group(3)), int(m.group(2)), int(m.group(1)))),
    (_DATE_COMMA, lambda m: (int(m.group(3)), MONTHS[m.group(2).lower()], int(m.group(1)))),
    (_DATE_MON3, lambda m: (int(m.group(3)), _MON3[m.group(2).lower()[:3]], int(m.group(1)))),
    (_DATE_EN, lambda m: (int(m.group(3)), _MONTHS_EN[m.group(1).lower()], int(m.group(2)))),
    (_DATE_EN_DMY, lambda m: (int(m.group(3)), _MONTHS_EN[m.group(2).lower()], int(m.group(1)))),
    (_DATE_WORDS, _words_date),
)


def parse_date(text: str) -> dt.date | None:
    """The first date written in `text`, in any of the forms legal texts use (the earliest in the text wins)."""
    found: list[tuple[int, dt.date]] = []
    for pattern, parts in _FORMS:
        for m in pattern.finditer(text):
            year, month, day = parts(m)
            if year and day and (d := date_or_none(year, month, day)):
                found.append((m.start(), d))
                break
    return min(found, key=lambda f: f[0])[1] if found else None
