"""The tolerant cite-tag parser: malformed outputs in the shapes small chat models actually produce."""

from __future__ import annotations

import re

import pytest

from retrieval.answers.tag_parser import parse_attrs, parse_cite_tags

TAG = re.compile(r"<\s*/?\s*cite\b[^<>]*>?", re.I)

# (model output, [(chunk, sentences, covered text)])
CASES = {
    "well formed": (
        'La Nación es dueña: <cite chunk="1" sentences="1-2">La propiedad corresponde a la Nación.</cite> Fin.',
        [(1, (1, 2), "La propiedad corresponde a la Nación.")],
    ),
    "missing closing tag, ends at next tag": (
        '<cite chunk="1" sentences="1">Primera cita sin cierre. <cite chunk="2" sentences="3">Segunda cita.</cite> Resto.',
        [(1, (1, 1), "Primera cita sin cierre. "), (2, (3, 3), "Segunda cita.")],
    ),
    "missing closing tag, ends at blank line": (
        "Intro. <cite chunk='2' sentences='4'>Cita abierta hasta el párrafo.\n\nOtro párrafo sin cita.",
        [(2, (4, 4), "Cita abierta hasta el párrafo.")],
    ),
    "single quotes": ("<cite chunk='3' sentences='2-5'>texto</cite>", [(3, (2, 5), "texto")]),
    "curly quotes and en dash": ("<cite chunk=“2” sentences=“3–4”>texto</cite>", [(2, (3, 4), "texto")]),
    "curly single quotes, em dash, spaces": ("<cite chunk = ‘2’ sentences = ‘3 — 4’ >texto</cite >", [(2, (3, 4), "texto")]),
    "unquoted attributes, upper case tag": ("<CITE chunk=4 sentences=1-1>texto</CITE>", [(4, (1, 1), "texto")]),
    "out of range chunk id is still parsed": ('<cite chunk="99" sentences="1">x</cite>', [(99, (1, 1), "x")]),
    "nested tags": (
        '<cite chunk="1" sentences="1-3">Exterior <cite chunk="2" sentences="1">interior</cite> y más.</cite>',
        [(1, (1, 3), "Exterior interior y más."), (2, (1, 1), "interior")],
    ),
    "stray closing tag": ("Texto suelto.</cite> Más texto.", []),
    "self-closing pointer": ('La Nación es dueña.<cite chunk="1" sentences="2"/>', [(1, (2, 2), "")]),
    "no sentences attribute": ('<cite chunk="1">texto</cite>', [(1, None, "texto")]),
    "garbage attributes": ('<cite foo="bar">texto</cite>', [(None, None, "texto")]),
}


@pytest.mark.parametrize("name", CASES)
def test_malformed_outputs_parse_without_losing_text(name):
    output, expected = CASES[name]
    parsed = parse_cite_tags(output)
    assert parsed.text == TAG.sub("", output)  # every character outside the tags survives, in order
    got = [(t.chunk, t.sentences, parsed.text[t.start : t.end]) for t in parsed.tags]
    assert got == expected


def test_sentence_lists_become_ranges():
    assert parse_attrs('chunk="2" sentences="5, 3, 4"') == (2, (3, 5))
    assert parse_attrs("source=7 s=2") == (7, (2, 2))
