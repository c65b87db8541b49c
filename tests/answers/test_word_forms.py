"""A question's verb met in the law's other form of the same word: a Spanish root changes inside its forms.

"¿Quién aprueba el Presupuesto de Egresos de la Federación?" is answered by the Constitution's art. 74, fr. IV
("Aprobar anualmente el Presupuesto de Egresos de la Federación…"), but Snowball stems "aprueba" as "aprueb" and
"aprobar" as "aprob": the stressed vowel split in two ("ue" for "o") kept them apart, and art. 75's third paragraph
(which names the "Presupuesto de Egresos de la Federación" and "la aprobación del presupuesto") led. The same for
"¿Quién aprueba los tratados internacionales?" (art. 76, fr. I: "…aprobar los tratados internacionales…"), led by
art. 1 ("…los tratados internacionales de los que el Estado Mexicano sea parte…"); and "¿Cómo se elige al Presidente de
la República?" (art. 81: "La elección del presidente será directa…"; "elige" / "elección"), led by art. 83 or 86.
`rerank.forms` now reads the root through the changes Spanish makes inside one word's forms (`rerank._root`).
The index holds the Constitution's first pages and those of its arts. 73–89, cut from the shared PDF.
"""

from __future__ import annotations

import pytest

from retrieval.answers import ask
from retrieval.rerank import forms
from retrieval.settings import Settings
from retrieval.text_analysis import analyze
from tests.conftest import PDFS
from tests.index_fixtures import build_cut_index

CUTS = [(PDFS / "mx_ley_CPEUM_constitucion_politica.pdf", [(0, 1), (69, 92)])]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    idx = build_cut_index(tmp_path_factory.mktemp("word-forms"), CUTS)
    yield idx
    idx.close()


@pytest.mark.parametrize(("question", "first"), [
    ("¿Quién aprueba el Presupuesto de Egresos de la Federación?", "art. 74, párr. 1, fr. IV,"),
    ("¿Quién aprueba los tratados internacionales?", "art. 76, párr. 1, fr. I,"),
    ("¿Cómo se elige al Presidente de la República?", "art. 81, párr. 1,"),  # "La elección del presidente…"
])
def test_the_article_stating_the_questions_verb_in_another_form_leads(index, question, first):
    answer = ask(index, question, settings=Settings(home=index.settings.home))
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert answer.found and cited
    assert first in cited[0].label, [c.label for c in cited]


@pytest.mark.parametrize(("a", "b", "same"), [
    ("resuelve", "resolución", True),  # a split vowel: ue / o
    ("detiene", "detención", True),  # ie / e
    ("elige", "elegidos", True),  # i / e
    ("admite", "admisión", True),  # the Latin noun's consonant: t / s
    ("decide", "decisión", True),  # d / s
    ("impone", "imposición", True),  # n / s
    ("corrige", "corrección", True),  # g / cc
    ("elige", "elección", True),
    ("cargo", "cárcel", False),  # a g before one c is no Latin noun's
    ("suspende", "suspensión", True),  # what the shared prefix already joined
    ("aprobar", "apropiar", False),  # b / p is no change of one root
    ("contar", "constitución", False),  # a stem of four letters is no root to change
    ("impuesto", "puesto", False),
    ("presidente", "presente", False),  # only the root's last vowel alternates: "presid" keeps its i
    ("porción", "porcentaje", False),
    ("ordinario", "orden", False),
])
def test_forms_of_one_word(a, b, same):
    assert forms(analyze(a)[0], analyze(b)[0]) is same
