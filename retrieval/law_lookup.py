"""Legal references of a query, resolved against the documents in the index; named provisions looked up directly.

`ingest.references.parse_references` reads "el artículo 17 de la Ley de Amparo"; here the law's name is matched
against what the index holds (each document's title, short title and aliases, and the acronym its title spells:
"Ley Federal del Trabajo" → LFT), never against a hard-coded list, and the named article's chunks are fetched by
payload filter (`doc_id` + `article`), not found by similarity. An article named without a law goes to the laws the
rest of the query points to: the documents of the best search hits that hold such an article.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from ingest.headings import fold
from ingest.models import DocType, DocumentInfo, LegalReference
from ingest.references import parse_references
from retrieval.models import ResolvedReference

# Document types that hold provisions in force under their own name (what "la Ley de Amparo" names), preferred over
# decrees and notices whose titles merely mention that law.
CONSOLIDATED = (DocType.constitucion, DocType.ley, DocType.codigo, DocType.reglamento, DocType.estatuto,
                DocType.real_decreto, DocType.tratado)
NAME_MATCH = 90  # rapidfuzz ratio between a named law and a document's name (both folded)
CONTEXT_DOCS = 3  # documents of the top hits tried for an article named without its law
MIN_MENTION = 10  # characters of a document name that a query must contain to name it in lower case
_LINKING = frozenset("de del la las los el y e en para sobre a al".split())
_NAME_END = re.compile(r",|;|\s+(?:por el que|por la que|que |reglamentaria)", re.I)


def _name_part(title: str) -> str:
    """The name part of a title: "Ley de Amparo, Reglamentaria de los artículos…" → "Ley de Amparo"."""
    return _NAME_END.split(title, maxsplit=1)[0].strip()


def acronym(name: str) -> str:
    """Initials of a law's capitalised words: "Constitución Política de los Estados Unidos Mexicanos" → "CPEUM"."""
    words = [w for w in re.findall(r"[^\W\d_]+", name) if w.lower() not in _LINKING]
    return "".join(w[0] for w in words if w[0].isupper()).upper() if len(words) > 1 else ""


@dataclass(frozen=True)
class _Entry:
    document: DocumentInfo
    names: tuple[str, ...]  # folded
    acronyms: tuple[str, ...]  # upper case
    consolidated: bool
    constitution: bool


def _entry(doc: DocumentInfo) -> _Entry:
    names = [doc.title, _name_part(doc.title), doc.short_title or "", *doc.aliases]
    folded = tuple(dict.fromkeys(fold(n) for n in names if n and n.strip()))
    acronyms = {a.upper() for a in doc.aliases if a.isupper() or (a.isalpha() and len(a) <= 8 and " " not in a)}
    for n in (_name_part(doc.title), doc.short_title or ""):
        if acronym(n):
            acronyms.add(acronym(n))
    constitution = doc.doc_type is DocType.constitucion or any(n.startswith("constitucion politica") for n in folded)
    return _Entry(doc, folded, tuple(sorted(acronyms)), doc.doc_type in CONSOLIDATED or constitution, constitution)


class LawCatalog:
    """The documents of an index, searchable by the names a lawyer calls them."""

    def __init__(self, documents: Sequence[DocumentInfo]):
        self.entries = [_entry(d) for d in documents]

    def resolve(self, ref: LegalReference) -> list[DocumentInfo]:
        """Documents the reference's law names, best first (empty: no law named, or none in the index)."""
        found: list[tuple[int, _Entry]] = []
        name = fold(ref.law or "")
        upper = (ref.law or "").strip().upper()
        for e in self.entries:
            score = 0
            if ref.constitutional and e.constitution and (not name or "constitucion" in name or upper in e.acronyms):
                score = 100
            elif name:
                if upper and upper in e.acronyms and " " not in upper:
                    score = 100
                elif any(n == name or n.startswith(name + " ") or n.startswith(name + ",") for n in e.names):
                    score = 98
                elif len(name) >= 8:
                    score = int(max(fuzz.ratio(name, n[: len(name) + 2]) for n in e.names))
            if score >= NAME_MATCH:
                found.append((score, e))
        found.sort(key=lambda se: (-se[0], not se[1].consolidated))
        if any(e.consolidated for _, e in found):
            found = [(s, e) for s, e in found if e.consolidated]
        return [e.document for _, e in found]

    def mentioned(self, query: str) -> list[DocumentInfo]:
        """Consolidated texts whose name (or acronym) the query contains however it is typed: "¿qué dice el
        artículo 17 de la ley de amparo?" names the Ley de Amparo although the parser wants capitals."""
        folded = f" {fold(query)} "
        tokens = set(re.findall(r"[A-Za-z]{3,8}", query))
        out = []
        for e in self.entries:
            if not e.consolidated:
                continue
            names = [n for n in e.names if len(n) >= MIN_MENTION and len(n.split()) >= 2]
            if any(f" {n} " in folded or f" {n}," in folded or f" {n}?" in folded for n in names) \
                    or tokens & set(e.acronyms):
                out.append(e.document)
        return out


def understood(query: str, catalog: LawCatalog) -> list[tuple[LegalReference, list[DocumentInfo]]]:
    """The query's references, each with the documents its law resolved to (empty when none was named/found)."""
    refs = [r for r in parse_references(query) if r.articles or r.law or r.constitutional]
    # "el artículo 27 … de la Constitución" parsed as two references: the law applies to the bare articles too.
    laws = [r for r in refs if r.law or r.constitutional]
    out = []
    for ref in refs:
        docs = catalog.resolve(ref)
        if not docs and ref.articles and not (ref.law or ref.constitutional):
            docs = [d for law in laws for d in catalog.resolve(law)] or catalog.mentioned(query)
        out.append((ref, list({d.doc_id: d for d in docs}.values())))
    return out


def report(ref: LegalReference, docs: Sequence[DocumentInfo], chunks: int) -> ResolvedReference:
    return ResolvedReference(reference=ref, doc_ids=[d.doc_id for d in docs], titles=[d.title for d in docs],
                             resolved=bool(docs), chunks=chunks)
