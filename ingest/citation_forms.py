"""How a document's readers cite it, read from what the document prints (called by `ingest.identity.identify`).

Identity names a document; this module adds the parts a citation needs beyond the name, each from typed evidence
(running headers, the first page's rows, the closing lines), never from the file name:

- a Federal Register document: the masthead "Federal Register / Vol. 85, No. 152 / …" gives the series "FR" and the
  volume; the first printed page is the document's own (`printed_pages[0]`): cited "85 FR 47698";
- a court decision: the court without its chamber ("Primera Sala de la Corte Suprema" → "Corte Suprema"), the
  country its name needs when it does not say it (the one country the decision's closing lines name: "Chile"), and
  the case number with the word that introduces it as printed ("Rol N° 161.630-2023" → Rol, "No. 20-1507" → No.);
- an EU act: "Regulation (EU) 2016/679" from its title; a draft whose number is still "2016/…" (the Council's
  position at first reading) is named by the act's own short title in parentheses and the Council document number
  printed atop every page: "General Data Protection Regulation (Council position 5419/16)".
`retrieval.labels` formats these parts; nothing here is re-read at query time.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ingest.headings import fold
from ingest.models import CitationForm, DocType

if TYPE_CHECKING:
    from ingest.identity import Evidence, Identity

_FR_MASTHEAD = re.compile(r"\bFederal\s+Register\b.{0,40}?\bVol\.\s*(\d{1,3}),\s*No\.\s*(\d{1,4})", re.I)
_FR_TOP = re.compile(r"^Vol\.\s*(\d{1,3}),\s*No\.\s*(\d{1,4})$")

# A court's chamber is not the court: "Primera Sala de la Corte Suprema" is cited as the Corte Suprema.
_CHAMBER = re.compile(r"^(?:(?:Primera|Segunda|Tercera|Cuarta|Quinta|[A-ZÁÉÍÓÚ]\w+)\s+)?Sala\s+(?:de\s+la\s+|del\s+)",
                      re.I)
# Countries a court's name may leave unsaid (their names as a decision prints them).
_COUNTRIES = ("Chile", "Argentina", "Colombia", "Perú", "Ecuador", "Bolivia", "Uruguay", "Paraguay", "Venezuela",
              "México", "España", "Guatemala", "Honduras", "El Salvador", "Nicaragua", "Costa Rica", "Panamá",
              "República Dominicana", "Cuba")
_NATIONAL = re.compile(r"\b(?:United\s+States|Estados\s+Unidos|de\s+la\s+Naci[oó]n|de\s+Justicia\s+de\s+[A-Z])", re.I)
_CASE_WORD = r"(Rol|No\.|N[°º]|Expediente|Exp\.|Docket\s+No\.|Case\s+No\.|Amparo\s+directo|Amparo\s+en\s+revisi[oó]n)"

_EU_ACT = re.compile(r"^(REGULATION|DIRECTIVE|DECISION|REGLAMENTO|DIRECTIVA|DECISI[ÓO]N)\s*"
                     r"\((EU|EC|EEC|Euratom|UE|CE|CEE)\)\s*(?:No\s+|n\.?[°º]\s*)?(\d{2,4}/(?:\d{1,4}|…|\.\.\.))", re.I)
_EU_SHORT = re.compile(r"\(((?:[A-Z][\w-]*\s+){1,6}(?:Regulation|Directive|Decision)|"
                       r"(?:Reglamento|Directiva|Decisi[óo]n)\s+general\s+[^()]{3,60})\)")
_COUNCIL_POSITION = re.compile(r"\bPosition\s+of\s+the\s+Council\s+at\s+first\s+reading\b|"
                               r"\bPosici[óo]n\s+del\s+Consejo\s+en\s+primera\s+lectura\b", re.I)
_COUNCIL_DOC = re.compile(r"^(\d{3,5}/\d{2})$")


def complete(ident: Identity, ev: Evidence) -> None:
    """Fill `ident.citation_form` (and an EU act's short title and number) from the document's evidence."""
    masthead = [*ev.headers, *ev.top, *ev.page_headers]
    if form := _federal_register(ident, masthead):
        ident.citation_form = form
    elif ident.doc_type is DocType.sentencia and (form := _court(ident, ev)):
        ident.citation_form = form
    elif m := _EU_ACT.match(" ".join(ident.title.split())):
        _eu_act(ident, ev, m)


def _federal_register(ident: Identity, masthead: list[str]) -> CitationForm | None:
    m = next((m for text in masthead if (m := _FR_MASTHEAD.search(text))), None)
    if m is None and any(fold(t) == "federal register" for t in masthead):
        m = next((m for text in masthead if (m := _FR_TOP.match(text.strip()))), None)
    if m is None:
        return None
    ident.gazette = ident.gazette or "Federal Register"
    ident.issue = ident.issue or f"No. {m.group(2)}"
    return CitationForm(series="FR", volume=m.group(1))


def _court(ident: Identity, ev: Evidence) -> CitationForm | None:
    if not ident.issuing_body:
        return None
    court = _CHAMBER.sub("", " ".join(ident.issuing_body.split()))
    court = re.sub(r"\s+(For|Of|In)\s+(?=the\b)", lambda m: f" {m.group(1).lower()} ", court)  # "For the First Circuit"
    court = court[:1].upper() + court[1:]
    form = CitationForm(court=court)
    if not _NATIONAL.search(court):
        closing = " ".join([ev.tail, *ev.headers, *ev.top])
        named = {c for c in _COUNTRIES if re.search(rf"\b{c}\b", closing)}
        if len(named) == 1:
            form.jurisdiction = named.pop()
    if ident.number:
        printed = " ".join([*(ln.text for ln in ev.lines[:40]), ev.tail, *ev.headers])
        m = re.search(_CASE_WORD + r"\s*(?:N[°º]\.?\s*)?" + re.escape(ident.number), printed)
        form.case_number = ident.number
        if m:
            word = m.group(1)
            form.case_label = "No." if re.fullmatch(r"N[°º]", word) else word
    return form


def _eu_act(ident: Identity, ev: Evidence, m: re.Match[str]) -> None:
    kind, family, number = m.group(1), m.group(2), m.group(3)
    cited = f"{kind[:1].upper()}{kind[1:].lower()} ({family}) {number}"
    text = " ".join(ln.text.strip() for ln in ev.lines[:80])
    short = _EU_SHORT.search(text)
    if number.endswith(("…", "...")):  # no number yet: a draft, named by its own short title and the Council document
        council = next((c.group(1) for t in [*ev.headers, *(ln.text.strip() for ln in ev.lines[:10])]
                        if (c := _COUNCIL_DOC.match(t.strip()))), None)
        if council and _COUNCIL_POSITION.search(text):
            name = short.group(1) if short else cited
            ident.short_title = f"{name} (Council position {council})"
            ident.number = ident.number or council
        elif short:
            ident.short_title = short.group(1)
    else:
        ident.short_title = cited
        ident.number = ident.number or number
    if short:
        acronym = "".join(w[0] for w in re.findall(r"\b[A-Z]\w+", short.group(1)))
        for alias in (short.group(1), acronym if len(acronym) >= 3 else None):
            if alias and alias not in ident.aliases:
                ident.aliases.append(alias)
