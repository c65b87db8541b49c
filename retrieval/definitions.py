"""A question that asks what a term means, and the sentence of a law that defines it.

A law defines a term in a few fixed shapes: "Es calumnia la imputación de un delito…", "Son sociedades de capital la
sociedad de responsabilidad limitada…", "Se entiende por licencia ambiental…", "A los efectos de este Código se
considera documento…", an item of a definitions list ("I. El quejoso, teniendo tal carácter quien…", "(1) 'personal
data' means any information…"). A question asks for one as "¿Qué es X?", "¿Qué se entiende por X?", "¿Quién es el
X…?", "What is a X?", "What does 'X' mean?". The sentence that defines the term the question asks about answers it
before any other that only uses the term (`defined_term`, `defines`; the offline answerer leads with it), and it is
looked for in the laws in scope, not only among the search's hits (`defining_provisions`): a definitions article
shares its term with every article that uses it, and the search ranks those as high. A term matches in either
number and gender, and after "persona" ("la persona quejosa": a law reformed in inclusive language). Each
document's sentences shaped as definitions are read once a process (about a second for the Constitution).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ingest.headings import fold
from ingest.sentences import split_sentences

MAX_TERM_WORDS = 4  # a defined term is a few words: "autoridad responsable", "personal data breach"

_ARTICLE = r"(?:(?:el|la|los|las|lo|un|una|unos|unas|a|an|the)\s+)?"
# where the term asked about ends: its scope ("en el juicio de amparo", "según el Código Penal", "under the GDPR")
_SCOPE = (r"(?:\s+(?:en|segun|para|conforme|de\s+acuerdo|a\s+efectos|para\s+efectos|dentro|in|under|for|according|"
          r"within|legalmente|juridicamente)\b.*)?")
_ASKS = [re.compile(p + rf"(?P<term>[^?¿,;:]+?){_SCOPE}\s*\??\s*$") for p in (
    rf"\bque\s+se\s+entiende\s+(?:legalmente\s+|juridicamente\s+)?(?:por|como)\s+{_ARTICLE}",
    rf"\bque\s+(?:es|son|significa|significan)\s+{_ARTICLE}",
    rf"\bquien(?:es)?\s+(?:es|son|tiene\s+el\s+caracter\s+de)\s+{_ARTICLE}",
    rf"\bcomo\s+se\s+define(?:n)?\s+{_ARTICLE}",
    # in English only a definition's own question: "what is a…" (not "what is the…", "what are the…"), "what is
    # meant by…", "what is the definition of…", "how is … defined"
    r"\bwhat\s+(?:is|are)\s+(?:an?\s+|meant\s+by\s+(?:an?\s+|the\s+)?|the\s+(?:definition|meaning)\s+of\s+(?:an?\s+|the\s+)?)?"
    r"(?!the\b)['‘\"“]?",
)] + [re.compile(rf"\bwhat\s+does\s+{_ARTICLE}['‘\"“]?(?P<term>[^'’\"”?]+?)['’\"”]?\s+mean\b"),
      re.compile(rf"\bhow\s+(?:is|are)\s+{_ARTICLE}['‘\"“]?(?P<term>[^'’\"”?]+?)['’\"”]?\s+defined\b")]
_NOT_TERMS = frozenset({"plazo", "pena", "multa", "requisito", "requisitos", "procedimiento", "diferencia", "objeto",
                        "finalidad", "obligacion", "maximum", "minimum", "highest", "time", "deadline", "penalty",
                        # a word pointing back, not a term: "what is expected regarding…", "what are they…"
                        "they", "their", "its", "these", "those", "this", "that", "it", "considered", "expected",
                        "esto", "eso", "potential", "main", "specific"})


def defined_term(question: str) -> str | None:
    """The term `question` asks the meaning of, folded, without its article ("¿Qué es la autoridad responsable en el
    juicio de amparo?" → "autoridad responsable"); None when it asks something else. A term is at most
    `MAX_TERM_WORDS` words and not a word asking for a value ("¿Qué es el plazo…?" asks for a duration)."""
    folded = fold(question).strip()
    for asks in _ASKS:
        if (m := asks.search(folded)) is None:
            continue
        term = m.group("term").strip(" '‘’\"“”")
        words = term.split()
        if 1 <= len(words) <= MAX_TERM_WORDS and words[0] not in _NOT_TERMS:
            return term
        return None
    return None


def _word(w: str) -> str:
    """A word of the term in either number and gender: "sociedad" / "sociedades", "quejoso" / "quejosa",
    "tercero interesado" / "tercera interesada" (a law reformed in inclusive language: "la persona quejosa")."""
    base = w[:-2] if w.endswith("es") and len(w) > 5 else w[:-1] if w.endswith("s") and len(w) > 4 else w
    if base.endswith(("o", "a")) and len(base) > 3:
        return re.escape(base[:-1]) + r"(?:o|a)s?"
    return re.escape(base) + r"(?:es|s)?"


_LABEL = r"(?:\(?(?:[ivxlc]+|\d+|[a-z])[.)]-?\s+)?"  # an item's label: "I.", "(1)", "a)"
_PERSON = r"(?:personas?\s+)?"  # "la persona quejosa": the party named in inclusive language
_QUOTE = r"['‘\"“’”]?"  # a term in quotes: "(1) 'personal data' means…"
# what follows a term that an item of a definitions list names: "I. La persona quejosa, teniendo tal carácter quien…"
_ITEM_DEFINES = r"(?:,\s*(?:teniendo|pudiendo|entendiendose|siendo|que\s+(?:es|son|tiene)|quien(?:es)?\s)|:|\s+-)"


def defines(sentence: str, term: str) -> bool:
    """Does `sentence` define `term` (folded, as `defined_term` gives it) in one of the shapes a law defines in?"""
    t = r"\s+".join(_word(w) for w in term.split())
    q = _QUOTE
    text = fold(sentence).strip()
    return bool(re.search(rf"^{_LABEL}(?:es|son)\s+{_ARTICLE}{_PERSON}{t}\b", text)
                or re.search(rf"\bse\s+(?:entiende|entendera|entenderan|considera|consideraran|considerara|reputa|"
                             rf"reputara|reputaran|denomina)n?\s+(?:por\s+|como\s+)?{_ARTICLE}{t}\b", text)
                or re.search(rf"^{_LABEL}{_ARTICLE}{_PERSON}{q}{t}{q}\s*"
                             rf"(?:{_ITEM_DEFINES}|\bmeans?\b|\bes\b|\bson\b)", text)
                or re.search(rf"{q}{t}{q}\s+means\b", text))


# a sentence shaped as a definition of some term (`defines` then asks which): read once a document
_SHAPED = re.compile(rf"^{_LABEL}(?:es|son)\s|\bse\s+(?:entiende|considera|reputa|denomina)|\bmeans\b|"
                     rf"^{_LABEL}{_ARTICLE}{_PERSON}{_QUOTE}[\w\s]{{1,60}}?{_QUOTE}\s*{_ITEM_DEFINES}")
# doc id → its sentences shaped as definitions: (article, chunk id, sentence); a doc id's text never changes. The
# documents read last are kept, `SHAPED_DOCS` of them, so a server over an archive holds a bounded few.
SHAPED_DOCS = 256
_SHAPED_BY_DOC: dict[str, list[tuple[str, str, str]]] = {}


def _shaped(index, doc_id: str) -> list[tuple[str, str, str]]:
    if doc_id not in _SHAPED_BY_DOC:
        if len(_SHAPED_BY_DOC) >= SHAPED_DOCS:
            del _SHAPED_BY_DOC[next(iter(_SHAPED_BY_DOC))]
        _SHAPED_BY_DOC[doc_id] = [(chunk.article, chunk.chunk_id, text) for chunk in index.articles(doc_id)
                                  for sent in split_sentences(chunk.text)
                                  for text in [chunk.text[sent.start:sent.end]] if _SHAPED.search(fold(text).strip())]
    return _SHAPED_BY_DOC[doc_id]


def defining_provisions(index, term: str, doc_ids: Sequence[str]) -> list[tuple[str, str, str]]:
    """The (doc id, article, chunk id) of each chunk of the articles of `doc_ids` that defines `term`, in document
    order: a definitions article is found by what it says, however many chunks of the law use the term (the first
    stage ranks those above it)."""
    return list(dict.fromkeys((doc_id, article, chunk_id) for doc_id in doc_ids
                              for article, chunk_id, text in _shaped(index, doc_id) if defines(text, term)))
