"""A plain-file log of ingest runs under the data dir, so `gaceta status` can list the last runs without
starting Prefect (its API would cost 10-20 s to start for a status line)."""

from __future__ import annotations

import logging
import os
import re
import tempfile
from pathlib import Path

from pydantic import ValidationError

from flows.models import IngestSummary

log = logging.getLogger("gaceta.ingest")
_UNSAFE = re.compile(r"[^\w.\-]+")


def runs_dir(home: Path) -> Path:
    return Path(home) / "flows" / "runs"


def record_run(summary: IngestSummary, home: Path) -> Path:
    """Write the summary atomically as runs/<started_at>-<run name>.json: the JSON is made first
    (`IngestSummary.to_json`, which never fails on one file's outcome), then written to a temporary file in the same
    folder, flushed and renamed; a write that fails removes its temporary file."""
    folder = runs_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    text = summary.to_json()
    stamp = summary.started_at.strftime("%Y%m%dT%H%M%S.%f")
    name = _UNSAFE.sub("_", summary.flow_run_name or "run")[:100]
    path = folder / f"{stamp}-{name}.json"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".run-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def last_runs(home: Path, n: int = 5) -> list[IngestSummary]:
    """The `n` most recent run summaries, newest first (writes are atomic: a killed run leaves at most a hidden
    .tmp). A record that cannot be read is named in a warning and left out, never a traceback."""
    folder = runs_dir(home)
    if not folder.is_dir():
        return []
    runs = []
    for path in sorted(folder.glob("[!.]*.json"), reverse=True):
        if len(runs) == n:
            break
        try:
            runs.append(IngestSummary.model_validate_json(path.read_bytes()))
        except (OSError, ValidationError) as exc:
            log.warning("ingest run record %s is damaged and left out (%s)", path.name,
                        str(exc).splitlines()[0])
    return runs
