"""Text → BM25 terms in the text's own language: Spanish (the gazettes) or English (regulations, code, comments).

A text is analysed with the stop list and Snowball stemmer of its language (`detect_languages`: the one whose
distinctive function words, and for Spanish accented letters, occur more often). Analysing English as Spanish
keeps "the", "of", "is" as content terms that flood BM25 and leaves "executors"/"executor" or "running"/"run"
apart. A text with no evidence either way (code, a bare keyword query, a table) gets both stems of each word, so
it meets Spanish and English texts alike. Queries go through the same function: a Spanish question meets Spanish
chunks with the same stems, and "despidos injustificados" typed without a function word still finds `desp`.

Legal references and identifiers must stay findable, so numbers are kept and compound tokens are emitted twice:
a hyphenated, dotted, `::` or snake_case code ("NOM-035-STPS-2018", "1.500", "run_target") is one unstemmed term
*and* its stemmed parts; a camelCase word ("DiffExecutor") is its stemmed whole and its parts. In Spanish,
"art. 27" / "artículo 27" both yield `articul`, `27` and the reference term `articulo_27`, so a query for an
article number prefers chunks that cite that very article over chunks that merely contain the number.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Literal

import Stemmer

from ingest.sentences import split_sentences

Language = Literal["spanish", "english"]
LANGUAGES: tuple[Language, ...] = ("spanish", "english")

# Snowball's Spanish stop list (accents folded), plus the common forms of ser/estar/haber/tener it lists.
_SPANISH = """
de la que el en y a los del se las por un para con no una su al lo como mas pero sus le ya o este si porque esta
entre cuando muy sin sobre tambien me hasta hay donde quien desde todo nos durante todos uno les ni contra otros ese
eso ante ellos e esto mi antes algunos que unos yo otro otras otra el tanto esa estos mucho quienes nada muchos cual
poco ella estar estas algunas algo nosotros mis tu te ti tus ellas nosotras vosotros vosotras os mio mia mios mias
tuyo tuya tuyos tuyas suyo suya suyos suyas nuestro nuestra nuestros nuestras vuestro vuestra vuestros vuestras esos
esas estoy estas esta estamos estais estan este estes estemos esteis esten estare estaras estara estaremos estareis
estaran estaria estarias estariamos estariais estarian estaba estabas estabamos estabais estaban estuve estuviste
estuvo estuvimos estuvisteis estuvieron estuviera estuvieras estuvieramos estuvierais estuvieran estuviese
estuvieses estuviesemos estuvieseis estuviesen estando estado estada estados estadas estad he has ha hemos habeis
han haya hayas hayamos hayais hayan habre habras habra habremos habreis habran habria habrias habriamos habriais
habrian habia habias habiamos habiais habian hube hubiste hubo hubimos hubisteis hubieron hubiera hubieras
hubieramos hubierais hubieran hubiese hubieses hubiesemos hubieseis hubiesen habiendo habido habida habidos habidas
soy eres es somos sois son sea seas seamos seais sean sere seras sera seremos sereis seran seria serias seriamos
seriais serian era eras eramos erais eran fui fuiste fue fuimos fuisteis fueron fuera fueras fueramos fuerais fueran
fuese fueses fuesemos fueseis fuesen siendo sido tengo tienes tiene tenemos teneis tienen tenga tengas tengamos
tengais tengan tendre tendras tendra tendremos tendreis tendran tendria tendrias tendriamos tendriais tendrian tenia
tenias teniamos teniais tenian tuve tuviste tuvo tuvimos tuvisteis tuvieron tuviera tuvieras tuvieramos tuvierais
tuvieran tuviese tuvieses tuviesemos tuvieseis tuviesen teniendo tenido tenida tenidos tenidas tened
"""
# Snowball's English stop list, with the apostrophe forms reduced to what the tokenizer sees ("don't" → "don", "t").
_ENGLISH = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it
its itself they them their theirs themselves what which who whom this that these those am is are was were be been
being have has had having do does did doing would should could ought a an the and but if or because as until while
of at by for with about against between into through during before after above below to from up down in out on off
over under again further then once here there when where why how all any both each few more most other some such no
nor not only own same so than too very s t can will just don shall may might must ll re ve d m
"""
STOPWORDS: dict[str, frozenset[str]] = {"spanish": frozenset(_SPANISH.split()), "english": frozenset(_ENGLISH.split())}
_STOPWORDS_ANY = STOPWORDS["spanish"] | STOPWORDS["english"]
# Words that tell the languages apart: each list minus the words both share ("a", "no", "me", "he", "has", …).
_MARKERS = {
    "spanish": STOPWORDS["spanish"] - STOPWORDS["english"],
    "english": STOPWORDS["english"] - STOPWORDS["spanish"],
}

# Abbreviations that Spanish legal texts and their readers use for the same word.
_ABBREVIATIONS = {"art": "articulo", "arts": "articulos", "fracc": "fraccion", "frac": "fraccion"}
_ARTICLE_STEM = "articul"

# A token: word characters, optionally joined by - / . , or :: into a code ("NOM-035-STPS-2018", "1.500", "a::b").
_TOKEN = re.compile(r"\w+(?:(?:[-/.,]|::)\w+)*")
_JOINERS = re.compile(r"::|[-/.,_]")
# camelCase and PascalCase boundaries: "DiffExecutor" → Diff|Executor, "HTTPServer" → HTTP|Server.
# An acronym's plural stays whole ("DOFs", "PyMEs" → Py|MEs).
_CAMEL = re.compile(r"(?<=[a-zà-ÿ0-9])(?=[A-ZÀ-Þ])|(?<=[A-ZÀ-Þ])(?=[A-ZÀ-Þ][a-zà-ÿ])(?![A-ZÀ-Þ]s\b)")
_SPANISH_LETTERS = re.compile(r"[áéíóúñü¿¡]", re.IGNORECASE)
_NUMBER = re.compile(r"\d[\d.,]*")
_ORDINAL = re.compile(r"(\d+)(?:o|a|º|ª)")  # "ARTÍCULO 1o.-", "1º", "3a" → 1, 1, 3


def _folding_table() -> dict[int, str]:
    """Map accented Latin letters to their base letter, keeping ñ (año ≠ ano)."""
    table: dict[int, str] = {}
    for code in range(0xC0, 0x250):
        char = chr(code)
        if char in "ñÑ":
            continue
        base = unicodedata.normalize("NFD", char)[0]
        if base != char and base.isascii() and base.isalpha():
            table[code] = base.lower()
    return table


_FOLD = _folding_table()
_STEMMERS = {language: Stemmer.Stemmer(language) for language in STOPWORDS}


def normalize(text: str) -> str:
    """Lowercase and fold accents (ñ kept)."""
    return text.lower().translate(_FOLD)


def detect_languages(text: str) -> tuple[Language, ...]:
    """The language of `text`: the one whose distinctive function words (and, for Spanish, accented letters and
    ¿ ¡) occur more often; both when neither shows up (code, a keyword query, a table), so such a text meets
    Spanish and English texts alike."""
    return _detect(text, _TOKEN.findall(text))


def _detect(text: str, tokens: list[str]) -> tuple[Language, ...]:
    spanish, english = len(_SPANISH_LETTERS.findall(text)), 0
    for token in tokens:
        word = normalize(token)
        if word in _MARKERS["spanish"]:
            spanish += 1
        elif word in _MARKERS["english"]:
            english += 1
    if spanish == english == 0:
        return LANGUAGES
    return ("english",) if english > spanish else ("spanish",)


@lru_cache(maxsize=400_000)
def _stem(word: str, language: Language) -> str | None:
    """One plain normalised word → its stemmed term in `language`, or None for a stopword."""
    if language == "spanish":
        word = _ABBREVIATIONS.get(word, word)
    if word in STOPWORDS[language]:
        return None
    if word[0].isdigit():
        ordinal = _ORDINAL.fullmatch(word)
        return ordinal.group(1) if ordinal else word
    return _STEMMERS[language].stemWord(word)


@lru_cache(maxsize=400_000)
def _word_terms(word: str, languages: tuple[Language, ...]) -> tuple[str, ...]:
    """A word's distinct stems in `languages`; none if it is a stopword in any of them."""
    stems = [_stem(word, language) for language in languages]
    if None in stems:
        return ()
    return tuple(dict.fromkeys(stems))  # type: ignore[arg-type]


@lru_cache(maxsize=400_000)
def _token_terms(token: str, languages: tuple[Language, ...]) -> tuple[tuple[tuple[str, ...], bool], ...]:
    """One raw token → its terms as (terms, is a word) entries; a word's first stem is what the next number may
    refer to ("artículo 27"), a compound's whole is not."""
    if token.isdigit() or (token.islower() and token.isalnum()):  # the common case: a plain word or number
        stems = _word_terms(token.translate(_FOLD), languages)
        return ((stems, True),) if stems else ()
    entries: list[tuple[tuple[str, ...], bool]] = []
    pieces = [piece for piece in _JOINERS.split(token) if piece]
    if len(pieces) > 1 or "_" in token:  # a code: its exact spelling is a term ("nom-035-stps-2018", "run_target")
        entries.append(((normalize(token),), False))
    for piece in pieces:
        words = (piece,) if piece.islower() or piece.isupper() else _CAMEL.split(piece)
        if len(words) > 1:  # camelCase: also the word a reader types in lower case ("diffexecutor")
            entries.append((_word_terms(normalize(piece), languages), False))
        entries += ((stems, True) for word in words if (stems := _word_terms(normalize(word), languages)))
    return tuple((terms, is_word) for terms, is_word in entries if terms)


def analyze(text: str, languages: tuple[Language, ...] | None = None) -> list[str]:
    """The BM25 terms of `text`, in order (duplicates kept: term frequency counts them).

    `languages` forces the analysis; by default they are detected from the text itself.
    """
    tokens = _TOKEN.findall(text)
    if languages is None:
        languages = _detect(text, tokens)
    references = "spanish" in languages
    terms: list[str] = []
    previous: str | None = None
    for token in tokens:
        for stems, is_word in _token_terms(token, languages):
            if is_word:
                if references and previous == _ARTICLE_STEM and _NUMBER.fullmatch(stems[0]):
                    terms.append(f"articulo_{stems[0]}")
                previous = stems[0]
            terms += stems
    return terms


# Question words carry no content (the analyzer keeps some of them: "cuántos", "cuál", "qué").
_QUESTION_TERMS = frozenset(analyze("qué cuál cuáles cuándo cuánto cuánta cuántos cuántas dónde quién quiénes cómo "
                                    "por qué indica señala establece dice dispone"))


def content_terms(text: str) -> set[str]:
    """The analyzer's terms (folded, stemmed, stopwords out) minus question words: what a question asks about."""
    return set(analyze(text)) - _QUESTION_TERMS


# Compound prepositions: their nouns relate what a sentence states, they name none of it ("Derecho de separación en
# caso de falta de distribución de dividendos." states no "casos"; "a fin de", "en virtud de", "a través de").
_COMPOUND_PREPOSITION = re.compile(r"\b(?:en(?: el)? caso de|(?:a|con el) fin de|en virtud de|por medio de|"
                                   r"a trav[eé]s de|con(?: el)? objeto de|en relaci[oó]n con|de conformidad con|"
                                   r"en funci[oó]n de)\b", re.IGNORECASE)


def stated_terms(text: str) -> set[str]:
    """`content_terms` of what `text` states or asks: the nouns of its compound prepositions ("en caso de", "a
    través de", "con objeto de") left out. The extractive answerer and the reranker read questions, sentences and
    article titles so; the relevance judgement keeps `content_terms`, on which its cut-off (`support.RELEVANT_AT`)
    was fitted."""
    return content_terms(_COMPOUND_PREPOSITION.sub(" ", text))


def case_terms(question: str) -> set[str]:
    """The content terms only the *case* a question tells uses: its sentences that state the asker's situation
    rather than ask ("Mi cuñado se llevó mi coche sin permiso el viernes y me lo devolvió el sábado." before "¿Qué
    pena prevé el Código Penal para lo que hizo?": cuñado, coche, viernes…, not pena). Empty when no sentence asks (a
    statement is all question) or every one does. Both parts are analysed in the whole question's language."""
    parts = [question[s.start:s.end] for s in split_sentences(question)]
    asking = ["?" in p or "¿" in p for p in parts]
    if not any(asking) or all(asking):
        return set()
    languages = detect_languages(question)
    told = set(analyze(" ".join(p for p, a in zip(parts, asking) if not a), languages))
    asked = set(analyze(" ".join(p for p, a in zip(parts, asking) if a), languages))
    return told - asked - _QUESTION_TERMS


# The noun a question asks several of: a plural right after its interrogative ("¿En qué casos procede…?", "¿Qué
# requisitos…?", "¿Cuáles son los documentos…?", "Which documents…", "Which are the requirements…").
# An unaccented "que" is a relative ("…las utilidades que los trabajadores…") unless it opens the question; "¿Qué son
# las sociedades…?" asks what they are, and "¿Cuántos…?" how many: neither asks for a list.
_ASKS_SEVERAL = re.compile(
    r"(?:¿\s*(?:[^\W\d_]+\s+)?(?:qu[eé]|cu[aá]les)|\bqu[ée]|\bcu[aá]les|\bwhich|\bwhat)\s+"
    r"(?:(?<=les\s)son\s+(?:los|las)\s+|(?<=ch\s)are\s+the\s+)?([^\W\d_]{4,})\b", re.IGNORECASE)


def asks_several(question: str) -> set[str]:
    """The terms of the plural nouns the question's interrogatives ask for (`casos` in "¿En qué casos procede el
    amparo indirecto?"): a law answers them with a sentence announcing an enumeration ("El amparo indirecto
    procede:" and its fractions), which lists what the noun names without repeating it."""
    languages = detect_languages(question)
    out: set[str] = set()
    for match in _ASKS_SEVERAL.finditer(question):
        word = match.group(1)
        if word.lower().endswith("s"):
            out.update(analyze(word, languages))
    return out - _QUESTION_TERMS


# The office an eligibility rule is about: "Para ser diputado se requiere:", "Para ser electo Presidente…", "Para que
# una persona pueda ser titular de la Fiscalía General…", and a question's "¿Qué se necesita para ser senador?".
_OFFICE = re.compile(r"\bpara\s+(?:que\s+(?:una\s+persona\s+)?pueda\s+)?ser\s+(?:(?:electo|electa|nombrad[oa]|"
                     r"designad[oa]|reelect[oa])\s+)?(?:titular\s+(?:de\s+la|del|de)\s+)?(?:(?:el|la|los|las)\s+)?"
                     r"(?!(?:electo|electa|nombrad|designad|reelect)\w*\b)([^\W\d_]{3,})", re.IGNORECASE)


# another office the same requirements are for, named after the first: "Para ser electo Magistrada o Magistrado de
# Circuito, así como Jueza o Juez de Distrito, se necesita:" (the complement "de Circuito" skipped, a capital after
# "o", "u", "y", "así como" or a comma)
_AND_OFFICE = re.compile(r"(?:\s+(?:de|del)(?:\s+(?:la|los|las))?\s+[A-ZÁÉÍÓÚÑ][^\W\d_]*)*"
                         r"(?:\s*,\s*(?:así\s+como\s+|[oyu]\s+)?|\s+(?:[oyu]|así\s+como)\s+)"
                         r"(?:(?:el|la|los|las)\s+)?([A-ZÁÉÍÓÚÑ][^\W\d_]{2,})")


def offices(text: str) -> list[tuple[int, str]]:
    """Where `text` names an office it states the requirements for, and the office's term, in order ("Para ser
    diputado se requiere:" → (0, diput)): a law lists each office's requirements in an article of its own. The
    offices one statement names together share its position ("Para ser electo Magistrada o Magistrado de Circuito,
    así como Jueza o Juez de Distrito…" → (0, magistr), (0, juez), …)."""
    languages = detect_languages(text)
    out = []
    for m in _OFFICE.finditer(text):
        words, at = [m.group(1)], m.end()
        while (more := _AND_OFFICE.match(text, at)) is not None:
            words.append(more.group(1))
            at = more.end()
        out += [(m.start(), terms[0]) for word in words if (terms := analyze(word, languages))]
    return out


# the label a provision's text opens with: "1.", "(b)", "IV.-", "a)"
PARAGRAPH_LABEL = re.compile(r"^\s*(?:\(?(?:\d+|[IVXLCDM]+|[a-zA-Z])(?:\.-|[.)\-–])\s+)")
# A sentence that opens by pointing back to the one before it: "Lo anterior, …", "Este, a su vez, …", or a
# demonstrative and a noun ("Este derecho no podrá ser invocado…", "Dicho recurso se podrá interponer…", "Such
# measures…"); after the label a paragraph may open with ("2. Esta disposición…"). "Esta Ley", "This Regulation" point
# to the text itself, not to a sentence.
_POINTS_BACK = re.compile(rf"{PARAGRAPH_LABEL.pattern}?(?:(?:lo anterior|esto|ello)\b|"
                          r"(?:est[ea]s?|dich[oa]s?|tal(?:es)?|(?:el|la|los|las)\s+(?:citad|mencionad|referid)[oa]s?|"
                          r"this|these|such)\b\s*(?:,|(?P<noun>[^\W\d_]+)))", re.IGNORECASE)
_OWN_TEXT = frozenset({"ley", "codigo", "reglamento", "constitucion", "decreto", "acuerdo", "orden", "regulation",
                       "directive", "act", "convention"})
# nouns a provision names itself by: "Esta disposición no es aplicable a los extraños…" points to the one before
_PROVISION = frozenset({"disposicion", "precepto", "regla", "norma", "provision", "rule"})


def points_back(sentence: str, before: str) -> bool:
    """Whether `sentence` opens by pointing back to `before`, the sentence before it, and so states of it what it
    says: "Lo anterior", a demonstrative standing alone, a demonstrative naming a provision ("Esta disposición"), or
    one whose noun `before` names ("Este derecho" after "toda persona tiene derecho a buscar asilo"; not "Estas
    propuestas" after "…los proyectos de presupuestos", whose referent the sentence before does not name so)."""
    match = _POINTS_BACK.match(sentence)
    if match is None:
        return False
    noun = match.group("noun")
    if noun is None:
        return True
    word = normalize(noun)
    if word in _OWN_TEXT:
        return False
    languages = detect_languages(sentence)
    terms = set(analyze(noun, languages))
    return word in _PROVISION or bool(terms) and terms <= set(analyze(before, languages))


_KIND = re.compile(r"\b(\w+)\s+de\s+(?=(\w+))", re.IGNORECASE)  # a kind may have kinds: "juicio de amparo de…"
# Numbers written as words, Spanish and English ("quince", "doscientos", "fifteen"): a count, not a kind (`kinds`), or
# the count a duration or a number is stated by (`answers.coverage`).
NUMBER_WORDS = (r"uno|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince|dieci\w+|"
                r"veint\w+|treinta|cuarenta|cincuenta|sesenta|setenta|ochenta|noventa|cien(?:to)?|\w+cientos|"
                r"quinientos|mil|millon(?:es)?|one|two|three|four|five|six|seven|eight|nine|ten|\w+teen|twenty|"
                r"thirty|sixty|ninety")
_COUNT = re.compile(rf"(?:\d.*|un|{NUMBER_WORDS})", re.IGNORECASE)


def _kind_pairs(text: str) -> Iterator[tuple[str, str, str]]:
    """(noun term, kind term, the kind's folded word) for each kind `text` names (`kinds`)."""
    languages = detect_languages(text)
    for match in _KIND.finditer(text):
        word = normalize(match.group(2))
        if _COUNT.fullmatch(word) or _COUNT.fullmatch(normalize(match.group(1))):  # "3 de marzo": a day, no kind
            continue
        head, kind = (analyze(w, languages) for w in match.groups())
        if len(head) <= 1 and len(kind) == 1:
            yield head[0] if head else "", kind[0], word


def kinds(text: str) -> dict[str, set[str]]:
    """The kinds the text names its nouns by: term → the terms that name its kinds. A noun followed by "de" and a
    noun with no article between names a kind of it ("recurso de reclamación", "juicio de amparo", "derecho de
    separación"); with an article it tells whose ("el recurso de la parte", "del Periódico"), and a count tells how
    many ("plazo de quince días"), and a count before it is a date or a share ("3 de marzo", "dos de ellos"): none
    is a kind. A kind listed after another ("drogas tóxicas … o de bebidas alcohólicas") has no noun of its own: it
    is kept under ""."""
    out: dict[str, set[str]] = {}
    for head, kind, _ in _kind_pairs(text):
        out.setdefault(head, set()).add(kind)
    return out


def kind_words(text: str) -> dict[str, set[str]]:
    """The words `text` names its kinds by, folded: kind term → its words ("recurso de reclamación": reclam →
    {"reclamacion"}). The term gathers the word's whole family ("reclamarse", "el acto reclamado"); the word is the
    kind's own name."""
    out: dict[str, set[str]] = {}
    for _, kind, word in _kind_pairs(text):
        out.setdefault(kind, set()).add(word)
    return out


# A run of capitalised words, lower-case stopwords allowed between them ("Servicio de Administración Tributaria").
_NAME_WORD = re.compile(r"[A-ZÁÉÍÓÚÑÜ][^\W\d_]*")
_PUNCTUATION = ".,;:()[]«»\"'“”¿?¡!"
ACRONYM_WORDS = range(2, 7)  # an acronym spells this many words


def acronyms(text: str) -> set[str]:
    """The terms of the acronyms `text` spells out: the initials of every run of 2–6 consecutive capitalised words,
    stopwords between them skipped, punctuation ending a run ("Servicio de Administración Tributaria" → sat,
    "General Data Protection Regulation" → gdpr, "Special Publication" → sp). A text that names the SAT in full
    states "SAT"."""
    initials: list[str] = []
    run: list[str] = []

    def close() -> None:
        initials.extend("".join(run[i:i + n]) for n in ACRONYM_WORDS for i in range(len(run) - n + 1))
        run.clear()

    for token in text.split():
        word = token.strip(_PUNCTUATION)
        if token[0] in _PUNCTUATION and word:  # punctuation before the word ends the run before it
            close()
        if _NAME_WORD.fullmatch(word):
            run.append(normalize(word[0]))
        elif not (run and normalize(word) in _STOPWORDS_ANY):
            close()
        if token[-1] in _PUNCTUATION:  # punctuation after it ends the run with it
            close()
    close()
    return set(analyze(" ".join(initials), LANGUAGES))


# A number a text names one entry by: numbers joined by "-", "/" or "." ("el juicio 5929/20", "Rol 161.630-2023",
# the section "110-26"); not a quantity ("1.500", "2.5"), a date ("15/12/2024") nor a span of years ("2024-2025").
# A name that holds a number ("COVID-19", "G-20") names a thing many entries speak of, not one entry.
_ENTRY_NUMBER = re.compile(r"\d+(?:[-/.]\d+)+")
_QUANTITY = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+[.,]\d+")
_DATE_CODE = re.compile(r"\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{4}[-/]\d{4}")


def identifiers(text: str) -> set[str]:
    """The numbers `text` names single entries by, as the analyzer keeps them whole: a case file ("el juicio
    5929/20", "expediente 2433/18"), a court roll ("Rol 161.630-2023"), a numbered section ("110-26")."""
    return {token for token in (t.rstrip(".") for t in _TOKEN.findall(text))
            if _ENTRY_NUMBER.fullmatch(token) and not _QUANTITY.fullmatch(token) and not _DATE_CODE.fullmatch(token)}
