"""Legal references of a query, resolved against the documents in the index; named provisions looked up directly.

`ingest.references.parse_references` reads "el artículo 17 de la Ley de Amparo"; here the law's name is matched
against what the index holds (each document's title, short title and aliases, and the acronym its title spells:
"Ley Federal del Trabajo" → LFT), never against a hard-coded list, and the named article's chunks are fetched by
payload filter (`doc_id` + `article`), not found by similarity. An article named without a law goes to the laws the
rest of the query points to: the documents of the best search hits that hold such an article.

Jurisdiction is part of a law's name (issue 25): "Código Penal Federal", "Código Penal de la Ciudad de México",
"Código Penal del Estado de Jalisco", "Constitución Española" or "Código Penal de Colombia" name other laws than
Spain's "Código Penal" or Mexico's Constitution. A name's trailing qualifier must be one the document holds (both
read in `retrieval/jurisdiction.py`: its own name's, or the country and level of the gazette that published it). A law
the question names that no document is (`absent`) is reported with the indexed laws closest to it by name
(`closest`), so an answer can say "El Código Penal Federal no está entre los documentos indexados" instead of
answering from another law. How a question names a law (lower case, a topic or a year after the name, a bill) is
read in `retrieval/question_laws.py`, which resolves what it reads here.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from ingest.headings import fold
from ingest.identity import type_of_title
from ingest.models import DocType, DocumentInfo, LegalReference
from ingest.references import law_type_of, regulated
from retrieval.jurisdiction import (AFTER_NAME, COUNTRY_CODES, countries_named, jurisdiction_of, place_name,
                                   places_label, qualifiers)
from retrieval.models import NamedCountry, ResolvedReference
from retrieval.text_analysis import LANGUAGES, analyze

# Document types that hold provisions in force under their own name (what "la Ley de Amparo" names), preferred over
# decrees and notices whose titles merely mention that law.
CONSOLIDATED = (DocType.constitucion, DocType.ley, DocType.codigo, DocType.reglamento, DocType.estatuto,
                DocType.real_decreto, DocType.tratado)
NAME_MATCH = 90  # rapidfuzz ratio between a named law and a document's name (both folded)
CONTEXT_DOCS = 3  # documents of the top hits tried for an article named without its law
MIN_MENTION = 10  # characters of a document name that a query must contain to name it in lower case
LINKING = frozenset("de del la las los el y e en para sobre a al".split())
# the matter a law's name gives after its type: "ley de amparo", "ley federal del trabajo", "ley general de salud"
_MATTER = re.compile(r"[a-z]+(?:\s+(?:federal|general|nacional|organica))?\s+(?:de|del|sobre)\s")
_NAME_END = re.compile(r",(?!\s*\d)|;|\s+(?:por el que|por la que|que |reglamentaria)", re.I)  # not a list's commas
# A title that lists several annexes is each of them: "ANEXOS 11, 12, 13, 23, 30, 31 y 32 de la Resolución Miscelánea
# Fiscal para 2025" is the "Anexo 13 de la Resolución Miscelánea Fiscal para 2025" a question names.
_LISTED = re.compile(r"(?P<noun>anexos|ap[eé]ndices)\s+(?P<items>\d+[a-z]?(?:\s*,\s*\d+[a-z]?)*\s+y\s+\d+[a-z]?)\s+"
                     r"(?P<rest>(?:de|del)\s.+)", re.I)
# An annex is named by its number and the instrument it belongs to, however that is written: whole ("el Anexo 13 de la
# Resolución Miscelánea Fiscal para 2025"), by the initials of its words, as a tax adviser writes it ("el Anexo 13 de
# la RMF 2025", "Anexo 13 RMF"), its year left out when the question gives none.
_ANNEX_NAME = re.compile(r"(?P<noun>anexo|apendice) (?P<number>\d+[a-z]?) (?:de la|del|de) (?P<instrument>[^,;]+?)"
                         r"(?: (?:para|de) (?P<year>(?:19|20)\d\d))?$")
_ANNEX_YEAR = r"(?:\s+(?:para\s+)?(?:el\s+)?(?:ejercicio\s+(?:fiscal\s+)?(?:de\s+)?)?(?P<year>(?:19|20)\d\d))?(?!\w)"
CLOSEST = 3  # indexed laws named when a named law is absent
# Law types whose name alone says which law it is (a decree, an agreement or a notice is named by its whole title,
# which a question rarely repeats: an unresolved one is not reported absent).
NAMED_TYPES = frozenset({DocType.constitucion, DocType.ley, DocType.codigo, DocType.reglamento, DocType.estatuto,
                         DocType.real_decreto, DocType.tratado, DocType.nom})

# A numbered law is one number however its year is joined to it: Colombia's "Ley 99 de 1993" is the "Ley 99/1993" a
# lawyer elsewhere writes, as Spain's "Ley 1/2000" is; and however many zeros pad it ("Acuerdo General 01/2021" is the
# "Acuerdo General 1/2021")
_NUMBER_OF_YEAR = re.compile(r"\b(\d+)\s+de\s+((?:1[89]|20)\d\d)\b")
_PADDED = re.compile(r"\b0+(\d+/)")


def _numbered(folded: str) -> str:
    """A folded name with its number written one way: "ley 99 de 1993 por la cual…" → "ley 99/1993 por la cual…",
    "acuerdo general 01/2021" → "acuerdo general 1/2021"."""
    return _PADDED.sub(r"\1", _NUMBER_OF_YEAR.sub(r"\1/\2", folded))


# An acronym in capitals and small letters spells its law's words by their first letters: "LAmp" (the DOF's acronym
# of the Ley de Amparo) is "L" for "Ley" and "Amp" for "Amparo", linking words left out.
_SPELLED = re.compile(r"[A-ZÑ][a-zñ]*")


def _spelled_parts(token: str) -> list[str]:
    """The parts of a mixed-case acronym ("LAmp" → ["L", "Amp"]); [] for any other token."""
    parts = _SPELLED.findall(token)
    return parts if "".join(parts) == token and not token.isupper() and len(parts) >= 2 else []


def spells(parts: list[str], name: str) -> bool:
    """Do the parts of a mixed-case acronym (`_spelled_parts`: "LAmp" → ["L", "Amp"]) spell `name`'s words ("Ley de
    Amparo")? An all-capitals acronym is read by `acronym`."""
    if not parts:
        return False
    words = [w for w in re.findall(r"[^\W\d_]+", fold(name)) if w not in LINKING]
    return len(words) == len(parts) and all(w.startswith(fold(p)) for p, w in zip(parts, words))


def _name_part(title: str) -> str:
    """The name part of a title: "Ley de Amparo, Reglamentaria de los artículos…" → "Ley de Amparo"."""
    return _NAME_END.split(title, maxsplit=1)[0].strip()


def each_listed(title: str) -> list[str]:
    """The name of each annex a title lists (`_LISTED`), in its own words: "ANEXOS 11, 12 y 13 de la Resolución …"
    → ["ANEXO 11 de la Resolución …", "ANEXO 12 de la Resolución …", "ANEXO 13 de la Resolución …"]."""
    m = _LISTED.match(_name_part(title))
    if m is None:
        return []
    items = re.findall(r"\d+[a-z]?", m.group("items"), re.I)
    return [f"{m.group('noun')[:-1]} {item} {m.group('rest')}" for item in items]


def outermost(found: list[tuple[int, int, DocumentInfo]]) -> list[tuple[int, int, DocumentInfo]]:
    """The written names of `found` (`LawCatalog.written_names`) that lie inside no other: "la Resolución Miscelánea
    Fiscal para 2025" in "el Anexo 16 de la Resolución …" is part of the annex's name."""
    return [(s, e, doc) for s, e, doc in found
            if not any(lo <= s and e <= hi and (lo, hi) != (s, e) for lo, hi, _ in found)]


def _same_words(name: str, title: str) -> bool:
    """Is every word of a named law (both folded) a word of the document's name, inflected ("Sociedad",
    "Sociedades": one stem) or mistyped by one letter ("Enjuciamiento")? A word of its own names another law however
    close the letters: the "Ley de Enjuiciamiento Criminal" is not the Ley de Enjuiciamiento Civil. A number is
    no typo: the "Ley 99/1994" is not the Ley 99/1993."""
    words = [w.strip(",.;:") for w in title.split()]
    stems = set(analyze(title, LANGUAGES))
    for word in name.split():
        if any(c.isdigit() for c in word):
            if word not in words:
                return False
            continue
        if word in LINKING or set(analyze(word, LANGUAGES)) & stems:
            continue
        if not any(Levenshtein.distance(word, w) <= 1 for w in words):
            return False
    return True


# The words of law names in English, each with the Spanish word the same name is written with: a law indexed in one
# language is named in the other ("the Universal Declaration of Human Rights" is the "Declaración Universal de
# Derechos Humanos"; the "Reglamento General de Protección de Datos" the "General Data Protection Regulation"). Words
# both languages share ("universal", "general", "civil") need no entry.
_EN_ES = {"declaration": "declaracion", "rights": "derechos", "right": "derecho", "human": "humanos",
          "data": "datos", "protection": "proteccion", "regulation": "reglamento", "directive": "directiva",
          "convention": "convencion", "charter": "carta", "covenant": "pacto", "treaty": "tratado", "code": "codigo",
          "criminal": "penal", "procedure": "procedimiento", "law": "ley", "act": "ley", "constitution": "constitucion",
          "freedoms": "libertades", "freedom": "libertad", "child": "nino", "children": "ninos",
          "political": "politicos", "economic": "economicos", "social": "sociales", "cultural": "culturales",
          "european": "europea", "personal": "personales", "companies": "sociedades",
          "company": "sociedad", "labour": "trabajo", "labor": "trabajo", "american": "americana"}
_EN_LINKING = frozenset("of the on for and to with".split())
_CROSS_WORDS = 8  # a name of more words is a long title, not a name another language translates word for word


def name_concepts(name: str) -> frozenset[str]:
    """What a law's name says, in either language: its words (linking words out) through `_EN_ES`, stemmed as Spanish
    ("Universal Declaration of Human Rights" and "Declaración Universal de Derechos Humanos": one set)."""
    words = [w for w in re.findall(r"[^\W\d_]+", fold(name)) if w not in LINKING and w not in _EN_LINKING]
    return frozenset(t for w in words for t in analyze(_EN_ES.get(w, w), ("spanish",)))


def as_written(words: str) -> str:
    """Words typed in lower case as a law's name is written: "ley general de salud" → "Ley General de Salud"."""
    return " ".join(w if w in LINKING else w[:1].upper() + w[1:] for w in words.split())


def acronym(name: str) -> str:
    """Initials of a law's capitalised words: "Constitución Política de los Estados Unidos Mexicanos" → "CPEUM"."""
    words = [w for w in re.findall(r"[^\W\d_]+", name) if w.lower() not in LINKING]
    return "".join(w[0] for w in words if w[0].isupper()).upper() if len(words) > 1 else ""


# An act of the European Union is known by its kind and number in every language: "Regulation (EU) 2016/679" is the
# "Reglamento (UE) 2016/679", "Directive 95/46/EC" the "Directiva 95/46/CE"; before 2015 a regulation is numbered
# "No 1907/2006" (number/year), a directive "95/46" (year/number). A text printed before its number was given
# ("REGULATION (EU) 2016/…", a Council position at first reading) is numbered by its year only.
_EU = r"(?:eu|ue|ec|ce|eec|cee)"
EU_ACT = re.compile(rf"(?P<kind>regulation|reglamento|directive|directiva)\s*"
                    rf"(?:\({_EU}\)\s*(?:(?:no\.?|n\.?\s*[oº°]\.?)\s*(?P<old>\d{{1,5}})/(?P<old_year>(?:19|20)\d\d)"
                    rf"|(?P<year>(?:19|20)\d\d)/(?P<num>\d{{1,5}}|…|\.\.\.))"
                    rf"|(?P<short>\d\d)/(?P<short_num>\d{{1,5}})/{_EU})(?![\w/])", re.I)


def eu_number(name: str) -> str | None:
    """The identity of the EU act `name` is ("Reglamento (UE) 2016/679" → "R 2016/679", "Directive 95/46/EC" → "D
    1995/46", "REGULATION (EU) 2016/…" → "R 2016/…"), or None when it is none: a name that only cites one further
    on ("Real Decreto … por el que se aplica el Reglamento (CE) n.º 1907/2006") is not that act."""
    m = EU_ACT.match(name.strip())
    if m is None:
        return None
    kind = "R" if m.group("kind").lower().startswith("reg") else "D"
    if m.group("old"):
        return f"{kind} {m.group('old_year')}/{m.group('old')}"
    if m.group("short"):
        return f"{kind} {'19' if int(m.group('short')) > 50 else '20'}{m.group('short')}/{m.group('short_num')}"
    return f"{kind} {m.group('year')}/{'…' if m.group('num') in {'…', '...'} else m.group('num')}"


def same_eu_act(named: str, held: str) -> bool:
    """Is the EU act numbered `named` the one a document numbered `held` is (`eu_number`)? The same kind and number,
    or the same kind and year when the document was printed before its number was given."""
    return named == held or (held.endswith("/…") and named.rsplit("/", 1)[0] == held[:-2])


@dataclass(frozen=True)
class _Entry:
    document: DocumentInfo
    names: tuple[str, ...]  # folded
    acronyms: tuple[str, ...]  # upper case
    consolidated: bool
    constitution: bool
    cores: tuple[str, ...] = ()  # folded names without their jurisdiction qualifiers
    jurisdiction: frozenset[str] = frozenset()  # country codes, "federal", "sub:<state>"
    eu: str | None = None  # the EU act its title numbers it as (`eu_number`)
    concepts: frozenset[frozenset[str]] = frozenset()  # `name_concepts` of its names short enough to be translated
    regulates: tuple[frozenset[str], str] | None = None  # the provisions its title says it regulates (`regulated`)
    numbered: tuple[str, ...] = ()  # its names and cores with their numbers written one way (`_numbered`)
    annex: tuple[tuple[re.Pattern, str | None], ...] = ()  # the short ways an annex is named (`_annex_forms`)

    @property
    def display(self) -> str:
        """The name a lawyer reads: the short title or the title's name part."""
        return self.document.short_title or _name_part(self.document.title)


def _entry(doc: DocumentInfo) -> _Entry:
    names = [doc.title, _name_part(doc.title), doc.short_title or "", *doc.aliases, *each_listed(doc.title)]
    folded = tuple(dict.fromkeys(fold(n) for n in names if n and n.strip()))
    cores = tuple(dict.fromkeys(qualifiers(n)[0] for n in folded))
    acronyms = {a.upper() for a in doc.aliases if a.isupper() or (a.isalpha() and len(a) <= 8 and " " not in a)}
    for n in (_name_part(doc.title), doc.short_title or ""):
        if acronym(n):
            acronyms.add(acronym(n))
    constitution = doc.doc_type is DocType.constitucion or any(n.startswith("constitucion politica") for n in folded)
    return _Entry(doc, folded, tuple(sorted(acronyms)), doc.doc_type in CONSOLIDATED or constitution, constitution,
                  cores, frozenset(jurisdiction_of(doc, folded)), eu_number(doc.title),
                  frozenset(name_concepts(n) for n in (*folded, *cores) if len(n.split()) <= _CROSS_WORDS),
                  regulated(doc.title), tuple(dict.fromkeys(_numbered(n) for n in (*folded, *cores))),
                  _annex_forms(folded))


def _annex_forms(names: tuple[str, ...]) -> tuple[tuple[re.Pattern, str | None], ...]:
    """For each annex name among `names` (folded: "anexo 13 de la resolucion miscelanea fiscal para 2025"), the
    pattern of the short ways a question names it (`_ANNEX_NAME`) and the year its name gives (None: none)."""
    out = []
    for name in names:
        m = _ANNEX_NAME.match(name)
        if m is None:
            continue
        instrument = m.group("instrument")
        words = [w for w in re.findall(r"[^\W\d_]+", instrument) if w not in LINKING]
        initials = "".join(w[0] for w in words) if len(words) > 1 else None
        written = re.escape(instrument).replace(r"\ ", r"\s+")
        called = f"{written}|(?P<initials>{initials})" if initials else written
        out.append((re.compile(rf"\b{m.group('noun')}\s+{m.group('number')}\s+(?:(?:de\s+la|del|de)\s+)?"
                               rf"(?:{called}){_ANNEX_YEAR}"), m.group("year")))
    return tuple(dict.fromkeys(out))


def _annexes_named(query: str, folded: str, forms: tuple[tuple[re.Pattern, str | None], ...]
                   ) -> list[tuple[int, int]]:
    """Where `query` (`folded`: folded, same offsets) names an annex by one of its short `forms` (`_annex_forms`): its
    year, if it gives one, the annex's, and its instrument's initials written in capitals ("RMF", not the letters of
    a word)."""
    return [m.span() for pattern, year in forms for m in pattern.finditer(folded) if m.group("year") in (None, year)
            and (m.group("initials") is None or query[m.start("initials"):m.end("initials")].isupper())]


def _same_regulated(named: tuple[frozenset[str], str], held: tuple[frozenset[str], str]) -> bool:
    """Do two laws named by what they regulate (`ingest.references.regulated`) regulate the same provisions of the
    same law? A law the name leaves out ("el Reglamento de los artículos 121 y 122") is any; a law's acronym is its
    name ("… de la LFT" is "… de la Ley Federal del Trabajo")."""
    (provisions, law), (held_provisions, held_law) = named, held
    if provisions != held_provisions:
        return False
    if not law or law == held_law:
        return True
    folded, held_folded = fold(law), fold(held_law)
    return held_folded.startswith(folded) or (" " not in law and law.isupper() and acronym(held_law) == law)


class LawCatalog:
    """The documents of an index, searchable by the names a lawyer calls them."""

    def __init__(self, documents: Sequence[DocumentInfo]):
        self.entries = [_entry(d) for d in documents]
        self._countries = {e.document.doc_id: e.jurisdiction & COUNTRY_CODES for e in self.entries}
        self._documents = {e.document.doc_id: e.document for e in self.entries}
        self._held = frozenset().union(*self._countries.values())
        self.acronyms = frozenset(a for e in self.entries for a in e.acronyms)  # every acronym a document has
        self._aside: dict[str, tuple[str, ...]] = {}  # country → the other countries' documents, sorted

    def edition(self, gazette: str, day: dt.date) -> list[DocumentInfo]:
        """The documents of one gazette's edition of `day` (`question_dates.edition_named`: "el DOF del 15 de diciembre
        de 2024"): published that day, in that gazette or in none the index records (a law's own PDF, "publicada en
        el DOF el 2 de abril de 2013", does not name its gazette)."""
        return [e.document for e in self.entries if e.document.publication_date == day
                and fold(e.document.gazette or gazette) == fold(gazette)]

    def edition_days(self, gazette: str) -> list[dt.date]:
        """The days of the editions of `gazette` the index holds documents of, oldest first."""
        return sorted({e.document.publication_date for e in self.entries
                       if e.document.publication_date and fold(e.document.gazette or "") == fold(gazette)})

    def names_of(self, doc_id: str) -> list[str]:
        """What the document is called and who issued it: its title, short title, aliases and issuing body."""
        doc = self._documents.get(doc_id)
        if doc is None:
            return []
        return [n for n in (doc.title, doc.short_title, *doc.aliases, doc.issuing_body) if n]

    def countries_of(self, doc_id: str) -> frozenset[str]:
        """The countries whose law the document is (empty: not known, as for a text that is no gazette's)."""
        return self._countries.get(doc_id, frozenset())

    def country_scope(self, query: str, names_law: bool) -> tuple[NamedCountry, tuple[str, ...]] | None:
        """The one country a query that names no law names (`countries_named`), when the index holds documents of it
        and of another country, with the ids of the documents that are only other countries' law: a question about
        "las obligaciones de los mexicanos" is not answered from Spain's company law. Documents of no known country
        stay in scope; a law the query names (`names_law`, as `question_laws.understood` reads it) decides the
        documents itself ("la Constitución mexicana")."""
        named = countries_named(query)
        if len(named) != 1 or names_law:
            return None
        (code, words), = named.items()
        if code not in self._held or len(self._held) < 2:
            return None
        if code not in self._aside:
            self._aside[code] = tuple(sorted(d for d, countries in self._countries.items()
                                             if countries and code not in countries))
        aside = self._aside[code]
        return NamedCountry(code=code, name=place_name(code), words=words, set_aside=len(aside)), aside

    def resolve(self, ref: LegalReference, whole: bool = False) -> list[DocumentInfo]:
        """Documents the reference's law names, best first (empty: no law named, or none in the index). A trailing
        jurisdiction ("Federal", "del Estado de Jalisco", "Española") must be one the document holds. `whole`: only
        a document that is called exactly so (its title, short title, alias or the core of one)."""
        found: list[tuple[int, _Entry]] = []
        name, wanted = qualifiers(fold(ref.law or ""))
        name = _numbered(name)
        upper = (ref.law or "").strip().upper()
        eu = eu_number(ref.law or "")
        # named in the other language: the same words, translated ("the Universal Declaration of Human Rights")
        concepts = name_concepts(name) if name and not whole and eu is None else frozenset()
        regulates = regulated(ref.law or "") if not whole else None  # "la Ley Reglamentaria de los artículos 103 …"
        spelled = _spelled_parts((ref.law or "").strip())  # "LAmp": the Ley de Amparo
        for e in self.entries:
            score = 0
            if eu is not None:  # an EU act is its number, in whatever language it is named
                score = 100 if e.eu is not None and same_eu_act(eu, e.eu) else 0
            elif whole:
                score = 100 if name and name in e.numbered else 0
            elif upper and upper in e.acronyms and " " not in upper:
                score = 100
            elif spelled and spells(spelled, e.display):
                score = 100
            elif regulates is not None and e.regulates is not None:  # the provisions it regulates are its name
                score = 100 if _same_regulated(regulates, e.regulates) else 0
            elif ref.constitutional and e.constitution and (not name or "constitucion" in name or upper in e.acronyms):
                score = 100
            elif name:
                if any(n == name or n.startswith(name + " ") or n.startswith(name + ",") for n in e.numbered):
                    score = 98
                elif len(name) >= 8:
                    score = int(max((fuzz.ratio(name, n[: len(name) + 2]) for n in e.numbered
                                     if _same_words(name, n)), default=0))
            if score < NAME_MATCH and len(concepts) >= 2 and upper not in e.acronyms and concepts in e.concepts:
                score = NAME_MATCH
            if score >= NAME_MATCH and wanted <= e.jurisdiction:
                found.append((score, e))
        found.sort(key=lambda se: (-se[0], not se[1].consolidated))
        if any(e.consolidated for _, e in found):
            found = [(s, e) for s, e in found if e.consolidated]
        return [e.document for _, e in found]

    def amending(self, ref: LegalReference) -> list[DocumentInfo]:
        """The documents whose title amends the law `ref` names and no document is ("DECRETO por el que se reforman
        los artículos 3o. y 13 de la Ley General de Salud": `DocumentInfo.amends`), newest first: what the index holds
        of a law it does not hold whole. When `ref` names articles, a decree whose title names other articles is
        left out (one that names none, "diversas disposiciones", may hold them)."""
        name, wanted = qualifiers(fold(ref.law or ""))
        upper = (ref.law or "").strip().upper()
        if not name:
            return []
        out = []
        for e in self.entries:
            if not wanted <= e.jurisdiction:
                continue
            for law in e.document.amends:
                if not (qualifiers(fold(law.law or ""))[0] == name or (" " not in upper and law.law
                                                                       and acronym(law.law) == upper)):
                    continue
                if not ref.articles or not law.articles or set(ref.articles) & set(law.articles):
                    out.append(e.document)
                    break
        return sorted(out, key=lambda d: d.publication_date or dt.date.min, reverse=True)

    def topic_laws(self, query: str, matter: bool = False) -> list[tuple[str, DocumentInfo]]:
        """Consolidated laws whose *subject* the query speaks of without naming the law: the words of the law's
        name after its type ("Ley de Amparo" → "amparo", "Ley de Enjuiciamiento Civil" → "enjuiciamiento civil"),
        all of them in the query ("¿Quiénes son partes en el juicio de amparo?" is about what the Ley de Amparo
        regulates). Each as (subject, document).

        `matter`: only laws whose name gives the matter they regulate after their type ("Ley de …", "Ley Federal
        del …"): what the search reads first (`legal_search.complete`). A code named by its branch of law ("Código
        Penal") marks the branch an answer should come from, not the text that answers: the Constitution's articles
        on criminal procedure speak of "proceso penal" as much."""
        words = set(re.findall(r"\w+", fold(query)))
        out = []
        for e in self.entries:
            if not e.consolidated or e.constitution:
                continue
            core = qualifiers(fold(_name_part(e.document.short_title or e.document.title)))[0]
            if matter and _MATTER.match(core) is None:
                continue
            subject = [w for w in re.findall(r"[^\W\d_]+", core)[1:] if w not in LINKING]
            if subject and len("".join(subject)) >= 5 and all(w in words for w in subject):
                out.append((" ".join(subject), e.document))
        return out

    def unnamed(self, doc_type: DocType) -> list[DocumentInfo]:
        """Indexed documents of `doc_type` that print neither their name nor their number: a NOM's first chapter,
        titled by its heading ("DISPOSICIONES GENERALES") and calling itself "esta NOM". One named by its number
        ("la NOM-001-SEDE-2012") may be any of them: it cannot be said absent."""
        if doc_type in (DocType.otro, DocType.indice):  # a text of no known kind is not known to be of one
            return []
        return [e.document for e in self.entries if e.document.doc_type is doc_type and not e.document.number
                and not e.document.aliases and type_of_title(e.document.title) is not doc_type]

    def closest(self, law: str, n: int = CLOSEST) -> list[str]:
        """The indexed laws (consolidated texts) whose names come closest to `law`, by name, best first; each as a
        lawyer reads it, with its jurisdiction when the index holds laws of several ("Código Penal (España)")."""
        target = fold(law)
        scored: dict[str, float] = {}
        for e in self.entries:
            if not e.consolidated:
                continue
            score = max(fuzz.token_set_ratio(target, x) * 0.5 + fuzz.ratio(target, x) * 0.5 for x in e.names)
            label = e.display + places_label(e.jurisdiction)
            scored[label] = max(scored.get(label, 0.0), score)
        return [label for label, _ in sorted(scored.items(), key=lambda kv: -kv[1])[:n]]

    def written_names(self, query: str) -> list[tuple[int, int, DocumentInfo]]:
        """The documents whose whole name (three words or more) the query writes out, each where it does, names
        written inside others' included (`outermost` leaves them out)."""
        folded = fold(query)
        if len(folded) != len(query):  # offsets of the folded text must be the query's
            return []
        found = []
        for e in self.entries:
            for name in e.names:
                if len(name.split()) >= 3:
                    found += [(m.start(), m.end(), e.document) for m in re.finditer(re.escape(name), folded)]
            if e.annex:  # an annex named short
                found += [(start, end, e.document) for start, end in _annexes_named(query, folded, e.annex)]
        return found

    def name_spans(self, query: str) -> list[tuple[int, int]]:
        """Where the query writes out an indexed document's whole name ("del Reglamento de los artículos 121 y 122 de
        la Ley Federal del Trabajo"): a reference inside such a span is part of that name, not a law of its own."""
        return [(start, end) for start, end, _ in self.written_names(query)]

    def written_out(self, query: str) -> list[str]:
        """The documents whose whole name (three words or more) the query writes out, however typed: "¿Qué contiene el
        Anexo 16 de la Resolución Miscelánea Fiscal para 2025?" names that annex as a law's name names the law."""
        return list(dict.fromkeys(doc.doc_id for _, _, doc in self.written_names(query)))

    def qualified_mentions(self, query: str) -> list[LegalReference]:
        """An indexed law's name typed in lower case with a jurisdiction after it ("¿qué dice el código penal federal
        sobre el homicidio?"), which the parser, wanting capitals, does not read: a reference to the name and its
        qualifier, so the qualifier decides as it does for "Código Penal Federal" (Spain's "Código Penal" is not
        it)."""
        folded = fold(query)
        if len(folded) != len(query):  # offsets of the folded text must be the query's
            return []
        out: dict[int, LegalReference] = {}
        for e in self.entries:
            if not e.consolidated:
                continue
            for name in {n for n in e.cores if len(n) >= MIN_MENTION}:
                for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", folded):
                    after = AFTER_NAME.match(folded, m.end())
                    longer = m.start() in out and out[m.start()].end >= (after.end() if after else 0)
                    if after is None or longer:
                        continue
                    text = query[m.start():after.end()]
                    # named as a lawyer writes it: the document's own capitals, the place's ("Código Penal Federal")
                    doc = e.document
                    written = next((n for n in (doc.short_title, _name_part(doc.title), *doc.aliases)
                                    if n and fold(n) == name), query[m.start():m.end()])
                    place = as_written(query[m.end():after.end()])
                    out[m.start()] = LegalReference(text=text, start=m.start(), end=after.end(),
                                                    law=f"{written} {place}", law_type=law_type_of(text),
                                                    constitutional=e.constitution
                                                    and not qualifiers(fold(text))[1] - {"mx", "federal"})
        return sorted(out.values(), key=lambda r: r.start)

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


_ANNEX_REFERENCE = re.compile(r"(?:anexo|apendice)\s+\d+[a-z]?\s")


def names_an_annex(ref: LegalReference) -> bool:
    """Does the reference name an annex by its number and its instrument ("el Anexo 13 de la RMF 2025", `_ANNEX_NAME`)?
    That names one document as a law's name does."""
    return bool(ref.law) and _ANNEX_REFERENCE.match(fold(ref.law)) is not None


def names_a_law(ref: LegalReference) -> bool:
    """Does the reference name one law by its name, acronym or number (not a bare "la Ley", not a decree's title)?
    Only such a name, unresolved, is reported absent."""
    if ref.constitutional and not ref.law:
        return True
    if not ref.law or ref.law_type not in NAMED_TYPES and not ref.constitutional:
        return False
    core, wanted = qualifiers(fold(ref.law))
    return len(core.split()) >= 2 or bool(wanted) or bool(ref.law_number) or (ref.law.isupper() and len(ref.law) >= 3) \
        or (ref.law.strip().upper() == ref.law.strip() and " " not in ref.law.strip()) \
        or bool(_spelled_parts(ref.law.strip()))


_MASC = re.compile(r"^(?:c[óo]digo|reglamento|estatuto|real decreto|decreto|tratado|convenio|acuerdo)\b", re.I)
_FEM = re.compile(r"^(?:ley|constituci[óo]n|norma|convenci[óo]n|nom\b)", re.I)


def absence(ref: LegalReference) -> str:
    """ "El Código Penal Federal no está entre los documentos indexados"."""
    return f"{_with_article(ref)} no está entre los documentos indexados"


def _with_article(ref: LegalReference) -> str:
    """The law a reference names, with the article a lawyer would write before it: "El Código Penal Federal"."""
    law = (ref.law or "la Constitución").strip()
    typed = ref.law_type.name if ref.law_type is not None else ""
    if _MASC.match(law) or (law.isupper() and typed in {"codigo", "reglamento", "estatuto", "real_decreto", "tratado"}):
        article = "El "
    elif _FEM.match(law) or law.isupper():
        article = "La "
    else:
        article = ""
    law = law[0].upper() + law[1:] if article == "" else (law[0].lower() + law[1:] if law.startswith("La ") else law)
    return f"{article}{law}"


def unidentified(ref: LegalReference, possible: Sequence[DocumentInfo]) -> str:
    """ "No consta si la NOM-001-SEDE-2012 está entre los documentos indexados: «DISPOSICIONES GENERALES» (NORMA
    OFICIAL MEXICANA) no imprime su nombre ni su número" — the answer is then read in those documents only."""
    law = _with_article(ref)
    law = law[0].lower() + law[1:] if law.startswith(("La ", "El ")) else law
    titles = ", ".join(f"«{d.title}» ({d.doc_type.value})" for d in possible[:CLOSEST])
    prints = "imprime" if len(possible) == 1 else "imprimen"
    return f"No consta si {law} está entre los documentos indexados: {titles} no {prints} su nombre ni su número"


def amended_by(ref: LegalReference, decrees: Sequence[DocumentInfo]) -> str:
    """ "La Ley General de Salud no está entre los documentos indexados; se cita el decreto que la reforma: DECRETO
    por el que se reforman …" (`LawCatalog.amending`)."""
    titles = "; ".join(dict.fromkeys(d.title.rstrip(". ") for d in decrees))
    missing = absence(ref)
    it = "lo" if missing.startswith("El ") else "la"  # "El Código Fiscal …: … que lo reforma"
    which = f"el decreto que {it} reforma" if len(decrees) == 1 else f"los decretos que {it} reforman"
    return f"{missing}; se cita {which}: {titles}"


def report(ref: LegalReference, docs: Sequence[DocumentInfo], chunks: int,
           catalog: LawCatalog | None = None, amending: bool = False, possible: bool = False) -> ResolvedReference:
    """What a reference resolved to; a named law no document is (`names_a_law`) is `absent`, with the reason and
    the closest indexed laws by name (given the `catalog`); `amending`: `docs` are decrees that amend it; `possible`:
    `docs` print neither their name nor their number, and the named one may be among them (`LawCatalog.unnamed`)."""
    absent = not docs and names_a_law(ref)
    reason = amended_by(ref, docs) if amending and docs else unidentified(ref, docs) if possible else None
    closest: list[str] = []
    if absent:
        reason = absence(ref)
        closest = catalog.closest(ref.law or "Constitución") if catalog is not None else []
    elif not docs and ref.articles:
        reason = "no law named, and no document of the best hits holds that article"
    return ResolvedReference(reference=ref, doc_ids=[d.doc_id for d in docs], titles=[d.title for d in docs],
                             resolved=bool(docs), chunks=chunks, absent=absent, reason=reason, closest=closest,
                             amending=amending and bool(docs), possible=[d.title for d in docs] if possible else [])
