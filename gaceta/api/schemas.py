"""Request and response bodies of the HTTP API. Limits live here, so a bad request is a 422 before any work starts,
and no response grows with what a document happens to hold in its names.

What leaves the server is bounded and names documents, never the server's file system:
- a hit (`/search`, `/ask` sources, the `sources` event of `/ask/stream`) carries the chunk's place and citable
  text and the document's names and dates (`Hit`), not the whole document record: no aliases, no amended-law list,
  no source path (`file_name` at most);
- titles, labels, headings and chunk headers are cut at a fixed length, the cut marked with "…" (`clip`); the text a
  citation is checked against (a chunk's text, a document's Markdown) is never cut, except a hit text beyond the
  server's GACETA_MAX_HIT_CHARS or the `max_chars` a client asks for, and then the hit says `truncated`.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path, PurePath
from typing import Annotated, Literal

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StringConstraints,
                      field_validator, model_validator)

from flows.models import FileOutcome
from ingest.identity import MAX_TITLE_CHARS  # a title, a label, an issuing body, a heading as a response names them
from ingest.models import (AmendmentNote, Chunk, CitationForm, DocType, DocumentInfo, Heading, HeadingKind, LegalDocument,
                           LegalReference, PageSpan, ProvisionRole, TableSpan)
from retrieval.answers.models import Answer, Citation, CitationEvent, DoneEvent, SourcesEvent
from retrieval.documents import DocumentSummary
from retrieval.attribution import MAX_DOC_IDS, MAX_TEXT_CHARS, AttributionResult
from retrieval.models import Fusion, NamedCountry, ResolvedReference, SearchFilters, SearchHit, SearchMode, SearchResult
from retrieval.settings import Answerer

MAX_QUESTION_CHARS = 2000
MAX_K = 100
MAX_FIELD_CHARS = 80  # a number, a gazette, an issue, an edition, a section, a printed page, an article key
MAX_HEADER_CHARS = 2000  # a chunk's header (its heading lines); the chunker already keeps it to a quarter of a chunk
MAX_FILE_NAME_CHARS = 255
MAX_ALIASES = 20
MAX_LISTED = 50  # amended laws listed with a document


def clip(text: str | None, limit: int) -> str | None:
    """`text` cut to at most `limit` characters, the cut marked with "…" (None stays None)."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def file_name(source_path: str) -> str:
    """The document's file name: all a client learns of where the server found it."""
    return clip(PurePath(source_path).name, MAX_FILE_NAME_CHARS) or ""


def public_location(location: str, home: Path) -> str:
    """A store's location without the server's file system: `$GACETA_HOME/index/gaceta` for the embedded store under
    the data dir, the last part of it otherwise (a Qdrant server's collection)."""
    try:
        return "$GACETA_HOME/" + Path(location).resolve().relative_to(Path(home).resolve()).as_posix()
    except ValueError:
        return PurePath(location).name


def without_home(text: str, home: Path) -> str:
    """A message (an ingest failure's reason) with the data dir's absolute path written as `$GACETA_HOME`."""
    for prefix in {str(Path(home).resolve()), str(Path(home).absolute())}:
        text = text.replace(prefix, "$GACETA_HOME")
    return text


def hit_chars(requested: int | None, server_limit: int) -> int:
    """The longest hit text to return: what the client asked for (`max_chars`), never more than the server's
    GACETA_MAX_HIT_CHARS."""
    return min(requested or server_limit, server_limit)


def no_nul(value: str) -> str:
    """JSON may carry NUL characters; legal text never does, and C-backed tokenizers and stores choke on them.
    (Lone surrogates pydantic already refuses.)"""
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return value


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _iso_date(value):
    """A date as the schema says: a YYYY-MM-DD string (not a number, or a string of one, pydantic would read as a
    timestamp)."""
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and _ISO_DATE.fullmatch(value):
        return value  # pydantic then checks it is a real day
    raise ValueError("must be a date as YYYY-MM-DD")


def _json_integer(value):
    """An integer as JSON Schema has it: 91 or 91.0, never true, "91" or 91.5."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be an integer")
    if isinstance(value, float) and not value.is_integer():
        raise ValueError("must be an integer")
    return int(value)


# Request fields are as strict as the schema they publish: a bool is true/false (not 0), a count an integer (not
# "10"), a text has a non-blank character and no NUL (the published pattern; the validators say it in words), so
# every request the schema allows is accepted and no other.
_TEXT_PATTERN = Field(json_schema_extra={"pattern": r"^[^\x00]*[^\x00\s][^\x00]*$"})
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_QUESTION_CHARS),
                 AfterValidator(no_nul), _TEXT_PATTERN]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300), AfterValidator(no_nul),
                 _TEXT_PATTERN]
IsoDate = Annotated[dt.date, BeforeValidator(_iso_date)]


def integer(low: int, high: int):
    """A JSON integer in [low, high] (the bounds stay in the published schema as minimum/maximum)."""
    return Annotated[int, Field(ge=low, le=high), BeforeValidator(_json_integer)]


K = Annotated[integer(1, MAX_K), Field(description=f"How many chunks to retrieve (1–{MAX_K}).")]
MaxChars = Annotated[integer(1, 10_000_000) | None, Field(
    None, description="Cut each hit's text to at most this many characters (its `end` moves "
    "with it and `truncated` is true; GET /chunks/{chunk_id} gives the whole chunk). Unset: the whole text, up to the "
    "server's GACETA_MAX_HIT_CHARS. Titles, labels and headings are always bounded.")]


class FiltersIn(SearchFilters):
    """`SearchFilters` with the limits a public endpoint needs: bounded lists, no unknown keys, dates in order."""

    model_config = ConfigDict(extra="forbid")

    issuing_body: Annotated[list[Name], Field(max_length=50)] | None = None
    doc_type: Annotated[list[Name], Field(max_length=50)] | None = None
    doc_ids: Annotated[list[Name], Field(max_length=MAX_K * 10)] | None = None
    date_from: IsoDate | None = Field(None, description="Published on or after this day (YYYY-MM-DD); not after "
                                      "`date_to` (422).")
    date_to: IsoDate | None = Field(None, description="Published on or before this day (YYYY-MM-DD); not before "
                                    "`date_from` (422).")
    as_of: IsoDate | None = Field(None, description="Each law in the version in force on this day (YYYY-MM-DD); "
                                  "unset: today.")

    @field_validator("doc_type", mode="before")
    @classmethod
    def _doc_types(cls, value):
        """A list, as the schema says (names are normalised when these become `SearchFilters`)."""
        return value

    @model_validator(mode="after")
    def _dates_in_order(self) -> FiltersIn:
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise ValueError(f"date_from ({self.date_from}) is after date_to ({self.date_to})")
        return self


class _Filtered(BaseModel):
    model_config = ConfigDict(extra="forbid")

    filters: FiltersIn | None = None
    as_of: IsoDate | None = Field(None, description="Each law in the version in force on this day (YYYY-MM-DD); "
                                  "unset: today. Same as `filters.as_of`.")

    def search_filters(self) -> SearchFilters | None:
        """The filters as retrieval's contract model (the API's limits already checked), `as_of` among them."""
        filters = SearchFilters.model_validate(self.filters.model_dump()) if self.filters else None
        if self.as_of is not None:
            filters = (filters or SearchFilters()).model_copy(update={"as_of": self.as_of})
        return filters


class SearchRequest(_Filtered):
    query: Text
    k: K = 10
    mode: SearchMode = SearchMode.hybrid
    rerank: StrictBool = Field(True, description="Re-rank the first-stage hits (legal role, named provision, terms); "
                         "false: the hybrid order, after any provision the query names.")
    fusion: Fusion = Field(Fusion.rrf, description="How hybrid fuses dense and BM25.")
    prefetch: integer(1, 1000) | None = Field(None, description="Candidates per side before fusion (unset: the "
                                 "index's default).")
    max_chars: MaxChars = None


class AskRequest(_Filtered):
    question: Text
    k: K = 8
    answerer: Answerer | None = Field(
        None, description="Answer backend; unset = the server's configured answerer (GACETA_ANSWERER)."
    )
    rerank: StrictBool | None = Field(None, description="Re-rank the sources; unset = the server's GACETA_RERANK.")
    max_chars: MaxChars = None


# --- what a hit carries ---------------------------------------------------------------------------------------------
class HitDocument(BaseModel):
    """A document as a hit names it: names, type, dates, pages; no text, no aliases, no file-system path. Titles and
    labels are at most 1,000 characters (MAX_TITLE_CHARS) ("…" marks a cut; `GET /documents/{doc_id}` has the same bounds)."""

    doc_id: str
    title: str
    short_title: str | None = None
    doc_type: DocType | None = None
    issuing_body: str | None = None
    number: str | None = None
    gazette: str | None = None
    issue: str | None = None
    publication_date: dt.date | None = None
    last_reform_date: dt.date | None = None
    law_id: str | None = None  # the law this document is a version of ("mx/ley-de-amparo")
    version_date: dt.date | None = None  # which version: its last reform as printed, else its publication
    edition: str | None = None
    section: str | None = None
    pdf_pages: tuple[int, int]
    printed_pages: tuple[str | None, str | None] = (None, None)
    label: str
    file_name: str = Field("", description="The source PDF's file name (never where the server keeps it).")

    @staticmethod
    def fields_of(info: DocumentInfo) -> dict:
        """The bounded public fields of a document record."""
        return dict(
            doc_id=info.doc_id, title=clip(info.title, MAX_TITLE_CHARS),
            short_title=clip(info.short_title, MAX_TITLE_CHARS), doc_type=info.doc_type,
            issuing_body=clip(info.issuing_body, MAX_TITLE_CHARS), number=clip(info.number, MAX_FIELD_CHARS),
            gazette=clip(info.gazette, MAX_FIELD_CHARS), issue=clip(info.issue, MAX_FIELD_CHARS),
            publication_date=info.publication_date, last_reform_date=info.last_reform_date,
            law_id=clip(info.law_id, MAX_FIELD_CHARS), version_date=info.version_date,
            edition=clip(info.edition, MAX_FIELD_CHARS), section=clip(info.section, MAX_FIELD_CHARS),
            pdf_pages=info.pdf_pages, printed_pages=tuple(clip(p, MAX_FIELD_CHARS) for p in info.printed_pages),
            label=clip(info.label, MAX_TITLE_CHARS), file_name=file_name(info.source_path),
        )

    @classmethod
    def of(cls, info: DocumentInfo) -> HitDocument:
        return cls(**cls.fields_of(info))


def bounded_chunk(chunk: Chunk) -> Chunk:
    """The chunk with its header and heading path bounded; its text, the citable part, whole."""
    return chunk.model_copy(update={
        "header": clip(chunk.header, MAX_HEADER_CHARS),
        "heading_path": [clip(h, MAX_TITLE_CHARS) for h in chunk.heading_path],
        "article": clip(chunk.article, MAX_FIELD_CHARS),
    })


class HitChunk(BaseModel):
    """A hit's chunk: where it is (pages, headings, offsets into the document Markdown) and its citable text."""

    chunk_id: str
    doc_id: str
    index: int
    header: str = Field(description="The heading lines the chunk sits under, as embedded (at most "
                        f"{MAX_HEADER_CHARS} characters).")
    heading_path: list[str] = []
    heading_kinds: list[HeadingKind] = []
    article: str | None = None
    role: ProvisionRole = ProvisionRole.text
    pages: list[int]
    start: int
    end: int = Field(description="`text` is the document Markdown [start:end], also when it was cut.")
    text: str
    truncated: bool = Field(False, description="The text was cut (max_chars or GACETA_MAX_HIT_CHARS): the chunk "
                            "goes on past `end`.")
    notes: list[AmendmentNote] = []
    is_table: bool = False

    @classmethod
    def of(cls, chunk: Chunk, max_chars: int) -> HitChunk:
        bounded = bounded_chunk(chunk)
        text = chunk.text[:max_chars]
        end = chunk.start + len(text)
        return cls(chunk_id=chunk.chunk_id, doc_id=chunk.doc_id, index=chunk.index, header=bounded.header,
                   heading_path=bounded.heading_path, heading_kinds=chunk.heading_kinds, article=bounded.article,
                   role=chunk.role, pages=chunk.pages, start=chunk.start, end=end, text=text,
                   truncated=len(text) < len(chunk.text), notes=[n for n in chunk.notes if n.start < end],
                   is_table=chunk.is_table)


class Hit(BaseModel):
    """One search hit (or answer source) as the API returns it."""

    chunk: HitChunk
    document: HitDocument
    score: float
    rank: int = Field(ge=1)
    label: str = Field("", description="As a lawyer cites it: \"Ley de Amparo, art. 17, p. 9\".")
    via: str = Field("search", description="\"search\" (hybrid/dense/bm25), \"reference\" (a reference the query "
                     "names, looked up), \"identifier\" (a search hit holding a number the query names an entry "
                     "by: \"el juicio 5929/20\"), \"opening\" (an article whose opening answers the query), "
                     "\"definition\" (a passage defining the term the query asks the meaning of) or \"disposition\" "
                     "(a judgment's operative part, for a query asking how a case was decided).")
    features: dict[str, float] = Field({}, description="The reranker's features and score, when it ran.")

    @classmethod
    def of(cls, hit: SearchHit, max_chars: int) -> Hit:
        return cls(chunk=HitChunk.of(hit.chunk, max_chars), document=HitDocument.of(hit.document), score=hit.score,
                   rank=hit.rank, label=clip(hit.label, MAX_TITLE_CHARS), via=hit.via, features=hit.features)


def bounded_references(references: list[ResolvedReference]) -> list[ResolvedReference]:
    return [r.model_copy(update={"titles": [clip(t, MAX_TITLE_CHARS) for t in r.titles]}) for r in references]


def bounded_citation(citation: Citation) -> Citation:
    """A citation with its document title and label bounded (its cited text is what it quotes: whole)."""
    return citation.model_copy(update={"document_title": clip(citation.document_title, MAX_TITLE_CHARS),
                                       "label": clip(citation.label, MAX_TITLE_CHARS)})


class SearchResponse(BaseModel):
    query: str
    mode: SearchMode
    k: int
    hits: list[Hit]
    references: list[ResolvedReference] = Field(
        [], description="Legal references read in the query ('art. 27 constitucional') and what they resolved to.")
    country: NamedCountry | None = Field(
        None, description="The one country the query names without naming a law ('los mexicanos'), when the index "
                          "holds laws of several: the documents of other countries are set aside.")

    @classmethod
    def of(cls, query: str, mode: SearchMode, k: int, found: SearchResult, max_chars: int) -> SearchResponse:
        return cls(query=query, mode=mode, k=k, hits=[Hit.of(h, max_chars) for h in found.hits],
                   references=bounded_references(found.references), country=found.country)


class AnswerResponse(Answer):
    """`retrieval.answers.models.Answer` with its sources as hits (`Hit`) and its names bounded."""

    sources: list[Hit] = []

    @classmethod
    def of(cls, answer: Answer, max_chars: int) -> AnswerResponse:
        content = [seg.model_copy(update={"citations": [bounded_citation(c) for c in seg.citations]})
                   for seg in answer.content]
        fields = {name: getattr(answer, name) for name in Answer.model_fields}
        return cls(**{**fields, "content": content, "sources": [Hit.of(h, max_chars) for h in answer.sources],
                      "references": bounded_references(answer.references)})


class SourcesEventResponse(SourcesEvent):
    sources: list[Hit]


class DoneEventResponse(DoneEvent):
    answer: AnswerResponse


def stream_event(event, max_chars: int):
    """One `/ask/stream` event as the API sends it: sources as hits, names bounded."""
    if isinstance(event, SourcesEvent):
        return SourcesEventResponse(sources=[Hit.of(h, max_chars) for h in event.sources],
                                    references=bounded_references(event.references), country=event.country)
    if isinstance(event, CitationEvent):
        return event.model_copy(update={"citation": bounded_citation(event.citation)})
    if isinstance(event, DoneEvent):
        return DoneEventResponse(answer=AnswerResponse.of(event.answer, max_chars))
    return event


# --- documents and chunks -------------------------------------------------------------------------------------------
class VersionInForce(BaseModel):
    """One indexed version of a law: its document, its date, and whether it is the one in force on the listing's day."""

    doc_id: str
    version_date: dt.date | None = None
    in_force: bool


class LawVersions(BaseModel):
    """A law held in more than one dated version (issue 24): each version once, oldest first."""

    law_id: str
    title: str
    versions: list[VersionInForce]


class DocumentListing(BaseModel):
    """`GET /documents`: the flat page (`documents`, unchanged) and the laws held in several versions, grouped, with
    the one in force on `as_of` (default today) marked."""

    total: int
    offset: int
    limit: int
    documents: list[DocumentSummary]
    as_of: dt.date
    laws: list[LawVersions] = []

    @classmethod
    def of(cls, page, infos: list[DocumentInfo], as_of: dt.date | None = None) -> "DocumentListing":
        from retrieval.versions import in_force, versioned, versions_of

        on = as_of or dt.date.today()
        out = in_force(infos, on).superseded
        laws = []
        for law_id in sorted(versioned(infos)):
            held = versions_of(infos, law_id)
            current = next((d for d in held if d.doc_id not in out), held[-1])
            laws.append(LawVersions(law_id=law_id, title=current.title, versions=[
                VersionInForce(doc_id=d.doc_id, version_date=d.version_date, in_force=d.doc_id not in out) for d in held]))
        return cls(**page.model_dump(), as_of=on, laws=laws)


class DocumentResponse(HitDocument):
    """`GET /documents/{doc_id}`: the document record — its whole Markdown, headings, page spans — with bounded names
    and its file name in place of the server's path."""

    aliases: list[str] = []
    amends: list[LegalReference] = []
    citation_form: CitationForm | None = None  # the parts of its citation beyond its name (volume, court, case number)
    source_sha256: str
    position: int = 0
    ingest_version: str = ""
    markdown: str
    headings: list[Heading] = []
    page_spans: list[PageSpan] = []
    tables: list[TableSpan] = []
    amendments: list[AmendmentNote] = []
    ocr_pages: list[int] = []

    @classmethod
    def of(cls, doc: LegalDocument) -> DocumentResponse:
        return cls(
            **cls.fields_of(doc),
            aliases=[clip(a, MAX_TITLE_CHARS) for a in doc.aliases[:MAX_ALIASES]], amends=doc.amends[:MAX_LISTED],
            citation_form=doc.citation_form,
            source_sha256=doc.source_sha256, position=doc.position, ingest_version=doc.ingest_version,
            markdown=doc.markdown, headings=[h.model_copy(update={"text": clip(h.text, MAX_TITLE_CHARS)})
                                             for h in doc.headings],
            page_spans=doc.page_spans, tables=doc.tables, amendments=doc.amendments, ocr_pages=doc.ocr_pages,
        )


class ChunkResponse(BaseModel):
    chunk: Chunk
    document: HitDocument


# --- errors ---------------------------------------------------------------------------------------------------------
class ErrorResponse(BaseModel):
    """An error: what went wrong, in one line."""

    detail: str


class InvalidField(BaseModel):
    type: str
    loc: list[str | int]
    msg: str


class ValidationErrorResponse(BaseModel):
    """422: every field that was refused (`detail`) and one readable line naming them (`message`). The rejected
    input is not echoed."""

    detail: list[InvalidField]
    message: str


def errors(*codes: int, streaming: bool = False) -> dict[int | str, dict]:
    """`responses=` for a route: the error bodies it may answer with (JSON). FastAPI files a `model` under the route's
    own media type, so a streaming route (`text/event-stream`) names the JSON schemas by reference instead."""
    described = {
        400: "The body could not be read (not UTF-8, not what its Content-Type says).",
        401: "GACETA_API_KEY is set and the request did not carry it.",
        404: "No such document, chunk, page or file in the index.",
        410: "The document's source PDF is gone or has changed since it was indexed: re-ingest it.",
        413: "The request body is larger than the server accepts (GACETA_MAX_REQUEST_BYTES, for an upload "
             "GACETA_MAX_UPLOAD_BYTES).",
        409: "The versions asked for cannot be compared: the index holds one version of the law, or both days "
             "read the same one.",
        415: "POST /ingest takes a PDF body only: Content-Type application/pdf or application/octet-stream.",
        422: "A parameter or body field was refused.",
        503: "The answerer asked for is not configured here, or its API is down; or the index's store failed (the "
             "message names the damage and its repair).",
    }
    def body(code: int) -> dict:
        model = ValidationErrorResponse if code == 422 else ErrorResponse
        if streaming:
            return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}}
        return {"model": model}

    return {code: {**body(code), "description": described[code]} for code in codes}


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str
    owner: str | None = Field(None, description="While this server owns an embedded index: the sha256 of the token "
                              "in its owner.json, so a reader of that file can tell the owner from a process that "
                              "reused its pid or port.")


class IngestResponse(BaseModel):
    """`POST /ingest`: what became of the uploaded file (the same `FileOutcome` a local `gaceta ingest` reports,
    its `path` the name it was sent under), with what decides re-indexing, so the client can write the same run
    summary."""

    outcome: FileOutcome
    embedding_model: str
    chunker_version: str
    revision: int = Field(description="The store's write revision after this file (searches see it from now on).")


# -- POST /attribute -------------------------------------------------------------------------------------------
def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("the text is empty")
    return value


class AttributeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_CHARS), AfterValidator(no_nul),
                    AfterValidator(_not_blank)] = Field(
        description=f"The text to check (at most {MAX_TEXT_CHARS:,} characters, not blank, no NUL); offsets in the "
                    "result point into it as sent.",
        json_schema_extra={"pattern": r"^[^\x00]*[^\x00\s][^\x00]*$"})
    question: Text | None = Field(None, description="A question to retrieve sources with, besides each sentence.")
    doc_ids: Annotated[list[Name], Field(max_length=MAX_DOC_IDS)] = Field(
        [], description=f"Check only against these documents (at most {MAX_DOC_IDS}); empty: the whole index.")
    rerank: StrictBool | None = Field(None, description="Re-rank each sentence's sources; unset = the server's "
                                      "GACETA_RERANK.")
    llm: StrictBool = Field(False, description="Re-judge the sentences without quotes with the server's chat model "
                      "(GACETA_OPENAI_BASE_URL); when none is configured or it fails, the offline verdicts stand "
                      "and `fallback_reason` says why.")
    as_of: IsoDate | None = Field(None, description="Check against each law in the version in force on this day "
                                  "(YYYY-MM-DD); unset: today.")


class AttributionResponse(AttributionResult):
    """`retrieval.attribution.AttributionResult` as the API returns it: sources as `/search` hits, names bounded
    (the CLI prints this shape too, with or without a server)."""

    sources: list[Hit] = []

    @classmethod
    def of(cls, result: AttributionResult, max_chars: int) -> AttributionResponse:
        def cites(citations):
            return [bounded_citation(c) for c in citations]

        fields = {name: getattr(result, name) for name in AttributionResult.model_fields}
        return cls(**{
            **fields,
            "content": [s.model_copy(update={"citations": cites(s.citations)}) for s in result.content],
            "sentences": [s.model_copy(update={"citations": cites(s.citations)}) for s in result.sentences],
            "quotes": [q.model_copy(update={"citations": cites(q.citations)}) for q in result.quotes],
            "sources": [Hit.of(h, max_chars) for h in result.sources],
            "references": bounded_references(result.references),
        })
