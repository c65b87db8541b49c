"""Coverage of an answer: which sentences cite a verified span, which the cited spans really state, and whether the
cited sources address the question at all.

A hallucination signal, not a proof. A sentence counts as *cited* when it overlaps a text segment that carries a
verified citation. Each cited sentence is then *judged* (`support.judge_support`) against the verified quotes,
with their citation labels, of every segment it overlaps — the sentence, not only the quoted part, so the prose a
model wraps around a quote must be backed too — and the judgement is attached to those segments
(`TextSegment.support`; a segment over several sentences keeps its weakest). The answer's cited sources (their citation labels and quotes) are judged against the
question (`support.judge_relevance`). Connectors and fragments under `MIN_WORDS` words are not claims and are left
out.

Relevance is also judged on what the question asks for, not only on shared words (`answers_the_question`, issue 25):
its *reference* (an article or law it names must be among the cited provisions: "artículo 17 de la Ley de Amparo"
answered from article 18 is not an answer), its *topic* (a question about what an indexed law regulates — "el juicio
de amparo", the Ley de Amparo — naming no law is not answered leading with another document; `LawCatalog.topic_laws`),
the *legal role* of what is cited (only appended reform decrees or an index do not answer a question that does not
ask about reforms or history), and the *kind of answer* its question word asks for (a "plazo"/"¿cuánto dura?"/"¿cuántos
días?" is a duration, which a count of a unit states — "cinco días", not "son días hábiles…" —, "¿cuántos?" a number,
"¿a partir de cuándo?" a moment: cited text that states none cannot be the answer).
Each failure is a reason in `Coverage.relevance_reasons`, makes the answer not relevant and flags it. Given the
index (`compute_coverage(…, index=)`), the structure of its laws is read too (`structure_reasons`): a question that
names no article asks about what an article in scope is *titled* ("¿Qué dispone la ley sobre domicilio?", LSC
"Artículo 9. Domicilio.") and the answer cites no article so titled (art. 10, "Discordancia entre domicilio
registral y domicilio real.").

`flagged` when any of: fewer than half the sentences are cited ("uncited"), fewer than half are cited *and* backed
by what they cite, supported or partly ("unsupported"), or the sources do not address the question
("not_relevant").

With an LLM judge (`GACETA_JUDGE=llm`, `support.LLMJudge`) one chat call an answer gives every cited sentence its
label and the answer its relevance; the offline judgement's evidence and missing facts are kept beside the label.
When the call or its reply fails, the offline judgements stand and their `method` says why ("offline (the LLM
judge failed: …)").
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from ingest.references import parse_references
from ingest.sentences import split_sentences
from retrieval.answers.models import Citation, Coverage, TextSegment
from retrieval.answers.support import JudgeError, LLMJudge, Support, judge_relevance, judge_support
from retrieval.jurisdiction import countries_named, place_name, polity_words
from retrieval.text_analysis import NUMBER_WORDS, PARAGRAPH_LABEL, content_terms

log = logging.getLogger(__name__)

MIN_WORDS = 5
FLAG_BELOW = 0.5

_WORD = re.compile(r"\w+")


def _quoted(citation: Citation) -> str:
    """What a citation states: its quote, and where the quote stands ("Ley de Amparo, art. 17, párr. 1") — an answer
    that says "según el artículo 17, …" is backed by the label as much as by the words. Text outside any article (a
    notice's points, an annex) stands under its document's whole title, which its sentences do not repeat
    ("ACUERDO GENERAL 01/2021 … ante el brote de enfermedad por coronavirus (COVID-19)")."""
    where = citation.label
    if citation.article is None and citation.document_title and citation.document_title not in where:
        where = f"{citation.document_title}\n{where}" if where else citation.document_title
    return f"{where}\n{citation.cited_text}" if where else citation.cited_text


def compute_coverage(content: list[TextSegment], question: str | None = None, embedder=None,
                     judge: LLMJudge | None = None, references: Sequence = (),
                     roles: dict[str, str] | None = None, topics: Sequence = (), index=None,
                     retrieved: Sequence[str] = ()) -> Coverage:
    """Coverage of the answer made of `content`, judging support (and relevance to `question`, when given) on the
    way; fills `TextSegment.support` in place. No claim sentences at all: ratio 1.0, nothing to flag. With `judge`,
    one LLM call judges every cited sentence (and relevance); if it fails, the offline judgements stand and
    their `method` says why. With `index`, the structure of its laws is read too (`structure_reasons`; `retrieved`:
    the documents the search found, the scope when the question names no law)."""
    text = "".join(seg.text for seg in content)
    backed: list[tuple[int, int, TextSegment]] = []
    pos = 0
    for seg in content:
        seg.support = None
        if any(c.verified for c in seg.citations):
            backed.append((pos, pos + len(seg.text), seg))
        pos += len(seg.text)
    total = 0
    uncited: list[str] = []
    claims: list[tuple[str, list[str], list[TextSegment]]] = []  # cited sentences, their quotes and segments
    for sent in split_sentences(text):
        s, e = sent.start, sent.end
        sentence = text[s:e]
        if len(_WORD.findall(sentence)) < MIN_WORDS:
            continue
        total += 1
        segments = [seg for bs, be, seg in backed if bs < e and s < be]
        if not segments:
            uncited.append(sentence)
            continue
        quotes = list(dict.fromkeys(_quoted(c) for seg in segments for c in seg.citations if c.verified))
        claims.append((sentence, quotes, segments))
    sources = list(dict.fromkeys(_quoted(c) for seg in content for c in seg.citations if c.verified))
    # No embedder here: in judge_support it only orders tied evidence, and for an answer's one to three cited quotes
    # that cost 15 of the judgement's 22 ms an answer (measured on the demo index); relevance keeps it.
    judgements = [judge_support(sentence, quotes) for sentence, quotes, _ in claims]
    verified = [c for seg in content for c in seg.citations if c.verified]
    countries = countries_named(question) if index is not None and question is not None else {}
    referenced = _resolved_texts(question, references) if question is not None else []
    if index is not None and question is not None:
        catalog = index.catalog()
        referenced += _place_texts(question, countries, verified, catalog)
        referenced += [name for doc_id in dict.fromkeys(c.doc_id for c in verified) for name in catalog.names_of(doc_id)]
    relevance = judge_relevance(question, sources, embedder, referenced) if question is not None and claims else None
    method = "offline"
    if judge is not None and claims:
        try:
            verdicts = judge.judge([(sentence, quotes) for sentence, quotes, _ in claims], question, sources)
        except JudgeError as exc:
            method = f"offline (the LLM judge failed: {exc})"
            log.warning("support judged offline: the LLM judge failed (%s)", exc)
            judgements = [j.model_copy(update={"method": method}) for j in judgements]
        else:
            method = "llm"
            judgements = [llm.model_copy(update={"evidence": off.evidence, "missing": off.missing})
                          for llm, off in zip(verdicts.support, judgements)]
            relevance = verdicts.relevance or relevance
    supported = 0
    partial: list[str] = []
    unsupported: list[str] = []
    for (sentence, _, segments), judged in zip(claims, judgements):
        for seg in segments:
            if seg.support is None or judged.score < seg.support.score:
                seg.support = judged
        if judged.label is Support.supported:
            supported += 1
        elif judged.label is Support.partial:
            partial.append(sentence)
        else:
            unsupported.append(sentence)
    cited = len(claims)
    ratio = cited / total if total else 1.0
    backed_ratio = (supported + len(partial)) / total if total else 1.0
    relevant = relevance.relevant if relevance is not None else True
    off_question = answers_the_question(question, [c for seg in content for c in seg.citations], references, roles,
                                        topics) if question is not None and claims else []
    if index is not None and question is not None and claims:
        off_question += structure_reasons(index, question, [c for seg in content for c in seg.citations],
                                          references, topics, retrieved)
        off_question += country_reasons(countries, verified, index.catalog())
    relevant = relevant and not off_question
    reasons = flag_reasons(ratio, backed_ratio, relevant)
    return Coverage(
        ratio=round(ratio, 4), sentences=total, cited=cited, uncited=uncited, flagged=bool(reasons),
        supported=supported, partial=partial, unsupported=unsupported, relevant=relevant,
        relevance=round(relevance.score, 4) if relevance is not None else 1.0, flag_reasons=reasons, judge=method,
        relevance_reasons=off_question,
    )


_COUNT = rf"\d+|{NUMBER_WORDS}"
_UNIT = r"(?:d[ií]as?|mes(?:es)?|años?|horas?|minutos?|semanas?|days?|months?|years?|hours?|minutes?|weeks?)"
# A duration is stated by a count of a unit ("cinco días", "15 días hábiles", "90 (noventa) días naturales", "un
# año"), an ordinal one ("dentro del tercer día", "the 30th day") or a recurring one ("cada tres años"), "el día
# siguiente", a span of years ("desde 1870 hasta 1939", "1922-26") or from one event to another ("desde que se dicte la
# orden de aprehensión hasta que prescriba la acción penal"), or a word that is one ("sexenio"); a unit alone ("son
# días hábiles todos los del año"), "el plazo" or "el término" states none.
_DURATION = re.compile(rf"\b(?:(?:{_COUNT}|un|cada|primer|segundo|tercer|cuarto|quinto|sexto|s[eé]ptimo|octavo|"
                       rf"noveno|d[eé]cimo|\d+(?:st|nd|rd|th))\s+(?:\([^)]{{1,40}}\)\s+)?(?:\w+\s+)?{_UNIT}|"
                       rf"{_UNIT}\s+siguiente|(?:desde|de|entre|from|between)\s+(?:el\s+)?\d{{3,4}}\s+"
                       r"(?:hasta|a|y|to|until|and)\s+(?:el\s+)?\d{2,4}|\d{4}\s*[-–]\s*\d{2,4}|"
                       r"desde\s+(?:que|el|la|los|las)\b[^.;]{1,200}?\bhasta\s+(?:que|el|la|los|las)\b|"
                       r"(?:sexen|trien|bien|cuatrien|quinquen)ios?)\b", re.I)
_NUMBER_WORD = re.compile(rf"\b(?:{_COUNT}|mayor[ií]a|dos terceras|tercera parte|mitad)\b", re.I)
# a duration is a quantity too: "¿cuál es el plazo mínimo…?" is answered by "no podrá ser inferior a un mes"
_QUANTITY = re.compile(rf"{_NUMBER_WORD.pattern}|{_DURATION.pattern}", re.I)
_MOMENT = re.compile(r"\b(?:a partir|desde|al d[ií]a|d[ií]a siguiente|siguiente al|en que (?:surta|se notifi|tenga|"
                     r"haya)|surt[ae] efectos|inicia|comienza|entrar[áa] en vigor|"
                     r"\d+(?:o\.|º|°)? de [a-z]+)\b", re.I)  # a date: "15 de mayo", "1o. de octubre"
# the kind of answer a question word asks for, and what cited text must state to give it
_ASKS: list[tuple[re.Pattern, str, re.Pattern]] = [
    (re.compile(r"\b(?:cu[aá]l es el plazo|qu[eé] plazo|cu[aá]nto tiempo|cu[aá]nto dura|cada cu[aá]nto|"
                r"(?:plazo|t[eé]rmino) (?:m[aá]ximo|m[ií]nimo|para)|dentro de qu[eé] plazo|how long|"
                rf"what is the (?:time limit|deadline|term)|cu[aá]nt[oa]s {_UNIT}|how many {_UNIT})\b", re.I),
     "a duration", _DURATION),
    # a bound asked for is a quantity: "¿cuál es el capital mínimo…?", "what is the maximum fine", "como máximo"
    (re.compile(r"\b(?:cu[aá]nt[oa]s|qu[eé] (?:votaci[oó]n|porcentaje|n[uú]mero)|how many|how much|"
                r"(?:(?:cu[aá]l(?:es)? (?:es|son)|qu[eé]|what(?: is|'s| are)?)\s+(?:(?:el|la|los|las|the)\s+)?"
                r"(?:\w+\s+){0,2}|como\s+)(?:m[aá]xim[oa]s?|m[ií]nim[oa]s?|maximum|minimum))\b",
                re.I), "a number", _QUANTITY),
    (re.compile(r"\b(?:a partir de cu[aá]ndo|desde cu[aá]ndo|cu[aá]ndo (?:inicia|comienza|entra|se computa)|"
                r"since when|from when)\b", re.I), "a moment", _MOMENT),
]
# text that answers no question but about itself: an index's entries, a reform decree appended to a law. (A
# preamble or a transitory article may: a DOF notice's antecedentes state its facts, a transitory its entry into force.)
_OFF_ROLE = ("reform_decree", "index")


def _resolved_texts(question: str, references: Sequence) -> list[str]:
    """The text of each legal reference of `question` the search resolved to indexed documents."""
    return [question[r.reference.start:r.reference.end] for r in references
            if r.resolved and r.doc_ids and r.reference.end > r.reference.start]


def _place_texts(question: str, named: dict[str, list[str]], cited: Sequence[Citation], catalog) -> list[str]:
    """The question's words naming the country whose law every cited document is (`named`: `countries_named`;
    "¿Está prohibida la pena de muerte en México?" answered from the CPEUM), and its capitalised words for a state
    itself ("Presidente de la República"): what a law never says of itself is not a fact its articles must state."""
    held = [catalog.countries_of(c.doc_id) for c in cited]
    if not held or not all(held):
        return []
    common = frozenset.intersection(*held)
    return [w for code, words in named.items() if code in common for w in words] + polity_words(question)


def country_reasons(named: dict[str, list[str]], cited: Sequence[Citation], catalog) -> list[str]:
    """Why the cited documents do not answer a question about one country's law: it names one country (`named`:
    `countries_named`; "las obligaciones de los mexicanos") and every cited document is the law of others (Spain's
    company law). The search sets such documents aside when it holds the country's (`LawCatalog.country_scope`);
    this catches an answer drawn from an index that holds none of it."""
    held = [catalog.countries_of(c.doc_id) for c in cited]
    if len(named) != 1 or not held or not all(held):
        return []
    (code, words), = named.items()
    if any(code in h for h in held):
        return []
    others = ", ".join(sorted({place_name(c) for h in held for c in h}))
    return [f"the question asks about {words[0]!r} ({place_name(code)}); the answer cites only the law of {others}"]


def _stated_values(text: str) -> str:
    """`text` without what numbers a provision rather than states a value: the label it opens with ("1. The
    controller…") and its legal references ("referred to in Article 10", "el artículo 27, fracción IV")."""
    text = PARAGRAPH_LABEL.sub("", text, count=1)
    for ref in reversed(parse_references(text)):
        text = f"{text[:ref.start]} {text[ref.end:]}"
    return text


def answers_the_question(question: str, citations: Sequence[Citation], references: Sequence = (),
                         roles: dict[str, str] | None = None, topics: Sequence = ()) -> list[str]:
    """Why the verified `citations` do not answer `question` (empty: nothing against them): the article or law it
    names is not among them (`references`: `ResolvedReference`s the search understood), all of them are reform-decree
    or index text (`roles`: chunk id → `ProvisionRole` value) while the question does not
    ask about history, or they state nothing of the kind of answer the question word asks for."""
    from retrieval.rerank import asks_about_history

    cited = [c for c in citations if c.verified]
    if not cited:
        return []
    reasons: list[str] = []
    for ref in references:
        r = ref.reference
        if not ref.resolved or not ref.doc_ids:
            continue
        in_law = [c for c in cited if c.doc_id in ref.doc_ids]
        named_law = bool(r.law or r.constitutional)
        if r.articles:
            wanted = set(r.articles)
            if not any(c.article in wanted for c in in_law):
                where = f" of {ref.titles[0]}" if named_law and ref.titles else ""
                got = sorted({c.article for c in cited if c.article}) or ["none"]
                reasons.append(f"the question names {r.noun or 'art.'} {', '.join(r.articles)}{where}; the answer "
                               f"cites art. {', '.join(got)}")
        elif named_law and not in_law:
            reasons.append(f"the question names {ref.titles[0] if ref.titles else r.text}; the answer cites other "
                           f"documents")
    named = any(ref.resolved and (ref.reference.law or ref.reference.constitutional) for ref in references)
    if topics and not named:  # the question speaks of what an indexed law regulates, without naming a law
        if not any(cited[0].doc_id == doc.doc_id for _, doc in topics):  # what the answer leads with
            subject, doc = topics[0]
            reasons.append(f"the question is about {subject}, which {doc.short_title or doc.title} regulates; the "
                           f"answer leads with another document")
    if roles and not asks_about_history(question):
        cited_roles = {roles.get(c.chunk_id, "text") for c in cited}
        if cited_roles and cited_roles <= set(_OFF_ROLE):
            reasons.append(f"the answer cites only {', '.join(sorted(cited_roles))} text")
    stated = None  # read only when the question asks for a value
    for asks, kind, states in _ASKS:
        if not asks.search(question):
            continue
        stated = stated if stated is not None else "\n".join(_stated_values(c.cited_text) for c in cited)
        if not states.search(stated):
            reasons.append(f"the question asks for {kind}; the cited text states none")
            break
    return reasons


def structure_reasons(index, question: str, citations: Sequence[Citation], references: Sequence = (),
                      topics: Sequence = (), retrieved: Sequence[str] = ()) -> list[str]:
    """Why the verified `citations` do not answer `question`, read from the structure of the indexed laws (issue
    25): a question that names no article asks about what an article of a law in scope is *titled* ("¿Qué dispone la
    ley sobre domicilio?" and LSC "Artículo 9. Domicilio."), and the answer cites none of the articles so titled.

    An article is titled the topic when every word of its title is a word (or a form of one) of the question and
    the title holds at least `rerank.TITLED` of the question's content terms (the share from which the search
    lets a title, not an opening, name the topic); of those, the best matched (exact words over other forms, more
    words over fewer). Scope: the laws the question names, else those whose subject it speaks of (`topics`), else
    the documents the search retrieved for it (`retrieved`; every document of the index in force when none is
    given: the cost grows with the index, a question's search bounds it). Several laws with an article so titled (an
    ambiguous question) flag nothing when the answer cites one of them; nor does an answer citing an article whose
    title holds a term of the question that the topic's title does not ("¿En qué casos tienen los socios derecho de
    separación?": art. 93 "Derechos del socio." is the titled topic, art. 346 "Causas legales de separación." answers
    the separación it leaves out)."""
    cited = [c for c in citations if c.verified]
    if not cited or any(ref.reference.articles for ref in references):
        return []
    named, asked = _asked(index, question, references)
    best = _titled(index, named, asked, topics, retrieved)
    if not best or any((c.doc_id, c.article) in best for c in cited):
        return []
    # a cited article titled by what the question asks beyond that title answers the rest of it ("¿En qué casos tienen
    # los socios derecho de separación?": art. 93 "Derechos del socio" is titled part of it, art. 346 "Causas legales
    # de separación" the separación it asks about)
    topic = {t for doc_id, article in best for a, _, words in _titles(index, doc_id) if a == article
             for word in words for t in word}
    for c in cited:
        own = {t for a, _, words in _titles(index, c.doc_id) if a == c.article for word in words for t in word}
        if own & asked - topic:
            return []
    (_, article), (law, title) = next(iter(best.items()))
    reason = (f"the question asks about {title.rstrip('.')!r}, the title of art. {article} of {law}; the answer "
              f"cites no article so titled")
    return [reason]


# doc id → its titled articles: (key, title, the terms of each title word); a doc id's text never changes
_TITLES: dict[str, list[tuple[str, str, list[set[str]]]]] = {}


def _titles(index, doc_id: str) -> list[tuple[str, str, list[set[str]]]]:
    from retrieval.rerank import article_title, title_words

    if doc_id not in _TITLES:
        seen: dict[str, str] = {}
        for chunk in index.articles(doc_id):
            if chunk.article not in seen:
                seen[chunk.article] = article_title(chunk)
        _TITLES[doc_id] = [(a, t, title_words(t)) for a, t in seen.items() if t]
    return _TITLES[doc_id]


def _asked(index, question: str, references: Sequence = ()) -> tuple[set[str], set[str]]:
    """The doc ids of the laws `question` names, and its content terms without their names: the law's name is not
    what the question asks about."""
    from ingest.headings import fold

    catalog = index.catalog()
    named = {d for ref in references if ref.resolved and (ref.reference.law or ref.reference.constitutional)
             for d in ref.doc_ids} | {d.doc_id for d in catalog.mentioned(question)}
    asked = fold(question)
    for entry in catalog.entries:
        if entry.document.doc_id in named:
            for name in sorted(entry.names, key=len, reverse=True):
                asked = re.sub(rf"\b{re.escape(name)}\b", " ", asked)
    return named, content_terms(asked)


def titled_articles(index, question: str, references: Sequence = (), topics: Sequence = (),
                    retrieved: Sequence[str] = ()) -> dict:
    """The articles in scope titled what `question` asks about, best matched: (doc id, article) → (law, title)
    (`structure_reasons`)."""
    return _titled(index, *_asked(index, question, references), topics, retrieved)


def _titled(index, named: set[str], terms: set[str], topics: Sequence, retrieved: Sequence[str]) -> dict:
    """`titled_articles` of a question read (`_asked`): the laws it names, its terms without their names."""
    from retrieval.rerank import names_topic

    catalog = index.catalog()
    superseded = set(index.in_force().superseded)
    docs = {e.document.doc_id: e.document for e in catalog.entries if e.document.doc_id not in superseded}
    scope = ([d for d in docs if d in named] or [doc.doc_id for _, doc in topics if doc.doc_id in docs]
             or [d for d in dict.fromkeys(retrieved) if d in docs] or list(docs))
    if not terms:
        return {}
    best: dict = {}
    top = 0.0
    for doc_id in scope:
        for article, title, words in _titles(index, doc_id):
            score = names_topic(terms, words)
            if score is None:
                continue
            if score > top:
                top, best = score, {}
            if score == top:
                doc = docs[doc_id]
                best[(doc_id, article)] = (doc.short_title or doc.title, title)
    return best


def flag_reasons(cited_ratio: float, backed_ratio: float, relevant: bool) -> list[str]:
    """The one flag rule, for answers and attributions: under FLAG_BELOW of the sentences cite a verified span
    ("uncited") or are backed, wholly or in part, by what they cite ("unsupported"); the sources do not address the
    question ("not_relevant")."""
    failures = (("uncited", cited_ratio < FLAG_BELOW), ("unsupported", backed_ratio < FLAG_BELOW),
                ("not_relevant", not relevant))
    return [reason for reason, failed in failures if failed]
