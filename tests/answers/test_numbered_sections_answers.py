"""A question that names a section numbered in figures is answered from that section and cites it by its number.

The NOM-001-SEDE's chapter 1 as printed (its sections "110-1." … "110-79.") beside NIST SP 800-30 (sections
"2.3.1 RISK MODELS") and Durango's Ley del Periódico Oficial (articles), all from ../shared/data/pdfs. Before
(`ingest.headings.numbered_sections`), no chunk of the NOM had a key: "¿Qué dice la sección 110-26?" resolved to
nothing, and its citations said only the page.
"""

from __future__ import annotations

import pytest

from gaceta.answer_html import understood
from retrieval.answers import ask
from retrieval.settings import Settings
from tests.index_fixtures import build_index


@pytest.fixture(scope="module")
def sections_index(tmp_path_factory):
    root = tmp_path_factory.mktemp("sections")
    with build_index(root / "home", ["mx_nom-001-sede-2012_capitulo1.pdf", "us_nist_sp800-30r1.pdf",
                                     "mx_durango_ley_del_periodico_oficial.pdf"]) as idx:
        yield idx


@pytest.mark.parametrize("question,said,section,label,says", [
    ("¿Qué dice la sección 110-26?", "sección", "110-26", "numeral 110-26", "espacio de trabajo"),
    ("¿Qué establece el numeral 110-14 sobre las conexiones eléctricas?", "numeral", "110-14", "numeral 110-14",
     "empalmes"),
    ("What does section 2.3.1 of the guide say about risk models?", "section", "2.3.1", "section 2.3.1",
     "risk model"),
], ids=["sección 110-26", "numeral 110-14", "section 2.3.1"])
def test_a_named_section_is_answered_from_it(sections_index, question, said, section, label, says):
    settings = Settings(home=sections_index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(sections_index, question, k=8, settings=settings)
    assert answer.found, answer.text
    [ref] = [r for r in answer.references if r.reference.articles]
    assert ref.resolved and ref.reference.articles == [section]
    # what the page says it understood names the provision as the question does: "Entendido: sección 110-26 de …"
    assert understood(answer.references)[0].startswith(f"{said} {section} de "), understood(answer.references)
    first = next(c for seg in answer.content for c in seg.citations)
    assert first.verified and first.article == section, (first.label, answer.text)
    assert f", {label}, " in first.label or first.label.endswith(f", {label}"), first.label
    cited = " ".join(c.cited_text for seg in answer.content for c in seg.citations if c.article == section)
    assert says in cited.lower(), cited


def test_a_question_naming_no_section_is_answered_from_the_one_that_rules_it(sections_index):
    """No number named: the section whose words answer it, cited by its number and page."""
    settings = Settings(home=sections_index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(sections_index, "¿Se puede usar como bodega el espacio de trabajo frente a un tablero eléctrico?",
                 k=8, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and cited[0].article == "110-26", [c.label for c in cited]
    assert ", numeral 110-26, " in cited[0].label
