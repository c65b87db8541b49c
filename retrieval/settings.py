"""Configuration from the environment (prefix GACETA_), shared by retrieval, flows and the faces."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, SettingsConfigDict


Answerer = Literal["extractive", "claude", "tags", "tools"]  # the answer backends (retrieval.answers.pipeline)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GACETA_", env_file=".env", extra="ignore")

    home: Path = Field(Path("gaceta-data"), description="All state lives here: index, documents, Prefect home, downloads.")

    # Store
    qdrant_url: str | None = Field(None, description="Qdrant server/cluster URL; unset = embedded qdrant-edge under home.")
    qdrant_api_key: str | None = None
    qdrant_shards: int = 1
    qdrant_replication: int = 1
    collection: str = "gaceta"
    chunk_cache: int = Field(
        20_000,
        ge=0,
        description="Parsed search hits an embedded index keeps in memory (least recently used go first); 0 = none.",
    )

    # Embeddings
    embedding_model: str = Field(
        "use-v3",
        description="'use-v3' (multilingual USE v3, the default: it wins Spanish hybrid recall, see "
        "docs/benchmarks.md), 'minilm' (all-MiniLM-L6-v2), or any sentence-transformers name or path.",
    )
    device: str = Field(
        "auto", description="GACETA_DEVICE: where a sentence-transformers embedding model runs: 'auto' (a CUDA GPU "
        "when torch sees one, else the CPU), 'cpu', 'cuda', 'cuda:N' or 'mps'; 256 texts a batch on a GPU, 32 on the "
        "CPU. use-v3 (numpy) runs on the CPU only: with it, a GPU named here is an error and 'auto' is the CPU. A "
        "named device torch does not see is an error when the model loads (retrieval.embedders.resolve_device).")

    # Retrieval
    rerank: bool = Field(True, description="GACETA_RERANK=off: answer from the first-stage hybrid list as it comes "
                         "(the named-provision lookup still runs); on: the feature reranker of retrieval/rerank.py.")
    rerank_model: str | None = Field(None, description="A sentence-transformers CrossEncoder (local path, or a name "
                                     "already in the Hugging Face cache) whose score joins the reranker's features; "
                                     "unset (the default): the feature reranker alone. Never downloaded at run time.")

    openings: bool = Field(True, description="GACETA_OPENINGS=off: no article-opening vectors (retrieval/openings.py) "
                           "are written at ingest or consulted for questions that name no article.")

    # Answers
    answerer: Answerer = "extractive"
    anthropic_api_key: str | None = None
    anthropic_base_url: str | None = None
    anthropic_model: str = "claude-sonnet-4-6"  # claude-sonnet-4-5 reaches end-of-life on 2026-11-30
    anthropic_timeout_s: float = 60.0
    anthropic_max_retries: int = 3
    openai_base_url: str | None = Field(None, description="OpenAI-compatible endpoint for the 'tags' answerer.")
    openai_api_key: str | None = None
    openai_model: str = "local"
    # Answers: tools answerer and context trimming (issue 17)
    tools_provider: Literal["openai", "anthropic"] = Field(
        "openai", description="GACETA_TOOLS_PROVIDER: where the 'tools' answerer calls its answer tool: 'openai' (any "
        "OpenAI-compatible chat endpoint with tool calling, GACETA_OPENAI_*) or 'anthropic' (Claude tool use, "
        "GACETA_ANTHROPIC_*).")
    trim: bool = Field(True, description="GACETA_TRIM=off sends LLM answerers (claude, tags, tools) whole chunks; on: "
                       "only each chunk's sentences that matter to the question, plus its header "
                       "(retrieval/answers/trim.py).")

    # Support and relevance judgements (issue 17)
    judge: Literal["offline", "llm"] = Field(
        "offline", description="GACETA_JUDGE=llm judges each answer's cited sentences (supported / partial / "
        "unsupported) and its relevance with one call to the OpenAI-compatible endpoint (GACETA_OPENAI_*); on any "
        "failure the offline judgement stands and its method says why. offline: retrieval/answers/support.py.")


    # Flows
    context: bool = Field(False, description="GACETA_CONTEXT=on adds Anthropic contextual blurbs at ingest.")
    ingest_workers: int | None = Field(
        None, ge=1, description="GACETA_INGEST_WORKERS: files an ingest run parses and chunks at once, each in a "
        "worker process when more than one (flows.parse_pool), with twice as many files in flight; unset = one per "
        "CPU this process may run on (its affinity mask, ingest.cpus.available_cpus).")
    dof_url_template: str = "https://www.dof.gob.mx/abrirPDF.php?archivo={ddmmyyyy}-{edition}.pdf&anio={yyyy}&repo=repositorio/"

    # OCR (issue 16)
    ocr_workers: int | None = Field(
        None, ge=1, description="Processes that OCR a file's scanned pages in parallel; unset = every core "
        "this process may run on. The output is the same for any number.")

    # HTTP API
    api_key: str | None = Field(None, description="When set, every route but /healthz needs 'Authorization: Bearer …'.")
    allowed_hosts: list[str] | None = Field(
        None, description="GACETA_ALLOWED_HOSTS (JSON list): the Host names the API answers (DNS rebinding); `gaceta "
        "serve` sets it from the address it binds. Unset: any Host (an app embedded elsewhere).")
    # Limits (issue 16)
    max_request_bytes: int = Field(
        1 << 20, ge=1024, description="GACETA_MAX_REQUEST_BYTES: the largest request body the API accepts (a JSON "
        "query or question; POST /ingest has its own limit): 413 beyond it, answered before the body is read.")
    max_upload_bytes: int = Field(
        2 << 30, ge=1 << 20, description="GACETA_MAX_UPLOAD_BYTES: the largest PDF POST /ingest accepts (413 beyond it).")
    max_hit_chars: int = Field(
        20_000, ge=200, description="GACETA_MAX_HIT_CHARS: the longest chunk text a search hit or answer source carries "
        "(a cut text is marked `truncated`; a chunk is a few thousand characters, so only a degenerate one is cut); a "
        "client asks for less with `max_chars`.")

    @field_validator("device", mode="before")
    @classmethod
    def _device_form(cls, value: object) -> object:
        """'auto', 'cpu', 'cuda', 'cuda:N' or 'mps' (any case, spaces around ignored); any other form is refused."""
        if not isinstance(value, str):
            return value
        device = value.strip().lower()
        form = re.fullmatch(r"auto|cpu|mps|cuda(?::(\d+))?", device)
        if form is None:
            raise PydanticCustomError("device", "must be auto, cpu, cuda, cuda:N (N a GPU's number) or mps")
        return f"cuda:{int(form[1])}" if form[1] else device

    @property
    def index_dir(self) -> Path:
        return self.home / "index"

    @property
    def documents_dir(self) -> Path:
        return self.home / "documents"

    @property
    def openings_dir(self) -> Path:
        return self.home / "openings"
