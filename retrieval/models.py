"""Search requests and results: the contract between retrieval and the faces."""

from __future__ import annotations

import datetime as dt
from enum import Enum

from pydantic import BaseModel, Field, field_validator

from ingest.headings import fold
from ingest.models import Chunk, DocType, DocumentInfo, LegalReference


class SearchMode(str, Enum):
    hybrid = "hybrid"
    dense = "dense"
    bm25 = "bm25"


class Fusion(str, Enum):
    rrf = "rrf"
    dbsf = "dbsf"


class SearchFilters(BaseModel):
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    issuing_body: list[str] | None = None
    doc_type: list[str] | None = None
    doc_ids: list[str] | None = None
    as_of: dt.date | None = None  # each law in the version in force on this day (default: today)

    @field_validator("doc_type", mode="before")
    @classmethod
    def _doc_types(cls, value):
        """`codigo`, `Código`, `real-decreto`, `nom` → the `DocType` value ("CÓDIGO", …); unknown words upper-cased.
        Anything but a string or a list of them is left for validation to refuse."""
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return value
        return [_DOC_TYPE_NAMES.get(fold(v.replace("-", " ")), v.strip().upper()) for v in value]


_DOC_TYPE_NAMES = {fold(t.value): t.value for t in DocType} | {fold(t.name): t.value for t in DocType} | {
    "nom": DocType.nom.value}


class SearchHit(BaseModel):
    chunk: Chunk
    document: DocumentInfo
    score: float
    rank: int = Field(ge=1)
    label: str = ""  # as a lawyer cites it: "Ley de Amparo, art. 17, p. 9"
    via: str = "search"  # "search" (hybrid/dense/bm25 retrieval), "reference" (looked up by a parsed reference),
    # "identifier" (a search hit holding a number the question names an entry by: "el juicio 5929/20"), "opening"
    # (an article whose opening answers the question) or "definition" (a search hit that defines the term the
    # question asks the meaning of: `retrieval.definitions`) or "disposition" (a chunk of the judgment the search ranks
    # best that opens its operative part, for a question asking how the case was decided: `retrieval.rulings`)
    features: dict[str, float] = {}  # the reranker's features and score, when it ran
    versioned: bool = False  # the index holds several versions of this hit's law: its label names the version


class ResolvedReference(BaseModel):
    """A legal reference read in a query, and what it resolved to in the index."""

    reference: LegalReference
    doc_ids: list[str] = []  # documents the named law (or the question's context) resolved to
    titles: list[str] = []
    resolved: bool = False  # True: the law (or a unique article holder) was found in the index
    chunks: int = 0  # chunks found for the named article(s) in those documents
    absent: bool = False  # a law named by name, acronym or number that no indexed document is (issue 25)
    reason: str | None = None  # why it did not resolve: "El Código Penal Federal no está entre los documentos indexados"
    closest: list[str] = []  # when absent: the indexed laws closest to the named one by name, best first
    # resolved to indexed documents of the named kind that print neither their name nor their number (a NOM's chapter
    # titled "DISPOSICIONES GENERALES", calling itself "esta NOM"): the named one may be among them, and `reason` says
    # it is not sure
    possible: list[str] = []
    # the named law is not indexed whole, but the documents resolved to are decrees that amend it (a DOF reform
    # decree prints the amended articles' new text): `reason` says so, and the answer opens with it
    amending: bool = False


class NamedCountry(BaseModel):
    """The one country a query names without naming a law ("las obligaciones de los mexicanos", "en España"): the
    documents of other countries are set aside (`retrieval.law_lookup.LawCatalog.country_scope`)."""

    code: str  # "mx", "es", …: as the catalogue's jurisdictions hold it
    name: str  # "México"
    words: list[str]  # the query's words that name it: ["mexicanos"]
    set_aside: int = 0  # documents of other countries the search did not draw on


class Division(BaseModel):
    """A division of a law's body (LIBRO, TÍTULO, CAPÍTULO, SECCIÓN) a question asking where the law regulates a
    matter is answered with (`retrieval.divisions`): where it stands, its name, the articles it holds."""

    doc_id: str
    law: str  # as a lawyer names the law: "Ley de Amparo"
    path: list[str]  # the divisions it stands in and itself, outermost first, as printed with their names
    name: str  # "Suspensión del Acto Reclamado"
    first_article: str | None = None
    last_article: str | None = None
    page: int  # the PDF page it opens on


class SearchResult(BaseModel):
    """Hits plus what the query was understood to ask for."""

    query: str
    hits: list[SearchHit]
    references: list[ResolvedReference] = []
    country: NamedCountry | None = None  # the country the query names, when the index holds laws of several
    divisions: list[Division] = []  # where the law regulates what a question asking so asks about
