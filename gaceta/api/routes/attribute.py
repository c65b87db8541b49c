"""`POST /attribute`: check a text against the official text (issue 17, in progress)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["attribution"])
