"""Issue 25: a question that speaks of what an indexed law regulates, naming no law, is answered from that law.

"¿Cuál es el objeto del juicio de amparo?" names no law, but "amparo" is the matter the Ley de Amparo's name gives
(`LawCatalog.topic_laws(…, matter=True)`): the search reads that law first, as a question naming it would
(`rerank` feature `law`). Over every shared PDF and law the question was answered from Spain's Ley de Enjuiciamiento
Civil (art. 431, "Finalidad del juicio": "el juicio … tendrá por objeto") and flagged. The index here holds the two
real laws that met there: the Ley de Amparo's first pages (its articles 1–30) and the LEC's title page with the
pages of its articles 431–438, each cut from the consolidated PDF in ../shared/data/laws.
"""

from __future__ import annotations

import pytest

from retrieval.answers import ask
from retrieval.legal_search import legal_search
from retrieval.settings import Settings
from tests.conftest import SHARED
from tests.index_fixtures import build_cut_index

LAWS = SHARED / "data" / "laws"
FILES = [  # (file, the page ranges kept)
    (LAWS / "mx_ley_de_amparo_DOF_2025-03-13.pdf", [(0, 11)]),
    (LAWS / "boe_consolidado_BOE-A-2000-323_ley_enjuiciamiento_civil.pdf", [(0, 1), (175, 178)]),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    idx = build_cut_index(tmp_path_factory.mktemp("subject-law"), FILES)
    yield idx
    idx.close()


def _doc(index, title_start: str) -> str:
    return next(d.doc_id for d in index.document_infos() if d.title.startswith(title_start))


def test_a_question_about_what_a_law_regulates_is_answered_from_that_law(index):
    amparo, lec = _doc(index, "Ley de Amparo"), _doc(index, "Ley 1/2000")
    question = "¿Cuál es el objeto del juicio de amparo?"
    found = legal_search(index, question, k=8, openings=True)
    assert found.hits[0].chunk.doc_id == amparo
    assert {h.chunk.doc_id for h in found.hits} == {amparo, lec}  # the LEC is still searched, read after
    settings = Settings(home=index.settings.home, answerer="extractive", judge="offline", _env_file=None)
    answer = ask(index, question, k=8, settings=settings)
    cited = [c for seg in answer.content for c in seg.citations if c.verified]
    assert cited and (cited[0].doc_id, cited[0].article) == (amparo, "1")
    assert cited[0].cited_text.startswith("El juicio de amparo tiene por objeto")
    assert answer.coverage.relevant is True


def test_a_law_the_question_names_decides_alone(index):
    amparo, lec = _doc(index, "Ley de Amparo"), _doc(index, "Ley 1/2000")
    # a question that writes out a law's whole name names that law (it was read as words of the name only, and the
    # law went unresolved: `understood` drops a reference inside a name, not one that is the name)
    found = legal_search(index, "¿Cuál es el objeto del juicio según la Ley de Enjuiciamiento Civil?", k=8)
    assert [(r.resolved, r.doc_ids) for r in found.references] == [(True, [lec])]
    assert found.hits[0].chunk.doc_id == lec
    assert all(h.features["law"] == (h.chunk.doc_id == lec) for h in found.hits)
    # "amparo" named beside another law: the law named decides, the matter adds nothing
    found = legal_search(index, "¿Qué dice la Ley de Enjuiciamiento Civil del juicio de amparo?", k=8)
    assert not any(h.features["law"] for h in found.hits if h.chunk.doc_id == amparo)
