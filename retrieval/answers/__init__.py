"""Cited answers: backends (extractive, claude, tags), quote verification and coverage."""

from retrieval.answers.base import AnswerError
from retrieval.answers.pipeline import answer_hits, ask, ask_stream, make_backend

__all__ = ["AnswerError", "answer_hits", "ask", "ask_stream", "make_backend"]
