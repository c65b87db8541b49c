"""Retrieval evaluation on public datasets: loaders (format detected), metrics, and the runner behind `gaceta eval`."""

from retrieval.evaluation.datasets import DatasetFormatError, EvalDataset, load_dataset
from retrieval.evaluation.report import ModeRow, RetrievalReport
from retrieval.evaluation.runner import evaluate_retrieval

__all__ = ["DatasetFormatError", "EvalDataset", "ModeRow", "RetrievalReport", "evaluate_retrieval", "load_dataset"]
