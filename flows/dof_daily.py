"""The `dof_daily` flow: download a day's DOF edition PDFs, store them under the data dir, then run `ingest`.

The URL template (GACETA_DOF_URL_TEMPLATE) gets `{ddmmyyyy}`, `{yyyy}`, `{mm}`, `{dd}`, `{date}` (ISO) and
`{edition}`. A missing edition (404, or a page that is not a PDF: the official site answers HTML) is a normal
outcome; timeouts, server errors and truncated downloads are retried with backoff, then reported as failures.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from enum import Enum
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.states import Completed, Failed
from pydantic import BaseModel

from flows.ingest_flow import ingest
from flows.models import IngestSummary, RunFailed, summary_of
from retrieval.settings import Settings

MEXICO_CITY = ZoneInfo("America/Mexico_City")
EDITIONS = ["MAT", "VES", "EXT"]  # matutina, vespertina, extraordinaria
MAX_BYTES = 200 * 1024 * 1024
PDF_MAGIC = b"%PDF-"
EOF_WINDOW = 2048  # a complete PDF has %%EOF in its last bytes (trailing garbage tolerated)


class EditionStatus(str, Enum):
    downloaded = "downloaded"
    present = "present"  # already under the data dir from an earlier run
    absent = "absent"  # no such edition that day: normal
    failed = "failed"


class EditionOutcome(BaseModel):
    edition: str
    url: str
    status: EditionStatus
    reason: str = ""
    path: str | None = None
    bytes: int = 0


class DofDailySummary(BaseModel):
    date: dt.date
    editions: list[EditionOutcome]
    ingest: IngestSummary | None = None

    @property
    def pdfs(self) -> list[str]:
        return [e.path for e in self.editions if e.path and e.status in (EditionStatus.downloaded, EditionStatus.present)]


class DownloadError(RuntimeError):
    """A download that may succeed if tried again (timeout, 5xx, truncated body)."""


def today_in_mexico() -> dt.date:
    return dt.datetime.now(MEXICO_CITY).date()


def edition_url(template: str, day: dt.date, edition: str) -> str:
    return template.format(ddmmyyyy=day.strftime("%d%m%Y"), yyyy=f"{day.year:04d}", mm=f"{day.month:02d}",
                           dd=f"{day.day:02d}", date=day.isoformat(), edition=edition)


def edition_path(settings: Settings, day: dt.date, edition: str) -> Path:
    return settings.home / "downloads" / "dof" / f"{day:%Y}" / f"{day:%m}" / f"{day:%d%m%Y}-{edition}.pdf"


def looks_complete(path: Path) -> bool:
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(len(PDF_MAGIC))
        fh.seek(max(0, size - EOF_WINDOW))
        tail = fh.read()
    return head == PDF_MAGIC and b"%%EOF" in tail


@task(name="download-edition", cache_policy=NO_CACHE, task_run_name="download {edition}")
def download_edition(url: str, edition: str, target: str, timeout_s: float, max_bytes: int) -> EditionOutcome:
    """Stream one edition to `target` (via a temp file, renamed only when complete). Raises DownloadError for
    what a retry may fix; returns `absent` for a day without that edition."""
    target_path = Path(target)
    if target_path.is_file() and looks_complete(target_path):
        return EditionOutcome(edition=edition, url=url, status=EditionStatus.present, path=target,
                              bytes=target_path.stat().st_size)
    target_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with httpx.stream("GET", url, timeout=httpx.Timeout(timeout_s), follow_redirects=True) as response:
            if response.status_code == 404:
                return EditionOutcome(edition=edition, url=url, status=EditionStatus.absent, reason="HTTP 404")
            if response.status_code >= 500 or response.status_code in (408, 429):
                raise DownloadError(f"HTTP {response.status_code} from {url}")
            if response.status_code != 200:
                return EditionOutcome(edition=edition, url=url, status=EditionStatus.failed,
                                      reason=f"HTTP {response.status_code}")
            declared = int(response.headers.get("content-length") or 0)
            if declared > max_bytes:
                return EditionOutcome(edition=edition, url=url, status=EditionStatus.failed,
                                      reason=f"{declared} bytes declared, over the {max_bytes}-byte limit")
            fd, tmp = tempfile.mkstemp(dir=target_path.parent, suffix=".part")
            try:
                size = _write_body(response, fd, max_bytes)
                if size == 0 or not _starts_with_pdf(tmp):
                    kind = response.headers.get("content-type", "unknown type")
                    return EditionOutcome(edition=edition, url=url, status=EditionStatus.absent,
                                          reason=f"not a PDF ({kind}): no edition published")
                if declared and size != declared:
                    raise DownloadError(f"truncated download: {size} of {declared} bytes")
                if not looks_complete(Path(tmp)):
                    raise DownloadError(f"truncated download: {size} bytes and no %%EOF at the end")
                os.replace(tmp, target_path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
    except httpx.TimeoutException as exc:
        raise DownloadError(f"timed out after {timeout_s:g} s ({type(exc).__name__})") from exc
    except httpx.RemoteProtocolError as exc:
        raise DownloadError(f"truncated download: the server closed the connection early ({exc})") from exc
    except httpx.TransportError as exc:
        raise DownloadError(f"{type(exc).__name__}: {exc}") from exc
    return EditionOutcome(edition=edition, url=url, status=EditionStatus.downloaded, path=target, bytes=size)


class _TooLarge(Exception):
    pass


def _write_body(response: httpx.Response, fd: int, max_bytes: int) -> int:
    size = 0
    with os.fdopen(fd, "wb") as fh:
        for block in response.iter_bytes():
            size += len(block)
            if size > max_bytes:
                raise _TooLarge(f"over the {max_bytes}-byte limit")
            fh.write(block)
    return size


def _starts_with_pdf(path: str) -> bool:
    with open(path, "rb") as fh:
        return fh.read(len(PDF_MAGIC)) == PDF_MAGIC


@flow(name="dof_daily")
def dof_daily(date: dt.date | None = None, editions: list[str] | None = None, timeout_s: float = 60.0,
              retries: int = 3, retry_delay_s: float = 10.0, max_bytes: int = MAX_BYTES,
              context: bool | None = None) -> DofDailySummary:
    """Fetch the DOF editions of `date` (default: today in America/Mexico_City), then ingest what arrived."""
    logger = get_run_logger()
    settings = Settings()
    day = date or today_in_mexico()
    fetch = download_edition.with_options(retries=retries,
                                          retry_delay_seconds=[retry_delay_s * 2**i for i in range(retries)],
                                          retry_condition_fn=lambda t, r, state: isinstance(state.data, DownloadError))
    outcomes: list[EditionOutcome] = []
    for edition in editions or EDITIONS:
        url = edition_url(settings.dof_url_template, day, edition)
        state = fetch(url, edition, str(edition_path(settings, day, edition)), timeout_s, max_bytes,
                      return_state=True)
        if state.is_completed():
            outcomes.append(state.result())
        else:
            exc = state.result(raise_on_failure=False)
            reason = str(exc) if isinstance(exc, (DownloadError, _TooLarge)) else f"{type(exc).__name__}: {exc}"
            outcomes.append(EditionOutcome(edition=edition, url=url, status=EditionStatus.failed, reason=reason))
        logger.info("DOF %s %s: %s %s", day, edition, outcomes[-1].status.value, outcomes[-1].reason)

    summary = DofDailySummary(date=day, editions=outcomes)
    if summary.pdfs:
        ingested = ingest(paths=summary.pdfs, context=context, return_state=True)
        result = summary_of(ingested.result(raise_on_failure=False))
        if not isinstance(result, IngestSummary):
            message = f"DOF {day}: ingest ended {ingested.name}: {result}"
            return Failed(message=message, data=RunFailed(message, summary))
        summary.ingest = result
    failed = [o for o in outcomes if o.status is EditionStatus.failed]
    if failed and not summary.pdfs:
        message = f"DOF {day}: " + "; ".join(f"{o.edition}: {o.reason}" for o in failed)
        return Failed(message=message, data=RunFailed(message, summary))
    if not summary.pdfs:
        return Completed(message=f"DOF {day}: no edition published", data=summary)
    return Completed(message=f"DOF {day}: {len(summary.pdfs)} edition(s)", data=summary)
