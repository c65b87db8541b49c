"""A question on how a case was decided, and the operative part of the judgment that decides it.

A judgment states its decision in one place and one form: after the facts and the reasons, a formula opens the part
that disposes of the case — "Por estas consideraciones y visto, además, lo dispuesto en … se rechazan los recursos de
casación…" (Chile), "Por lo expuesto y fundado, se resuelve:" (Mexico), "En mérito de lo expuesto, la Corte …
RESUELVE:" (Colombia), "Por todo lo expuesto … FALLAMOS:" (Spain), "For the reasons elucidated above, the Chapel's
appeal is dismissed…", "Affirmed." (the United States). A question asking how a case ended ("¿Cómo terminó el
juicio…?", "¿Qué resolvió la Corte Suprema…?", "How did the First Circuit resolve … appeal?", "What did the court
hold?") is answered by that part (`asks_outcome`, `disposes`), which the search ranks below the facts and reasons
that share the question's words (the parties, the claim, the court). So it is looked for by its form in the judgment
the search ranks best — the case the question is about; another judgment among the hits decided another case —
(`disposing_chunks`), and the offline answerer leads with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ingest.headings import fold
from ingest.models import Chunk, DocType
from ingest.sentences import split_sentences

# Documents that may decide a case: a court's judgment, a court's or an authority's auto, and a document whose type
# the gazette's conventions do not give (an opinion filed as a scan: "WORKERS' COMPENSATION APPEALS BOARD … v. …").
DECIDING = frozenset({DocType.sentencia, DocType.auto, DocType.otro})

_ASKS = re.compile(
    r"\b(?:como|en\s+que)\s+(?:se\s+)?(?:termino|terminaron|concluyo|acabo|resolvio|decidio|fallo)\b"
    r"|\bque\s+(?:resolvio|decidio|fallo|determino|sentencio)\b"
    r"|\bcual\s+(?:fue|es)\s+(?:el\s+(?:fallo|resultado|sentido\s+del\s+fallo)|la\s+(?:resolucion|decision)\s+final)\b"
    # was it granted? ("¿Se acogió el recurso de casación…?", "Was the appeal dismissed?"): what happened, not the rule
    r"|\b(?:se\s+)?(?:acogio|rechazo|desestimo|confirmo|revoco|anulo|prospero)\s+(?:el|la|los|las)\s"
    r"|\b(?:was|were)\s+(?:the\s+)?(?:[\w'’]+\s+){0,3}?(?:granted|denied|dismissed|affirmed|reversed|vacated|upheld)\b"
    r"|\bhow\s+did\s+.{0,80}?\b(?:resolve|rule|decide|dispose\s+of|end)\b"
    r"|\bwhat\s+did\s+.{0,60}?\b(?:hold|decide|rule)\b"
    r"|\b(?:outcome|disposition)\s+of\b")
# the formula that opens the operative part, or the disposition itself standing alone
_DISPOSES = re.compile(
    r"^(?:por\s+(?:estas|tales|las\s+anteriores|las\s+razones|los\s+fundamentos)\s+(?:\w+\s+){0,3}?"
    r"(?:consideraciones|razones|fundamentos|motivos)\b"
    r"|por\s+(?:todo\s+)?lo\s+(?:anteriormente\s+|antes\s+)?expuesto\b"  # Mexico, Spain ("Por todo lo expuesto…")
    r"|en\s+(?:merito|virtud)\s+de\s+lo\s+(?:anteriormente\s+)?expuesto\b"  # Colombia ("En mérito de lo expuesto…")
    r"|(?:se\s+)?resuelve\s*:|fallamos\b|fallo\s*:"
    r"|for\s+(?:the|these|all\s+the)\s+(?:\w+\s+){0,2}?reasons\b"
    r"|(?:affirmed|reversed|vacated|dismissed|so\s+ordered)\b)"
    # a court disposing in its own voice: "Having carefully reviewed the record, we reverse the trial court's decision"
    r"|\bwe\s+(?:hereby\s+)?(?:affirm|reverse|vacate|dismiss|remand)\b")


def asks_outcome(question: str) -> bool:
    """Does the question ask how a case was decided?"""
    return bool(_ASKS.search(fold(question)))


def disposes(sentence: str) -> bool:
    """Is the sentence the one that opens a judgment's operative part, its bare disposition ("Affirmed."), or the
    court disposing in its own voice ("… we reverse the trial court's decision")?"""
    return bool(_DISPOSES.search(fold(sentence).strip()))


def disposing_chunks(index, doc_ids: Sequence[str]) -> list[Chunk]:
    """The chunks of the documents `doc_ids` that hold a sentence opening their operative part, in document order."""
    return [chunk for doc_id in doc_ids for chunk in index.body(doc_id)
            if any(disposes(chunk.text[s.start:s.end]) for s in split_sentences(chunk.text))]
