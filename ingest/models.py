"""The data contract between layers: what a parsed PDF becomes.

Offsets are character offsets into `LegalDocument.markdown`; pages are 1-based PDF page numbers.
Everything a citation needs (doc, chunk, span, page) is reachable from a `Chunk` alone, so retrieval
never has to reopen a PDF to cite it.
"""

from __future__ import annotations

import datetime as dt
from enum import Enum

from pydantic import BaseModel, Field


class ParseStatus(str, Enum):
    """Why a file did or did not yield documents. Every file ends with exactly one."""

    ok = "ok"
    encrypted = "encrypted"  # needs a password we do not have
    not_pdf = "not_pdf"  # the bytes are not a PDF at all
    unreadable = "unreadable"  # MuPDF could not repair the structure (no xref, broken objects)
    empty = "empty"  # zero pages, or pages with neither text nor images
    garbled = "garbled"  # a text layer that decodes to mojibake (unmapped fonts): not indexed
    scanned_no_ocr = "scanned_no_ocr"  # image-only pages and Tesseract is not installed
    no_text = "no_text"  # OCR ran but found no usable text


class HeadingKind(str, Enum):
    """What a heading is, in the legal grammar (a str enum: compares equal to its value)."""

    poder = "poder"  # PODER EJECUTIVO / PODER JUDICIAL / ORGANISMOS AUTÓNOMOS (DOF sections)
    issuing_body = "issuing_body"  # SECRETARIA DE MARINA, a court, a ministry
    title = "title"  # the document opener: "DECRETO por el que…", "ACUERDO…"
    libro = "libro"
    part = "part"  # CONSIDERANDO, DECLARACIONES, CLÁUSULAS, RESULTANDO, a lone "DECRETO"/"ACUERDO" line
    transitorios = "transitorios"  # TRANSITORIOS / ARTÍCULOS TRANSITORIOS
    annex = "annex"  # ANEXO / ANEXO ÚNICO / ANEXO I: what an instrument carries after its own text (its name below)
    titulo = "titulo"
    capitulo = "capitulo"
    seccion = "seccion"
    subseccion = "subseccion"  # "Subsección 1.ª …" (BOE), inside a Sección
    articulo = "articulo"  # "Artículo 27.-"
    clause = "clause"  # "PRIMERO.-", "SEGUNDA.- RECURSOS."
    numeral = "numeral"  # "5.3", "2.1.3.", "110-26.": a section of a text numbered in figures (a NOM, reglas)
    heading = "heading"  # a generic (typographic) heading


# The divisions of a law's body, each printed as a label and a name ("TÍTULO II" / "Del juicio ordinario"), and the
# annexes an instrument carries ("ANEXO ÚNICO" / "LINEAMIENTOS PARA …").
DIVISIONS = (HeadingKind.libro, HeadingKind.titulo, HeadingKind.capitulo, HeadingKind.seccion, HeadingKind.subseccion,
             HeadingKind.annex)
# The headings that open a provision a lawyer cites by its number: an article, a point numbered in words, a section
# numbered in figures.
PROVISIONS = (HeadingKind.articulo, HeadingKind.clause, HeadingKind.numeral)


class DocType(str, Enum):
    """The closed vocabulary of document types (`--filter doc_type=…`); ordinals and fragments are never types."""

    constitucion = "CONSTITUCIÓN"
    ley = "LEY"
    codigo = "CÓDIGO"
    reglamento = "REGLAMENTO"
    decreto = "DECRETO"
    real_decreto = "REAL DECRETO"
    acuerdo = "ACUERDO"
    resolucion = "RESOLUCIÓN"
    orden = "ORDEN"
    aviso = "AVISO"
    nom = "NORMA OFICIAL MEXICANA"
    convenio = "CONVENIO"
    lineamientos = "LINEAMIENTOS"
    addendum = "ADDENDUM"
    anexo = "ANEXO"
    listado = "LISTADO"
    edicto = "EDICTO"
    circular = "CIRCULAR"
    convocatoria = "CONVOCATORIA"
    sentencia = "SENTENCIA"
    auto = "AUTO"
    tratado = "TRATADO"  # treaties, declarations, conventions between states
    estatuto = "ESTATUTO"
    norma = "NORMA"  # other technical norms, standards, guidelines of agencies
    indice = "ÍNDICE"  # an edition's front matter / contents, a gazette's summary
    otro = "OTRO"


class ProvisionRole(str, Enum):
    """The legal role of a chunk's text, decided from the heading structure (weighted in retrieval)."""

    text = "text"  # the provision in force: articles, clauses, the body of a decree or ruling
    preamble = "preamble"  # considerandos, antecedentes, resultandos, exposición de motivos
    transitory = "transitory"  # transitory articles of the text itself
    reform_decree = "reform_decree"  # a reform decree (and its transitory articles) appended to a consolidated law
    repealed = "repealed"  # an article or part marked "(Se deroga)" / "Derogado"
    index = "index"  # tables of contents, an edition's summary


# A law's own provisions, in force or repealed: not its index, preamble, transitory articles or appended decrees.
BODY_ROLES = (ProvisionRole.text, ProvisionRole.repealed)


class AmendmentKind(str, Enum):
    reformado = "reformado"
    adicionado = "adicionado"
    derogado = "derogado"
    fe_de_erratas = "fe_de_erratas"
    otro = "otro"  # "Artículo recorrido", "Denominación modificada", …


class AmendmentNote(BaseModel):
    """An amendment note of a consolidated text ("Párrafo reformado DOF 06-02-1976, 10-08-1987"): never quoted."""

    kind: AmendmentKind
    target: str | None = None  # what was amended, as printed: "párrafo", "artículo", "fracción", "inciso", …
    dates: list[dt.date] = []
    text: str  # verbatim, as in the Markdown
    start: int  # offsets into LegalDocument.markdown
    end: int
    article: str | None = None  # canonical key (ingest.references.article_key) of the provision it follows


class LegalReference(BaseModel):
    """A reference to law found in a text ("art. 123, apartado B, fracción IV de la Constitución"), as parsed by
    `ingest.references.parse_references`. Articles are canonical keys (`ingest.references.article_key`)."""

    text: str  # the reference as written
    start: int = 0  # offsets into the parsed text
    end: int = 0
    articles: list[str] = []  # "27", "3 Bis", "330-A", "5.2"; ranges expanded ("arts. 5o. a 9o." → 5…9)
    # what the reference calls the provision when not an article: "lineamiento", "punto", "cláusula", "numeral",
    # "regla", "sección", "section" ("el punto quinto", "la sección 110-26"); None for an article
    noun: str | None = None
    paragraph: int | None = None  # "párrafo tercero" → 3; "Article 5(2)" → 2
    paragraph_from_end: int | None = None  # "el último párrafo" → 1, "el penúltimo párrafo" → 2
    fraccion: str | None = None  # roman numeral, upper case: "IV"
    apartado: str | None = None  # "B"
    inciso: str | None = None  # "b"
    law: str | None = None  # the law as named: "Ley de Amparo", "LFT", "Constitución", "Real Decreto 353/2024"
    law_type: DocType | None = None  # the type the name implies (LEY, CÓDIGO, CONSTITUCIÓN, REAL DECRETO, …)
    law_number: str | None = None  # "353/2024" for numbered dispositions
    constitutional: bool = False  # "el 27 constitucional", "la Constitución", "CPEUM"


class TableSpan(BaseModel):
    """A table of the document Markdown: the chunker reads these, it never re-detects tables from text."""

    start: int  # offsets into LegalDocument.markdown of the whole table
    end: int
    header_end: int  # end of the header row (+ separator row): the part repeated in every chunk of the table
    pages: list[int] = []
    # the caption: the short line right above the table that names it ("B. Reservas de la Biosfera."), repeated with
    # the header row in every chunk of the table; None when there is none
    caption_start: int | None = None
    caption_end: int | None = None
    title: str = ""  # the caption and the header row's cells, words only: what names every row (`TableRows.title`)


class SourceFile(BaseModel):
    path: str
    sha256: str
    bytes: int
    pages: int = 0
    producer: str | None = None
    creator: str | None = None
    title: str | None = None


MARKDOWN_MAX_LEVEL = 6  # Markdown has six heading levels: deeper headings are written with six "#"


class Heading(BaseModel):
    """A heading found in the document. `level` 2 is the outermost (level 1 is the synthetic Document line); the
    real level stays here, the Markdown line never has more than six "#"."""

    level: int = Field(ge=2, le=9)
    text: str
    kind: HeadingKind = HeadingKind.heading
    page: int
    start: int  # offset of the heading's Markdown line in LegalDocument.markdown
    end: int
    # an article's own title, printed after its label ("Capital social mínimo."): in `text`; or a division's name,
    # printed on the line below its label ("Del juicio ordinario"): a heading of its own, named here too
    title: str | None = None

    @property
    def marks(self) -> str:
        return "#" * min(self.level, MARKDOWN_MAX_LEVEL)


class PageSpan(BaseModel):
    """Where a PDF page's text lies in the document Markdown, and the number printed on it."""

    page: int
    start: int
    end: int
    printed: str | None = None
    ocr: bool = False


class CitationForm(BaseModel):
    """The parts a reader's citation of the document is made of, as the document prints them (read once at ingest by
    `ingest.citation_forms`; `retrieval.labels` formats them): "85 FR 47698", "Corte Suprema (Chile), Rol 161.630-2023".
    """

    series: str | None = None  # the gazette's citation abbreviation: "FR" (Federal Register)
    volume: str | None = None  # "85" (Vol. 85); the document's first printed page is `printed_pages[0]`
    court: str | None = None  # the court as cited: "Corte Suprema", "United States Court of Appeals for the First …"
    jurisdiction: str | None = None  # the country a court name needs: "Chile" (None where the name says it)
    case_label: str | None = None  # how the case number is introduced: "Rol", "No."
    case_number: str | None = None  # "161.630-2023", "20-1507"


class DocumentInfo(BaseModel):
    """Document metadata without its text: what a search hit or a citation carries."""

    doc_id: str
    title: str
    issuing_body: str | None = None
    doc_type: DocType | None = None
    short_title: str | None = None  # how a lawyer names it: "Ley de Amparo", "Real Decreto 353/2024"
    aliases: list[str] = []  # other names it is cited by: acronyms ("CPEUM", "LFT"), "la Constitución"
    number: str | None = None  # "353/2024", "03874", a case number
    gazette: str | None = None  # "DOF", "BOE", "Diario Oficial" (Colombia), "Federal Register", …
    issue: str | None = None  # the gazette's issue: "núm. 91"
    publication_date: dt.date | None = None  # a consolidated law: its original publication ("Nueva Ley … el …")
    last_reform_date: dt.date | None = None  # "Última reforma publicada DOF 21-02-2025"
    amends: list[LegalReference] = []  # a reform decree: what it amends, parsed from its title
    edition: str | None = None  # e.g. "MAT", "VES"
    section: str | None = None  # e.g. "Primera Sección"
    source_path: str
    source_sha256: str
    position: int = 0  # index of this document within its file
    pdf_pages: tuple[int, int]  # first and last PDF page (1-based, inclusive)
    printed_pages: tuple[str | None, str | None] = (None, None)
    label: str  # short name used in chunk headers, e.g. "DOF 2024-12-15 MAT"
    law_id: str | None = None  # the law it is a version of, from its name and jurisdiction: "mx/ley-de-amparo"
    version_date: dt.date | None = None  # that version: its last reform as printed, else its publication date
    citation_form: CitationForm | None = None  # the parts of its citation beyond its name (volume, court, case number)
    ingest_version: str = ""  # `ingest.INGEST_VERSION` of the code that made it: another version re-indexes the file


class LegalDocument(DocumentInfo):
    markdown: str
    headings: list[Heading] = []
    page_spans: list[PageSpan] = []
    tables: list[TableSpan] = []
    amendments: list[AmendmentNote] = []
    ocr_pages: list[int] = []

    def info(self) -> DocumentInfo:
        return DocumentInfo.model_validate(self.model_dump(include=set(DocumentInfo.model_fields)))

    def page_at(self, offset: int) -> int:
        """PDF page holding the character at `offset`."""
        page = self.pdf_pages[0]
        for span in self.page_spans:
            if span.start <= offset:
                page = span.page
            else:
                break
        return page


class Sentence(BaseModel):
    start: int  # offsets into LegalDocument.markdown, like Chunk.start/end
    end: int


class PageBreak(BaseModel):
    """A page that starts at `offset` (document Markdown); the first entry of a chunk is the page at its start."""

    offset: int
    page: int
    printed: str | None = None


class ParagraphMark(BaseModel):
    """A paragraph of the enclosing article that starts at `offset` (document Markdown), numbered as a lawyer
    cites it: `paragraph` counts the article's paragraphs (fracciones and incisos are not paragraphs of their own)."""

    offset: int
    paragraph: int
    fraccion: str | None = None  # the block is fracción `fraccion` ("IV") of the article
    inciso: str | None = None
    apartado: str | None = None  # the article's apartado holding it: "A" (CPEUM art. 123 "A."), "2" (BOE / EU "2.")
    apartado_in_fraccion: bool = False  # the apartado sits in fracción `fraccion` (CPEUM art. 41, fr. III, Apartado A)
    recital: int | None = None  # the numbered recital it belongs to: "(59) Modalities should be provided…" (EU acts)


class TableRows(BaseModel):
    """The data rows of one table inside a chunk, and the words that name them: a row says "| 18. Mapimí | Durango,
    Chihuahua y Coahuila de Zaragoza | …" and only its table's caption and header row say it is a biosphere reserve
    and the states it lies in, as only an article's title says what its sentences are about."""

    start: int  # offsets into LegalDocument.markdown of the rows inside the chunk
    end: int
    title: str  # the table's caption and header row, words only: "B. Reservas de la Biosfera. Nombre Estado …"


class Chunk(BaseModel):
    chunk_id: str  # f"{doc_id}:{index:05d}"
    doc_id: str
    index: int
    header: str  # hierarchical Markdown header: "# Document: … | page: N\n## …\n### …"
    text: str  # verbatim LegalDocument.markdown[start:end]; the only citable part
    context: str | None = None  # optional LLM blurb (Contextual Retrieval); embedded, never cited
    heading_path: list[str] = []
    heading_kinds: list[HeadingKind] = []  # the kind of each heading_path entry
    article: str | None = None  # canonical key of the article open at the chunk's start ("27", "3 Bis")
    role: ProvisionRole = ProvisionRole.text
    notes: list[AmendmentNote] = []  # the amendment notes inside the chunk's text
    paragraphs: list[ParagraphMark] = []  # paragraph starts inside the chunk (the first: the one at its start)
    pages: list[int]  # PDF pages the chunk touches
    start: int
    end: int
    sentences: list[Sentence] = []
    page_breaks: list[PageBreak] = []
    is_table: bool = False
    tables: list[TableRows] = []  # the rows of each table inside the chunk, with their table's title

    def embedding_text(self) -> str:
        """What gets embedded and BM25-indexed: header + blurb + body (the header rescues orphan chunks)."""
        parts = [self.header]
        if self.context:
            parts.append(self.context)
        parts.append(self.text)
        return "\n\n".join(parts)

    def sentence_text(self, sentence: Sentence) -> str:
        return self.text[sentence.start - self.start : sentence.end - self.start]

    def page_at(self, offset: int) -> tuple[int, str | None]:
        """(PDF page, printed page) of the document offset `offset`, which lies inside this chunk."""
        page, printed = self.pages[0], None
        for brk in self.page_breaks:
            if brk.offset <= offset:
                page, printed = brk.page, brk.printed
            else:
                break
        return page, printed


class ParseResult(BaseModel):
    """One file's outcome: a status (never an exception) and the documents found."""

    source: SourceFile
    status: ParseStatus
    message: str = ""
    repaired: bool = False
    documents: list[LegalDocument] = []
    ocr_pages: list[int] = []
    running_headers: list[str] = []  # the repeated header/footer lines detected and stripped (normalised text)
    warnings: list[str] = []

    @property
    def ok(self) -> bool:
        return self.status is ParseStatus.ok
