"""A cited answer as one standalone HTML page: numbered markers whose quote shows on hover, then the sources.

Every piece of document or model text goes through `html.escape`: a gazette (or a prompt-injected model) that
contains markup must show it as text, never run it. No scripts; the hover is CSS only, so the file works offline.
"""

from __future__ import annotations

import re
import unicodedata
from html import escape

from ingest.models import AmendmentNote, Chunk, DocumentInfo
from retrieval.answers.models import Answer, Citation
from retrieval.models import ResolvedReference, SearchHit

CSS = """
body { font: 16px/1.55 Georgia, serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.3rem; } .meta, .note { color: #666; font-size: .9rem; } .note.warn { color: #8a4b00; }
.answer { white-space: pre-wrap; }
.cite { position: relative; cursor: help; font-size: .75em; vertical-align: super; text-decoration: none;
        color: #0a5; font-family: sans-serif; }
.cite.unverified { color: #c00; }
.cite .tip { display: none; position: absolute; left: 0; top: 1.4em; z-index: 10; width: 26rem; padding: .6rem;
             background: #fffbe6; border: 1px solid #d9c77a; color: #222; font: .85rem/1.4 sans-serif;
             white-space: pre-wrap; box-shadow: 0 2px 6px #0002; }
.cite:hover .tip, .cite:focus .tip { display: block; }
ol.sources li { margin-bottom: .7rem; } blockquote { margin: .2rem 0 0 0; padding-left: .7rem; border-left: 3px solid #ccc; }
.badge { font: .75rem sans-serif; padding: 0 .3rem; border-radius: 3px; background: #e3f6ea; color: #064; }
.badge.unverified { background: #fde5e5; color: #900; }
.understood { font: .9rem sans-serif; padding: .3rem .6rem; border-left: 3px solid #7a1f3d; background: #f6f1e8; }
.understood span { color: #666; }
.crumbs { color: #666; font: .8rem sans-serif; margin-top: .1rem; }
ul.notes { list-style: none; margin: .2rem 0 0; padding: 0; color: #777; font: .75rem sans-serif; }
ul.notes li::before { content: "↳ "; }
.support.partial { text-decoration: underline dotted #c80; } .support.unsupported { background: #fde5e5; }
"""

# What each flag reason (Coverage.flag_reasons) tells the reader, and what a segment's support judgement means.
FLAG_TEXTS = {
    "uncited": "baja cobertura: menos de la mitad de las oraciones cita un pasaje verificado",
    "unsupported": "menos de la mitad de las oraciones está respaldada por lo que cita",
    "not_relevant": "las fuentes citadas no parecen tratar lo que se pregunta",
}
SUPPORT_TITLES = {
    "partial": "respaldada solo en parte por su cita",
    "unsupported": "su cita no respalda esta oración",
}

CRUMB_MAX = 70
# Lines a consolidated law or an edition prints on every page (or on its cover): never a place in the document.
RUNNING_HEADER = re.compile(
    r"(?:p[aá]gina\s+\d+(?:\s+de\s+\d+)?|\d+(?:\s+de\s+\d+)?|[uú]ltima reforma\b.*|texto vigente\b.*"
    r"|nuev[oa] \S+ publicad[oa]\b.*|c[aá]mara de diputados del h\. congreso de la uni[oó]n|secretar[ií]a general"
    r"|secretar[ií]a de servicios parlamentarios|diario oficial\b.*"
    r"|(?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo),?\s+\d+\s+de\s+\S+\s+de\s+\d{4})",
    re.IGNORECASE,
)
# A bare "DECRETO" / "ACUERDO" line opening the operative part says nothing about where a provision sits.
LONE_PART = re.compile(r"decreto|acuerdo|resoluci[oó]n", re.IGNORECASE)


def _squash(text: str | None) -> str:
    return " ".join((text or "").split())


def _fold(text: str | None) -> str:
    text = unicodedata.normalize("NFKD", _squash(text).lower())
    return "".join(c for c in text if not unicodedata.combining(c))


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(",;:") + " …"


def crumbs(chunk: Chunk, doc: DocumentInfo | None = None) -> list[str]:
    """The headings open at a chunk as plain text: no Markdown `#`, no running-header lines, not the document's name
    again (the label already says it), trailing ".-" dropped ("Artículo 45.-" → "Artículo 45")."""
    names = {_fold(n) for n in (doc.title, doc.short_title) if n} if doc else set()
    out = []
    for entry in chunk.heading_path:
        text = re.sub(r"\s*[.:\-–—]+$", "", _squash(re.sub(r"^\s*#+\s*", "", entry)))
        if text and not (RUNNING_HEADER.fullmatch(text) or LONE_PART.fullmatch(text)) and _fold(text) not in names:
            out.append(text)
    return out


def breadcrumb(chunk: Chunk, doc: DocumentInfo | None = None) -> str:
    """"TÍTULO PRIMERO › CAPÍTULO V › Artículo 45" (each heading shortened), or "" when no heading is open."""
    return " › ".join(_shorten(c, CRUMB_MAX) for c in crumbs(chunk, doc))


def citation_label(c: Citation) -> str:
    """As a lawyer cites it ("Ley de Amparo, art. 17, párr. 1, p. 9"); the title and page when no label was made."""
    return c.label or f"{c.document_title}, {where(c)}"


def reference_text(r: ResolvedReference, short_titles: dict[str, str] | None = None) -> str:
    """"art. 27 de Constitución Política de los Estados Unidos Mexicanos" ("punto 5 de ACUERDO GENERAL 01/2021 …"
    when the question says "el punto quinto"), or the law named and that it is missing."""
    ref = r.reference
    parts = []
    if ref.articles:  # "art. 27", "arts. 14, 16"; a provision by its own noun: "punto 5", "sección 110-26"
        noun = ref.noun or ("arts." if len(ref.articles) > 1 else "art.")
        parts.append(f"{noun} {', '.join(ref.articles)}")
    if ref.apartado:
        parts.append(f"apartado {ref.apartado}")
    if ref.fraccion:
        parts.append(f"fr. {ref.fraccion}")
    if ref.inciso:
        parts.append(f"inc. {ref.inciso})")
    if ref.paragraph:
        parts.append(f"párr. {ref.paragraph}")
    elif ref.paragraph_from_end:
        parts.append(("último", "penúltimo", "antepenúltimo")[min(ref.paragraph_from_end, 3) - 1] + " párr.")
    if r.possible:  # named by a number no indexed text of its kind prints: it may be one of them
        place = (f"«{_squash(r.reference.law or r.reference.text)}», quizá {'; '.join(r.possible)} "
                 f"(no imprime su nombre ni su número)")
    elif r.resolved and r.doc_ids:
        short = short_titles or {}
        titles = [r.titles[i] if i < len(r.titles) else d for i, d in enumerate(r.doc_ids)]
        # a version no source is of is named as the one of the same title that is ("Ley de Amparo")
        by_title = {t: short[d] for d, t in zip(r.doc_ids, titles) if short.get(d)}
        names = [short.get(d) or by_title.get(t) or t for d, t in zip(r.doc_ids, titles)]
        # two versions of one law are one name ("Ley de Amparo"), said once
        place = "; ".join(list(dict.fromkeys(_shorten(_squash(n), 90) for n in names))[:2])
    else:
        place = f"«{_squash(ref.law or ref.text)}» (no está en el índice)"
    return f"{', '.join(parts)} de {place}" if parts else place


def understood(references: list[ResolvedReference], short_titles: dict[str, str] | None = None) -> list[str]:
    """What the question was read to name, once each ("el artículo 27 … de la Constitución" parses as two
    references: the law alone adds nothing when an article reference resolved to the same documents)."""
    with_articles = [r for r in references if r.reference.articles]
    shown: list[str] = []
    for r in references:
        if (not r.reference.articles and r.resolved
                and any(set(r.doc_ids) <= set(a.doc_ids) for a in with_articles)):
            continue
        text = reference_text(r, short_titles)
        if text not in shown:
            shown.append(text)
    return shown


def _notes(notes: list[AmendmentNote]) -> str:
    items = [f"<li>{escape(_squash(n.text))}</li>" for n in notes if _squash(n.text)]
    return f'<ul class="notes">{"".join(items)}</ul>' if items else ""


def _source_of(answer: Answer, c: Citation) -> SearchHit | None:
    if c.source_index is not None and 0 <= c.source_index < len(answer.sources):
        return answer.sources[c.source_index]
    return next((h for h in answer.sources if h.chunk.chunk_id == c.chunk_id), None)



def citation_key(c: Citation) -> tuple:
    return (c.chunk_id, c.start, c.end, c.verified, c.cited_text)


def numbered_citations(answer: Answer) -> list[Citation]:
    """Distinct citations in order of first appearance; marker n is position n-1 here."""
    seen: dict[tuple, Citation] = {}
    for seg in answer.content:
        for c in seg.citations:
            seen.setdefault(citation_key(c), c)
    return list(seen.values())


def where(c: Citation) -> str:
    pages = f"p. {c.pages[0]}" if len(c.pages) == 1 else f"pp. {c.pages[0]}-{c.pages[-1]}" if c.pages else "p. ?"
    return pages + (f" (impresa {c.printed_page})" if c.printed_page else "")


def _marker(n: int, c: Citation) -> str:
    state = "verified" if c.verified else "unverified"
    label = "verificada" if c.verified else "NO verificada"
    notes = "".join(f"\n↳ {_squash(n.text)}" for n in c.notes if _squash(n.text))
    tip = f"“{c.cited_text}”{notes}\n— {citation_label(c)} · cita {label} ({c.score:.0f})"
    return (f'<a class="cite {state}" href="#src-{n}" tabindex="0">[{n}{"" if c.verified else "?"}]'
            f'<span class="tip">{escape(tip)}</span></a>')


BACKENDS = {"extractive": "respuesta extractiva: oraciones tomadas tal cual de las fuentes"}


def backing_text(answer: Answer) -> str:
    """How well the answer is backed, in plain words: "2 de 2 oraciones respaldadas por el texto citado · respuesta
    extractiva: …"."""
    cov = answer.coverage
    n = cov.sentences
    parts = []
    if not n:
        parts.append("ninguna oración que comprobar")
    elif not cov.cited:
        parts.append(f"ninguna de las {n} oraciones cita un pasaje verificado")
    else:
        backed = f"{cov.supported} de {n} {'oración respaldada' if n == 1 else 'oraciones respaldadas'} por el texto citado"
        if cov.partial:
            backed += f", {len(cov.partial)} en parte"
        if cov.unsupported:
            backed += f", {len(cov.unsupported)} sin respaldo"
        parts.append(backed)
        if cov.cited < n:
            parts.append(f"{n - cov.cited} sin cita verificada")
    who = BACKENDS.get(answer.backend, f"redactada por un modelo ({answer.backend}"
                       + (f", {answer.model}" if answer.model else "") + "); cada cita verificada en el texto oficial")
    parts.append(who)
    return " · ".join(parts)


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def _adds(c: Citation, said: str) -> bool:
    """Whether a citation's quote adds to the answer: an unverified one always (the reader must see it), a verified
    one unless the answer already says it word for word (an extractive sentence is its own quote)."""
    return not c.verified or _folded(c.cited_text) not in said


def render_answer_html(answer: Answer) -> str:
    cites = numbered_citations(answer)
    number = {citation_key(c): i + 1 for i, c in enumerate(cites)}
    body = []
    for seg in answer.content:
        judged = seg.support.label.value if seg.support is not None else None
        if judged in ("partial", "unsupported"):
            title = SUPPORT_TITLES[judged]
            body.append(f'<span class="support {judged}" title="{escape(title)}">{escape(seg.text)}</span>')
        else:
            body.append(escape(seg.text))
        body.extend(_marker(number[citation_key(c)], c) for c in seg.citations)
    cov = answer.coverage
    notes = [f'<p class="meta">{escape(backing_text(answer))}</p>']
    # an answer from before issue 17 is flagged for low citation coverage only, and names no reason
    reasons = [FLAG_TEXTS.get(r, r) for r in cov.flag_reasons or (["uncited"] if cov.flagged else [])]
    if reasons:
        notes.append(f'<p class="note warn flag"><strong>Atención:</strong> {escape("; ".join(reasons))}.</p>')
    if answer.fallback_reason:
        notes.append(f'<p class="note warn">{escape(answer.fallback_reason)}</p>')
    sources = []
    said_text = _folded("".join(seg.text for seg in answer.content))
    for i, c in enumerate(cites, 1):
        state = "verified" if c.verified else "unverified"
        badge = "verificada" if c.verified else "no verificada"
        hit = _source_of(answer, c)
        path = breadcrumb(hit.chunk, hit.document) if hit else ""
        sources.append(
            f'<li id="src-{i}"><strong>{escape(citation_label(c))}</strong> '
            f'<span class="badge {state}">{badge}</span>'
            + (f'<div class="crumbs">{escape(path)}</div>' if path else "")
            + (f"<blockquote>{escape(c.cited_text)}</blockquote>" if _adds(c, said_text) else "")
            + f"{_notes(c.notes)}</li>"
        )
    short = {h.document.doc_id: h.document.short_title for h in answer.sources if h.document.short_title}
    said = understood(answer.references, short)
    lead = (f'<p class="understood"><span>Entendido:</span> {escape("; ".join(said))}</p>' if said else "")
    return (
        "<!doctype html>\n<html lang=\"es\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(answer.question)}</title><style>{CSS}</style></head><body>"
        f"<h1>{escape(answer.question)}</h1>{lead}<div class=\"answer\">{''.join(body)}</div>{''.join(notes)}"
        + (f"<h2>Fuentes</h2><ol class=\"sources\">{''.join(sources)}</ol>" if sources else "")
        + "</body></html>\n"
    )
