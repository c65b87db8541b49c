"""A question about a named law as a whole ("¿Qué regula la Ley …?", "¿Cuál es el objeto de …?", "¿De qué trata …?")
is answered where the law states its object and scope: the first article of its own body
(`retrieval.legal_search._asks_whole`), not whichever article shares a word with the question. A document numbered
with padding zeros is the same document written without them ("Acuerdo General 1/2021" is the "ACUERDO GENERAL
01/2021").

Real texts: Durango's Ley del Periódico Oficial and its Consejo de la Judicatura's Acuerdo General 01/2021, the
Reglamento of articles 121-122 of the Ley Federal del Trabajo, and the Ley de Amparo's first pages (its enacting
decree numbers its own "ARTÍCULO PRIMERO" in words: the law's art. 1 is the answer).
"""

from __future__ import annotations

import pymupdf
import pytest

from retrieval.answers import ask
from retrieval.settings import Settings
from tests.conftest import SHARED
from tests.index_fixtures import build_index


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("whole-law")
    amparo = root / "mx_ley_de_amparo_DOF_2025-03-13.pdf"
    with pymupdf.open(SHARED / "data" / "laws" / amparo.name) as src, pymupdf.open() as out:
        out.insert_pdf(src, to_page=5)
        out.save(amparo)
    with build_index(root / "home", [amparo, "mx_durango_ley_del_periodico_oficial.pdf",
                                     "mx_reglamento_arts_121_122_LFT.pdf",
                                     "mx_durango_acuerdo_general_01-2021_judicatura.pdf"]) as idx:
        yield idx


@pytest.fixture(scope="module")
def settings(index):
    return Settings(home=index.settings.home, answerer="extractive", judge="offline", _env_file=None)


@pytest.mark.parametrize("question,title,article,opening", [
    ("¿Qué establece la Ley del Periódico Oficial del Gobierno del Estado de Durango?", "Ley del Periódico Oficial",
     "1",
     "La presente Ley es de orden público e interés social y tiene por objeto regular"),
    ("¿De qué trata la Ley de Amparo?", "Ley de Amparo", "1",
     "El juicio de amparo tiene por objeto resolver toda controversia"),
    ("¿De qué trata el Reglamento de los Artículos 121 y 122 de la Ley Federal del Trabajo?", "Reglamento", "1",
     "El presente ordenamiento tiene por objeto regular el procedimiento"),
    ("¿Qué establece el Acuerdo General 1/2021?", "ACUERDO GENERAL 01/2021", "1",
     "Los presentes lineamientos serán de observancia temporal y obligatoria"),
])
def test_a_question_about_a_whole_law_is_answered_by_its_object(index, settings, question, title, article, opening):
    answer = ask(index, question, k=6, settings=settings)
    assert answer.found, answer.text
    [named] = answer.references
    assert named.resolved and title in named.titles[0], named
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == article and title in cited[0].document_title, [c.label for c in cited]
    assert cited[0].cited_text.startswith(opening), cited[0].cited_text


def test_a_question_with_a_topic_of_its_own_is_not_about_the_whole_law(index, settings):
    """"Según la Ley del Periódico Oficial …, ¿se puede publicar un documento que no esté firmado?" asks for art. 10
    ("En ningún caso se publicará documento alguno … si no está debidamente firmado"), not the law's object."""
    answer = ask(index, "Según la Ley del Periódico Oficial del Gobierno del Estado de Durango, ¿se puede publicar un "
                 "documento que no esté firmado?", k=6, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "10", [c.label for c in cited]
