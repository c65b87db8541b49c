"""Legal references in a question or a text: "art. 27", "artículo 3o Bis", "el 27 constitucional", "Ley de Amparo".

One parser for every layer: retrieval reads questions with it, ingest reads reform-decree titles and article
headings with it. `article_key` is the canonical form an article is stored and looked up under.

How `parse_references` works: one module-level regex finds the *pieces* of a reference (an article list, a
paragraph, a fracción, an apartado, an inciso, a law name or acronym); pieces separated only by a connector
("de la", "del", "al", ", ", "en su") are merged into one `LegalReference`, as long as the slot the new piece fills
is still empty. Accents are optional everywhere; law names need their capitals ("Ley de Amparo", not "ley"). The
Constitution is also read by the other names Spanish legal usage gives it ("la Carta Magna", "la Ley Fundamental").
"""

from __future__ import annotations

import re

import ingest.headings as _headings  # module import: tolerant of a circular import from ingest.headings
from ingest.models import DocType, LegalReference

# -- ordinals written as words ("décimo segundo" → 12) --------------------------------------------------------
_TENS = (r"(?:d[eé]cim|vig[eé]sim|trig[eé]sim|cuadrag[eé]sim|quincuag[eé]sim|sexag[eé]sim|septuag[eé]sim"
         r"|octog[eé]sim|nonag[eé]sim)[oa]")
_UNITS = (r"(?:primer[oa]?|tercer[oa]?|(?:segund|cuart|quint|sext|s[eé]ptim|s[eé]tim|octav|noven|non|und[eé]cim"
          r"|duod[eé]cim)[oa])")
_ORD = rf"(?:{_TENS}(?:[\s-]?{_UNITS})?|{_UNITS})(?!\w)"
_TEN_VALUES = {"decim": 10, "vigesim": 20, "trigesim": 30, "cuadragesim": 40, "quincuagesim": 50, "sexagesim": 60,
               "septuagesim": 70, "octogesim": 80, "nonagesim": 90}
_UNIT_VALUES = {"primer": 1, "segund": 2, "tercer": 3, "cuart": 4, "quint": 5, "sext": 6, "septim": 7, "setim": 7,
                "octav": 8, "noven": 9, "non": 9, "undecim": 11, "duodecim": 12}
_ORD_VALUE = re.compile(rf"^(?:({'|'.join(_TEN_VALUES)})[oa])?({'|'.join(_UNIT_VALUES)})?[oa]?$")
_NON_LETTERS = re.compile(r"[^a-z]")
_ROMAN_DIGITS = [(10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]

# -- article numbers ----------------------------------------------------------------------------------------
_LATIN = _headings.LATIN_ORDINALS
_LETTER = _headings.ARTICLE_LETTER  # "283 bis a)"
_NUM = (rf"\d+(?:\.\d+)*(?:o\b\.?|\s?[º°ª]\.?)?(?:-(?-i:[A-ZÑ])(?![a-zñ]))?(?:[\s-]+{_LATIN}\b{_LETTER}?)?"
        r"(?:\s?\(\d+\))?")
_SEP = r"(?:\s*,\s*(?:(?:y|e|and)\s+)?|\s+(?:y|e|o|u|a|al|to|and|or|through)\s+|\s*[–—]\s*)"
_NUMLIST = rf"{_NUM}(?:{_SEP}{_NUM})*"
_NUM_ITEM = re.compile(rf"(?P<sep>{_SEP})?(?P<num>{_NUM})", re.I)
_RANGE_SEP = re.compile(r"\b(?:a|al|to|through)\b|[–—]", re.I)
_PAREN = re.compile(r"\((\d+)\)\s*$")
_KEY_PREFIX = re.compile(r"^\s*(?:art[ií]culos?|articles?|arts?\.?|§+)\s*", re.I)
_KEY_NUM = re.compile(rf"^(\d+(?:\.\d+)*)(?:o|\s?[º°ª])?\.?(?:-(?-i:([A-ZÑ]))(?![a-zñ]))?(?:[\s.-]*({_LATIN})\b"
                      rf"(?:\s+((?-i:[a-z]))\))?)?", re.I)
_KEY_WORD = re.compile(rf"^(?:({_ORD})|([uú]nic[oa])\b)", re.I)

# -- law names ----------------------------------------------------------------------------------------------
_TYPE_WORD = (r"(?-i:Real\s+Decreto(?:-ley)?|REAL\s+DECRETO|Constituci[oó]n|CONSTITUCI[OÓ]N|Ley|LEY"
              r"|C[oó]digo|C[OÓ]DIGO"
              r"|Reglamento|REGLAMENTO|Estatuto|ESTATUTO|Decreto|DECRETO|Orden|ORDEN|Acuerdo|ACUERDO|Lineamientos"
              r"|LINEAMIENTOS|Convenio|CONVENIO|Tratado|TRATADO|Convenci[oó]n|Circular|Resoluci[oó]n|RESOLUCI[OÓ]N"
              r"|Norma\s+Oficial\s+Mexicana|NORMA\s+OFICIAL\s+MEXICANA)")
_CAPWORD = r"(?!(?-i:Art[ií]culo|ART[IÍ]CULO)\b)(?-i:[A-ZÁÉÍÓÚÑ]\w+)\b(?!/)"
_LINK = r"(?:de|del|la|las|los|el|para|en|sobre|a|al|una|un)"
_NAME_MORE = rf"(?:\s+(?:{_LINK}\s+)*{_CAPWORD}|\s+(?:y|e)\s+(?:{_LINK}\s+)*(?!{_TYPE_WORD}\b){_CAPWORD})"
_LAW_NUM = r"(?:(?-i:[A-Z]{2,6})/\d+/\d{4}|\d+/\d{2,4}|\d+\s+de\s+\d{4}\b|\d+\b)"
# What Spanish legal usage calls a country's constitution besides its name ("la Carta Magna", "la Ley Fundamental",
# "la Ley Suprema de toda la Unión", the words of CPEUM art. 133): the Constitution, unless a name of its own follows
# ("la Ley Fundamental de la República Federal de Alemania", "la Ley Fundamental del Estado de …": another law's name)
_CONSTITUTION_NAME = (r"(?-i:Carta\s+Magna|CARTA\s+MAGNA|Ley\s+(?:Fundamental|Suprema)|LEY\s+(?:FUNDAMENTAL|SUPREMA)"
                      r"|Norma\s+(?:Fundamental|Suprema)|NORMA\s+(?:FUNDAMENTAL|SUPREMA))\b"
                      r"(?!\s+(?:de|del)(?:\s+(?:la|las|los|el))?\s+(?-i:[A-ZÁÉÍÓÚÑ]))")
# A law named by the provisions it regulates, as Mexican usage names regulating laws: "la Ley Reglamentaria de los
# artículos 103 y 107 constitucionales" (the Ley de Amparo's subtitle), "el Reglamento de los Artículos 121 y 122 de la
# Ley Federal del Trabajo", "la Ley Reglamentaria de las fracciones I y II del artículo 105 de la Constitución". The
# articles are part of the name, not a reference of their own; `regulated` reads what such a name regulates.
_ROMANS = r"(?-i:[IVXLC]+)(?:(?:\s*,\s*|\s+(?:y|e)\s+)(?-i:[IVXLC]+))*"


def _regulated(prefix: str) -> str:
    """The provisions a regulating law's name names ("de los artículos 103 y 107", "de las fracciones I y II del
    artículo 105"), its groups' names prefixed (one pattern may hold it twice)."""
    return (rf"(?:de|del)\s+(?:(?:los|las)\s+)?(?:art[ií]culos?\s+(?P<{prefix}art>{_NUMLIST})"
            rf"|fracci[oó]n(?:es)?\s+(?P<{prefix}fr>{_ROMANS})\s+del\s+art[ií]culo\s+(?P<{prefix}art1>{_NUM}))")


_REGULATING = (rf"(?P<rtype>(?-i:[Ll]ey\s+[Rr]eglamentaria|LEY\s+REGLAMENTARIA|[Rr]eglamento|REGLAMENTO))\s+"
               rf"{_regulated('r_')}"
               r"(?:\s*,?\s*(?:constitucional(?:es)?\b|(?:de|del)\s+(?:la\s+|el\s+)?"
               rf"(?:{_TYPE_WORD}{_NAME_MORE}*|(?-i:[A-Z]{{2,8}})\b)))?{_NAME_MORE}*")  # "… en el Ramo del Petróleo"
_LAW = (rf"(?P<rname>{_REGULATING})"
        rf"|(?P<cname>{_CONSTITUTION_NAME})"
        rf"|(?P<nom>(?-i:NOM-\d{{3}}-[A-Z0-9]+(?:-[A-Z0-9]+)*-\d{{4}}))"
        rf"|(?P<ltype>{_TYPE_WORD})\b(?!\s+(?-i:Postal|POSTAL))(?P<lname>{_NAME_MORE}*)"
        rf"(?:\s+(?:\((?-i:[A-Z]{{1,5}})\)\s+)?(?:(?:n[uú]m(?:ero)?\.?|n[°º]\.?|no\.)\s*)?(?P<lnum>{_LAW_NUM}))?")
_ACRONYMS = {"CPEUM": DocType.constitucion, "LFT": DocType.ley, "CFF": DocType.codigo, "LISR": DocType.ley,
             "LIVA": DocType.ley, "LGS": DocType.ley, "CNPP": DocType.codigo, "CPF": DocType.codigo,
             "CCF": DocType.codigo, "LGTAIP": DocType.ley, "LAmp": DocType.ley, "RLFT": DocType.reglamento}
_NOT_ACRONYMS = {"LEY", "LOS", "LAS", "LUZ", "RED", "REY", "CON", "COL", "RFC", "CDMX", "CNDH", "CURP", "CFE", "CRE"}
_L_SHAPE = re.compile(r"L[A-Z]{2,7}")
_C_SHAPE = re.compile(r"C[CFNP][A-Z]{0,5}[CFP]")  # codes: CFF, CPF, CCF, CNPP, CFPC, CNPCF (not CNDH, CNBV, CJF)
_ROMAN_ONLY = re.compile(r"[IVXLCDM]+")
_TYPE_PREFIX = [(re.compile(p), t) for p, t in [
    (r"constitucion\b", DocType.constitucion), (r"real decreto\b", DocType.real_decreto), (r"leye?s?\b", DocType.ley),
    (r"codigo\b", DocType.codigo), (r"reglamento\b", DocType.reglamento), (r"estatuto\b", DocType.estatuto),
    (r"decreto\b", DocType.decreto), (r"orden\b", DocType.orden), (r"acuerdo\b", DocType.acuerdo),
    (r"(?:norma oficial mexicana\b|nom-)", DocType.nom), (r"norma\b", DocType.norma),
    (r"lineamientos\b", DocType.lineamientos), (r"convenio\b", DocType.convenio),
    (r"(?:tratado|convencion)\b", DocType.tratado), (r"circular\b", DocType.circular),
    (r"resolucion\b", DocType.resolucion)]]
_STATE_CONSTITUTION = re.compile(r"\b(?:del estado|libre y soberano|de la ciudad)\b")

# -- the pieces of a reference, and what may stand between two pieces of the same reference --------------------
# What a text whose provisions are numbered in words calls one of them: "lineamiento Décimo Cuarto", "numeral
# Tercero", "punto Segundo", "cláusula Primera", "regla Cuarta", "base Segunda", "disposición Quinta".
_CLAUSE_NOUN = r"(?:lineamiento|numeral|punto|cl[aá]usula|regla|base|disposici[oó]n)(?:e?s)?"
# A section numbered in figures: "numeral 5.3", "regla 2.1.3", "sección 110-26" (`ingest.headings.numbered_sections`).
_SECTION = r"\d{1,3}(?:\.\d{1,3}){1,5}(?![.\d]*\d)|\d{2,3}-\d{1,3}(?![\d-])"
_ROMAN = r"(?-i:[IVXLC]+)(?:-(?-i:[A-ZÑ])(?![a-zñ])|\s+(?:bis|ter)\b)?(?!\w)"
# after "fracción" a numeral typed in small letters is one too ("la fracción iii"): the word says what follows
_ROMAN_TYPED = r"(?:(?-i:[IVXLC]+)|(?-i:[ivxlc]+))(?:-(?-i:[A-ZÑ])(?![a-zñ])|\s+(?:bis|ter)\b)?(?!\w)"
_PIECE = re.compile(rf"""
    (?:\b(?:art[ií]culos?|arts?\.?|articles?)\s*|§§?\s*)(?P<art>{_NUMLIST})
    (?P<art_const>\s+constitucional(?:es)?\b)?
  | \bart[ií]culo\s+(?P<artw>{_ORD}|[uú]nico\b)
  | \b(?P<secn>{_CLAUSE_NOUN}|secci[oó]n(?:es)?|sections?|incisos?)\s+(?P<sec>{_SECTION})
  | \b(?P<cln>{_CLAUSE_NOUN})\s+(?P<clw>{_ORD}|[uú]nic[oa]\b)
  | \b(?P<clw2>{_ORD})\s+(?P<cln2>{_CLAUSE_NOUN})\b
  | \b(?P<cn>{_NUMLIST})\s+constitucional(?:es)?\b
  | \b(?:p[aá]rrafos?|paragraph)\s+(?P<par>{_ORD}|\d+\b)
  | \b(?P<par2>{_ORD})\s+p[aá]rrafos?\b
  | \b(?P<last>(?:ante)?pen[uú]ltimo|[uú]ltimo)\s+p[aá]rrafo\b
  | \bp[aá]rrafo\s+(?P<last2>(?:ante)?pen[uú]ltimo|[uú]ltimo)\b
  | \bfracci[oó]n(?:es)?\s+(?P<fr>{_ROMAN_TYPED}|{_ORD})(?:(?:\s*,\s*(?:y\s+)?|\s+(?:y|e|a|al)\s+){_ROMAN_TYPED})*
  | \bapartados?\s+(?P<ap>(?-i:[A-Z])|\d{{1,2}}(?![\d.,]\d))(?:\)|\b)
  | \bincisos?\s+(?P<inc>[a-zñ])(?:\)|\b)
  | {_LAW}
  | \b(?P<acr>(?-i:{'|'.join(_ACRONYMS)}|[LCR][A-Z]{{2,7}}))\b
""", re.I | re.X)
_CONNECTOR = re.compile(r"[\s,]*(?:(?:ambos|ambas|todos|todas)\s+)?(?:(?:de|a|en)\s+(?:la|las|los|el)|del|al|de|a"
                        r"|en\s+su|en|of\s+the|of|in\s+the|in)?[\s,]*", re.I)
# after an article's number: one of a text's transitory provisions ("el artículo tercero transitorio")
TRANSITORY_AFTER = re.compile(r"[\s.,]*transitori", re.I)
# what follows a law's name and still belongs to it ("…, Reglamentaria de los artículos 103 y 107 de la …")
_NAME_TAIL = re.compile(r"[\s,]*reglamentari[oa]\s+(?:de|del)(?:\s+(?:la|las|los|el))?\s*"
                        r"|\s*(?:de|del)(?:\s+(?:la|las|los|el))?\s*", re.I)


def _ordinal(word: str) -> int | None:
    """ "décimo segundo" → 12, "primer" → 1, "Tercera" → 3; None when `word` is not an ordinal."""
    m = _ORD_VALUE.match(_NON_LETTERS.sub("", _headings.fold(word)))
    if not m or not (m.group(1) or m.group(2)):
        return None
    return (_TEN_VALUES[m.group(1)] if m.group(1) else 0) + (_UNIT_VALUES[m.group(2)] if m.group(2) else 0)


def _roman(n: int) -> str:
    out = ""
    for value, digits in _ROMAN_DIGITS:
        while n >= value:
            out, n = out + digits, n - value
    return out


def article_key(label: str) -> str | None:
    """Canonical key of an article number as printed: "27" → "27", "3o." → "3", "3o Bis" → "3 Bis",
    "283 bis a)." → "283 Bis a)",
    "330-A" → "330-A", "Artículo 14.-" → "14", "Article 5" → "5", "§ 1.4" → "1.4",
    "Artículo Primero.-" → "1", "ARTÍCULO DÉCIMO SEGUNDO" → "12", "Artículo Único" → "Único".
    None when `label` names no article number."""
    text = _KEY_PREFIX.sub("", label.strip())
    m = _KEY_NUM.match(text)
    if not m:
        w = _KEY_WORD.match(text)
        if not w:
            return None
        return str(_ordinal(w.group(1))) if w.group(1) else "Único"
    number, letter, latin, lettered = m.group(1), m.group(2), m.group(3), m.group(4)
    head, dot, rest = number.partition(".")
    number = (head.lstrip("0") or "0") + dot + rest
    if letter:
        number = f"{number}-{letter.upper()}"
    if latin:
        number = f"{number} {_headings.fold(latin).capitalize()}"
    if lettered:
        number = f"{number} {lettered})"
    return number


def _articles(numlist: str) -> tuple[list[str], int | None]:
    """Keys of an article list ("5o. a 9o." → 5…9, "14 y 16") and the paragraph of its first item ("5(2)" → 2)."""
    keys: list[str] = []
    paragraph = None
    for m in _NUM_ITEM.finditer(numlist):
        key = article_key(m.group("num"))
        paren = _PAREN.search(m.group("num"))
        if paren and paragraph is None and not keys:
            paragraph = int(paren.group(1))
        if key is None:
            continue
        if m.group("sep") and _RANGE_SEP.search(m.group("sep")) and keys and keys[-1].isdigit() and key.isdigit() \
                and 0 < int(key) - int(keys[-1]) <= 300:
            keys.extend(str(n) for n in range(int(keys[-1]) + 1, int(key)))
        if key not in keys:
            keys.append(key)
    return keys, paragraph


def _is_acronym(token: str) -> bool:
    """A legal-acronym shape: a known one, or an all-caps L…/C…/R… token that is not a word or a roman numeral."""
    if token in _ACRONYMS:
        return True
    if token in _NOT_ACRONYMS or _ROMAN_ONLY.fullmatch(token) or not token.isupper():
        return False
    vowels = sum(c in "AEIOU" for c in token)
    if token[0] == "R":
        return _is_acronym(token[1:])  # the regulation of a law: RLFT
    if token[0] == "C":
        return bool(_C_SHAPE.fullmatch(token))
    return bool(_L_SHAPE.fullmatch(token)) and vowels * 4 <= len(token)


def law_type_of(name: str) -> DocType | None:
    """The document type a law name implies: "Ley de Amparo" → LEY, "Real Decreto 353/2024" → REAL DECRETO,
    "CPEUM" → CONSTITUCIÓN, "LFT" → LEY, "CFF" → CÓDIGO, "RLFT" → REGLAMENTO. None when it implies none."""
    name = name.strip()
    if _is_acronym(name):
        return _ACRONYMS.get(name) or {"L": DocType.ley, "C": DocType.codigo, "R": DocType.reglamento}[name[0]]
    folded = _headings.fold(name)
    return next((t for p, t in _TYPE_PREFIX if p.match(folded)), None)


_NOUNS = {"clausula": "cláusula", "disposicion": "disposición", "seccion": "sección"}


def _noun(word: str) -> str:
    """A provision's noun as written, singular and accented: "Lineamientos" → "lineamiento", "cláusulas" →
    "cláusula", "numerales" → "numeral", "secciones" → "sección"."""
    folded = _headings.fold(word)
    for plural, singular in (("iones", "ion"), ("ales", "al"), ("s", "")):
        if folded.endswith(plural):
            folded = folded[: -len(plural)] + singular
            break
    return _NOUNS.get(folded, folded)


_OTHER_NAME = re.compile(_CONSTITUTION_NAME)
# what a regulating law's name or title says it regulates, wherever in the name: "Ley de Amparo, Reglamentaria de los
# Artículos 103 y 107 de la Constitución …", "LEY REGLAMENTARIA DEL ARTÍCULO 5o. CONSTITUCIONAL", "Reglamento de …"
_REGULATES = re.compile(r"(?:\breglamentari[oa]|^\s*reglamento)\s+" + _regulated("")
                        + r"(?:\s*,?\s*(?:(?P<const>constitucional(?:es)?)\b|(?:de|del)\s+(?:la\s+|el\s+)?"
                          r"(?P<law>[^,;?]+)))?", re.I)
_FEDERAL_CONSTITUTION = re.compile(r"constitucion(?:\s+politica(?:\s+de\s+los\s+estados\s+unidos\s+mexicanos)?)?\s*$")


def regulated(name: str) -> tuple[frozenset[str], str] | None:
    """What a law named by the provisions it regulates regulates: the provisions (article keys, "105 fr. I" for a
    fracción) and the law they are of ("constitución" for the federal Constitution, else that law's name as written:
    "Ley Federal del Trabajo", "LFT"). "la Ley Reglamentaria de los artículos 103 y 107 constitucionales" and the
    title "Ley de Amparo, Reglamentaria de los Artículos 103 y 107 de la Constitución Política de los Estados Unidos
    Mexicanos" both read ({"103", "107"}, "constitución"). None for a name that regulates no numbered provision."""
    m = _REGULATES.search(name)
    if m is None:
        return None
    if m.group("fr"):
        article = article_key(m.group("art1")) or m.group("art1")
        provisions = frozenset(f"{article} fr. {r}" for r in re.findall(r"[IVXLC]+", m.group("fr")))
    else:
        provisions = frozenset(_articles(m.group("art"))[0])
    law = " ".join((m.group("law") or "").split()).rstrip(". ")
    if m.group("const") or _FEDERAL_CONSTITUTION.match(_headings.fold(law)):
        law = "constitución"
    return provisions, law


def names_constitution_otherwise(text: str) -> bool:
    """Does `text` (a reference as written) call the Constitution by another of its names ("la Carta Magna")? Those
    names have other senses (the Magna Carta of 1215), so a reader may leave them to the search where no
    constitution is held."""
    return _OTHER_NAME.search(text) is not None


def _piece(m: re.Match) -> dict | None:
    """The slots one regex match fills, or None when the match is no reference after all."""
    g = m.groupdict()
    if g["art"] is not None:
        articles, paragraph = _articles(g["art"])
        slots: dict = {"articles": articles}
        if paragraph is not None:
            slots["paragraph"] = paragraph
        if g["art_const"]:
            slots.update(constitutional=True, law_type=DocType.constitucion)
        return slots
    if g["sec"] is not None:
        return {"articles": [g["sec"]], "noun": _noun(g["secn"])}
    if g["clw"] is not None or g["clw2"] is not None:
        return {"articles": [article_key(g["clw"] or g["clw2"])], "noun": _noun(g["cln"] or g["cln2"])}
    if g["artw"] is not None:
        return {"articles": [article_key(g["artw"])]}
    if g["cn"] is not None:
        return {"articles": _articles(g["cn"])[0], "constitutional": True, "law_type": DocType.constitucion}
    if g["par"] is not None or g["par2"] is not None:
        value = g["par"] or g["par2"]
        return {"paragraph": int(value) if value.isdigit() else _ordinal(value)}
    if g["last"] is not None or g["last2"] is not None:  # "el último párrafo": counted from the article's end
        return {"paragraph_from_end": _FROM_END[_headings.fold(g["last"] or g["last2"])]}
    if g["fr"] is not None:
        value = _ordinal(g["fr"])
        return {"fraccion": _roman(value) if value else " ".join(g["fr"].split()).upper().replace("BIS", "Bis")
                .replace("TER", "Ter")}
    if g["ap"] is not None:
        return {"apartado": g["ap"].upper()}
    if g["inc"] is not None:
        return {"inciso": g["inc"].lower()}
    if g["rname"] is not None:  # named by what it regulates: the whole phrase is the law's name
        return {"law": " ".join(g["rname"].split()), "law_type": law_type_of(g["rtype"])}
    if g["cname"] is not None:  # the Constitution by another of its names: as "la Constitución" (no name to match)
        return {"constitutional": True, "law_type": DocType.constitucion}
    if g["nom"] is not None:
        return {"law": g["nom"], "law_type": DocType.nom, "law_number": g["nom"]}
    if g["ltype"] is not None:
        law_type = law_type_of(g["ltype"])
        if not g["lname"] and not g["lnum"] and law_type is not DocType.constitucion:
            return None  # "el Decreto por el que…", "la Ley": a type word, not a named law
        law = " ".join(m.group(0).split())
        slots = {"law": law, "law_type": law_type, "law_number": " ".join(g["lnum"].split()) if g["lnum"] else None}
        if law_type is DocType.constitucion:
            slots["constitutional"] = not _STATE_CONSTITUTION.search(_headings.fold(law))
        return slots
    if g["acr"] is not None and _is_acronym(g["acr"]):
        return {"law": g["acr"], "law_type": law_type_of(g["acr"]), "constitutional": g["acr"] == "CPEUM"}
    return None


_SLOTS = ("articles", "paragraph", "paragraph_from_end", "fraccion", "apartado", "inciso", "law")
_FROM_END = {"ultimo": 1, "penultimo": 2, "antepenultimo": 3}


def parse_references(text: str) -> list[LegalReference]:
    """Every legal reference in `text`, in order of appearance, with offsets into `text`. An article and the law
    it belongs to, written as one phrase ("el artículo 17 de la Ley de Amparo"), are one reference."""
    refs: list[LegalReference] = []
    current: dict | None = None
    for m in _PIECE.finditer(text):
        slots = _piece(m)
        if slots is None:
            continue
        start = m.start("cn") if m.group("cn") is not None else m.start()
        filled = [k for k in slots if k in _SLOTS]
        if current is not None and _CONNECTOR.fullmatch(text, current["end"], start) \
                and not any(current.get(k) for k in filled):
            for k, v in slots.items():
                if k == "constitutional":
                    current[k] = current.get(k, False) or v
                elif v is not None and (k != "law_type" or current.get(k) is None or "law" in slots):
                    current[k] = v
            current["end"] = m.end()
            continue
        if current is not None:
            refs.append(_finish(text, current))
        current = {**slots, "start": start, "end": m.end()}
    if current is not None:
        refs.append(_finish(text, current))
    return refs


def _finish(text: str, slots: dict) -> LegalReference:
    return LegalReference(text=text[slots["start"]:slots["end"]], **slots)


def amended_articles(title: str) -> list[LegalReference]:
    """What a reform decree's title amends: one reference per law, holding every article named before it
    ("…se reforman los artículos 65 y 66 de la Constitución…" → articles ["65", "66"], constitutional). A law
    amended in "diversas disposiciones" has articles []. Transitory articles (of other decrees) are left out."""
    out: list[LegalReference] = []
    pending: list[LegalReference] = []
    previous: LegalReference | None = None
    for ref in parse_references(title):
        part_of_name = previous is not None and previous.law is not None \
            and _NAME_TAIL.fullmatch(title, previous.end, ref.start)
        previous = ref
        if part_of_name or (ref.articles and not ref.law and TRANSITORY_AFTER.match(title, ref.end)):
            continue  # "Ley de Amparo, Reglamentaria de los artículos 103 y 107 de la Constitución"; a transitory
        if ref.law is None and not ref.constitutional:
            pending.append(ref)
            continue
        articles = [a for r in pending + [ref] for a in r.articles]
        start = pending[0].start if pending else ref.start
        out.append(ref.model_copy(update={"articles": list(dict.fromkeys(articles)), "start": start,
                                          "text": title[start:ref.end], "paragraph": None, "paragraph_from_end": None,
                                          "fraccion": None, "apartado": None, "inciso": None}))
        pending = []
    if any(r.articles for r in pending):
        articles = list(dict.fromkeys(a for r in pending for a in r.articles))
        out.append(LegalReference(text=title[pending[0].start:pending[-1].end], start=pending[0].start,
                                  end=pending[-1].end, articles=articles))
    return out
