"""Laws and their versions: which text of each law is in force on a day.

A document record says which law it is (`law_id`, from the law's name and jurisdiction: `ingest.identity`) and which
version (`version_date`: its last reform as printed, else its publication). Two consolidated texts of one law are two
versions of it; the one in force on a day is the latest whose version date is on or before that day. Search and
answers read each law in that version only — today's by default, another day's with `as_of` — by leaving the other
versions out with a payload filter (`Where.must_not` on their doc ids), never by dropping hits afterwards.
A day before every version held reads the earliest one, and says so (`InForce.predates`).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ingest.models import DocumentInfo


@dataclass(frozen=True)
class InForce:
    """The versions in force on `on`: the doc ids of the other versions, and the laws none of whose versions held
    yet on that day (read in their earliest version)."""

    on: dt.date
    superseded: tuple[str, ...] = ()
    predates: tuple[str, ...] = field(default=())  # law ids


def in_force(documents: Iterable[DocumentInfo], on: dt.date | None = None) -> InForce:
    """Which version of each law is in force on `on` (default: today)."""
    on = on or dt.date.today()
    laws: dict[str, list[DocumentInfo]] = defaultdict(list)
    for doc in documents:
        if doc.law_id:
            laws[doc.law_id].append(doc)
    superseded: list[str] = []
    predates: list[str] = []
    for law_id, versions in laws.items():
        dates = sorted({d.version_date for d in versions if d.version_date is not None})
        if len(dates) < 2:
            continue  # one version (or versions nobody dated): nothing to choose between
        held = [d for d in dates if d <= on]
        current = held[-1] if held else dates[0]
        if not held:
            predates.append(law_id)
        superseded.extend(d.doc_id for d in versions if d.version_date is not None and d.version_date != current)
    return InForce(on, tuple(sorted(superseded)), tuple(sorted(predates)))


def versioned(documents: Iterable[DocumentInfo]) -> frozenset[str]:
    """The laws held in more than one dated version: a citation of any of them names its version."""
    dates: dict[str, set[dt.date]] = defaultdict(set)
    for doc in documents:
        if doc.law_id and doc.version_date is not None:
            dates[doc.law_id].add(doc.version_date)
    return frozenset(law_id for law_id, held in dates.items() if len(held) > 1)


def versions_of(documents: Iterable[DocumentInfo], law_id: str) -> list[DocumentInfo]:
    """The versions of one law held in the index, oldest first."""
    return sorted((d for d in documents if d.law_id == law_id),
                  key=lambda d: (d.version_date or dt.date.min, d.doc_id))
