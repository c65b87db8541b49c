"""The day a question asks a law's text on (`retrieval.question_dates`): said with the text in force or with what
the law said then; a date that names a document, a case or a law's year asks for no version."""

from __future__ import annotations

import datetime as dt

import pytest

from retrieval.models import SearchFilters
from retrieval.question_dates import asked_day, edition_named, with_asked_day


@pytest.mark.parametrize("question, day", [
    ("¿Qué establecía el artículo 7o. de la Ley de Amparo el 1 de junio de 2025?", dt.date(2025, 6, 1)),
    ("¿Qué dice el artículo 17 de la Ley de Amparo vigente al 1o. de junio de 2025?", dt.date(2025, 6, 1)),
    ("¿Qué disponía el artículo 1 en vigor el 15/04/2025?", dt.date(2025, 4, 15)),
    ("¿Qué establecía la ley en marzo de 2025?", dt.date(2025, 3, 31)),  # a month: as it stood by its end
    ("¿Qué decía el artículo 27 de la Constitución en 2024?", dt.date(2024, 12, 31)),
    ("What did Article 7 say as of 1 June 2025?", dt.date(2025, 6, 1)),
    ("What did Article 7 provide on June 1, 2025?", dt.date(2025, 6, 1)),
    # a date that names a document, a case or a law, not the day of a version
    ("¿Qué se publicó en el DOF del 11 de enero de 2023?", None),
    ("¿Qué decía la Ley de Amparo de 1936 sobre la suspensión?", None),
    ("¿Qué decía el artículo 27 de la Constitución de 1857?", None),
    ("Contra la resolución de 4 de abril de 2024 de la Subsecretaría, ¿qué recurso cabe?", None),
    ("¿Para qué día se señaló la audiencia en el juicio 5929/20?", None),
    ("What did the court say in its ruling of May 2020 about the church?", None),
    ("¿Qué decía el artículo 5 el 31 de febrero de 2025?", None),  # no such day
])
def test_the_day_asked_about(question, day):
    assert asked_day(question) == day


def test_the_callers_day_stands():
    question = "¿Qué establecía el artículo 7o. de la Ley de Amparo el 1 de junio de 2025?"
    assert with_asked_day(question, None) == SearchFilters(as_of=dt.date(2025, 6, 1))
    given = SearchFilters(as_of=dt.date(2025, 10, 20), doc_type=["LEY"])
    assert with_asked_day(question, given) is given
    kept = with_asked_day(question, SearchFilters(doc_type=["LEY"]))
    assert kept.as_of == dt.date(2025, 6, 1) and kept.doc_type == ["LEY"]
    assert with_asked_day("¿Qué establece el artículo 7o.?", None) is None


@pytest.mark.parametrize("question, gazette, day, written", [
    ("¿Qué publicó el DOF el 15 de diciembre de 2024?", "DOF", dt.date(2024, 12, 15), "DOF el 15 de diciembre de 2024"),
    ("el acuerdo publicado en el Diario Oficial de la Federación el 11 de enero de 2023", "DOF", dt.date(2023, 1, 11),
     "Diario Oficial de la Federación el 11 de enero de 2023"),
    ("¿Qué resolución trae el BOE de 15 de abril de 2024?", "BOE", dt.date(2024, 4, 15), "BOE de 15 de abril de 2024"),
    ("¿Qué publicó el DOF del día 1o. de abril de 2024?", "DOF", dt.date(2024, 4, 1),
     "DOF del día 1o. de abril de 2024"),
    ("What did the Federal Register of August 6, 2020 publish?", "Federal Register", dt.date(2020, 8, 6),
     "Federal Register of August 6, 2020"),
])
def test_an_edition_named_by_its_day(question, gazette, day, written):
    edition = edition_named(question)
    assert (edition.gazette, edition.day, edition.text) == (gazette, day, written)
    assert question[edition.start:edition.end] == written


@pytest.mark.parametrize("question", [
    "¿Qué publicó el DOF en enero de 2023?",  # a month: many editions, none named
    "¿Qué publicó el DOF el 31 de febrero de 2023?",  # no such day
    "¿Qué dice el artículo 27 de la Constitución?",
])
def test_no_edition_named(question):
    assert edition_named(question) is None
