"""A law the index holds only through the decrees that amend it (issue 25: say what is missing, rather than guess).

Most of a DOF edition is reform decrees: "DECRETO por el que se reforman los artículos 3o. y 13 de la Ley General
de Salud" prints the amended articles' new text. Asked "¿Qué dice el artículo 13 de la Ley General de Salud?", the
index does not hold that law whole, but it holds the text the question asks for. The answer says both: the law is
not indexed, the decree that amends it is cited (`LawCatalog.amending`, `law_lookup.amended_by`), and its article 13
is quoted. An article no indexed decree prints leaves the law absent, as before. The decree is built in the DOF's
layout (`tests/ingest/test_annexes.py::reform_pdf`).
"""

from __future__ import annotations

import pytest

from retrieval.answers import ask
from retrieval.settings import Settings
from tests.index_fixtures import build_index
from tests.ingest.test_annexes import reform_pdf

NOTICE = ("La Ley General de Salud no está entre los documentos indexados; se cita el decreto que la reforma: "
          "DECRETO por el que se reforman los artículos 3o. y 13 de la Ley General de Salud.")


@pytest.fixture(scope="module")
def reform_index(tmp_path_factory):
    root = tmp_path_factory.mktemp("reform")
    with build_index(root / "home", [reform_pdf(root / "reforma.pdf")]) as idx:
        yield idx


def _ask(index, question):
    settings = Settings(home=index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    return ask(index, question, k=8, settings=settings)


@pytest.mark.parametrize("question", [
    "¿Qué dice el artículo 13 de la Ley General de Salud?",
    "¿Qué dice el artículo 13 de la LGS?",
], ids=["by name", "by acronym"])
def test_an_article_of_a_law_held_only_through_its_amending_decree_is_quoted_from_the_decree(reform_index, question):
    answer = _ask(reform_index, question)
    assert answer.found, answer.text
    [ref] = answer.references
    assert ref.amending and ref.resolved and not ref.absent, ref
    assert answer.content[0].text.startswith(NOTICE.replace("La Ley General de Salud", "La LGS")
                                             if "LGS" in question else NOTICE), answer.content[0].text
    first = next(c for seg in answer.content for c in seg.citations)
    assert first.verified and first.article == "13", first.label
    # named as a lawyer cites it: the title without its closing full stop, then the article
    assert first.label.startswith("DECRETO por el que se reforman los artículos 3o. y 13 de la Ley General de Salud, "
                                  "art. 13"), first.label


def test_an_article_no_amending_decree_prints_leaves_the_law_absent(reform_index):
    answer = _ask(reform_index, "¿Qué dice el artículo 5 de la Ley General de Salud?")
    assert not answer.found
    [ref] = answer.references
    assert ref.absent and not ref.amending, ref
    assert answer.text.startswith("La Ley General de Salud no está entre los documentos indexados."), answer.text


def test_a_quote_of_an_amended_article_is_checked_against_the_amending_decree(reform_index):
    from retrieval.attribution import attribute
    from retrieval.attribution.models import QuoteStatus

    quote = "dictar las normas oficiales mexicanas a que quedará sujeta la prestación de servicios de salud"
    right = attribute(reform_index, f'El artículo 13 de la Ley General de Salud dispone que corresponde al Ejecutivo '
                                    f'Federal "{quote}".')
    assert right.quotes[0].status is QuoteStatus.exact, right.quotes[0]
    invented = attribute(reform_index, 'El artículo 13 de la Ley General de Salud dispone que "las entidades '
                                       'federativas dictarán por sí solas las normas de salubridad general".')
    assert invented.quotes[0].status is not QuoteStatus.exact, invented.quotes[0]


def test_the_article_lookup_reads_an_amended_article_from_its_decree(reform_index):
    """`gaceta article`, `GET /laws/{law}/articles/{n}` and the MCP tool `get_provision` (`find_provision`)."""
    from retrieval.article_history import NotInIndex
    from retrieval.provisions import find_provision

    provision = find_provision(reform_index, "Ley General de Salud", "13")
    assert provision.law.startswith("DECRETO por el que se reforman los artículos 3o. y 13 de la Ley General de Salud")
    assert provision.label.startswith("DECRETO por el que se reforman los artículos 3o. y 13 de la Ley General de "
                                      "Salud, art. 13"), provision.label
    assert "dictar las normas oficiales mexicanas" in " ".join(provision.text.split())
    with pytest.raises(NotInIndex):
        find_provision(reform_index, "Ley General de Salud", "5")
