"""A Subsección is a division inside its Sección, and a question asking for a kind of division gets that kind.

The Ley de Sociedades de Capital regulates the cuentas anuales in its "TÍTULO VII Las cuentas anuales" (arts. 253 to
284) and, for the sociedades cotizadas, in "TÍTULO XIV Sociedades anónimas cotizadas" › "CAPÍTULO IX La información
societaria" › "Sección 1.ª Especialidades de las cuentas anuales" › "Subsección 1.ª Cuentas anuales" (art. 536). Read
as a generic heading, the Subsección closed every division above it, so art. 536 (and art. 515 of the same Título)
stood under no Título (`ingest.headings`, `HeadingKind.subseccion`). Read as a division, it is a place the law
regulates the matter, and a question asking "¿En qué título…?" is answered by the Título, not by the subsección of
another Título that repeats the matter's name (`divisions.matching`). The index holds the LSC's pages of its title,
its enacting decree, art. 1, TÍTULO VII, TÍTULO XIV and art. 536, cut from the shared PDF; the expected names are
what they print.
"""

from __future__ import annotations

import pytest

from retrieval.answers import ask
from retrieval.legal_search import legal_search
from retrieval.settings import Settings
from tests.conftest import SHARED
from tests.index_fixtures import build_cut_index

LSC = SHARED / "data" / "laws" / "boe_consolidado_BOE-A-2010-10544_ley_sociedades_capital.pdf"
CUTS = [(LSC, [(0, 0), (10, 11), (70, 70), (117, 117), (148, 148)])]
TITLE_VII = "TÍTULO VII Las cuentas anuales"
COTIZADAS = ["TÍTULO XIV Sociedades anónimas cotizadas", "CAPÍTULO IX La información societaria",
             "Sección 1.ª Especialidades de las cuentas anuales", "Subsección 1.ª Cuentas anuales"]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    with build_cut_index(tmp_path_factory.mktemp("division-kind"), CUTS) as idx:
        yield idx


def test_a_subsection_is_a_place_the_law_regulates_a_matter_inside_its_title(index):
    found = legal_search(index, "¿Dónde regula la LSC las cuentas anuales?", k=8).divisions
    assert [d.path for d in found] == [[TITLE_VII], COTIZADAS], [d.path for d in found]
    assert [d.first_article for d in found] == ["253", "536"]


def test_a_question_asking_for_a_title_is_answered_by_a_title(index):
    question = "¿En qué título de la LSC se regulan las cuentas anuales?"
    assert [d.path for d in legal_search(index, question, k=8).divisions] == [[TITLE_VII]]
    answer = ask(index, question, settings=Settings(home=index.settings.home, _env_file=None))
    assert answer.text.startswith("Dónde se regula: Ley de Sociedades de Capital, TÍTULO VII «Las cuentas anuales»"), \
        answer.text
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "253", [c.label for c in cited]
