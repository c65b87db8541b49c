"""`gaceta mcp`: gaceta as a Model Context Protocol server (the official `mcp` SDK's `MCPServer`), over stdio or
streamable HTTP. A face, as thin as the CLI and the API: every tool is one of their calls, and returns their models.

    search(query, k, filters)          → passages (`/search`'s hits, compact): text, label, page, law version, a
                                         link to the highlighted page
    get_provision(law, article, …)     → `GET /laws/{law}/articles/{article}` (`retrieval.provisions.Provision`):
                                         an article or one paragraph / fracción of it, verbatim, with its amendment
                                         notes, the label a lawyer writes, page, version read, link
    ask(question, k, filters)          → the API's `AnswerResponse` (cited answer, verified spans, coverage)
    check_quote(quote, source?)        → each quote exact / altered / misattributed / not found, official wording
    attribute(text)                    → the API's `AttributionResponse` (sentences and quotes of any text)
    format_citation(reference)         → the parsed reference (`ingest.references`), what it resolves to in the
                                         index (`retrieval.law_lookup`), its label (`retrieval.labels`)
    compare_versions(law, article, …)  → `retrieval.article_history.ArticleDiff` (what a reform changed)
    article_history(law, article)      → `ArticleHistory` (the article in every version held, dated)
    list_documents(filters, …)         → the API's `DocumentListing` (the page, and laws grouped by version)
    resource gaceta://documents/{id}   → a document's Markdown

Where the index is (`gaceta.mcp_backend.Backend`): through its owner (`gaceta serve`) when one serves this data dir,
as every command does (`gaceta.client.OwnerClient`); otherwise this process opens the index on its first call and
keeps it while it runs (qdrant-edge admits one process: other commands wait for it, as they wait for any command;
run `gaceta serve` to share it). A provision is the API's `GET /laws/{law}/articles/{article}`
(`retrieval.provisions`: the law's name resolved against the index's documents, the article read in the version in
force), so nothing of search, answering or reading a law is done here.

Errors an agent can act on (unknown law, article not found, index damaged, a bad argument) are MCP tool errors with
one line (`ToolError`); results are bounded as the API bounds them (`gaceta.api.schemas`). `as_of` (search,
get_provision, ask) reads each law in the version in force on that day, as the API's `as_of` does
(`retrieval.versions`); unset, the version in force today.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Annotated
from urllib.parse import quote as url_quote

from pydantic import BaseModel, Field, ValidationError

from gaceta.api.schemas import (MAX_QUESTION_CHARS, AnswerResponse, AttributeRequest, AttributionResponse, AskRequest,
                                DocumentListing, FiltersIn, Hit, HitDocument, SearchRequest)
from gaceta.mcp_backend import Backend, GacetaToolError, T
from ingest.models import DocumentInfo, LegalReference
from retrieval import provisions
from retrieval.article_history import ArticleDiff, ArticleHistory
from retrieval.models import NamedCountry, ResolvedReference
from retrieval.settings import Settings

NAME = "gaceta"


# --- result models (the API's, plus what an agent needs to open a page) -------------------------------------------
class SearchHit(BaseModel):
    """A passage as an agent needs it: the citable text, where it is, how to cite and show it. (The API's hit also
    carries the embedded header, the reranker's features and the whole document record: tokens an agent pays for,
    and a larger structured result its SDK validates on every call.)"""

    rank: int
    score: float
    label: str = Field(description="As a lawyer cites it: \"Ley de Amparo, art. 17, párr. 1, p. 8\".")
    text: str = Field(description="The passage verbatim (the document's Markdown between `start` and `end`).")
    truncated: bool = Field(False, description="The text was cut (the server's GACETA_MAX_HIT_CHARS).")
    doc_id: str
    title: str = Field(description="The document's title.")
    doc_type: str | None = None
    publication_date: str | None = None
    last_reform_date: str | None = None
    law_id: str | None = Field(None, description="The law this document is a version of (\"mx/ley-de-amparo\").")
    version_date: str | None = Field(None, description="Which version of its law: its last reform as printed, else "
                                     "its publication (YYYY-MM-DD).")
    article: str | None = Field(None, description="The article the passage is in (get_provision gives it whole).")
    heading_path: list[str] = []
    chunk_id: str
    page: int = Field(description="The PDF page the passage starts on (the one `link` opens).")
    pages: list[int] = Field(description="PDF pages the passage touches.")
    start: int
    end: int
    notes: list[str] = Field([], description="Amendment notes printed in the passage.")
    via: str = Field("search", description="\"reference\": a provision the query names, looked up; \"identifier\": "
                     "a passage holding a number the query names an entry by (\"el juicio 5929/20\"); \"opening\": "
                     "an article whose opening answers the query; \"definition\": a passage defining the term the "
                     "query asks the meaning of; \"disposition\": a judgment's operative part, for a query asking how "
                     "a case was decided; \"search\" otherwise.")
    link: str = Field(description="The page view that shows the passage highlighted on its first PDF page "
                      "(relative to the `gaceta serve` address when no server runs).")

    @classmethod
    def of(cls, hit: Hit, base: str) -> SearchHit:
        c, d = hit.chunk, hit.document
        return cls(rank=hit.rank, score=hit.score, label=hit.label, text=c.text, truncated=c.truncated,
                   doc_id=c.doc_id, title=d.title, doc_type=d.doc_type.value if d.doc_type else None,
                   publication_date=d.publication_date and d.publication_date.isoformat(),
                   last_reform_date=d.last_reform_date and d.last_reform_date.isoformat(), law_id=d.law_id,
                   version_date=d.version_date and d.version_date.isoformat(), article=c.article,
                   heading_path=c.heading_path, chunk_id=c.chunk_id, page=c.pages[0], pages=c.pages, start=c.start,
                   end=c.end,
                   notes=[n.text for n in c.notes], via=hit.via,
                   link=page_link(base, c.doc_id, c.pages[0], c.start, c.end))


class SearchResult(BaseModel):
    query: str
    hits: list[SearchHit]
    references: list[ResolvedReference] = Field([], description="Legal references read in the query ('art. 27 "
                                                "constitucional') and what they resolved to.")
    country: NamedCountry | None = Field(None, description="The one country the query names without naming a law, "
                                         "when the index holds laws of several: other countries' documents set aside.")


class Provision(provisions.Provision):
    """`GET /laws/{law}/articles/{article}`'s provision (`retrieval.provisions`), with the page that shows it."""

    link: str = Field(description="The page view with the provision highlighted on its first page.")


class QuoteResult(BaseModel):
    text: str = Field(description="The quote as written.")
    status: str = Field(description="exact | altered | misattributed | not_found")
    official: str | None = Field(None, description="The official wording (a verbatim slice of the document).")
    changes: list[dict[str, str | None]] = Field([], description="Word changes quote → official wording "
                                                 "(op: replace | delete | insert).")
    claimed: str | None = Field(None, description="The source the text names for the quote, as written.")
    found: str | None = Field(None, description="Where the official wording is, as a lawyer cites it.")
    link: str | None = Field(None, description="The page view with the official wording highlighted.")
    reason: str = ""


class QuoteCheckResult(BaseModel):
    quotes: list[QuoteResult]


class Citation(BaseModel):
    """A reference as `format_citation` read it and what it names in the index."""

    reference: LegalReference
    resolved: bool = Field(description="The law it names is in the index (and the article, when one is named).")
    documents: list[str] = Field([], description="Titles of the documents the law resolved to, best first.")
    doc_id: str | None = None
    label: str | None = Field(None, description="The citation as a lawyer writes it, with the page of the "
                              "provision in the official text.")
    link: str | None = None
    message: str = Field("", description="Why it did not resolve, in one line.")


# --- provisions ----------------------------------------------------------------------------------------------------
def page_link(base: str, doc_id: str, page: int, start: int, end: int) -> str:
    """The page view (`GET /documents/{doc_id}/pages/{n}?highlight=START-END`) that shows the span highlighted."""
    return f"{base}/documents/{url_quote(doc_id, safe='')}/pages/{page}?highlight={start}-{end}"


def document_info(document: HitDocument) -> DocumentInfo:
    """The record `retrieval.labels` names a document from, rebuilt from the bounded names a hit carries."""
    return DocumentInfo(**document.model_dump(exclude={"file_name"}), source_path=document.file_name,
                        source_sha256="")


def linked_provision(backend: Backend, law: str, article: str, paragraph: int | None = None,
                     fraction: str | None = None, as_of: dt.date | None = None) -> Provision:
    """`GET /laws/{law}/articles/{article}` through the owner, or `retrieval.provisions.find_provision` on the index
    here; with the link to the page that shows it highlighted."""
    path = f"/laws/{url_quote(law, safe='')}/articles/{url_quote(article, safe='')}"
    asked = (("paragraph", paragraph), ("fraction", fraction or None), ("as_of", as_of and as_of.isoformat()))
    found = backend.laws(
        path, {k: v for k, v in asked if v is not None},
        lambda index: provisions.find_provision(index, law, article, paragraph, fraction, as_of), provisions.Provision)
    return Provision(**dict(found), link=page_link(backend.base_url, found.doc_id, found.page, found.start, found.end))


def format_reference(backend: Backend, reference: str) -> Citation:
    """The first legal reference in `reference`, parsed, resolved against the index and labelled."""
    from ingest.references import parse_references
    from retrieval.labels import document_name

    refs = [r for r in parse_references(reference) if r.articles or r.law or r.constitutional]
    if not refs:
        raise GacetaToolError(f"no legal reference in {reference!r}: write it as a lawyer does (artículo 27 de la "
                              "Constitución, art. 17 de la Ley de Amparo, 14 constitucional)")
    ref = refs[0]
    if not ref.articles:  # a law alone: what it resolves to, named as citations name it
        found = backend.search(SearchRequest(query=ref.text, k=1))
        resolved = next((r for r in found.references if r.resolved), None)
        if resolved is None:
            return Citation(reference=ref, resolved=False, message=f"no document in the index is called {ref.text!r}")
        hit = next((h for h in found.hits if h.chunk.doc_id == resolved.doc_ids[0]), None)
        name = document_name(document_info(hit.document)) if hit else resolved.titles[0]
        return Citation(reference=ref, resolved=True, documents=resolved.titles, doc_id=resolved.doc_ids[0],
                        label=name)
    law = ref.law or ("Constitución" if ref.constitutional else "")
    if not law:
        return Citation(reference=ref, resolved=False, message="no law named: say which law the article is of")
    try:
        provision = linked_provision(backend, law, ref.articles[0], ref.paragraph, ref.fraccion)
    except GacetaToolError as exc:
        return Citation(reference=ref, resolved=False, message=str(exc))
    return Citation(reference=ref, resolved=True, documents=[provision.law], doc_id=provision.doc_id,
                    label=provision.label, link=provision.link)


def quote_results(result: AttributionResponse, base: str) -> list[QuoteResult]:
    out = []
    for q in result.quotes:
        cite = q.citations[0] if q.citations else None
        link = None
        if cite is not None and q.official:
            link = page_link(base, cite.doc_id, cite.pages[0], cite.start, cite.end)
        out.append(QuoteResult(
            text=q.text, status=q.status.value, official=q.official,
            changes=[{"op": d.op, "quoted": d.quoted, "official": d.official} for d in q.diff if d.op != "equal"],
            claimed=q.claimed.text if q.claimed else None, found=q.found_label, link=link, reason=q.reason))
    return out


# --- the server ----------------------------------------------------------------------------------------------------
# (module level: the SDK reads the tools' annotations by name, `from __future__ import annotations` being on)
Query = Annotated[str, Field(description="What to look for, in Spanish or English; legal references "
                             "('art. 27 constitucional') are looked up directly.", max_length=MAX_QUESTION_CHARS)]
Filters = Annotated[FiltersIn | None, Field(description="Restrict to document types, issuing bodies, dates, "
                                            "document ids.")]
AsOf = Annotated[dt.date | None, Field(description="Read each law in the version in force on this day (YYYY-MM-DD); "
                                       "unset: the version in force today.")]


def _one_line(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'input'}: {e['msg']}" for e in exc.errors())


def build_server(settings: Settings | None = None):
    """The MCP server: its tools over one `Backend` (closed with the server's lifespan)."""
    from contextlib import asynccontextmanager

    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError, UnexpectedToolError
    from mcp.types import ToolAnnotations

    settings = settings or Settings()
    backend = Backend(settings)

    @asynccontextmanager
    async def lifespan(_server):
        try:
            yield None
        finally:
            backend.close()

    class Server(MCPServer):
        async def call_tool(self, name, arguments, context=None):
            """Arguments the input schema refuses: one line naming each field and why (pydantic's report spans
            lines and links to its docs)."""
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                if isinstance(exc.__cause__, ValidationError) and not isinstance(exc, UnexpectedToolError):
                    raise ToolError(f"{name}: {_one_line(exc.__cause__)}") from exc.__cause__
                raise

    server = Server(
        NAME, title="gaceta: Mexican and other official legal texts, cited",
        instructions=(
            "Official legal texts (the Mexican Constitution, federal laws, DOF gazettes, other legal PDFs) with "
            "verifiable citations. get_provision fetches an article verbatim with its amendment notes; search finds "
            "passages; ask answers with citations checked against the official text; check_quote tells whether a "
            "quote is exact, altered, misattributed or not in the law; format_citation turns 'art. 27 constitucional' "
            "into the citation a lawyer writes. Every result carries a link that opens the PDF page with the cited "
            "words highlighted."),
        version=_version(), lifespan=lifespan, log_level="WARNING")
    read_only = ToolAnnotations(readOnlyHint=True, openWorldHint=False)

    def call(fn: Callable[[], T]) -> T:
        """A tool's work; its expected failures one line for the agent, never a traceback."""
        from retrieval.answers import AnswerError
        from retrieval.attribution import AttributionInputError, UnknownDocuments
        from retrieval.cross_encoder import CrossEncoderError
        from retrieval.embedders import EmbedderError
        from retrieval.store import StoreError

        try:
            return fn()
        except GacetaToolError as exc:
            raise ToolError(str(exc)) from None
        except ValidationError as exc:
            raise ToolError(_one_line(exc)) from None  # a request model of the API's refused the arguments
        except (StoreError, AnswerError, AttributionInputError, EmbedderError, CrossEncoderError) as exc:
            raise ToolError(str(exc)) from None
        except UnknownDocuments as exc:
            raise ToolError(str(exc).strip("'\"")) from None

    @server.tool(annotations=read_only)
    def search(query: Query, k: Annotated[int, Field(ge=1, le=100)] = 10, filters: Filters = None,
               as_of: AsOf = None) -> SearchResult:
        """Search the indexed legal texts: ranked passages with the document, the citation label, the page and a
        link to the highlighted page."""
        def run() -> SearchResult:
            found = backend.search(SearchRequest(query=query, k=k, filters=filters, as_of=as_of))
            base = backend.base_url
            return SearchResult(query=found.query, hits=[SearchHit.of(h, base) for h in found.hits],
                                references=found.references, country=found.country)

        return call(run)

    @server.tool(annotations=read_only)
    def get_provision(
        law: Annotated[str, Field(description="The law as cited: 'CPEUM', 'Constitución', 'Ley de Amparo', 'LFT'.",
                                  min_length=1, max_length=300)],
        article: Annotated[str, Field(description="The article as the law numbers it: '27', '3o', '107 Bis'.",
                                      min_length=1, max_length=40)],
        paragraph: Annotated[int | None, Field(ge=1, le=500, description="Only this paragraph (párrafo) of the "
                                               "article, counted as lawyers count them.")] = None,
        fraction: Annotated[str | None, Field(max_length=20, description="Only this fracción (roman numeral: "
                                              "'IV').")] = None,
        as_of: AsOf = None,
    ) -> Provision:
        """An article of a law (or one paragraph / fracción of it) verbatim from the official text, with its
        amendment notes, the label a lawyer cites it by, its page and a link to the highlighted page."""
        return call(lambda: linked_provision(backend, law, article, paragraph, fraction, as_of))

    @server.tool(annotations=read_only)
    def ask(question: Annotated[str, Field(description="The question, in Spanish or English.",
                                           max_length=MAX_QUESTION_CHARS)],
            k: Annotated[int, Field(ge=1, le=100)] = 8, filters: Filters = None, as_of: AsOf = None) -> AnswerResponse:
        """Answer a question from the indexed legal texts: every sentence cited to a span of the official text that
        was checked to contain it, with coverage (how many sentences the quoted text backs)."""
        return call(lambda: backend.ask(AskRequest(question=question, k=k, filters=filters, as_of=as_of)))

    @server.tool(annotations=read_only)
    def check_quote(
        quote: Annotated[str, Field(description="The quoted words (without quotation marks).", min_length=1,
                                    max_length=20_000)],
        source: Annotated[str | None, Field(max_length=300, description="What the quote is said to be from: "
                                            "'artículo 27 de la Constitución'.")] = None,
    ) -> QuoteCheckResult:
        """Check one quotation against the official text: exact, altered (with the changed words), misattributed
        (the words are the law's, but from another article or law than `source` says) or not found; with the
        official wording and where it is."""
        def run() -> QuoteCheckResult:
            words = " ".join(quote.split()).strip("«»“”\"'")
            text = f"{source.strip()} dice: «{words}»." if source and source.strip() else f"«{words}»."
            result = backend.attribute(AttributeRequest(text=text))
            return QuoteCheckResult(quotes=quote_results(result, backend.base_url))

        return call(run)

    @server.tool(annotations=read_only)
    def attribute(text: Annotated[str, Field(description="Any text (a model's answer, a memo, a brief); quotes "
                                             "in «…», “…” or \"…\".", min_length=1, max_length=50_000)]
                  ) -> AttributionResponse:
        """Check a whole text against the official texts: each sentence supported / partly / unsupported by the
        sources, each quote exact / altered / misattributed / not found with the official wording."""
        return call(lambda: backend.attribute(AttributeRequest(text=text)))

    @server.tool(annotations=read_only)
    def format_citation(reference: Annotated[str, Field(description="A legal reference as written: 'art. 27 "
                                                        "constitucional', 'artículo 17, fracción I de la Ley de "
                                                        "Amparo'.", min_length=1, max_length=1000)]) -> Citation:
        """Read a legal reference (Spanish forms: 'artículo 16', 'el 27 constitucional', 'fr. IV') and give the
        citation a lawyer writes, resolved against the index (document, article, paragraph, page, link)."""
        return call(lambda: format_reference(backend, reference))

    @server.tool(annotations=read_only)
    def compare_versions(
        law: Annotated[str, Field(description="The law as cited ('Ley de Amparo', 'CPEUM') or its law id "
                                  "('mx/ley-de-amparo').", min_length=1, max_length=300)],
        article: Annotated[str, Field(description="The article as the law numbers it: '7o', '129'.", min_length=1,
                                      max_length=40)],
        from_date: Annotated[dt.date | None, Field(description="The earlier version: the one in force on this day "
                                                   "(default: the version before the later one).")] = None,
        to_date: Annotated[dt.date | None, Field(description="The later version: the one in force on this day "
                                                 "(default: the latest held).")] = None,
    ) -> ArticleDiff:
        """What a reform changed in one article: its verbatim text in two versions of its law, each with its
        citation label naming the version, the wording aligned word by word (amendment notes apart), the notes and
        the reform decrees the later text prints for it. Status: changed | unchanged | added | removed."""
        from retrieval.article_history import article_diff, find_law

        path = f"/laws/{url_quote(law, safe='')}/articles/{url_quote(article, safe='')}/diff"
        params = {k: v.isoformat() for k, v in (("from", from_date), ("to", to_date)) if v}
        return call(lambda: backend.laws(
            path, params, lambda index: article_diff(index, *find_law(index, law), article, from_date, to_date),
            ArticleDiff))

    @server.tool(annotations=read_only)
    def article_history(
        law: Annotated[str, Field(description="The law as cited or its law id.", min_length=1, max_length=300)],
        article: Annotated[str, Field(description="The article as the law numbers it.", min_length=1,
                                      max_length=40)],
    ) -> ArticleHistory:
        """One article in every version of its law the index holds, oldest first: each version's date, its text
        and label, and whether it changed from the version before (first | changed | unchanged | added | removed)."""
        from retrieval.article_history import article_history as history, find_law

        path = f"/laws/{url_quote(law, safe='')}/articles/{url_quote(article, safe='')}/history"
        return call(lambda: backend.laws(
            path, {}, lambda index: history(index, *find_law(index, law), article), ArticleHistory))

    @server.tool(annotations=read_only)
    def list_documents(filters: Filters = None, offset: Annotated[int, Field(ge=0)] = 0,
                       limit: Annotated[int, Field(ge=1, le=500)] = 50) -> DocumentListing:
        """The indexed laws and documents (id, title, type, issuing body, publication date, pages), newest first;
        `laws`: each law held in several versions, its versions dated and the one in force (`filters.as_of`, default
        today) marked."""
        return call(lambda: backend.documents(filters, offset, limit))

    @server.resource("gaceta://documents/{doc_id}", mime_type="text/markdown",
                     description="A document's whole text as Markdown (the offsets of citations point into it).")
    def document(doc_id: str) -> str:
        try:
            got = call(lambda: backend.document(doc_id))
        except ToolError as exc:
            raise ResourceError(str(exc)) from None
        if got is None:
            raise ResourceNotFoundError(f"no document {doc_id!r} in the index")
        return got.markdown

    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gaceta")
    except PackageNotFoundError:
        return ""


# --- streamable HTTP: the API's key rules ---------------------------------------------------------------------------
class BearerKey:
    """ASGI middleware: every request carries `Authorization: Bearer <GACETA_API_KEY>` (constant-time compared), as
    the API asks; a 401 with a one-line JSON body otherwise."""

    def __init__(self, app, key: str):
        self.app, self.key = app, key.encode()

    async def __call__(self, scope, receive, send):
        import secrets

        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, token = given.partition(b" ")
            if scheme.lower() != b"bearer" or not secrets.compare_digest(token.strip(), self.key):
                from starlette.responses import JSONResponse

                detail = ("missing API key: send 'Authorization: Bearer <key>'" if not token
                          else "invalid API key")
                await JSONResponse({"detail": detail}, 401, {"WWW-Authenticate": "Bearer"})(scope, receive, send)
                return
        await self.app(scope, receive, send)


def http_app(server, host: str, api_key: str | None, allowed: list[str]):
    """The streamable HTTP app (path /mcp), DNS-rebinding protection on the Host names given, the key required when
    one is set."""
    from mcp.server.transport_security import TransportSecuritySettings

    if "*" in allowed:  # a wildcard bind with a key and no names given answers any Host (as the API does)
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    else:
        security = TransportSecuritySettings(allowed_hosts=[f"{h}:*" for h in allowed] + allowed,
                                             allowed_origins=[f"{s}://{h}{p}" for h in allowed
                                                              for s in ("http", "https") for p in ("", ":*")])
    app = server.streamable_http_app(transport_security=security, host=host)
    return BearerKey(app, api_key) if api_key else app
