"""Split a gazette edition into its legal documents at issuing-body + title boundaries.

A DOF edition prints each document under its issuing body ("PODER EJECUTIVO", "SECRETARIA DE MARINA") and opens it
with a bold title ("DECRETO por el que…"); consecutive documents of the same body repeat only the title. So a
boundary is a run of consecutive headings holding a poder, an issuing body or a title; the body is inherited by the
documents after it until another appears. Anything before the first boundary (cover, CONTENIDO) is front matter.
Files that are not editions (a law, a BOE decree, a judgment) stay one document: their "DECRETO …" lines are
transitory reform decrees inside one text, not new documents.

One more boundary holds in any file: a decree that enacts a whole law carries that law after its own operative
article ("Artículo único. Se aprueba el texto refundido de la Ley de Sociedades de Capital…", "ARTÍCULO ÚNICO.- Se
expide la Ley …, para quedar como sigue:"), and a decree that promulgates a treaty, named in its title ("DECRETO
Promulgatorio de la Convención sobre …, hecha en …"), carries the treaty's text after its certification. Where, after
such an article or under such a title, a heading in capitals names a law or a treaty ("TEXTO REFUNDIDO DE LA LEY DE
SOCIEDADES DE CAPITAL", "LEY GENERAL DE …", "CONVENCIÓN SOBRE …") and its own structure follows it (a LIBRO, TÍTULO,
CAPÍTULO or its first article within the next headings), the law is a document of its own from that heading on
(`split_annexed_law`): its articles are the law's, not the decree's. A decree of several articles, numbered in words
as the DOF numbers a decree's ("ARTÍCULO PRIMERO.- Se expide la Ley A …" / the law / "ARTÍCULO SEGUNDO.- Se expide la
Ley B …" / "ARTÍCULO TERCERO.- Se reforman …" / TRANSITORIOS), takes up its own text again at its next article: each
law it enacts is a document, and what lies between and after them is the decree's. An acuerdo that prints the
lineamientos or reglas it issues after its own transitorios, under their name alone, carries them as its annex
(`_issued_after_transitorios`): they are its text, not its transitory articles.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import re

from ingest.headings import (ANNEX, ARTICULO, BOUNDARY_KINDS, CAPITULO, CLAUSE, GENERIC_KINDS, ISSUING_BODY,
                             LEADERS, LIBRO, PART, PODER, TITLE, TITULO, Classified, fold, numbered_in_words)
from ingest.identity import issues
from ingest.references import article_key
from ingest.layout import Line
from ingest.tables import TableBlock


@dataclass
class Item:
    """One block of a page in reading order: a line (maybe a heading, already merged) or a table."""

    page: int
    line: Line | None = None
    table: TableBlock | None = None
    heading: Classified | None = None
    synthetic: bool = False  # an inherited issuing-body heading repeated at the top of a document
    first_line: Line | None = None  # a merged multi-line heading: its first line (`line` is its last)


@dataclass
class DocumentItems:
    items: list[Item]
    front_matter: bool = False
    poder: str | None = None
    body: str | None = None
    title: str | None = None
    kinds: list[str] = field(default_factory=list)
    annexed_to: "DocumentItems | None" = None  # a law carried whole by the decree that enacts it


def _kind(item: Item) -> str | None:
    return item.heading.kind if item.heading else None


def split_edition(items: list[Item]) -> list[DocumentItems]:
    """Documents of an edition, each starting at its boundary run (inherited body headings prepended)."""
    starts: list[int] = []
    i = 0
    while i < len(items):
        if _kind(items[i]) in BOUNDARY_KINDS:
            j = i
            while j < len(items) and _kind(items[j]) in BOUNDARY_KINDS:
                j += 1
            starts.append(i)
            i = j
        else:
            i += 1
    docs: list[DocumentItems] = []
    if not starts or starts[0] > 0:
        front = items[: starts[0] if starts else len(items)]
        if any(it.line or it.table for it in front):
            docs.append(DocumentItems(front, front_matter=True))
    poder = body = None
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(items)
        chunk = items[start:end]
        run: list[Item] = []
        for it in chunk:
            if _kind(it) not in BOUNDARY_KINDS:
                break
            run.append(it)
        kinds = [it.heading.kind for it in run]
        if PODER in kinds:
            poder = next(it.heading.label for it in run if it.heading.kind == PODER)
            body = None
        if ISSUING_BODY in kinds:
            body = " ".join(it.heading.label for it in run if it.heading.kind == ISSUING_BODY)
        inherited: list[Item] = []
        page = chunk[0].page
        if PODER not in kinds and poder:
            inherited.append(Item(page, heading=Classified(PODER, poder), synthetic=True))
        if ISSUING_BODY not in kinds and PODER not in kinds and body:
            inherited.append(Item(page, heading=Classified(ISSUING_BODY, body), synthetic=True))
        title = next((it.heading.label for it in run if it.heading.kind == TITLE), None)
        docs.append(DocumentItems(inherited + chunk, poder=poder, body=body, title=title))
    return docs


def single_document(items: list[Item]) -> list[DocumentItems]:
    """The whole file as one document; its body and title from its first headings."""
    doc = DocumentItems(items)
    for it in items:
        if it.heading and it.heading.kind == ISSUING_BODY and doc.body is None:
            doc.body = it.heading.label
        if it.heading and it.heading.kind == PODER and doc.poder is None:
            doc.poder = it.heading.label
        if it.heading and it.heading.kind == TITLE and doc.title is None:
            doc.title = it.heading.label
    return [doc]


# A heading naming a law, in capitals: "TEXTO REFUNDIDO DE LA LEY DE …", "LEY GENERAL DE …", "CÓDIGO NACIONAL DE …";
# or a treaty, whose text a promulgating decree carries after its certification ("CONVENCIÓN SOBRE …", "TRATADO
# ENTRE …", "CONVENIO …", "PROTOCOLO …").
_LAW_HEADING = re.compile(r"^(?:TEXTO\s+REFUNDIDO\s+DE\s+(?:LA\s+|EL\s+)?)?"
                          r"(?:LEY|C[ÓO]DIGO|ESTATUTO|REGLAMENTO|TRATADO|CONVENIO|CONVENCI[ÓO]N|PROTOCOLO)\b")
_TRANSITORY = re.compile(r"(?:articulos?\s+)?transitori")  # "TRANSITORIOS", "ARTÍCULOS TRANSITORIOS" (folded)
_LAW_STRUCTURE_WITHIN = 4  # headings after the law's name within which its LIBRO / TÍTULO / CAPÍTULO / art. 1 appears


def _starts_law(items: list[Item], k: int) -> bool:
    """Does the heading at `k` name a law whose own structure follows it?"""
    label = items[k].heading.label.strip()
    if not _LAW_HEADING.match(label) or label.upper() != label or LEADERS.search(label):
        return False
    following = [it.heading for it in items[k + 1:] if it.heading is not None][:_LAW_STRUCTURE_WITHIN]
    return any(h.kind in (LIBRO, TITULO, CAPITULO) or (h.kind in (ARTICULO, CLAUSE) and article_key(h.label) == "1")
               for h in following)


def split_annexed_law(docs: list[DocumentItems]) -> list[DocumentItems]:
    """Each document, and after it the laws it enacts when it carries them whole (module docstring)."""
    out: list[DocumentItems] = []
    for doc in docs:
        out.append(doc)
        if not doc.front_matter:
            out += _enacted_laws(doc)
            _issued_after_transitorios(doc)
    return out


def _issued_after_transitorios(doc: DocumentItems) -> None:
    """An acuerdo that issues lineamientos or reglas may print them after its own transitorios and signature, under
    their name alone, with no ANEXO label ("… se emiten los Lineamientos para …" / "ARTÍCULO ÚNICO.- Se emiten …" /
    TRANSITORIOS / "Ciudad de México, a … .- Rúbrica." / "LINEAMIENTOS PARA …" / CAPÍTULO I …). That heading opens
    what the acuerdo carries, as an annex's label does: its text is not one of the transitorios, nor a reform decree
    appended after them (a name set as a title). The first heading after TRANSITORIOS whose words the title says the
    document issues (`identity.issues`) becomes the label of an annex."""
    after_transitorios = False
    for it in doc.items:
        h = it.heading
        if h is None or it.synthetic:
            continue
        if h.kind == PART and _TRANSITORY.match(fold(h.label)):
            after_transitorios = True
        elif h.kind == ANNEX:
            return  # an ANEXO label closes the transitorios itself; the name printed under it is its title
        elif after_transitorios and h.kind in (*GENERIC_KINDS, TITLE) and issues(doc.title or "", h.label):
            it.heading = Classified(ANNEX, h.label)
            return


def _enacted_laws(doc: DocumentItems) -> list[DocumentItems]:
    """The laws `doc` carries whole, each cut out of its items; what is the decree's own stays in `doc`."""
    items, kept, laws = doc.items, [], []
    decree_article: str | None = None  # the label of the decree's last article so far
    title = fold(doc.title or "")
    k = 0
    while k < len(items):
        it = items[k]
        h = it.heading
        if (h is not None and not it.synthetic and (decree_article is not None or _named_by(title, h))
                and _starts_law(items, k)):
            end = _decree_resumes(items, k, decree_article)
            laws.append(DocumentItems([Item(it.page, line=it.line, heading=Classified(TITLE, h.label),
                                            first_line=it.first_line), *items[k + 1:end]],
                                      poder=doc.poder, body=doc.body, title=h.label, annexed_to=doc))
            k = end
            continue
        kept.append(it)
        if h is not None and h.kind in (ARTICULO, CLAUSE) and not LEADERS.search(h.label):
            decree_article = h.label  # the decree's own article (a section numbered in figures is none)
        k += 1
    doc.items = kept
    return laws


def _named_by(title: str, heading: Classified) -> bool:
    """Does the document's title (folded) name the law this heading names, as a decree names what it promulgates
    ("DECRETO Promulgatorio de la Convención sobre …, hecha en …" / "… a sus habitantes, sabed: …" / the
    certification / "CONVENCIÓN SOBRE …")? After the title's first words, and in three words or more: a law's
    title opens with its own name, and a bare "REGLAMENTO" names nothing."""
    name = fold(heading.label)
    return heading.kind != TITLE and len(name.split()) >= 3 and title.find(name) > 0


def _decree_resumes(items: list[Item], k: int, decree_article: str | None) -> int:
    """Where the decree that enacts the law named at `k` takes up its own text again: its next article, numbered as
    the decree numbers its own ("ARTÍCULO PRIMERO.- Se expide la Ley …" / the law's "Artículo 1.-" … "Artículo 29.-" /
    "ARTÍCULO SEGUNDO.- Se reforman …"), while the law's articles are numbered otherwise (in figures) or have already
    passed that number. Before the transitory articles only: those after a law are the decree's and the law's alike,
    and stay with the law. Else (a decree of no article, or of an "ARTÍCULO ÚNICO") the law runs to the end of the
    document."""
    key = article_key(decree_article) if decree_article else None
    if not key or not key.isdigit() or not numbered_in_words(decree_article):
        return len(items)
    following = int(key) + 1
    in_figures, highest = False, 0
    for j in range(k + 1, len(items)):
        h = items[j].heading
        if h is None:
            continue
        if h.kind == PART and _TRANSITORY.match(fold(h.label)):
            break
        if h.kind != ARTICULO:
            continue
        label_key = article_key(h.label)
        in_words = numbered_in_words(h.label)
        if in_words and label_key == str(following) and (in_figures or highest >= following):
            return j
        in_figures = in_figures or not in_words
        if label_key and label_key.isdigit():
            highest = max(highest, int(label_key))
    return len(items)
