"""Which inputs an ingest run works on: files and folders (recursive), PDFs only, everything else reported."""

from __future__ import annotations

from pathlib import Path

from flows.models import FileOutcome, FileStatus

PDF_SUFFIX = ".pdf"


def discover(paths: list[str | Path]) -> tuple[list[Path], list[FileOutcome]]:
    """Expand `paths` into PDF files (sorted, de-duplicated) and outcomes for the rest (skipped; missing = failed).

    A file is a PDF by its `.pdf` suffix; a file named .pdf that is not one is the parser's to report (it
    fails with `not_pdf`), so a mislabelled download is never silently ignored. Hidden files are ignored.
    """
    pdfs: list[Path] = []
    others: list[FileOutcome] = []
    seen: set[Path] = set()

    def consider(path: Path) -> None:
        key = path.resolve()
        if key in seen:
            return
        seen.add(key)
        if path.suffix.lower() == PDF_SUFFIX:
            pdfs.append(path)
        else:
            others.append(FileOutcome(path=str(path), status=FileStatus.skipped,
                                       reason=f"not a PDF ({path.suffix or 'no extension'})"))

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and not any(part.startswith(".") for part in child.relative_to(path).parts):
                    consider(child)
        elif path.is_file():
            consider(path)
        else:
            others.append(FileOutcome(path=str(path), status=FileStatus.failed, reason="no such file or folder"))
    return pdfs, others
