"""Open a file as a PDF, repairing what MuPDF can, and say precisely why when it cannot be used.

Every expected failure becomes a `ParseStatus` plus a one-line message: a caller ingesting a folder must learn that
a file is encrypted, not a PDF, or unreadable without a traceback and without the file vanishing silently.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import pymupdf

from ingest.models import ParseStatus, SourceFile

# MuPDF's messages (its errors on a damaged file: "format error: object is not a stream") are printed by PyMuPDF to
# stdout by default, which corrupts a command's `--json`. Once, for every use of PyMuPDF in the process: they go to
# the Python log (logger "pymupdf", at WARNING, so stderr unless logging is configured otherwise). Warnings are not
# displayed but collected (`TOOLS.mupdf_warnings`) into each file's `warnings`.
MUPDF_LOG = logging.getLogger("pymupdf")
pymupdf.set_messages(pylogging_logger=MUPDF_LOG, pylogging_level=logging.WARNING)
pymupdf.TOOLS.mupdf_display_errors(True)
pymupdf.TOOLS.mupdf_display_warnings(False)

# Junk bytes before "%PDF" (the NOM files carry ~170 kB of NULs) are tolerated up to this offset; MuPDF repairs them.
_HEADER_SEARCH_BYTES = 4 << 20


@dataclass
class OpenedPdf:
    """A usable document, or the status that says why there is none."""

    source: SourceFile
    doc: pymupdf.Document | None = None
    status: ParseStatus = ParseStatus.ok
    message: str = ""
    repaired: bool = False
    warnings: list[str] = field(default_factory=list)


def _source(path: Path, data: bytes) -> SourceFile:
    return SourceFile(path=str(path), sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def kind_of(mode: int) -> str:
    """What a file that is not regular is, in words (from its `st_mode`)."""
    for test, words in _KINDS:
        if test(mode):
            return words
    return "not a regular file"


class NotRegularFile(OSError):
    """The path is not a regular file: a FIFO would block forever, `/dev/zero` never ends, a folder has no bytes."""


@contextmanager
def open_regular(path: str | Path) -> Iterator[BinaryIO]:
    """A regular file opened for reading. Opened without blocking and checked on the descriptor, so a path swapped for
    a FIFO or a device after it was listed is refused (`NotRegularFile`), never read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{kind_of(mode)}, not a regular file")
        yield fh


def read_regular(path: Path) -> bytes:
    """A regular file's bytes; anything else is refused from its `stat` before it is opened (`open_regular` checks
    again on the descriptor)."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegularFile(f"{kind_of(mode)}, not a regular file")
    with open_regular(path) as fh:
        return fh.read()


def open_pdf(path: str | Path) -> OpenedPdf:
    """Read and open `path`; the result's `doc` is None whenever `status` is not ok."""
    path = Path(path)
    try:
        data = read_regular(path)
    except NotRegularFile as exc:
        src = SourceFile(path=str(path), sha256="", bytes=0)
        return OpenedPdf(src, status=ParseStatus.unreadable, message=f"cannot read file: {exc}")
    except OSError as exc:
        src = SourceFile(path=str(path), sha256="", bytes=0)
        return OpenedPdf(src, status=ParseStatus.unreadable, message=f"cannot read file: {exc.strerror or exc}")
    src = _source(path, data)
    if not data.strip(b"\x00 \t\r\n"):
        return OpenedPdf(src, status=ParseStatus.empty, message="file is empty")
    header_at = data.find(b"%PDF", 0, _HEADER_SEARCH_BYTES)
    if header_at < 0:
        return OpenedPdf(src, status=ParseStatus.not_pdf, message=f"not a PDF (starts with {data[:16]!r})")
    pymupdf.TOOLS.mupdf_warnings()  # drop warnings left over from earlier files
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except (pymupdf.FileDataError, RuntimeError, ValueError) as exc:
        return OpenedPdf(src, status=ParseStatus.unreadable, message=f"MuPDF cannot repair the PDF structure: {exc}")
    try:  # a damaged page tree or trailer may only show now ("code=7: Invalid number of pages")
        return _inspect(doc, src, header_at)
    except (pymupdf.FileDataError, RuntimeError, ValueError) as exc:
        doc.close()
        return OpenedPdf(src, status=ParseStatus.unreadable, message=f"MuPDF cannot read the PDF structure: {exc}",
                         warnings=_mupdf_warnings())


def _mupdf_warnings() -> list[str]:
    return [w for w in pymupdf.TOOLS.mupdf_warnings().splitlines() if w.strip()]


def _inspect(doc: pymupdf.Document, src: SourceFile, header_at: int) -> OpenedPdf:
    warnings = _mupdf_warnings()
    repaired = bool(doc.is_repaired) or header_at > 0
    if header_at > 0:
        warnings.insert(0, f"{header_at} junk bytes before the %PDF header")
    meta = doc.metadata or {}
    src.producer = meta.get("producer") or None
    src.creator = meta.get("creator") or None
    src.title = meta.get("title") or None
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        return OpenedPdf(src, status=ParseStatus.encrypted, message="encrypted: a password is required",
                         warnings=warnings)
    src.pages = doc.page_count
    if doc.page_count == 0:
        doc.close()
        return OpenedPdf(src, status=ParseStatus.empty, message="the PDF has no pages", repaired=repaired,
                         warnings=warnings)
    return OpenedPdf(src, doc=doc, repaired=repaired, warnings=warnings,
                     message="repaired by MuPDF" if repaired else "")


_BAD_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ue000-\uf8ff\ufffd]")
_NOT_ALNUM = re.compile(r"[\W_]")  # counted instead of the letters and digits: a short list on real text
_SAMPLE = 4000


def is_garbled(text: str) -> bool:
    """True when extracted text is mostly control/private-use/replacement characters or lacks letters and digits.

    Fonts without a ToUnicode map extract as glyph ids (the SDNY filing yields "\\x1e\\x19#\\x15..."): such text must
    not be indexed, and it is distinguishable from real text by its character classes alone.
    """
    sample = "".join(text[:_SAMPLE].split())
    if len(sample) < 40:
        return False
    bad = len(_BAD_CHARS.findall(sample))
    alnum = len(sample) - len(_NOT_ALNUM.findall(sample))
    return bad / len(sample) > 0.15 or alnum / len(sample) < 0.3
