"""Cited answers: backends (extractive, claude, tags), quote verification and coverage."""
