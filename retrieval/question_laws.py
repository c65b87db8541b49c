"""How a question names the laws it asks about: its references (`ingest.references.parse_references`) read as a
lawyer writes a law's name, then resolved against the index's documents (`law_lookup.LawCatalog`).

A jurisdiction adjective after the name is part of it ("el Código Penal español"); a bill is no law the question
names ("la iniciativa de Ley de Ingresos"); a topic after the name is not part of it ("la Ley de Amparo sobre la
Suprema Corte"); a name typed in lower case is read where the question marks its end ("¿qué dice la ley general de
salud sobre …?"), and the articles right before it are its articles; a year after the name is the year the law was
given ("la Ley de Amparo de 1936" is not the Ley de Amparo of 2013); a law named in English is an Act ("the
Clean Air Act", "the UK Data Protection Act 2018"), an act of the European Union by its number ("Regulation (EU)
2016/679" is the "Reglamento (UE) 2016/679").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ingest.headings import fold
from ingest.models import DocType, DocumentInfo, LegalReference
from ingest.references import law_type_of, names_constitution_otherwise, parse_references
from retrieval.jurisdiction import LEADING_NATIONALITIES, qualifiers
from retrieval.law_lookup import EU_ACT, LINKING, LawCatalog, as_written, outermost
from retrieval.question_dates import edition_named


# a qualifier written after the name the parser read: "el Código Penal español", "la Constitución colombiana"
_TRAILING = re.compile(r"\s+(federal|español|española|mexicano|mexicana|colombiano|colombiana|chileno|chilena|"
                       r"argentino|argentina|peruano|peruana|francés|francesa|alemán|alemana|italiano|italiana|"
                       r"brasileño|brasileña)\b", re.I)


def with_qualifier(ref: LegalReference, query: str) -> LegalReference:
    """The reference with the jurisdiction adjective that follows its law's name in `query` made part of it."""
    m = _TRAILING.match(query, ref.end) if ref.law and ref.end else None
    if m is None:
        return ref
    return ref.model_copy(update={"law": f"{ref.law} {m.group(1)}", "text": query[ref.start:m.end()], "end": m.end()})


# what makes a law's name a bill's: "la iniciativa de Ley de Ingresos", "el proyecto de Decreto", "la minuta de …"
_BILL = re.compile(r"\b(?:iniciativas?|proyectos?|anteproyectos?|minutas?|dict[aá]men(?:es)?)\s+(?:de|del|con)\s+"
                   r"(?:la\s+|el\s+)?$", re.I)


# what a question asks *of* a law it names: "la Ley de Amparo sobre la Suprema Corte", "… en materia de Registro"
_TOPIC = re.compile(r"\s+(?:sobre|acerca\s+de|respecto\s+(?:de|a)|en\s+(?:materia|cuanto)\s+(?:de|a))\s", re.I)


def _before_topic(ref: LegalReference, catalog: LawCatalog) -> tuple[LegalReference, list[DocumentInfo]]:
    """A law name read on into what is asked of it ("la Ley de Sociedades de Capital sobre la Junta General": the
    parser reads capitalised words on, as "Ley del Impuesto sobre la Renta" needs), cut where the topic begins: at
    the last such cut whose name is an indexed document's whole name, else at the first that ends with a
    jurisdiction (a name ends with its place: "la Constitución del Estado de Durango sobre el Poder Judicial").
    `ref` unchanged, with no documents, when neither holds."""
    law, text = ref.law or "", ref.text
    law_cuts = [m.start() for m in _TOPIC.finditer(law)]
    text_cuts = [m.start() for m in _TOPIC.finditer(text)][-len(law_cuts):] if law_cuts else []
    if len(text_cuts) != len(law_cuts):
        return ref, []
    cuts = [ref.model_copy(update={"law": law[:lc], "text": text[:tc], "end": ref.start + tc})
            for lc, tc in zip(law_cuts, text_cuts)]
    for cut in reversed(cuts):
        if docs := catalog.resolve(cut, whole=True):
            return cut, docs
    placed = next((cut for cut in cuts if qualifiers(fold(cut.law or ""))[1]), None)
    return (placed, []) if placed is not None else (ref, [])


# A law's name typed in lower case, which the parser (wanting capitals) does not read: "¿qué dice la ley general de
# salud sobre …?", "… según el código fiscal de la federación?". Without capitals a name's end is read where the
# question marks one: punctuation, the topic (`_TOPIC`), a clause that cannot be a name's ("para el robo", "a los
# trabajadores", "en el juicio", "cuando", "si"), or a verb saying what the law does ("obliga", "prevé"); "para el
# Distrito Federal" / "para el Estado de …" stays a name's.
_CLAUSE = (r"\s*[?,;:.!)]|\s*$|\s+(?:sobre|acerca|respecto|en\s+materia|en\s+cuanto|cuando|si|que|seg[uú]n|con|"
           r"por|para\s+(?!(?:el\s+)?distrito\s+federal|(?:el\s+)?estado\s+de)(?:el|la|los|las|un|una|que|quien|mi|su)|"
           r"a\s+(?:los|las|un|una|quien|mi|su)|en\s+(?:el|la|los|las|un|una|caso|mi|su)|"
           # or what the question says the law does: "¿la ley general de salud obliga a …?"
           r"dice|dec[ií]a|dispon[ei]|dispon[ií]a|establec[ei]|establec[ií]a|prev[eé]|prev[eé][ií]a|regula|obliga|"
           r"permite|proh[ií]be|sanciona|castiga|se[nñ]ala|contempla|exige|define|considera|otorga|concede|faculta|"
           r"impone|garantiza|protege|reconoce|ordena|indica|trata|habla|menciona|rige|aplica)\b")
_LOWER_NAME = re.compile(rf"(?<![\w-])(?P<head>ley|c[oó]digo|constituci[oó]n|reglamento|estatuto)"
                         rf"(?P<tail>(?:\s+[a-záéíóúüñ]+){{1,12}}?)(?={_CLAUSE})")
# a law is named by what it is of, right after its type or one adjective ("la ley federal del trabajo"): "la ley
# penal" and "una ley aplicarse retroactivamente en perjuicio de …" name none, and "la ley sobre …" asks what the law
# says; a constitution by its polity ("de Chile", "política de …")
_OF = frozenset({"de", "del", "para"})
_GENERIC = frozenset({"materia", "caso"})  # "la ley de la materia", "la ley del caso"
# a quantifier is no law's name: "la ley suprema de toda la unión" (CPEUM art. 133's words for the Constitution, the
# laws and the treaties), not a law called so
_QUANTIFIERS = frozenset({"toda", "todo", "todas", "todos"})


def lower_case_names(query: str) -> list[LegalReference]:
    """The laws `query` names in lower case (`_LOWER_NAME`), each as a reference written as a lawyer writes it
    ("Ley General de Salud"): a code by whatever follows "código", a law, reglamento or estatuto by a "de/del/para"
    phrase (`_OF`) that is not "de la materia", a constitution by its polity."""
    out = []
    for m in _LOWER_NAME.finditer(query):
        words = m.group("tail").split()
        head = fold(m.group("head"))
        if head == "constitucion" and words[0] not in {"de", "del", "politica", "política"}:
            continue
        if head != "codigo":
            of = [i for i, w in enumerate(words) if w in _OF]
            if not of or of[0] > 1 or not any(w not in LINKING for w in words[of[0] + 1:]) or _GENERIC & set(words) \
                    or words[of[0] + 1] in _QUANTIFIERS:
                continue
        written = as_written(m.group(0))
        out.append(LegalReference(text=m.group(0), start=m.start(), end=m.end(), law=written,
                                  law_type=law_type_of(written),
                                  constitutional=head == "constitucion"
                                  and not qualifiers(fold(written))[1] - {"mx", "federal"}))
    return out


def _typed_lower(ref: LegalReference) -> bool:
    """Was the reference's law typed in lower case (read by `lower_case_names` or `LawCatalog.qualified_mentions`)?"""
    return bool(ref.law) and ref.law.lower() in ref.text


def _named_by_its_words(ref: LegalReference, catalog: LawCatalog) -> tuple[LegalReference, list[DocumentInfo]]:
    """A lower-case name that no document is, read on into the words after it ("la ley de amparo prevé"): the
    longest run of its first words that is an indexed document's whole name, else the reference as read."""
    words = (ref.law or "").split()
    if qualifiers(fold(ref.law or ""))[1]:  # "código penal federal": its jurisdiction is not cut away
        return ref, []
    for n in range(len(words) - 1, 1, -1):
        cut = ref.model_copy(update={"law": " ".join(words[:n])})
        if docs := catalog.resolve(cut, whole=True):
            return cut, docs
    return ref, []


# A law named in English, its kind last: "the California Consumer Privacy Act", "the UK Data Protection Act 2018",
# "Section 5 of the FTC Act", "the Civil Rights Act of 1964": capitalised words or acronyms ("U.S.") joined by
# "of/and/for/on/the/to/with", ending in "Act", with the year a short title carries. Only "Act": a regulator's
# rulebook is named "the COBS Rules", "the ADGM Data Protection Regulations" (ObliQA's questions), which its own
# text may not print as a title.
_EN_WORD = r"(?:U\.S\.|U\.K\.|[A-Z][A-Za-z'’-]*)"
_ACT = re.compile(rf"(?<![\w.])(?P<name>{_EN_WORD}(?:\s+(?:(?:of|and|for|on|the|to|with)\s+)*{_EN_WORD})*?\s+Act)"
                  r"(?P<year>,?\s+(?:of\s+)?(?:1[6-9]|20)\d\d)?(?![\w-])")
# An international instrument or a code named in English: capitalised words around its kind ("the Universal
# Declaration of Human Rights", "the European Convention on Human Rights", "the Civil Code"). Read only when it names
# an indexed document (in either language: `law_lookup.name_concepts`): "the JORC Code" a regulator's rulebook
# cites is no text of its own, and is left to the search.
_KINDS_EN = r"(?:Declaration|Convention|Charter|Covenant|Treaty|Constitution|Code)"
_INSTRUMENT = re.compile(rf"(?<![\w.])(?P<name>(?:{_EN_WORD}\s+(?:(?:of|and|for|on|the|to)\s+)*)*{_KINDS_EN}"
                         rf"(?:\s+(?:of|on|for)\s+(?:the\s+)?{_EN_WORD}(?:\s+(?:(?:of|and|the|to)\s+)*{_EN_WORD})*)?)"
                         r"(?![\w-])")
# the capitalised words that open an English question or introduce the name, not part of it
_EN_OPENING = frozenset("""under what which who whom whose how when where why does do did is are was were can could
should must may might will would according in on per the if for section sections article articles title part chapter
as by and or of to a an has have this that my our we i it its""".split())


def _english_name(m: re.Match) -> list[re.Match] | None:
    """The words of an English name matched as `m`'s group "name", without the capitalised words that open the
    question or introduce the name ("What", "Under the"); None when fewer than two are left ("the Act")."""
    words = list(re.finditer(r"\S+", m.group("name")))
    while words and words[0].group().lower().strip("'’") in _EN_OPENING:
        words.pop(0)
    return words if len(words) >= 2 else None


def instrument_names(query: str, catalog: LawCatalog) -> list[LegalReference]:
    """The instruments `query` names in English (`_INSTRUMENT`) that an indexed document is, in either language."""
    out = []
    for m in _INSTRUMENT.finditer(query):
        if (words := _english_name(m)) is None:
            continue
        start = m.start("name") + words[0].start()
        law = query[start:m.end()]
        ref = LegalReference(text=law, start=start, end=m.end(), law=law, law_type=law_type_of(law) or DocType.ley)
        # a nationality before the name makes it one country's law, held or not ("the Spanish Constitution": absent
        # when not indexed; `jurisdiction.qualifiers` reads it as the jurisdiction)
        if catalog.resolve(ref) or fold(words[0].group()) in LEADING_NATIONALITIES:
            out.append(ref)
    return out


def foreign_names(query: str) -> list[LegalReference]:
    """The laws `query` names as other legal systems name them: an Act by its short title in English (`_ACT`; its
    year included, "Data Protection Act 2018"; "the Act" alone names none) and an act of the European Union by its
    number in English or Spanish ("Regulation (EU) 2016/679", "Directiva 95/46/CE": `law_lookup.EU_ACT`)."""
    out = []
    for m in _ACT.finditer(query):
        if (words := _english_name(m)) is None:
            continue
        start = m.start("name") + words[0].start()
        law = " ".join(w.group() for w in words) + (m.group("year") or "").replace(",", "")
        out.append(LegalReference(text=query[start:m.end()], start=start, end=m.end(), law=law, law_type=DocType.ley))
    for m in EU_ACT.finditer(query):  # a directive binds as a law does (the vocabulary has no directive)
        kind = DocType.reglamento if m.group("kind").lower().startswith("reg") else DocType.ley
        out.append(LegalReference(text=m.group(0), start=m.start(), end=m.end(), law=m.group(0), law_type=kind))
    return sorted(out, key=lambda r: r.start)


# a law named with its year ("la Ley de Amparo de 1936", "la Constitución de 1857", "la Ley 99 de 1994"): the year
# a law is given, which a later law of the same name does not share
_YEAR = r"1[5-9]\d\d|20\d\d"
_NAMED_YEAR = re.compile(rf"\s+de\s+(?P<year>{_YEAR})\b(?!\s*[/-])")
_LAW_YEAR = re.compile(rf"\s+de\s+(?P<year>{_YEAR})$")


def _years(doc: DocumentInfo) -> set[int]:
    """The years a law may be named by: its number's ("10/1995", "99 de 1993"), its title's ("Ley 1/2000, de 7 de
    enero"), and its publication's and the year before it (a law of 30 December appears in January)."""
    found = {int(y) for y in re.findall(rf"(?<!\d)(?:{_YEAR})(?!\d)", f"{doc.number or ''} {doc.title}")}
    if doc.publication_date is not None:
        found |= {doc.publication_date.year, doc.publication_date.year - 1}
    return found


def of_its_year(query: str, ref: LegalReference, docs: list[DocumentInfo]
                ) -> tuple[LegalReference, list[DocumentInfo]]:
    """A law named with a year ("la Ley de Amparo de 1936") is the documents of that name given that year (`_years`):
    none when no document is of it, so the law is absent (and named with its year). A year
    introduced otherwise ("la Ley de Amparo en 2020") is not part of the name."""
    if not docs or not (ref.law or ref.constitutional):
        return ref, docs
    if (m := _LAW_YEAR.search(ref.law or "")) is not None:
        year = int(m.group("year"))
    elif (m := _NAMED_YEAR.match(query, ref.end)) is not None:
        year = int(m.group("year"))
    else:
        return ref, docs
    if kept := [d for d in docs if not (held := _years(d)) or year in held]:  # a document of no known year is kept
        return ref, kept
    if m.end() > ref.end:  # named absent with its year: "La Ley de Amparo de 1936 no está …"
        ref = ref.model_copy(update={"law": f"{ref.law or 'Constitución'} de {year}", "end": m.end(),
                                     "text": query[ref.start:m.end()]})
    return ref, []


_OF_LAW = re.compile(r"\s+(?:de|del)\s+(?:(?:la|el|los|las)\s+)?")


def _of_its_law(query: str, refs: list[LegalReference]) -> list[LegalReference]:
    """ "el artículo 17 de la ley de amparo": the articles the parser read and the name typed in lower case right
    after them (`lower_case_names`, `LawCatalog.qualified_mentions`) are one reference, to those articles of that
    law."""
    out: list[LegalReference] = []
    for ref in refs:
        last = out[-1] if out else None
        if (last is not None and last.articles and not (last.law or last.constitutional) and _typed_lower(ref)
                and not ref.articles and _OF_LAW.fullmatch(query, last.end, ref.start)):
            out[-1] = last.model_copy(update={"law": ref.law, "law_type": ref.law_type, "end": ref.end,
                                              "constitutional": ref.constitutional,
                                              "text": query[last.start:ref.end]})
        else:
            out.append(ref)
    return out


# what follows an article to name its law by an acronym: "art. 20 CP", "el artículo 1 del CC", "art. 3 de la LEC"
_ACRONYM_AFTER = re.compile(r"[\s,]*(?:(?P<of>del|de\s+la|de)\s+)?(?P<acr>[A-ZÑ]{2,8})(?![\w.])")
_GAZETTES = frozenset({"DOF", "BOE"})  # "el artículo 2 del DOF": where a text was published, not the law it is of
# the type an acronym's first letter gives a law's ("LGEEPA": a ley, "CCF": a código, "RGPD": a reglamento)
_INITIAL_TYPE = {"L": DocType.ley, "C": DocType.codigo, "R": DocType.reglamento}


def _with_acronym(query: str, refs: list[LegalReference], catalog: LawCatalog) -> list[LegalReference]:
    """An article followed by the acronym of an indexed law is that law's article: "art. 20 CP" (Spain's Código
    Penal, which the index calls "CP"), though two letters are too few for the parser to read as a law anywhere
    else ("un CP" is a postal code). Only the acronyms the index's documents have (`LawCatalog` entries), or one the
    article is said to be "of" ("el artículo 6 del RGPD", "el artículo 28 de la LGEEPA") in a question not typed in
    capitals: that law's, which no document may be (then it is said to be absent, not answered from another law's
    article of that number)."""
    known = catalog.acronyms
    out = []
    for ref in refs:
        m = _ACRONYM_AFTER.match(query, ref.end) if ref.articles and not (ref.law or ref.constitutional) else None
        if m is not None and not any(r.start < m.end() and m.start("acr") < r.end for r in refs if r is not ref):
            acr = m.group("acr")
            law_type = law_type_of(acr)
            if acr not in known:
                law_type = None if not m.group("of") or query.isupper() or acr in _GAZETTES \
                    else law_type or _INITIAL_TYPE.get(acr[0])
            if acr in known or law_type is not None:
                ref = ref.model_copy(update={"law": acr, "law_type": law_type, "end": m.end(),
                                             "text": query[ref.start:m.end()]})
        out.append(ref)
    return out


# a law named by an acronym alone, after its article: "según la LEC" (English questions as before: "the GDPR" is
# read by the search, not as a reference)
_ACRONYM_ALONE = re.compile(r"\b(?:la|el|del|al)\s+(?P<acr>[A-ZÑ]{3,8})(?![\w.])", re.IGNORECASE)


def _acronyms_alone(query: str, catalog: LawCatalog) -> list[LegalReference]:
    """The acronyms of indexed laws a question names them by, alone ("¿Qué artículos de la LEC regulan…?"), which
    the parser reads only in the shapes of a law's acronym it knows (no vowel in "LSC", a known "CPEUM"): an
    acronym an indexed document has (`LawCatalog.acronyms`), of three letters or more, after its article, in a
    question not typed in capitals, not a gazette's ("el DOF")."""
    if query.isupper():
        return []
    return [LegalReference(text=m.group("acr"), start=m.start("acr"), end=m.end("acr"), law=m.group("acr"),
                           law_type=law_type_of(m.group("acr")))
            for m in _ACRONYM_ALONE.finditer(query)
            if m.group("acr").isupper() and m.group("acr") in catalog.acronyms and m.group("acr") not in _GAZETTES]


def with_unread(refs: list[LegalReference], more: list[LegalReference]) -> list[LegalReference]:
    """`refs` and those of `more` (another reader's) that overlap none of them, in the order they are written."""
    return sorted(refs + [m for m in more if not any(r.start < m.end and m.start < r.end for r in refs)],
                  key=lambda r: r.start)


def understood(query: str, catalog: LawCatalog) -> list[tuple[LegalReference, list[DocumentInfo]]]:
    """The query's references, each with the documents its law resolved to (empty when none was named/found). A
    bill ("la iniciativa de Ley de Ingresos") is no law in force: what is asked of it, the law that governs the bill
    answers, so it is not a reference."""
    refs = [with_qualifier(r, query) for r in parse_references(query) if r.articles or r.law or r.constitutional]
    for more in (catalog.qualified_mentions(query), lower_case_names(query), foreign_names(query),
                 instrument_names(query, catalog)):
        refs = with_unread(refs, more)
    refs = with_unread(_with_acronym(query, _of_its_law(query, refs), catalog), _acronyms_alone(query, catalog))
    refs = [r for r in refs if r.articles or not _BILL.search(query, 0, r.start)]
    found = catalog.written_names(query)
    spans = [(lo, hi) for lo, hi, _ in found]
    # a name's own words ("… de la Ley Federal del Trabajo" inside a Reglamento's name), not the whole name itself
    refs = [r for r in refs if not any(lo <= r.start and r.end <= hi and (lo, hi) != (r.start, r.end)
                                       for lo, hi in spans)]
    # a document's whole name written out ("el Anexo 14 de la Resolución Miscelánea Fiscal para 2023") names it
    written: dict[tuple[int, int], list[DocumentInfo]] = {}
    for s, e, doc in outermost(found):  # two versions of one law share their name
        written.setdefault((s, e), []).append(doc)
    refs = with_unread(refs, [LegalReference(text=query[s:e], start=s, end=e, law=query[s:e],
                                             law_type=law_type_of(query[s:e])) for s, e in written])
    # "el artículo 27 … de la Constitución" parsed as two references: the law applies to the bare articles too.
    laws = [r for r in refs if r.law or r.constitutional]
    out = []
    for ref in refs:
        docs = written.get((ref.start, ref.end)) or catalog.resolve(ref)
        if not docs and ref.law:
            ref, docs = _before_topic(ref, catalog)
        if not docs and _typed_lower(ref):
            ref, docs = _named_by_its_words(ref, catalog)
        if not docs and ref.articles and not (ref.law or ref.constitutional):
            docs = [d for law in laws for d in catalog.resolve(law)] or catalog.mentioned(query)
        ref, docs = of_its_year(query, ref, docs)
        if not docs and not ref.articles and names_constitution_otherwise(ref.text):
            continue  # "la Carta Magna" with no constitution held: maybe the charter of 1215; the search decides
        out.append((ref, list({d.doc_id: d for d in docs}.values())))
    return out


# A law named in general ("¿Qué dispone la ley sobre …?", "esta Ley"): it says where to look, not what about.
_GENERIC_LAW = re.compile(r"\b(?:[Ll]a|[Ee]sta|[Dd]icha|[Ll]a presente|[Tt]he|[Tt]his)\s+(?:[Ll]ey|[Ll]aw)\b"
                          r"(?!\s+(?:de\b|del\b|of\b|[A-ZÁÉÍÓÚ\d]))")


_PUBLISHED = re.compile(r"\bpublicad[oa]s?\s+(?:en\s+(?:el\s+|la\s+)?)?$|\bpublished\s+(?:in\s+(?:the\s+)?)?$", re.I)


def topic(question: str, names: Iterable[str] = ()) -> str:
    """The question without the references it makes (the law and article it names: "la Ley de Sociedades de
    Capital", "artículo 82", "la ley") and without the whole name of a source document it writes out (`names`,
    folded: "la Declaración Universal de Derechos Humanos"): those say where the answer lies, the rest what it is
    about."""
    spans = [(r.start, r.end) for r in parse_references(question)]
    spans += [m.span() for m in _GENERIC_LAW.finditer(question)]
    edition = edition_named(question)
    if edition is not None:  # "publicada en el DOF el 2 de abril de 2013": where the document was published
        published = _PUBLISHED.search(question, 0, edition.start)
        spans.append((published.start() if published else edition.start, edition.end))
    folded = fold(question)
    if len(folded) == len(question):  # the folded text's offsets are the question's
        spans += [m.span() for name in names for m in re.finditer(rf"\b{re.escape(name)}\b", folded)]
    out, at = [], 0
    for start, end in sorted(spans):
        if start >= at:
            out.append(question[at:start])
        at = max(at, end)
    out.append(question[at:])
    return " ".join(out)
