"""A provision is read under the divisions it stands in: the LEC's art. 404 under "TÍTULO II Del juicio ordinario",
its art. 438 under "TÍTULO III Del juicio verbal".

Both articles give the demandado a time to answer the demanda ("la conteste en el plazo de veinte días" / "de diez
días"); neither names its procedure. Only the título each stands in does, printed as a label with its name on the
line below ("TÍTULO II" / "Del juicio ordinario"). The parser used to read the name as a heading of its own that
the next CAPÍTULO closed, so nothing art. 404's chunks carried said "juicio ordinario". (Over every shared PDF and law
art. 438 is still quoted first, art. 404 after it: art. 438 itself says "conforme a lo dispuesto para el juicio
ordinario".) The index here holds the LEC's title page and the pages where its Títulos II and III open, cut from the
consolidated PDF in ../shared/data/laws.
"""

from __future__ import annotations

import pytest

from ingest.parse import parse_pdf
from retrieval.answers import ask
from retrieval.index import Index
from retrieval.settings import Settings
from tests.conftest import SHARED, cut_pdf

LEC = SHARED / "data" / "laws" / "boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf"
PAGES = [(0, 1), (166, 167), (178, 179)]  # the title page; arts. 399-404 (Título II); arts. 437-438 (Título III)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("division-names")
    result = parse_pdf(cut_pdf(LEC, PAGES, root / LEC.name))
    assert result.documents, result.message
    idx = Index.open(Settings(home=root / "home", _env_file=None))
    try:
        idx.add_documents(result.documents)
        idx.optimize()
        yield idx
    finally:
        idx.close()


@pytest.mark.parametrize(("procedure", "article", "days"), [("ordinario", "404", "veinte días"),
                                                            ("verbal", "438", "diez días")])
def test_a_question_naming_the_procedure_is_answered_from_the_article_under_it(index, procedure: str,
                                                                               article: str, days: str):
    settings = Settings(home=index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(index, f"¿En qué plazo debe contestarse la demanda en el juicio {procedure}?", k=8,
                 settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == article
    assert days in cited[0].cited_text
