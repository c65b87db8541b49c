"""Search that understands legal references: parse → resolve → look the provision up → first stage → rerank.

    result = legal_search(index, "¿Qué dispone el artículo 27 de la Constitución?", k=10)
    result.hits        # article 27's chunks first, then the hybrid hits, re-ranked (retrieval.rerank)
    result.references  # what was understood: the parsed reference, the documents it resolved to

The faces (`gaceta search`, `POST /search`) and the answer pipeline call this; `Index.search` stays the plain
first stage (evaluation sets without legal structure measure it directly).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ingest.models import BODY_ROLES, Chunk, DocType, DocumentInfo, HeadingKind, LegalReference
from ingest.references import TRANSITORY_AFTER
from ingest.sentences import split_sentences
from retrieval import labels
from retrieval.cross_encoder import load_cross_encoder
from retrieval.definitions import defined_term, defines, defining_provisions
from retrieval.divisions import asks_where, matching
from retrieval import rerank as second_stage
from retrieval.index import DEFAULT_PREFETCH, Index, Search
from retrieval.law_lookup import CONSOLIDATED, CONTEXT_DOCS, LawCatalog, names_a_law, names_an_annex, report
from retrieval.models import (Division, Fusion, ResolvedReference, SearchFilters, SearchHit, SearchMode,
                              SearchResult)
from retrieval.question_dates import edition_named
from retrieval.question_laws import topic, understood
from retrieval.regimes import set_apart
from retrieval.rulings import DECIDING, asks_outcome, disposing_chunks
from retrieval.text_analysis import analyze, content_terms, identifiers, stated_terms

MAX_PROVISION_CHUNKS = 12  # chunks of named articles a result may lead with
OPENED = 30  # articles ranked by their openings for a question that names none (the reranker's `opening` feature)
OPENED_ADDED = 5  # of those, the best whose first chunks join the candidates when the first stage missed them


def legal_search(index: Index, query: str, k: int = 10, mode: SearchMode = SearchMode.hybrid,
                 filters: SearchFilters | None = None, rerank: bool = True,
                 fusion: Fusion = Fusion.rrf, prefetch: int | None = None, openings: bool = False) -> SearchResult:
    """`openings`: consult the article openings for a question that names no article (`retrieval.openings`): the
    answer path does (one small transformer query, ~38 ms of CPU); a plain search keeps its few-ms budget."""
    first = first_stage(query, k, mode, filters, rerank, fusion, prefetch, index.catalog())
    return complete(index, first, index.search_future(first).result(), k, rerank, openings)


def _article_about(query: str, ref: LegalReference, held: list[list[tuple[Chunk, DocumentInfo]]]
                   ) -> list[tuple[Chunk, DocumentInfo]]:
    """Of the documents that hold an article a query names without its law (`held`: each one's chunks of it, best hit
    first), the one whose article speaks of what the rest of the query asks ("el artículo 82 para ser Presidente": the
    CPEUM's "Para ser Presidente se requiere:", not the LEC's art. 82 on a petition's dismissal): most of its terms;
    on a tie, or when none holds any, the best hit's."""
    asked = content_terms(f"{query[:ref.start]} {query[ref.end:]}")
    best, most = [], -1
    for found in held:
        shared = len(asked & set().union(*(content_terms(chunk.text) for chunk, _ in found))) if found else -1
        if shared > most:
            best, most = found, shared
    return best


def first_stage(query: str, k: int = 10, mode: SearchMode = SearchMode.hybrid, filters: SearchFilters | None = None,
                rerank: bool = True, fusion: Fusion = Fusion.rrf, prefetch: int | None = None,
                catalog: LawCatalog | None = None) -> Search:
    """The plain search whose hits `complete` works on: a server awaits it (batched with its neighbours) without
    tying up a thread, then calls `complete`. Given the index's `catalog`, a query that names one country and no
    law searches that country's documents only (`LawCatalog.country_scope`: the others are set aside)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    pool = max(k, second_stage.CANDIDATES) if rerank else k
    scope = None
    if catalog is not None:
        names_law = any(names_a_law(ref) for ref, _ in understood(query, catalog))
        scope = catalog.country_scope(query, names_law)
        if not names_law:
            filters = _in_edition(query, filters, catalog)
    country, aside = scope if scope is not None else (None, ())
    return Search(query, pool, mode, filters, fusion, prefetch or DEFAULT_PREFETCH, aside, country)


def _in_edition(query: str, filters: SearchFilters | None, catalog: LawCatalog) -> SearchFilters | None:
    """`filters` limited to the gazette edition a query naming no law names by its day ("¿Qué publicó el DOF el 15 de
    diciembre de 2024?": that edition's documents, not another day's), when the index holds it and the caller chose
    no documents or dates of its own. A law the query names decides the documents itself ("la Ley de Amparo
    publicada en el DOF el 2 de abril de 2013")."""
    edition = edition_named(query)
    if edition is None or (filters is not None and (filters.doc_ids or filters.date_from or filters.date_to)):
        return filters
    held = catalog.edition(edition.gazette, edition.day)
    if not held:
        return filters
    return (filters or SearchFilters()).model_copy(update={"doc_ids": [d.doc_id for d in held]})


def complete(index: Index, first: Search, hits: list[SearchHit], k: int, rerank: bool = True,
             openings: bool = False) -> SearchResult:
    """References understood and looked up, merged with the first stage's `hits`, re-ranked, labelled."""
    query, filters = first.query, first.filters
    catalog = index.catalog()
    refs = understood(query, catalog)
    looked_up: dict[str, SearchHit] = {}
    reports = []
    resolved: list[tuple] = []
    named_docs: list[DocumentInfo] = []  # the documents of the laws the question names by name, acronym or number
    unsure: list[DocumentInfo] = []  # those a law named by its number may be (`LawCatalog.unnamed`)
    annexes: list[DocumentInfo] = []  # those of the annexes it names by number ("el Anexo 13 de la RMF 2025")
    whole = _asks_whole(query, refs)
    for ref, docs in refs:
        amending, held = False, []
        if not docs and names_a_law(ref) and (decrees := catalog.amending(ref)):
            # the law is not indexed whole, but decrees that amend it are: the named articles they print, else
            # their text (an article none prints leaves the law absent: another provision is no answer)
            held = index.provisions([d.doc_id for d in decrees], ref.articles, filters) if ref.articles else []
            holders = {document.doc_id for _, document in held}
            docs = [d for d in decrees if d.doc_id in holders] if ref.articles else decrees
            amending = bool(docs)
        # named by its number ("la NOM-001-SEDE-2012"), and the index holds documents of its kind that print none: it
        # may be any of them, so they are read as the named ones, and the answer says it is not sure
        possible = not docs and names_a_law(ref) and bool(ref.law_number) and ref.law_type is not None \
            and bool(docs := catalog.unnamed(ref.law_type))
        doc_ids = [d.doc_id for d in docs]
        found = []
        if ref.articles:
            if doc_ids:  # the amending decrees' articles are looked up once, above
                found = held if amending else index.provisions(doc_ids, ref.articles, filters)
            elif not names_a_law(ref):  # no law named: the laws the rest of the query points to, best hit first
                found = _article_about(query, ref, [index.provisions([doc_id], ref.articles, filters) for doc_id in
                                                    list(dict.fromkeys(h.chunk.doc_id for h in hits))[:CONTEXT_DOCS]])
                if found:
                    doc_ids, docs = [found[0][1].doc_id], [found[0][1]]
            if doc_ids and not amending and TRANSITORY_AFTER.match(query, ref.end):  # "el artículo tercero transitorio"
                found = index.transitory_provisions(doc_ids, ref.articles, filters) or found
            found = _in_part(_in_force(found, ref, query), ref)[:MAX_PROVISION_CHUNKS]
            if doc_ids and second_stage.asks_about_history(query):  # "¿qué decretos reformaron el artículo 27?"
                found += index.reform_decrees(doc_ids, ref.articles)[:MAX_PROVISION_CHUNKS]
        elif whole and doc_ids and not amending:  # "¿Qué regula la Ley de Sociedades de Capital?": its object
            found = _object(index.provisions(doc_ids, _first_articles(index, doc_ids), filters))
        for chunk, document in found:
            looked_up.setdefault(chunk.chunk_id, SearchHit(chunk=chunk, document=document, score=0.0, rank=1,
                                                           via="reference"))
        reports.append(report(ref, docs, len(found), catalog, amending, possible))
        resolved.append((ref, doc_ids))
        if names_a_law(ref) and not amending:
            named_docs += docs
        elif names_an_annex(ref):
            annexes += docs
        if possible:
            unsure += docs
    if (missing := _missing_edition(query, filters, catalog, refs)) is not None:
        reports.append(missing)
    # naming no law, a question that speaks of what an indexed law regulates ("el juicio de amparo": the Ley de
    # Amparo) reads that law first, as one naming it would (`LawCatalog.topic_laws`, the matter its name gives)
    subject = () if any(doc_ids or names_a_law(ref) for ref, doc_ids in resolved) else tuple(sorted(
        {doc.doc_id for _, doc in catalog.topic_laws(query, matter=True)} - set(first.set_aside)))
    divisions = _where_regulated(index, query, refs, subject, hits, filters)
    for division in divisions:  # "¿Dónde regula la Ley de Amparo la suspensión…?": each division's first article
        for chunk, document in index.provisions([division.doc_id], [division.first_article], filters)[:1]:
            looked_up.setdefault(chunk.chunk_id, SearchHit(chunk=chunk, document=document, score=0.0, rank=1,
                                                           via="reference"))
    search_ranks = {h.chunk.chunk_id: h.rank for h in hits}
    # where a definition the question asks for is read: the laws it names or speaks of, else the best hits' documents
    scope = ([d for _, doc_ids in resolved for d in doc_ids] or list(subject)
             or list(dict.fromkeys(h.chunk.doc_id for h in hits))[:CONTEXT_DOCS])
    # a search hit the lookup also found is the looked-up one (via "reference")
    merged = list(looked_up.values()) + [h for h in hits if h.chunk.chunk_id not in looked_up]
    merged = _identified(query, refs, catalog, merged)
    merged = _defining(index, query, merged, scope)
    merged = _disposing(index, query, merged)
    opened: dict[tuple[str, str], int] = {}
    # openings cover a law's own body: not a named article (the lookup decides) nor an entry named by its number
    # (the hits holding it), not a question about reforms, transitory rules or dates (answered outside the body),
    # not a topic an article title already names, nor a question whose best match is a document that holds no
    # article (a notice, an acuerdo of numbered points): openings rank articles, and cannot weigh text that has none
    names_article = any(ref.articles for ref, _ in refs) or bool(divisions)
    names_entry = any(h.via == "identifier" for h in merged)
    if (rerank and openings and index.settings.openings and not names_article and not names_entry
            and not second_stage.asks_about_history(query) and not _titled(query, merged)
            and (not hits or index.openings.vectors(hits[0].chunk.doc_id)[0])):
        # a law the question names (or a document whose whole name it writes out): its articles only; a named law
        # that is not here: none (it is said to be absent)
        named = sorted({d for _, doc_ids in resolved for d in doc_ids}) or catalog.written_out(query)
        absent = any(names_a_law(ref) and not doc_ids for ref, doc_ids in resolved)
        ranked_openings = [] if absent else index.opened(query, filters, OPENED, named or None, first.set_aside)
        opened = {(o.doc_id, o.article): o.rank for o in ranked_openings}
        merged += _opened_candidates(index, ranked_openings[:OPENED_ADDED], merged, filters)
    merged += _in_annexes(index, first, annexes, merged)
    merged = _in_named_laws(query, merged, named_docs, annexes)
    if unsure:  # what they do not hold is not answered from another document: the named one may not be indexed
        unsure_ids = {d.doc_id for d in unsure}
        merged = [h for h in merged if h.chunk.doc_id in unsure_ids]
    if rerank:
        cross = None
        if index.settings.rerank_model:
            scorer = load_cross_encoder(index.settings.rerank_model)
            cross = scorer.scores(query, [h.chunk.text for h in merged])
        # a hit in a special kind of what its law regulates, which the question names nothing of, yields to the law
        apart = set_apart(merged, stated_terms(topic(query)))
        ranked = second_stage.rerank(query, merged, resolved, search_ranks, cross, limit=k, opened=opened,
                                     subject=subject, apart=apart)
    else:
        ranked = [h.model_copy(update={"rank": i}) for i, h in enumerate(merged[:k], start=1)]
    versioned = index.versioned_laws()
    for hit in ranked:  # fresh copies: labelled in place, only the ones returned
        hit.versioned = hit.document.law_id in versioned
        hit.label = labels.label(hit.document, hit.chunk, versioned=hit.versioned)
    return SearchResult(query=query, hits=ranked, references=reports, country=first.country, divisions=divisions)


def _where_regulated(index: Index, query: str, refs: list[tuple[LegalReference, list[DocumentInfo]]],
                     subject: tuple[str, ...], hits: list[SearchHit], filters: SearchFilters | None) -> list[Division]:
    """For a question asking where a law regulates a matter and naming no article (`divisions.asks_where`), the
    divisions of the law whose names hold that matter (`divisions.matching`): of the laws it names, else the law
    whose subject it speaks of, else the best hits' documents; in the version in force."""
    if not asks_where(query) or any(ref.articles for ref, _ in refs):
        return []
    named = [d.doc_id for ref, docs in refs if ref.law or ref.constitutional for d in docs]
    laws = named or list(subject) or list(dict.fromkeys(h.chunk.doc_id for h in hits))[:CONTEXT_DOCS]
    held = {d.doc_id: d for d in index.document_infos()}
    superseded = set(index.in_force(filters.as_of if filters is not None else None).superseded)
    outline = [division for doc_id in dict.fromkeys(laws) if doc_id in held and doc_id not in superseded
               for division in index.divisions(doc_id, _law_name(held[doc_id]))]
    return matching(query, [(ref.start, ref.end) for ref, _ in refs], outline)


def _law_name(doc: DocumentInfo) -> str:
    return doc.short_title or doc.title


# What a question asks of a whole law, the law's name aside ("¿Qué regula la Ley de Sociedades de Capital?", "¿De qué
# trata la Ley 99 de 1993?", "¿Cuál es el objeto de …?", "¿Qué establece …?": content terms, stemmed, "establece" and
# "dice" being none)
_WHOLE_TERMS = frozenset({"regul", "trat", "objet", "contien", "vers", "materi", "ambit", "aplic", "aprueb", "expid"})
# the instruments whose first provision states what they do ("tiene por objeto…"); not an annex (whose "articles"
# are often those of the law it serves), a list, a notice, a ruling
_STATES_OBJECT = frozenset({*CONSOLIDATED, DocType.decreto, DocType.acuerdo, DocType.resolucion, DocType.orden,
                            DocType.nom, DocType.lineamientos, DocType.circular, DocType.norma, DocType.convenio})


def _asks_whole(query: str, refs: list[tuple[LegalReference, list[DocumentInfo]]]) -> bool:
    """Does the query ask what one named law is about, as a whole (no article, no topic of its own)? A law states its
    object and scope where its own body begins (its first article: "La presente Ley tiene por objeto…"), and that is
    the answer (`_first_articles`)."""
    named = [(ref, docs) for ref, docs in refs if ref.law or ref.constitutional]
    if len(named) != 1 or len(refs) != 1 or named[0][0].articles or not named[0][1] \
            or any(d.doc_type not in _STATES_OBJECT for d in named[0][1]):
        return False
    ref = named[0][0]
    return content_terms(query[:ref.start] + " " + query[ref.end:]) <= _WHOLE_TERMS


def _object(found: list) -> list:
    """Of the chunks of a law's first article, the law's own: its body's, and numbered in digits where one is (the
    decree that enacts a law numbers its own "ARTÍCULO PRIMERO.- Se expide la Ley de Amparo…" in words)."""
    found = [cd for cd in found if cd[0].role in BODY_ROLES] or found
    return ([cd for cd in found if _numbered_in_digits(cd[0])] or found)[:MAX_PROVISION_CHUNKS]


def _first_articles(index: Index, doc_ids: list[str]) -> list[str]:
    """The key of the first article of each document's own body (where a law states its object)."""
    return list(dict.fromkeys(key for doc_id in doc_ids if (key := index.first_article(doc_id)) is not None))


CLOSEST_EDITIONS = 3  # editions held named when the one asked about is not


def _missing_edition(query: str, filters: SearchFilters | None, catalog: LawCatalog,
                     refs: list[tuple[LegalReference, list[DocumentInfo]]]) -> ResolvedReference | None:
    """The gazette edition a question asks about by its day and naming no law ("¿Qué publicó el DOF el 3 de marzo de
    2022?"), when the index holds no document of it: reported absent, with the editions held closest to that day, so
    the answer says so instead of answering from another day's documents."""
    edition = edition_named(query)
    if edition is None or any(names_a_law(ref) for ref, _ in refs) or catalog.edition(edition.gazette, edition.day) \
            or (filters is not None and (filters.doc_ids or filters.date_from or filters.date_to)):
        return None
    name = f"{edition.gazette} del {edition.day:%d-%m-%Y}"
    days = sorted(catalog.edition_days(edition.gazette), key=lambda d: (abs((d - edition.day).days), d))
    reason = f"El {name} no está entre los documentos indexados"
    if days:
        held = [f"{d:%d-%m-%Y}" for d in sorted(days[:CLOSEST_EDITIONS])]
        reason += f"; las ediciones del {edition.gazette} indexadas más cercanas son las del " + (
            f"{', '.join(held[:-1])} y {held[-1]}" if len(held) > 1 else held[0])
    return ResolvedReference(reference=LegalReference(text=edition.text, start=edition.start, end=edition.end,
                                                      law=name), absent=True, reason=reason)


def _in_annexes(index: Index, first: Search, annexes: Sequence[DocumentInfo], hits: list[SearchHit]) -> list[SearchHit]:
    """The hits of a search within the annexes the question names by number, when none of `hits` lies in them: a
    larger document on the same matter can fill the first stage ("Anexo 13 RMF" among the Anexo 16's "ISR" rows),
    and the annex answers alone (`_in_named_laws`). A search the caller already limited to documents is left so."""
    ids = sorted({d.doc_id for d in annexes})
    if not ids or any(h.chunk.doc_id in ids for h in hits) or (first.filters and first.filters.doc_ids):
        return []
    scoped = (first.filters or SearchFilters()).model_copy(update={"doc_ids": ids})
    return index.search_many([replace(first, filters=scoped)])[0]


def _in_named_laws(query: str, hits: list[SearchHit], named: list[DocumentInfo],
                   annexes: Sequence[DocumentInfo] = ()) -> list[SearchHit]:
    """A question that names the laws it asks about, each a law in force under its own name (a constitution, a law,
    a code: `CONSOLIDATED`), is answered from them: the hits of other documents that merely speak of them (a
    reglamento's preamble quoting "la Constitución Política de los Estados Unidos Mexicanos" to a question about what
    the Constitution says on work) are set aside, when the named laws hold any hit. So is one naming an annex by its
    number and instrument (`annexes`: "el Anexo 13 de la RMF 2025" is not answered from the Anexo 16's rows). Not for
    a question about a law's reforms (the decrees that made them are other documents)."""
    if not (named or annexes) or any(d.doc_type not in CONSOLIDATED for d in named) \
            or second_stage.asks_about_history(query):
        return hits
    ids = {d.doc_id for d in (*named, *annexes)}
    kept = [h for h in hits if h.chunk.doc_id in ids]
    return kept or hits


def _defining(index: Index, query: str, hits: list[SearchHit], scope: list[str]) -> list[SearchHit]:
    """`hits` with the chunks that define the term the question asks the meaning of (`definitions`: "¿Qué se
    entiende por calumnia?" and "Es calumnia la imputación…"; "What does 'personal data' mean?" and "(1) 'personal
    data' means…") marked via "definition": the question names what they define, and the reranker weighs them as a
    named article. Those of a hit found by search, and those the laws in `scope` (the laws the question names or
    whose subject it speaks of, else the best hits' documents) hold that the search did not find: a definitions
    article is found by what it says. A looked-up article keeps its via."""
    term = defined_term(query)
    if term is None:
        return hits
    found = {h.chunk.chunk_id: (h.chunk, h.document) for h in hits if h.via == "search" and any(
        defines(h.chunk.text[sent.start:sent.end], term) for sent in split_sentences(h.chunk.text))}
    held = {h.chunk.chunk_id for h in hits}
    for doc_id, article, chunk_id in defining_provisions(index, term, scope):
        if chunk_id not in held:
            found.update((c.chunk_id, (c, d)) for c, d in index.provisions([doc_id], [article])
                         if c.chunk_id == chunk_id)
    return _marked(hits, found, "definition")


def _disposing(index: Index, query: str, hits: list[SearchHit]) -> list[SearchHit]:
    """`hits` with the chunks that open the operative part of the judgment the search ranks best (`rulings`: "Por
    estas consideraciones … se rechazan los recursos…", "For the reasons elucidated above, the … appeal is
    dismissed…") marked via "disposition", for a question asking how a case was decided: the reranker weighs them as
    a named article. Those the search did not find are added: the facts and reasons share the question's words. Only
    the best hit's document is read: another judgment among the hits decided another case."""
    if not hits or not asks_outcome(query) or hits[0].document.doc_type not in DECIDING:
        return hits
    judgment = hits[0].document
    return _marked(hits, {c.chunk_id: (c, judgment) for c in disposing_chunks(index, [judgment.doc_id])},
                   "disposition")


def _marked(hits: list[SearchHit], found: dict[str, tuple[Chunk, DocumentInfo]], via: str) -> list[SearchHit]:
    """`hits`, a search hit whose chunk is one of `found` marked `via` (a looked-up one keeps its own), and then the
    chunks of `found` that no hit holds, as hits `via` too."""
    marked = [h.model_copy(update={"via": via}) if h.via == "search" and h.chunk.chunk_id in found else h
              for h in hits]
    held = {h.chunk.chunk_id for h in hits}
    return marked + [SearchHit(chunk=chunk, document=doc, score=0.0, rank=1, via=via)
                     for chunk_id, (chunk, doc) in found.items() if chunk_id not in held]


def _identified(query: str, refs: list[tuple[LegalReference, list]], catalog: LawCatalog,
                hits: list[SearchHit]) -> list[SearchHit]:
    """`hits`, those whose text holds a number the question names one entry by (`text_analysis.identifiers`: "el
    juicio 5929/20", "Rol 161.630-2023") marked via "identifier": the question names that entry, as it names an
    article, and the reranker weighs it so. A number inside a reference (`refs`) or a document's name ("Orden
    EFD/322/2024", "Acuerdo General 01/2021") names that document, which the lookup resolves. The catalog's names are
    read only for a question that holds such a number at all."""
    if not identifiers(query):
        return hits
    names = [(r.start, r.end) for r, _ in refs] + catalog.name_spans(query)
    codes = identifiers("".join(" " if any(lo <= i < hi for lo, hi in names) else ch for i, ch in enumerate(query)))
    if not codes:
        return hits
    return [h.model_copy(update={"via": "identifier"}) if h.via == "search" and codes & set(analyze(h.chunk.text))
            else h for h in hits]


def _titled(query: str, hits: list[SearchHit]) -> bool:
    """Is a candidate's article titled what the question asks about ("Periodo de prueba." for "¿qué dispone la ley
    sobre el periodo de prueba?")? A law that titles its articles names their topics itself: its title, not an
    opening's similarity, decides (`rerank.names_topic`)."""
    terms = content_terms(query)
    return any(second_stage.names_topic(terms, second_stage.title_words(second_stage.article_title(h.chunk)))
               is not None for h in hits)


def _opened_candidates(index: Index, best: list, merged: list[SearchHit],
                       filters: SearchFilters | None) -> list[SearchHit]:
    """The first chunk of each of the `best` opened articles that no candidate lies in yet (via "opening")."""
    held = {(h.chunk.doc_id, h.chunk.article) for h in merged if h.chunk.role in BODY_ROLES}
    added = []
    for o in best:
        if (o.doc_id, o.article) in held:
            continue
        body = [cd for cd in index.provisions([o.doc_id], [o.article], filters) if cd[0].role in BODY_ROLES]
        if body:
            chunk, document = body[0]
            added.append(SearchHit(chunk=chunk, document=document, score=0.0, rank=1, via="opening"))
    return added


def _in_force(found: list, ref: LegalReference, query: str) -> list:
    """The chunks of the article the reference means, when several share its key.

    A law numbers its own articles in digits ("Artículo 1o."); the decree that enacts or amends it, and transitory
    articles, number theirs in words ("ARTÍCULO PRIMERO.-", "Primero.-"), and the appended reform decrees carry
    articles of their own: all of them get key "1". A reference written in digits means the law's own article, one
    written in words the worded one; transitory and decree text is kept only when nothing else has the key or the
    query asks about reforms or transitory rules."""
    if not second_stage.asks_about_history(query):
        found = [cd for cd in found if cd[0].role in BODY_ROLES] or found
    digits = any(ch.isdigit() for ch in ref.text)
    same_style = [cd for cd in found if _numbered_in_digits(cd[0]) == digits]
    return same_style or found


def _in_part(found: list, ref: LegalReference) -> list:
    """The chunks that hold the part of the article the reference names ("la fracción III del apartado A del artículo
    123": the chunk where that fracción is, of a long article's many; "el último párrafo": the last ones), when any
    does."""
    if ref.paragraph_from_end:  # "el último párrafo del artículo 16": each document's chunks from that paragraph on
        last: dict[str, list[int]] = {}
        for chunk, _ in found:
            last.setdefault(chunk.doc_id, []).extend(m.paragraph for m in chunk.paragraphs)
        target = {d: sorted(set(p))[-ref.paragraph_from_end] for d, p in last.items()
                  if len(set(p)) >= ref.paragraph_from_end}
        found = [cd for cd in found if cd[0].doc_id not in target
                 or any(m.paragraph >= target[cd[0].doc_id] for m in cd[0].paragraphs)] or found
    if not (ref.apartado or ref.fraccion or ref.inciso):
        return found
    return [cd for cd in found if any(labels.in_part(m, ref) for m in cd[0].paragraphs)] or found


def _numbered_in_digits(chunk) -> bool:
    label = next((text for text, kind in zip(reversed(chunk.heading_path), reversed(chunk.heading_kinds))
                  if kind is HeadingKind.articulo), "")
    return any(ch.isdigit() for ch in label)
