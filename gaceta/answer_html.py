"""A cited answer as one standalone HTML page: numbered markers whose quote shows on hover, then the sources.

Every piece of document or model text goes through `html.escape`: a gazette (or a prompt-injected model) that
contains markup must show it as text, never run it. No scripts; the hover is CSS only, so the file works offline.
"""

from __future__ import annotations

from html import escape

from retrieval.answers.models import Answer, Citation

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
"""


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
    tip = f"“{c.cited_text}”\n— {c.document_title}, {where(c)} · cita {label} ({c.score:.0f})"
    return (f'<a class="cite {state}" href="#src-{n}" tabindex="0">[{n}{"" if c.verified else "?"}]'
            f'<span class="tip">{escape(tip)}</span></a>')


def render_answer_html(answer: Answer) -> str:
    cites = numbered_citations(answer)
    number = {citation_key(c): i + 1 for i, c in enumerate(cites)}
    body = []
    for seg in answer.content:
        body.append(escape(seg.text))
        body.extend(_marker(number[citation_key(c)], c) for c in seg.citations)
    cov = answer.coverage
    notes = [f'<p class="meta">backend: {escape(answer.backend)}'
             + (f" · model: {escape(answer.model)}" if answer.model else "")
             + f" · cobertura de citas: {cov.ratio:.0%} ({cov.cited}/{cov.sentences} oraciones)"
             + (" · <strong>baja cobertura</strong>" if cov.flagged else "") + "</p>"]
    if answer.fallback_reason:
        notes.append(f'<p class="note warn">{escape(answer.fallback_reason)}</p>')
    sources = []
    for i, c in enumerate(cites, 1):
        state = "verified" if c.verified else "unverified"
        badge = "verificada" if c.verified else "no verificada"
        sources.append(
            f'<li id="src-{i}"><strong>{escape(c.document_title)}</strong>, {escape(where(c))} '
            f'<span class="badge {state}">{badge}</span><blockquote>{escape(c.cited_text)}</blockquote></li>'
        )
    return (
        "<!doctype html>\n<html lang=\"es\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(answer.question)}</title><style>{CSS}</style></head><body>"
        f"<h1>{escape(answer.question)}</h1><div class=\"answer\">{''.join(body)}</div>{''.join(notes)}"
        + (f"<h2>Fuentes</h2><ol class=\"sources\">{''.join(sources)}</ol>" if sources else "")
        + "</body></html>\n"
    )
