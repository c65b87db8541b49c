"""A sentence that opens by pointing back to the one before it is one statement with it.

A law often states a rule in two sentences, the second naming the first's subject by a demonstrative: the Universal
Declaration's art. 14 gives the right to asylum in its apartado 1 and its limit in apartado 2, "Este derecho no podrá
ser invocado contra una acción judicial realmente originada por delitos comunes…". Asked "¿En qué casos no se puede
invocar el derecho a buscar asilo…?", the answer quoted apartado 1 only: apartado 2 holds "invocar" but not "asilo" or
"persecución", which it names by "Este derecho", and a sentence read with its neighbour counts only part of what the
two hold. A sentence that points back to the one before it — "Lo anterior", a demonstrative alone ("Este, a su vez"),
a demonstrative naming a provision ("Esta disposición") or a noun the sentence before names ("Este derecho" after
"…tiene derecho a buscar asilo") — is read whole with it, and it with the sentence that points back
(`text_analysis.points_back`). A demonstrative whose noun the sentence before does not name ("Estas propuestas" after
"…los proyectos de presupuestos") and "Esta Ley" (the text itself) point to no sentence. The index holds the
Declaration and the Reglamento of arts. 121-122 of the Ley Federal del Trabajo.
"""

from __future__ import annotations

import pytest

from retrieval.text_analysis import points_back
from tests.answers.factory import verified_citations
from tests.index_fixtures import build_index

UDHR = "es_declaracion_universal_derechos_humanos.pdf"
RLFT = "mx_reglamento_arts_121_122_LFT.pdf"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    index = build_index(tmp_path_factory.mktemp("pointing-back"), [UDHR, RLFT])
    yield index
    index.close()


# (sentence, the sentence before it, points back) as the laws print them
@pytest.mark.parametrize("sentence, before, expected", [
    ("2. Este derecho no podrá ser invocado contra una acción judicial realmente originada por delitos comunes",
     "1. En caso de persecución, toda persona tiene derecho a buscar asilo, y a disfrutar de él, en cualquier país.",
     True),
    ("Dicho recurso se podrá interponer por cualquiera de las partes, por escrito",
     "El recurso de reclamación es procedente contra los acuerdos de trámite", True),
    ("Tales presunciones sólo serán admisibles cuando la certeza del hecho indicio…",
     "1. Las presunciones que la ley establece dispensan de la prueba del hecho presunto", True),
    ("Lo anterior, con el propósito de que los trabajadores puedan formular objeciones",
     "La inspección extraordinaria se deberá llevar a cabo dentro de los quince días hábiles", True),
    ("2. Esta disposición no es aplicable a los extraños que participaren en el delito.",
     "1. Están exentos de responsabilidad criminal y sujetos únicamente a la civil los cónyuges…", True),
    ("Este, a su vez, habrá de dar traslado de su resolución al Tribunal.",
     "Dicha suspensión se adoptará motivadamente, previa audiencia de las partes", True),
    ("Such controllers or processors shall make binding and enforceable commitments",
     "2. … data protection certification mechanisms … may be established for the purpose of demonstrating the "
     "existence of appropriate safeguards provided by controllers or processors", True),
    ("Estas propuestas deberán observar el procedimiento que para la aprobación del presupuesto de egresos, prevé el "
     "artículo 74 fracción IV de esta Constitución",
     "…deberán incluir dentro de sus proyectos de presupuestos, los tabuladores desglosados de las remuneraciones que "
     "se propone perciban sus servidores públicos.", False),
    ("Esta Ley es de orden público y de observancia general en toda la República",
     "…en los términos que la ley establece", False),
    ("Estados Unidos Mexicanos", "…", False),
])
def test_what_points_back_to_the_sentence_before(sentence, before, expected):
    assert points_back(sentence, before) is expected


def test_the_limit_of_a_right_is_quoted_with_the_right(index):
    """Apartado 2, "Este derecho no podrá ser invocado…", answers; apartado 1 names the right it limits."""
    cited = verified_citations(index, "¿En qué casos no se puede invocar el derecho a buscar asilo en otro país "
                                      "alegando persecución?")
    texts = [" ".join(c.cited_text.split()) for c in cited]
    limit = next((i for i, t in enumerate(texts) if t.startswith("2. Este derecho no podrá ser invocado")), None)
    assert limit is not None, [c.label for c in cited]
    assert any(t.startswith("1. En caso de persecución") for t in texts[:limit]), texts


def test_what_points_back_does_not_take_the_place_of_what_it_points_to(index):
    """"Lo anterior, con el propósito de que los trabajadores puedan formular objeciones…" follows the sentence that
    states the terms asked for; that sentence is quoted, not only the one pointing back to it."""
    cited = verified_citations(index, "Si los trabajadores piden a la autoridad laboral una inspección extraordinaria "
                                      "para acreditar que son mayoría y poder objetar la declaración del patrón, ¿en "
                                      "qué plazo debe practicarse y cuándo se les entrega el acta?")
    assert any("dentro de los quince días hábiles siguientes" in c.cited_text for c in cited), \
        [c.cited_text[:80] for c in cited]
