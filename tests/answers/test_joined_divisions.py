"""A division named by several matters gives each to a division of its own.

The Ley de Sociedades de Capital's "CAPÍTULO III El libro registro de socios y el régimen de transmisión de las
participaciones en las sociedades de responsabilidad limitada" holds "Sección 1.ª El libro registro de socios"
(arts. 104–105) and "Sección 2.ª La transmisión de las participaciones" (arts. 106–112). Read under the whole name,
art. 104's "La sociedad sólo reputará socio a quien se halle inscrito en dicho libro." held "transmisión" and
"participaciones", and answered "¿Es libre la transmisión de participaciones sociales entre socios?" before art. 107
("… será libre la transmisión voluntaria de participaciones por actos inter vivos entre socios…"), which it left
out (over every shared PDF and law). Under a division named by one of the matters its parent joins, only that matter is the parent's name
(`rerank.division_names`); a parent whose matters its division's words do not tell apart ("Aportaciones dinerarias
y aportaciones no dinerarias" over "Aportaciones no dinerarias": "no" is no term) keeps its whole name. The index
holds the LSC's first pages and its arts. 104–111, cut from the shared PDF.
"""

from __future__ import annotations

import pytest

from ingest.models import Chunk, HeadingKind
from retrieval.rerank import division_names
from tests.answers.factory import verified_citations
from tests.conftest import SHARED
from tests.index_fixtures import build_cut_index

LSC = SHARED / "data" / "laws" / "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf"
CUTS = [(LSC, [(0, 0), (10, 11), (34, 37)])]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    with build_cut_index(tmp_path_factory.mktemp("joined"), CUTS) as idx:
        yield idx


def test_a_question_on_one_matter_is_answered_from_its_division(index):
    cited = verified_citations(index, "¿Es libre la transmisión de participaciones sociales entre socios?")
    articles = [c.article for c in cited]
    assert "107" in articles, [c.label for c in cited]
    assert not any("reputará socio" in c.cited_text for c in cited), [c.label for c in cited]


def test_each_division_reads_the_matter_it_is_named_by(index):
    chunks = {h.chunk.article: h.chunk for h in index.search("libro registro de socios transmisión", k=30)}
    assert "El libro registro de socios" in division_names(chunks["104"])
    assert "el régimen de transmisión de las participaciones en las sociedades de responsabilidad limitada" \
        in division_names(chunks["107"])


def test_matters_the_inner_division_does_not_tell_apart_keep_the_whole_name(index):
    chunk = next(h.chunk for h in index.search("libro registro de socios", k=1))
    path = ["TÍTULO II La constitución de las sociedades de capital", "CAPÍTULO I Las aportaciones sociales",
            "Sección 2.ª Aportaciones dinerarias y aportaciones no dinerarias",
            "Subsección 2.ª Aportaciones no dinerarias", "Artículo 63. Aportaciones no dinerarias."]  # LSC art. 63
    kinds = [HeadingKind.titulo, HeadingKind.capitulo, HeadingKind.seccion, HeadingKind.subseccion,
             HeadingKind.articulo]
    moved: Chunk = chunk.model_copy(update={"heading_path": path, "heading_kinds": kinds})
    assert "Aportaciones dinerarias y aportaciones no dinerarias" in division_names(moved)
