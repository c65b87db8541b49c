"""Legal references in a question or a text: "art. 27", "artículo 3o Bis", "el 27 constitucional", "Ley de Amparo".

One parser for every layer: retrieval reads questions with it, ingest reads reform-decree titles and article
headings with it. `article_key` is the canonical form an article is stored and looked up under.
"""

from __future__ import annotations

import re

from ingest.models import LegalReference

_ORDINAL_SUFFIX = re.compile(r"^(\d+)\s*(?:o|°|º|a)?\.?$", re.I)
_QUALIFIER = re.compile(r"\s*[-\s]?\s*(bis|ter|qu[aá]ter|quinquies|sexies|[A-Z])\.?$", re.I)


def article_key(label: str) -> str | None:
    """Canonical key of an article number as printed: "27" → "27", "3o." → "3", "3o Bis" → "3 Bis",
    "330-A" → "330-A", "Artículo 14.-" → "14". None when `label` names no article number."""
    text = re.sub(r"^\s*(?:art[ií]culo|art\.)\s*", "", label.strip(), flags=re.I).strip(" .-–:")
    m = re.match(r"^(\d+)\s*(?:o|°|º)?\.?\s*(?:[-\s]\s*([A-Z])\b|\s+(bis|ter|qu[aá]ter|quinquies|sexies)\b)?", text,
                 re.I)
    if not m:
        return None
    number, letter, latin = m.group(1).lstrip("0") or "0", m.group(2), m.group(3)
    if letter:
        return f"{number}-{letter.upper()}"
    if latin:
        return f"{number} {latin.capitalize().replace('á', 'a')}"
    return number


def parse_references(text: str) -> list[LegalReference]:
    """Every legal reference in `text`, in order of appearance."""
    raise NotImplementedError  # written in full by the references work
