"""Sentence spans: Spanish legal abbreviations never split, Markdown structure always does, offsets are exact."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.sentences import split_sentences


def texts(text: str, offset: int = 0) -> list[str]:
    return [text[s.start - offset : s.end - offset] for s in split_sentences(text, offset)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Con fundamento en el Art. 27 y los Arts. 3 y 4 de la Ley. Se resuelve.",
            ["Con fundamento en el Art. 27 y los Arts. 3 y 4 de la Ley.", "Se resuelve."],
        ),
        (
            "Conforme a la fracc. III y la frac. IV del Oficio No. 245 y el Núm. 7 del Acuerdo. Publíquese.",
            ["Conforme a la fracc. III y la frac. IV del Oficio No. 245 y el Núm. 7 del Acuerdo.", "Publíquese."],
        ),
        (
            "Domicilio en C.P. 06000, Ciudad de México. La empresa Servicios S.A. de C.V. Presentó su oferta.",
            ["Domicilio en C.P. 06000, Ciudad de México.", "La empresa Servicios S.A. de C.V. Presentó su oferta."],
        ),
        (
            "Comparecen el Lic. Juan Pérez, la Dra. Ana Ruiz, el Dr. Luis Gómez y el Ing. Raúl Díaz. Firman.",
            ["Comparecen el Lic. Juan Pérez, la Dra. Ana Ruiz, el Dr. Luis Gómez y el Ing. Raúl Díaz.", "Firman."],
        ),
        (
            "Entra en vigor el 1o. de enero de 2025. Se abroga el acuerdo del 2o. de marzo.",
            ["Entra en vigor el 1o. de enero de 2025.", "Se abroga el acuerdo del 2o. de marzo."],
        ),
        (
            "Artículo 1o. En los Estados Unidos Mexicanos todas las personas gozarán de los derechos. "
            "Queda prohibida la esclavitud.",
            [
                "Artículo 1o. En los Estados Unidos Mexicanos todas las personas gozarán de los derechos.",
                "Queda prohibida la esclavitud.",
            ],
        ),
        (
            "Véase el numeral 5.2.1 de la Norma y el punto 1.2.3. El plazo vence... Después se notifica.",
            ["Véase el numeral 5.2.1 de la Norma y el punto 1.2.3.", "El plazo vence... Después se notifica."],
        ),
        ("¿Procede el amparo? Sí. ¡Cúmplase!", ["¿Procede el amparo?", "Sí.", "¡Cúmplase!"]),
        ('Dijo "se aprueba." Luego votaron.', ['Dijo "se aprueba."', "Luego votaron."]),
        ("Se publicó en 2024. El decreto sigue vigente.", ["Se publicó en 2024.", "El decreto sigue vigente."]),
        ("Véase J. Pérez, op. cit. Pág. 4.", ["Véase J. Pérez, op. cit. Pág. 4."]),
        (
            "The rule, 5 U.S.C. 553, applies. See Sec. 3 and Fig. 2.",
            ["The rule, 5 U.S.C. 553, applies.", "See Sec. 3 and Fig. 2."],
        ),
    ],
)
def test_spanish_legal_prose(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


def test_clause_and_list_markers_open_their_own_sentence() -> None:
    text = (
        "Se reforman los artículos siguientes:\n"
        "27.- El artículo veintisiete.\n"
        "I.- La fracción primera.\n"
        "II. La fracción segunda. Con una frase más.\n"
        "a) El inciso a.\n"
        "- Una viñeta\n"
        "PRIMERO.- Se aprueba el acuerdo.\n"
        "SEGUNDO.- Se publica.\n"
        "3. El punto tres."
    )
    assert texts(text) == [
        "Se reforman los artículos siguientes:",
        "27.- El artículo veintisiete.",
        "I.- La fracción primera.",
        "II. La fracción segunda.",
        "Con una frase más.",
        "a) El inciso a.",
        "- Una viñeta",
        "PRIMERO.- Se aprueba el acuerdo.",
        "SEGUNDO.- Se publica.",
        "3. El punto tres.",
    ]


def test_headings_and_table_rows_are_never_merged_into_prose() -> None:
    text = (
        "Texto previo sin punto final\n"
        "## CAPÍTULO II\n"
        "De las obligaciones. Primera frase\n"
        "| Nombre | Cargo |\n"
        "|---|---|\n"
        "| Ana Ruiz | Jueza |\n"
        "sigue la prosa tras la tabla."
    )
    assert texts(text) == [
        "Texto previo sin punto final",
        "## CAPÍTULO II",
        "De las obligaciones.",
        "Primera frase",
        "| Nombre | Cargo |",
        "|---|---|",
        "| Ana Ruiz | Jueza |",
        "sigue la prosa tras la tabla.",
    ]


def test_wrapped_lines_join_and_blank_lines_separate() -> None:
    text = "El Consejo de la Judicatura\nacuerda lo siguiente\n\nNuevo párrafo sin punto\n"
    assert texts(text) == ["El Consejo de la Judicatura\nacuerda lo siguiente", "Nuevo párrafo sin punto"]


def test_dot_leaders_do_not_split() -> None:
    assert texts("CONTENIDO ........ 5 SECRETARIA DE MARINA ........ 7") == [
        "CONTENIDO ........ 5 SECRETARIA DE MARINA ........ 7"
    ]


def test_offset_shifts_spans_into_document_coordinates() -> None:
    doc = "xxxxx  Primera frase. Segunda frase.  "
    spans = split_sentences(doc[5:], offset=5)
    assert [doc[s.start : s.end] for s in spans] == ["Primera frase.", "Segunda frase."]


def test_empty_and_blank_text_give_no_sentences() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\n \t") == []


PIECES = [
    "Art.", "Arts.", "fracc.", "No.", "Núm.", "C.P.", "S.A.", "de", "C.V.", "Lic.", "Dr.", "1o.", "27.-", "I.-",
    "1.2.3", "...", "…", "El", "la", "Ley", "2024.", "fin.", "¿Qué?", "¡Sí!", "|", "| a |", "#", "## T", "-",
    "a)",
    "\n", "\n\n", " ", "  ", "\t", ".", '"', "»", "(", ")", "**", "Ñandú.", "x",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60).map(" ".join), st.integers(min_value=0, max_value=10_000))
def test_spans_partition_the_non_whitespace_text(text: str, offset: int) -> None:
    spans = split_sentences(text, offset)
    covered = []
    previous_end = 0
    for s in spans:
        piece = text[s.start - offset : s.end - offset]
        assert piece and piece == piece.strip()
        assert s.start - offset >= previous_end
        previous_end = s.end - offset
        covered.append(piece)
    assert "".join("".join(covered).split()) == "".join(text.split())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # a note with inner periods is one sentence, apart from the provision it follows
            "La ley establecerá las bases. Su servicio será gratuito.\n\n"
            "Párrafo adicionado DOF 20-12-2013. Fe de erratas al párrafo DOF 21-12-2013. Reformado DOF 11-06-2014",
            ["La ley establecerá las bases.", "Su servicio será gratuito.",
             "Párrafo adicionado DOF 20-12-2013. Fe de erratas al párrafo DOF 21-12-2013. Reformado DOF 11-06-2014"],
        ),
        (  # printed on the line after the text, without a blank line: still its own sentence
            "y los daños que la propiedad pueda sufrir en perjuicio de la sociedad.\n"
            "Párrafo reformado DOF 06-02-1976, 10-08-1987, 06-01-1992\n"
            "Corresponde a la Nación el dominio directo.",
            ["y los daños que la propiedad pueda sufrir en perjuicio de la sociedad.",
             "Párrafo reformado DOF 06-02-1976, 10-08-1987, 06-01-1992",
             "Corresponde a la Nación el dominio directo."],
        ),
        (  # two notes on consecutive lines are two sentences; a wrapped note stays one
            "C. Se deroga\nApartado adicionado DOF 10-02-2014. Derogado DOF 20-12-2024\n"
            "Artículo reformado DOF 03-02-1983,\n07-04-2006",
            ["C. Se deroga", "Apartado adicionado DOF 10-02-2014. Derogado DOF 20-12-2024",
             "Artículo reformado DOF 03-02-1983,\n07-04-2006"],
        ),
        (  # an inline "(sic DOF …)" is text, not a note
            "El Estado del (sic DOF 05-02-1917) Nayarit tendrá la extensión. Otra oración.",
            ["El Estado del (sic DOF 05-02-1917) Nayarit tendrá la extensión.", "Otra oración."],
        ),
    ],
)
def test_amendment_notes_are_sentences_of_their_own(text: str, expected: list[str]) -> None:
    assert texts(text) == expected
