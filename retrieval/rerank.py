"""Second stage: the ≈30 best hits re-ranked the way a lawyer reads them.

A hit's score is a readable sum of features, scaled by the legal role of its text:

    score = ROLE_WEIGHTS[role] × (W_FUSED·fused + W_LAW·law + W_CROSS·cross) + W_REFERENCE·reference

- `fused`    FUSED_K / (FUSED_K - 1 + rank) of the hit in the first-stage hybrid list: 1 for the first, ½ at rank
             FUSED_K + 1, a slow decay so the first stage still orders the tail (0 for a hit only the lookup found);
- `law`      the hit's document is a law the query names or, naming none, whose subject it speaks of ("¿Cuál es el
             objeto del juicio de amparo?": the Ley de Amparo; `LawCatalog.topic_laws`);
- `reference` the hit lies in an article the query names, as the lookup found it (`via` "reference"), or holds a
             number the query names an entry by ("el juicio 5929/20": `via` "identifier") — worth more than any
             similarity, so a named provision comes first;
- `cross`    (only with GACETA_RERANK_MODEL set) the configured cross-encoder's score of query and chunk text
             (`retrieval.cross_encoder`);
- the role weight puts the text in force above the preamble, transitory articles, reform decrees appended to a
  consolidated law, repealed articles and indexes — unless the query asks about reforms, transitory rules or dates,
  when every role weighs the same.
A corpus without legal structure (every chunk "text", no law named) keeps the first stage's order: the stage only
moves what the law's structure says should move. Measured (docs/benchmarks.md, "Legal QA"): term-overlap and
heading-match features on top of these changed nothing on mx_legal_qa and cost a point of Pass@10 on the English
code set, so they are not here. The features of each hit are kept on it (`SearchHit.features`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache

from ingest.headings import division_name, fold
from ingest.models import BODY_ROLES, DIVISIONS, Chunk, HeadingKind, LegalReference, ProvisionRole
from ingest.sentences import LEADING_HEADINGS
from retrieval.models import SearchHit
from retrieval.text_analysis import content_terms, offices, stated_terms

ROLE_WEIGHTS: dict[ProvisionRole, float] = {
    ProvisionRole.text: 1.0,
    ProvisionRole.preamble: 0.7,
    ProvisionRole.transitory: 0.45,
    ProvisionRole.reform_decree: 0.3,
    ProvisionRole.repealed: 0.3,
    ProvisionRole.index: 0.2,
}
W_FUSED = 0.5
W_LAW = 0.3
W_REFERENCE = 1.0
W_CROSS = 0.5
W_TITLE = 0.5  # as much as the first stage's top rank: an article titled with the question's words is its topic
W_OPENING = 1.0  # an opening ranked first weighs twice the first stage's top rank (chosen on mx_legal_qa's CPEUM half)
OPENING_K = 2  # opening rank r weighs OPENING_K / (OPENING_K - 1 + r): 1, ⅔, ½, … a sharp decay
FORM_PREFIX = 5  # two stems that share this many letters, and FORM_SHARE of the shorter, are forms of one word
FORM_SHARE = 0.7  # (requisit/requier, suspension/suspend: Snowball keeps a word's derived forms apart)
FORM_WEIGHT = 0.5  # a query term met only in another form of its word counts this share of a match
TITLED = 0.5  # an article title holding half a question's terms, and nothing else, names its topic (`names_topic`)
CANDIDATES = 30  # first-stage hits the reranker sees
# a hit in what the question names: an article looked up, an entry's number, the sentence defining the term it asks
# the meaning of
NAMED_VIA = ("reference", "identifier", "definition", "disposition")
FUSED_K = 10

# A query about reforms, transitory rules, dates of entry into force or repeal asks for those roles too. "Adicionar"
# and "adición" are amendments; the adjective "adicional" ("un reparto adicional") is not.
_ASKS_ABOUT_HISTORY = re.compile(
    r"\b(?:reform\w*|decreto\w*|transitori\w*|vigor|vigencia|deroga\w*|adicion(?!al)\w*|fecha\w*|"
    r"amend\w*|repeal\w*|entry into force)\b")
# Publishing ("se publica", "publicación", "publicado", "publication") is history too; the adjective "pública"
# ("administración pública", "salud pública") is not, so this one is matched before accents are folded.
_ASKS_ABOUT_PUBLISHING = re.compile(r"\bpublica\w*", re.I)
# "¿Cuándo…?" asks for a date when its verb tells of a past event ("¿Cuándo se habilitó el puerto?", "¿cuándo
# suscribieron el convenio?": a notice's antecedentes say); in the present it asks for the condition a rule states
# ("¿Cuándo procede el sobreseimiento?", "¿Cuándo debe disolverse la sociedad?"), which the text in force answers.
_ASKS_WHEN_IT_HAPPENED = re.compile(r"\bcu[aá]ndo\b.*\b(?:\w+(?:ó|aron|ieron)|fue|fueron)\b", re.I)


def asks_about_history(query: str) -> bool:
    return (_ASKS_ABOUT_HISTORY.search(fold(query)) is not None
            or _ASKS_ABOUT_PUBLISHING.search(query) is not None
            or _ASKS_WHEN_IT_HAPPENED.search(query) is not None)


_TITLE_WORD = re.compile(r"[^\W\d_]+")  # a word of an article's title
# The label an article heading starts with: "Artículo 14.", "Artículo 189 bis.", "Article 17", "ARTÍCULO 4o.-".
_ARTICLE_LABEL = re.compile(r"^\s*(?:art[íi]culo|article|art\.)\s+[\w.-]+(?:\s+(?:bis|ter|qu[aá]ter|[a-z]+ies)\b)?"
                            r"\s*(?:\.-|\.|-|–)?", re.I)


def article_heading(chunk: Chunk) -> str | None:
    """The heading of the article the chunk lies in ("Artículo 14. Periodo de prueba."), if any."""
    return next((text for text, kind in zip(reversed(chunk.heading_path), reversed(chunk.heading_kinds))
                 if kind is HeadingKind.articulo), None)


def article_title(chunk: Chunk) -> str:
    """The article's own title, its heading without the label: "Periodo de prueba." ("" when it has none: a
    Mexican law numbers its articles without titles)."""
    heading = article_heading(chunk)
    return _ARTICLE_LABEL.sub("", heading, count=1).strip() if heading else ""


def division_names(chunk: Chunk) -> list[str]:
    """The names of the divisions the chunk stands in, outermost first: ["De los procesos declarativos", "Del juicio
    ordinario", "De las alegaciones iniciales", …] for an article of the LEC's juicio ordinario. A division named by
    several matters ("El libro registro de socios y el régimen de transmisión de las participaciones…") gives each to
    a division of its own: under the one named by one of them ("Sección 1.ª El libro registro de socios"), only that
    one is its name."""
    names = [name for text, kind in zip(chunk.heading_path, chunk.heading_kinds) if kind in DIVISIONS
             for name in [division_name(text)] if name]
    return [_matter_of(name, inner) for name, inner in zip(names, names[1:])] + names[-1:]


_MATTERS = re.compile(r",\s+|\s+[ye]\s+")  # "A y B", "A, B y C": the matters a division's name joins


@lru_cache(maxsize=10_000)
def _matter_of(name: str, inner: str) -> str:
    """Of the matters `name` joins, the one the division inside it (`inner`) is named by, when one only holds its
    words ("Aportaciones dinerarias y aportaciones no dinerarias" keeps both for "Aportaciones no dinerarias": "no"
    is no term); else the whole name."""
    parts = _MATTERS.split(name)
    if len(parts) < 2:
        return name
    held = stated_terms(inner)
    naming = [part for part in parts if held <= stated_terms(part)]
    return naming[0] if len(naming) == 1 else name


def forms(a: str, b: str) -> bool:
    """Are two Snowball stems forms of one word ("requisit"/"requier", "suspension"/"suspend")? Both words, sharing
    a prefix of FORM_PREFIX letters and FORM_SHARE of the shorter one — as written or read through the changes of a
    Spanish root (`_root`): "resuelv"/"resolu", "elig"/"eleg", "admit"/"admision", "elig"/"eleccion"."""
    if not (a.isalpha() and b.isalpha()):
        return False
    need = max(FORM_PREFIX, FORM_SHARE * min(len(a), len(b)))
    return any(_joined(x, y, need) for x, y in ((a, b), (_root(a), _root(b))))


def _joined(x: str, y: str, need: float) -> bool:
    if _shared(x, y) >= need or (x == y and len(x) >= ROOT_LETTERS):
        return True
    short, long = (x, y) if len(x) <= len(y) else (y, x)
    shared = _shared(short, long)
    # a verb's stem whose last consonant the Latin noun changes: "decid"/"decision"; a g the noun's "cc" ("eleg"/
    # "eleccion", "correg"/"correccion": not "carg"/"carcel")
    if shared != len(short) - 1:
        return False
    if short[-1] == "g":
        return shared >= ROOT_LETTERS - 1 and long[shared:shared + 2] == "cc"
    return shared >= ROOT_LETTERS and (short[-1], long[shared]) in _ALTERNATIONS


def _shared(a: str, b: str) -> int:
    """How many letters two words share from their start."""
    shared = 0
    for x, y in zip(a, b):
        if x != y:
            break
        shared += 1
    return shared


# A Spanish root changes inside the forms of one word in ways Snowball does not join: a stressed vowel splits in two
# ("resuelve"/"resolución", "detiene"/"detención"), the root's last vowel is i for e ("elige"/"elegido", "expide"/
# "expedición"; only the last: "presidente" is not "presente"); the Latin noun of a verb changes the consonant its
# stem ends with ("admite"/"admisión", "decide"/"decisión", "impone"/"imposición"; "elige"/"elección").
_ALTERNATIONS = frozenset({("t", "s"), ("d", "s"), ("n", "s")})
_LAST_I = re.compile(r"i(?=[^aeiou]*$)")
ROOT_LETTERS = 4  # a root this long (or a stem's shared with a noun) is a word's, not a syllable's


@lru_cache(maxsize=100_000)
def _root(stem: str) -> str:
    return _LAST_I.sub("e", stem.replace("ue", "o").replace("ie", "e"))


def term_matches(q_terms: set[str], terms: set[str]) -> dict[str, float]:
    """The query terms `terms` hold: 1 for the term itself, FORM_WEIGHT for another form of its word."""
    out = {t: 1.0 for t in q_terms & terms}
    for t in q_terms - terms:
        if len(t) >= ROOT_LETTERS and any(forms(t, u) for u in terms if _root(u)[:3] == _root(t)[:3]):
            out[t] = FORM_WEIGHT
    return out


def title_words(title: str) -> list[set[str]]:
    """The terms of each content word of an article title, read word by word (a title alone is too short for the
    analyzer to tell its language)."""
    return [w for w in (content_terms(x) for x in _TITLE_WORD.findall(title.lower())) if w]


def names_topic(q_terms: set[str], words: list[set[str]]) -> float | None:
    """Does a title (its `title_words`) name what a question (its content terms) asks about? Every word of the title
    is a word, or a form of one, of the question, and the title holds at least TITLED of the question's terms:
    "Domicilio." for "¿Qué dispone la ley sobre domicilio?", not "Adquisiciones derivativas permitidas." for "¿Están
    permitidos los monopolios?" (half the terms, but a title about something else). None when not; else how well
    (its words' matches summed: exact words over other forms, more words over fewer)."""
    if not words or not q_terms:
        return None
    matched = [max(term_matches(q_terms, w).values(), default=0.0) for w in words]
    if not all(matched) or sum(term_matches(q_terms, set().union(*words)).values()) / len(q_terms) < TITLED:
        return None
    return round(sum(matched), 6)


def states_requirements(chunk: Chunk, office: set[str]) -> bool:
    """Does the chunk open its article with the requirements for `office` (a term: `text_analysis.offices`)? "Para
    ser Director se requiere:" opens the Durango law's art. 15, which has no title: that opening is its title."""
    if article_heading(chunk) is None:
        return False
    body = LEADING_HEADINGS.sub("", chunk.text, count=1)
    if body == chunk.text:  # no heading above: the article began in an earlier chunk
        return False
    named = offices(body.split("\n", 1)[0])  # its first paragraph
    return bool(term_matches(office, {term for at, term in named if at == 0}))


def title_share(q_terms: set[str], chunk: Chunk) -> float:
    """Share of the query's content terms the chunk's article title holds (0 without a title)."""
    title = article_title(chunk)
    if not title or not q_terms:
        return 0.0
    return sum(term_matches(q_terms, stated_terms(title)).values()) / len(q_terms)


def rerank(query: str, hits: Sequence[SearchHit], references: Sequence[tuple[LegalReference, Sequence[str]]],
           search_ranks: dict[str, int], cross: Sequence[float] | None = None,
           limit: int | None = None, opened: dict[tuple[str, str], int] | None = None,
           subject: Sequence[str] = (), apart: Collection[str] = ()) -> list[SearchHit]:
    """The best `limit` (all when None) of `hits` re-scored and re-ranked (ranks renumbered from 1), each a copy
    carrying its features.

    `references`: each parsed reference with the doc ids it resolved to; `search_ranks`: chunk id → rank in the
    first-stage list (hits missing from it were found by the reference lookup only); `cross`: a cross-encoder's
    score per hit, when one is configured; `opened`: (doc id, article) → rank of the article's opening for a
    question that names no article (`retrieval.openings`); `subject`: the doc ids of the laws whose subject a question
    naming no law speaks of, weighed as a named law; `apart`: the chunk ids of hits in a special kind of what their
    law regulates that the question does not name (`regimes.set_apart`), ranked after the other hits of their law.
    A hit is in a named article when the lookup found it (`via` "reference"): the lookup, not a key match here,
    decides which of several "Artículo 1" a reference means.
    """
    if not hits:
        return []
    named_docs = {d for _, docs in references for d in docs} | set(subject)
    flat_roles = asks_about_history(query)
    q_terms = stated_terms(query)
    asked_office = {term for _, term in offices(query)[:1]}
    scored = []
    for i, hit in enumerate(hits):
        rank = search_ranks.get(hit.chunk.chunk_id)
        features = {
            "fused": FUSED_K / (FUSED_K - 1 + rank) if rank else 0.0,
            "law": float(hit.chunk.doc_id in named_docs),
            "reference": float(hit.via in NAMED_VIA),
            "role": 1.0 if flat_roles else ROLE_WEIGHTS.get(hit.chunk.role, 1.0),
            "title": title_share(q_terms, hit.chunk),
            "apart": float(hit.chunk.chunk_id in apart),
            "office": float(bool(asked_office) and states_requirements(hit.chunk, asked_office)),
        }
        if opened:
            o_rank = opened.get((hit.chunk.doc_id, hit.chunk.article)) if hit.chunk.role in BODY_ROLES else None
            features["opening"] = OPENING_K / (OPENING_K - 1 + o_rank) if o_rank else 0.0
        if cross is not None:
            features["cross"] = float(cross[i])
        features["score"] = features["role"] * (
            W_FUSED * features["fused"] + W_LAW * features["law"] + W_TITLE * max(features["title"], features["office"])
            + W_CROSS * features.get("cross", 0.0) + W_OPENING * features.get("opening", 0.0)
        ) + W_REFERENCE * features["reference"]
        scored.append((features, hit))
    scored.sort(key=lambda fh: (-fh[0]["score"], search_ranks.get(fh[1].chunk.chunk_id, 10**6), fh[1].chunk.index))
    if apart:  # a law's special kind yields to its general rule: in the places its law's hits hold, it comes last
        places: dict[str, list[int]] = {}
        for i, (_, hit) in enumerate(scored):
            places.setdefault(hit.chunk.doc_id, []).append(i)
        for held in places.values():
            for i, fh in zip(held, sorted((scored[i] for i in held), key=lambda fh: fh[0]["apart"])):
                scored[i] = fh
    return [hit.model_copy(update={"features": features, "score": features["score"], "rank": i})
            for i, (features, hit) in enumerate(scored[:limit], start=1)]
