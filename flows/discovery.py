"""Which inputs an ingest run works on: files and folders (recursive) → the PDFs to index, each hashed once, and an
outcome for every other path found, whatever it is and whatever its name.

Rules (the run reports each as a `FileOutcome` with its `issue`; see `flows.models.InputIssue`):
- A file is a PDF by its `.pdf` suffix (any case); a file named .pdf that is not one is the parser's to report (it
  fails with `not_pdf`), so a mislabelled download is never silently ignored. Other regular files are skipped.
- Nothing but a regular file is ever opened: FIFOs, sockets and devices are skipped from their `stat` alone (a FIFO
  would block the run; `/dev/zero` would never end), and the file is checked again on the open descriptor.
- A symlink to a file is followed wherever it points (an inbox of links to files kept elsewhere is a normal set-up);
  its resolved target is reported as `link`. A dangling symlink or a symlink loop fails when named .pdf (a PDF that
  should be there is not) and is skipped otherwise. Inside a walked folder, symlinks to folders are not followed
  (no loops, no walking out of the tree); a folder named on the command line is walked even through a symlink.
- A name whose bytes are not UTF-8 is skipped with its reason (rename it to index it): the index's records, kept
  originals and API all hold names as text. The outcome shows such a name with `\\xNN` escapes (`flows.models.
  safe_text`).
- The same file reached twice (a path given twice, a symlink to a file of the batch) or the same bytes under two
  names are indexed once; the later paths are skipped as `duplicate`, naming the first.
- Hidden files and folders (a name starting with ".") inside a walked folder are ignored: editors' and uploaders'
  temporary files live there.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from flows.models import FileOutcome, FileStatus, InputIssue, has_undecodable
from ingest.pdf_open import NotRegularFile, kind_of, open_regular

PDF_SUFFIX = ".pdf"


@dataclass(frozen=True)
class Candidate:
    """A regular file named .pdf, to be indexed: its path as found, its bytes' sha256 and where a symlink led."""

    path: Path
    sha256: str
    link: str | None = None
    size: int = 0  # bytes, for the progress estimate


Found = Candidate | FileOutcome


def sha256_of_regular(path: Path) -> str:
    """The sha256 of a regular file's bytes (`ingest.pdf_open.open_regular`: a path swapped for a FIFO or a device
    after it was listed is refused, never read)."""
    with open_regular(path) as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _outcome(path: Path, status: FileStatus, issue: InputIssue, reason: str, link: str | None = None) -> FileOutcome:
    return FileOutcome(path=str(path), status=status, issue=issue, reason=reason, link=link)


def _is_pdf_name(path: Path) -> bool:
    return path.suffix.lower() == PDF_SUFFIX


class _Walk:
    def __init__(self) -> None:
        self.found: list[Found] = []
        self.by_file: dict[str, str] = {}  # real path → the first path that reached it
        self.by_sha: dict[str, str] = {}  # sha256 → the first path with those bytes

    def add(self, item: Found) -> None:
        self.found.append(item)

    def path(self, path: Path, explicit: bool) -> None:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            self.add(_outcome(path, FileStatus.failed, InputIssue.missing, "no such file or folder"))
            return
        except OSError as exc:
            self.add(_outcome(path, FileStatus.failed, InputIssue.unreadable, f"cannot stat: {exc.strerror or exc}"))
            return
        link = None
        if stat.S_ISLNK(st.st_mode):
            try:
                st = os.stat(path)
            except OSError as exc:
                self._broken_link(path, exc)
                return
            link = os.path.realpath(path)
            if stat.S_ISDIR(st.st_mode) and not explicit:
                self.add(_outcome(path, FileStatus.skipped, InputIssue.folder_symlink,
                                  "a symlink to a folder: not followed inside a walked folder", link))
                return
        if stat.S_ISDIR(st.st_mode):
            if _is_pdf_name(path) and not explicit:
                self.add(_outcome(path, FileStatus.skipped, InputIssue.folder_named_pdf,
                                  "a folder named .pdf, not a file: its files are searched like any folder's"))
            self.folder(path)
        elif not stat.S_ISREG(st.st_mode):
            self.add(_outcome(path, FileStatus.skipped, InputIssue.not_regular,
                              f"{kind_of(st.st_mode)}, not a regular file: never opened", link))
        elif has_undecodable(str(path)):
            self.add(_outcome(path, FileStatus.skipped, InputIssue.name_not_utf8,
                              "the name is not valid UTF-8 (its bytes are shown as \\xNN): rename the file to index it",
                              link))
        elif not _is_pdf_name(path):
            self.add(_outcome(path, FileStatus.skipped, InputIssue.not_pdf_name,
                              f"not a PDF ({path.suffix or 'no extension'})", link))
        else:
            self.pdf(path, link)

    def _broken_link(self, path: Path, exc: OSError) -> None:
        try:
            target = os.readlink(path)
        except OSError:  # removed meanwhile
            target = "?"
        if exc.errno == errno.ELOOP:
            issue, reason = InputIssue.symlink_loop, f"a symlink loop (→ {target})"
        elif isinstance(exc, FileNotFoundError):
            issue, reason = InputIssue.dangling_symlink, f"a dangling symlink: its target {target} does not exist"
        else:
            issue, reason = InputIssue.unreadable, f"a symlink whose target cannot be reached: {exc.strerror or exc}"
        status = FileStatus.failed if _is_pdf_name(path) else FileStatus.skipped
        self.add(_outcome(path, status, issue, reason))

    def folder(self, folder: Path) -> None:
        try:
            with os.scandir(folder) as it:
                names = sorted(entry.name for entry in it)
        except OSError as exc:
            self.add(_outcome(folder, FileStatus.failed, InputIssue.unreadable,
                              f"cannot list the folder: {exc.strerror or exc}"))
            return
        for name in names:
            if not name.startswith("."):
                self.path(folder / name, explicit=False)

    def pdf(self, path: Path, link: str | None) -> None:
        real = os.path.realpath(path)
        first = self.by_file.get(real)
        if first is not None:
            self.add(_outcome(path, FileStatus.skipped, InputIssue.duplicate, f"the same file as {first}", link))
            return
        self.by_file[real] = str(path)
        try:
            sha = sha256_of_regular(path)
        except NotRegularFile as exc:
            self.add(_outcome(path, FileStatus.skipped, InputIssue.not_regular, f"{exc}: never read", link))
            return
        except OSError as exc:
            self.add(_outcome(path, FileStatus.failed, InputIssue.unreadable, f"cannot read: {exc.strerror or exc}",
                              link))
            return
        first = self.by_sha.get(sha)
        if first is not None:
            self.add(_outcome(path, FileStatus.skipped, InputIssue.duplicate,
                              f"the same bytes as {first}: indexed once", link).model_copy(update={"sha256": sha}))
            return
        self.by_sha[sha] = str(path)
        try:
            size = os.stat(path).st_size
        except OSError:  # gone since it was hashed: its read fails later, with its reason
            size = 0
        self.add(Candidate(path, sha, link, size))


def discover(paths: list[str | Path]) -> list[Found]:
    """Every path under `paths`, in order (folders sorted by name): a `Candidate` for each PDF to index, a
    `FileOutcome` (skipped or failed, with its `issue`) for everything else."""
    walk = _Walk()
    for raw in paths:
        walk.path(Path(raw), explicit=True)
    return walk.found


def candidates(found: list[Found]) -> list[Candidate]:
    return [item for item in found if isinstance(item, Candidate)]
