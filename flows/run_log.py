"""A plain-file log of ingest runs under the data dir, so `gaceta status` can list the last runs without
starting Prefect (its API would cost 10-20 s to start for a status line)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from flows.models import IngestSummary


def runs_dir(home: Path) -> Path:
    return Path(home) / "flows" / "runs"


def record_run(summary: IngestSummary, home: Path) -> Path:
    """Write the summary atomically as runs/<started_at>-<run name>.json."""
    folder = runs_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = summary.started_at.strftime("%Y%m%dT%H%M%S.%f")
    path = folder / f"{stamp}-{summary.flow_run_name or 'run'}.json"
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(summary.model_dump_json(indent=2))
    os.replace(tmp, path)
    return path


def last_runs(home: Path, n: int = 5) -> list[IngestSummary]:
    """The `n` most recent run summaries, newest first (writes are atomic: a killed run leaves only a .tmp)."""
    folder = runs_dir(home)
    if not folder.is_dir():
        return []
    runs = []
    for path in sorted(folder.glob("*.json"), reverse=True)[:n]:
        runs.append(IngestSummary.model_validate_json(path.read_text(encoding="utf-8")))
    return runs
