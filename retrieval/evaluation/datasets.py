"""Public retrieval test sets, loaded into one shape whatever their on-disk format.

A dataset is a corpus of passages plus queries whose gold answer is one or more *groups* of passage ids: a group is
found when any passage in it is retrieved. Groups let each set keep its own matching rule — the Anthropic cookbook
matches golden chunks by stripped content (so identical chunks count), ObliQA by (DocumentID, PassageID).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel


class DatasetFormatError(ValueError):
    """The folder is not one of the evaluation formats we know."""


class Passage(BaseModel):
    pid: str  # unique within the dataset
    doc_key: str  # passages sharing it belong to one document
    doc_title: str
    headings: list[str] = []  # section headings open at the passage, outermost first
    text: str


class Query(BaseModel):
    qid: str
    text: str
    gold: list[list[str]]  # groups of equivalent passage ids; each group found counts once


class PublishedRow(BaseModel):
    """A figure the dataset's authors (or the cookbook) published, printed beside ours."""

    system: str
    source: str
    metrics: dict[str, float]


class EvalDataset(BaseModel):
    name: str
    format: str
    language: str
    passages: list[Passage]
    queries: list[Query]
    columns: list[str]  # the metrics worth printing for this set, in order
    published: list[PublishedRow] = []
    note: str = ""


RECALL_COLUMNS = ["R@1", "R@5", "R@10", "R@20", "MRR"]

_COOKBOOK = "anthropic-cookbook skills/contextual-embeddings/guide.ipynb @ 4b36a1e1"
ANTHROPIC_PUBLISHED = [
    PublishedRow(system="voyage-2 embeddings (basic)", source=_COOKBOOK,
                 metrics={"Pass@5": 80.92, "Pass@10": 87.15, "Pass@20": 90.06}),
    PublishedRow(system="contextual embeddings", source=_COOKBOOK,
                 metrics={"Pass@5": 86.37, "Pass@10": 92.81, "Pass@20": 93.78}),
    PublishedRow(system="contextual embeddings + contextual BM25", source=_COOKBOOK,
                 metrics={"Pass@5": 86.43, "Pass@10": 93.21, "Pass@20": 94.99}),
    PublishedRow(system="contextual embeddings + Cohere rerank", source=_COOKBOOK,
                 metrics={"Pass@5": 91.24, "Pass@10": 94.79, "Pass@20": 96.30}),
]


def load_dataset(path: str | Path) -> EvalDataset:
    """Detect the format of a dataset folder and load it; a clear error when nothing matches."""
    folder = Path(path)
    if not folder.is_dir():
        raise DatasetFormatError(f"{folder}: not a dataset folder")
    if (folder / "codebase_chunks.json").is_file() and (folder / "evaluation_set.jsonl").is_file():
        return load_anthropic(folder)
    if (folder / "ObliQA_test.json").is_file() and (folder / "StructuredRegulatoryDocuments").is_dir():
        return load_obliqa(folder)
    squad = squad_file(folder)
    if squad is not None:
        return load_squad(squad)
    raise DatasetFormatError(
        f"{folder}: unknown dataset format (expected codebase_chunks.json + evaluation_set.jsonl, "
        "ObliQA_test.json + StructuredRegulatoryDocuments/, or a SQuAD-format xquad.*.json)"
    )


def load_anthropic(folder: Path) -> EvalDataset:
    """Anthropic cookbook Contextual Retrieval set: 737 code chunks, 248 queries, Pass@k by chunk content."""
    docs = json.loads((folder / "codebase_chunks.json").read_text(encoding="utf-8"))
    passages = [
        Passage(pid=chunk["chunk_id"], doc_key=doc["original_uuid"], doc_title=doc["doc_id"], text=chunk["content"])
        for doc in docs
        for chunk in doc["chunks"]
    ]
    by_content: dict[str, list[str]] = defaultdict(list)
    for passage in passages:
        by_content[passage.text.strip()].append(passage.pid)
    queries = []
    with (folder / "evaluation_set.jsonl").open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            item = json.loads(line)
            golden = {
                (doc["uuid"], chunk["index"]): chunk["content"].strip()
                for doc in item["golden_documents"]
                for chunk in doc["chunks"]
            }
            gold = [by_content[golden[(uuid, index)]] for uuid, index in item["golden_chunk_uuids"]]
            if not all(gold):
                raise DatasetFormatError(f"evaluation_set.jsonl line {number + 1}: a golden chunk is not in the corpus")
            queries.append(Query(qid=str(number), text=item["query"], gold=gold))
    return EvalDataset(
        name=folder.name, format="anthropic_contextual_retrieval", language="en", passages=passages,
        queries=queries, columns=["Pass@5", "Pass@10", "Pass@20", "R@1", "MRR"], published=ANTHROPIC_PUBLISHED,
        note="Pass@k = mean share of a query's golden chunks (matched by stripped content) in the top k, x100.",
    )


def squad_file(folder: Path) -> Path | None:
    """The SQuAD-format file of a folder: xquad.<lang>.json first, never the sentence-level xquad-r variant."""
    candidates = sorted(folder.glob("xquad.*.json")) or sorted(p for p in folder.glob("*.json") if "-r" not in p.name)
    for candidate in candidates:
        try:
            data = json.loads(candidate.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(data, dict) and isinstance(data.get("data"), list) and data["data"] and "paragraphs" in data["data"][0]:
            return candidate
    return None


def load_squad(path: Path) -> EvalDataset:
    """SQuAD v1.1 JSON (XQuAD): paragraph retrieval, one gold paragraph per question."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    passages, queries = [], []
    for a, article in enumerate(data):
        title = article["title"].replace("_", " ")
        for p, paragraph in enumerate(article["paragraphs"]):
            pid = f"{a}-{p}"
            passages.append(Passage(pid=pid, doc_key=str(a), doc_title=title, text=paragraph["context"]))
            queries.extend(Query(qid=qa["id"], text=qa["question"], gold=[[pid]]) for qa in paragraph["qas"])
    language = path.name.split(".")[1] if path.name.count(".") >= 2 else "und"
    return EvalDataset(
        name=path.parent.name, format="squad", language=language, passages=passages, queries=queries,
        columns=RECALL_COLUMNS,
        note="No published retrieval figures: XQuAD publishes reading-comprehension F1/EM only.",
    )


def load_obliqa(folder: Path, split: str = "test") -> EvalDataset:
    """ObliQA (RIRAG): ADGM regulation passages; gold matched by (DocumentID, PassageID), text breaking ties."""
    titles = _obliqa_titles(folder / "DocumentMap.rtf")
    raw = [
        item
        for file in sorted((folder / "StructuredRegulatoryDocuments").glob("*.json"), key=lambda p: int(p.stem))
        for item in json.loads(file.read_text(encoding="utf-8"))
    ]
    by_key: dict[tuple[int, str], list[dict]] = defaultdict(list)
    for item in raw:
        by_key[(item["DocumentID"], item["PassageID"])].append(item)
    passages = [
        Passage(
            pid=item["ID"], doc_key=str(item["DocumentID"]),
            doc_title=titles.get(item["DocumentID"], f"Document {item['DocumentID']}"),
            headings=_obliqa_headings(item, by_key), text=item["Passage"].strip(),
        )
        for item in raw
        if item["Passage"].strip()
    ]
    indexed = {p.pid for p in passages}
    questions = json.loads((folder / f"ObliQA_{split}.json").read_text(encoding="utf-8"))
    queries = []
    for question in questions:
        gold = []
        for ref in question["Passages"]:
            candidates = [c for c in by_key.get((ref["DocumentID"], ref["PassageID"]), []) if c["ID"] in indexed]
            same_text = [c for c in candidates if c["Passage"] == ref["Passage"]]
            group = [c["ID"] for c in (same_text or candidates)]
            if not group:
                raise DatasetFormatError(f"ObliQA {split}: gold passage {ref['DocumentID']}/{ref['PassageID']} not in corpus")
            gold.append(group)
        queries.append(Query(qid=question["QuestionID"], text=question["Question"], gold=gold))
    return EvalDataset(
        name=folder.name, format="obliqa", language="en", passages=passages, queries=queries,
        columns=["R@10", "MRR", "R@1", "R@5", "R@20"],
        note=f"ObliQA {split} split; {len(raw) - len(passages)} blank corpus passages not indexed. "
        "The dataset repo publishes no retrieval baseline (those are in the RIRAG paper, arXiv 2409.05677).",
    )


def _obliqa_titles(rtf: Path) -> dict[int, str]:
    """DocumentID → rulebook name from DocumentMap.rtf (a Python dict pasted into RTF): the longest plain name."""
    if not rtf.is_file():
        return {}
    text = re.sub(r"\\'([0-9a-f]{2})", lambda m: bytes.fromhex(m.group(1)).decode("cp1252"), rtf.read_text("latin-1"))
    titles = {}
    for number, body in re.findall(r"(\d+):\s*\[(.*?)\]", text, flags=re.S):
        names = [n for n in re.findall(r'"([^"]+)"', body) if "_VER" not in n]
        if names:
            titles[int(number)] = max(names, key=len)
    return titles


def _obliqa_headings(item: dict, by_key: dict[tuple[int, str], list[dict]]) -> list[str]:
    """Headings from the PassageID hierarchy: '2.2.1' sits under '2.' and '2.2', whose first lines are titles."""
    parts = [p for p in item["PassageID"].split(".") if p]
    headings = []
    for depth in range(1, len(parts)):
        prefix = ".".join(parts[:depth])
        parents = by_key.get((item["DocumentID"], prefix)) or by_key.get((item["DocumentID"], prefix + "."), [])
        line = parents[0]["Passage"].strip().split("\n", 1)[0].strip() if parents else ""
        if line and len(line) <= 120:
            headings.append(f"{prefix} {line}")
    return headings
