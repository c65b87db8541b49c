"""What is damaged in an index, and what of it the kept originals rebuild: the checks `Index.open` runs (cheap, every
time) and the ones `gaceta doctor` runs (everything, on demand).

An index is three things that must agree: the store's points (chunks), the document records (`documents/`), and
the kept originals with their ledger (`originals/`, `sources/`). A crash leaves them in states the writers finish
themselves (a document's points pending, a record written before its points, a replacement half done); damage —
a file lost, emptied or overwritten outside gaceta — leaves states no write produces:

| state | at open | `gaceta doctor --repair` |
| --- | --- | --- |
| store files damaged (meta.json, WAL, a segment, segments gone) | error: `IndexDamaged` | the collection is set aside and rebuilt from the kept originals (and current records) |
| a record whose points are missing, partial or pending | a warning: a crash's leftover, `gaceta ingest` finishes it | re-ingested from its kept original |
| points without a record | error | re-ingested from the kept original, else the points are dropped |
| a kept original missing | error | copied again from its source if that still has the bytes, else its documents are dropped |
| a kept original with other bytes | — (hashing every PDF is the doctor's job) | as missing |
| a record of an older `INGEST_VERSION` | — (the next ingest of its file redoes it) | re-ingested from its kept original |
| totals in meta.json that disagree with the points | recounted after a crash | recounted |

Rebuilt documents have no contextual blurbs (an ingest with GACETA_CONTEXT=on adds them, from the blurb cache).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from retrieval.store.base import COMPLETE, POINTS, REPAIR, STATE, IndexDamaged, Match, Where

if TYPE_CHECKING:
    from ingest.models import LegalDocument
    from retrieval.index import Index

log = logging.getLogger(__name__)
SHOWN = 3  # document ids named in a one-line message before "…"


class Problem(BaseModel):
    """One thing found wrong: its kind, what it concerns (a document id, a kept file), and what a repair did."""

    kind: str
    subject: str
    detail: str
    repair: str | None = None  # what `--repair` did, or why it could not
    repaired: bool = False


class DoctorReport(BaseModel):
    home: str
    opened: bool  # False: the store could not be opened (its damage is the first problem)
    documents: int = 0  # records
    points: int = 0
    problems: list[Problem] = []
    set_aside: str | None = None  # where a rebuilt store's damaged files were moved

    @property
    def unrepaired(self) -> list[Problem]:
        return [p for p in self.problems if not p.repaired]


def _names(ids) -> str:
    ids = sorted(ids)
    return ", ".join(ids[:SHOWN]) + (f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")


def _record_ids(index: Index) -> dict[str, Path]:
    """Record file by the document id the store knows it as (ids with ':' are stored as '_')."""
    directory = index.records.directory
    return {path.stem: path for path in directory.glob("*.json")} if directory.is_dir() else {}


def _stem(doc_id: str) -> str:
    return doc_id.replace(":", "_")


@dataclass
class _Points:
    """What the store holds per document: chunk indexes and states."""

    indexes: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    pending: set[str] = field(default_factory=set)
    total: int = 0


def _scan_points(index: Index) -> _Points:
    found = _Points()
    for payload in index.store._scroll(Where(), ["doc_id", "index", STATE]):
        doc_id = str(payload.get("doc_id"))
        found.indexes[doc_id].add(int(payload.get("index", -1)))
        if payload.get(STATE) != COMPLETE:
            found.pending.add(doc_id)
        found.total += 1
    return found


def _suspect_originals(index: Index) -> tuple[list[Path], list[Path]]:
    """Ledger entries (`<sha>.json`) whose kept PDF is gone, and kept PDFs whose bytes are not their name's sha256.
    Only a PDF modified after its ledger entry was last written is hashed (gaceta writes the PDF first), so opening
    costs a stat per kept file, not a hash."""
    from retrieval.files import file_sha256

    root = index.originals.root
    missing, changed = [], []
    if not root.is_dir():
        return missing, changed
    for refs_path in sorted(root.glob("*/*.json")):
        kept = refs_path.with_suffix(".pdf")
        try:
            newer = kept.stat().st_mtime_ns > refs_path.stat().st_mtime_ns
        except FileNotFoundError:
            missing.append(refs_path)
            continue
        if newer and file_sha256(kept) != refs_path.stem:
            changed.append(refs_path)
    return missing, changed


# A Rust panic's report as the default hook writes it: "thread '…' panicked at file:line:col:", the message, with
# RUST_BACKTRACE "stack backtrace:" and its frames, then a "note: …" line (none with RUST_BACKTRACE=full).
_PANIC_REPORT = re.compile(r"\n?thread '[^'\n]*'[^\n]* panicked at .*?(?:\nnote: [^\n]*(?:\n|\Z)|\Z)", re.S)


@contextmanager
def engine_panics_quiet() -> Iterator[None]:
    """Around opening and reading the embedded store (`status`, `serve`, `doctor`): a segment qdrant-edge cannot make
    sense of panics, and the store turns the panic into `IndexDamaged`, one line — but Rust's panic hook has already
    written its report to file descriptor 2 itself (3 lines; with RUST_BACKTRACE=1 some 160). So fd 2 goes to a
    temporary file meanwhile, and what it caught is written back to stderr less any panic report (kept in the log at
    debug level). Everything else — Python's own warnings and log lines — comes out as it would have, only later."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all: nothing to keep quiet
        yield
        return
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            text = caught.read().decode("utf-8", "replace")
            kept = _PANIC_REPORT.sub("", text)
            if kept != text:
                log.debug("qdrant-edge panicked: %s", " | ".join(" ".join(m.group(0).split())[:400]
                                                                 for m in _PANIC_REPORT.finditer(text)))
            if kept.strip():
                sys.stderr.write(kept)
                sys.stderr.flush()


# --- at open ------------------------------------------------------------------------------------------------
def open_check(index: Index) -> None:
    """What `Index.open` checks on an embedded index (one process, so nothing is mid-write): points without a record
    and kept originals gone or overwritten raise `IndexDamaged`; documents a crash left unfinished are named in a
    warning. Reads two fields of every point once — which also finds payload storage qdrant-edge cannot decode
    (≈15 µs a point: 0.15 s at 10,000 chunks) — and lists the records and originals folders."""
    store = index.store
    complete, pending = set(), set()
    for payload in store._scroll(Where(), ["doc_id", STATE]):
        (complete if payload.get(STATE) == COMPLETE else pending).add(str(payload.get("doc_id")))
    complete -= pending
    records = _record_ids(index)
    stems = {_stem(d): d for d in complete}
    orphans = [doc_id for stem, doc_id in stems.items() if stem not in records]
    if orphans:
        raise IndexDamaged(f"the index at {store.location}: {len(orphans)} document(s) have points but no record "
                           f"in {index.records.directory} ({_names(orphans)}); {REPAIR}")
    gone, changed = _suspect_originals(index)
    for paths, what in ((gone, "is missing"), (changed, "holds other bytes than its sha256")):
        used = [p.with_suffix(".pdf") for p in paths
                if any(_stem(d) in records or d in complete for d in index.originals.refs(p.stem).doc_ids)]
        if used:
            raise IndexDamaged(f"the index at {store.location}: the kept original of {len(used)} file(s) {what} "
                               f"({', '.join(str(p) for p in used[:SHOWN])}); {REPAIR} (from its source, if that "
                               f"still has the bytes; else its documents are dropped)")
    unfinished = {s for s in records if s not in stems} | {_stem(d) for d in pending}
    if unfinished:
        log.warning("%d document(s) are not searchable: a process stopped while indexing them (%s); run `gaceta "
                    "ingest` on their files again, or `gaceta doctor --repair`", len(unfinished), _names(unfinished))


# --- gaceta doctor ------------------------------------------------------------------------------------------
def examine(index: Index) -> DoctorReport:
    """Every check: records against points (each record's chunks all present and complete, no points without a
    record), kept originals against their sha256, the ledger against the documents, the ingest version of each
    record, and the metadata's totals against the points."""
    from ingest import INGEST_VERSION
    from ingest.models import LegalDocument

    report = DoctorReport(home=str(index.settings.home), opened=True)
    problems = report.problems
    points = _scan_points(index)
    report.points = points.total
    records = _record_ids(index)
    report.documents = len(records)
    by_stem = {_stem(d): d for d in points.indexes}
    tracked: set[str] = set()  # sha256s the ledger keeps
    root = index.originals.root
    if root.is_dir():
        tracked = {p.stem for p in root.glob("*/*.json")} | {p.stem for p in root.glob("*/*.pdf")}

    for stem, path in sorted(records.items()):
        try:
            doc = LegalDocument.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            problems.append(Problem(kind="unreadable_record", subject=stem,
                                    detail=f"{path} cannot be read ({' '.join(str(exc).split())[:160]})"))
            continue
        doc_id = by_stem.get(stem, doc.doc_id)
        got = points.indexes.get(doc_id, set())
        if not got:
            problems.append(Problem(kind="record_without_points", subject=doc.doc_id,
                                    detail="a document record whose chunks are not in the store"))
        elif doc_id in points.pending or got != set(range(len(got))):
            problems.append(Problem(kind="incomplete_points", subject=doc.doc_id,
                                    detail=f"{len(got)} chunk(s), not all of them complete and numbered from 0"))
        if doc.source_sha256 in tracked and doc.ingest_version != INGEST_VERSION:
            problems.append(Problem(kind="outdated_record", subject=doc.doc_id,
                                    detail=f"made by ingest version {doc.ingest_version or '(none)'!r}, this gaceta "
                                           f"makes {INGEST_VERSION!r}"))
    for stem, doc_id in sorted(by_stem.items()):
        if stem not in records:
            problems.append(Problem(kind="points_without_record", subject=doc_id,
                                    detail=f"{len(points.indexes[doc_id])} point(s) but no record"))

    known = {by_stem.get(s, s) for s in records} | set(points.indexes)
    for sha in sorted(tracked):
        kept, refs = index.originals.path(sha), index.originals.refs(sha)
        live = refs.doc_ids & known
        if not kept.exists():
            if live:
                problems.append(Problem(kind="original_missing", subject=sha,
                                        detail=f"{kept} is gone; documents {_names(live)} were parsed from it"))
        else:
            from retrieval.files import file_sha256

            got = file_sha256(kept)
            if got != sha:
                problems.append(Problem(kind="original_changed", subject=sha,
                                        detail=f"{kept} now holds other bytes (sha256 {got[:12]}…)"))
            elif not refs.doc_ids:
                problems.append(Problem(kind="unreferenced_original", subject=sha,
                                        detail=f"{kept} is kept but no document refers to it"))
        stale = refs.doc_ids - known
        if stale:
            problems.append(Problem(kind="stale_ledger", subject=sha,
                                    detail=f"the ledger lists documents that are not in the index: {_names(stale)}"))

    for entry_path in sorted(index.originals.sources_dir.glob("*/*.json")):
        entry = _read_entry(entry_path)
        if entry is None or entry.get("incoming") or entry.get("retiring"):
            continue  # a replacement under way is recovery's (at open), not the doctor's
        sha = entry.get("sha256")
        if not (index.originals.refs(sha).doc_ids & known if isinstance(sha, str) and len(sha) == 64 else set()):
            problems.append(Problem(kind="source_without_documents", subject=str(entry.get("key", entry_path.stem)),
                                    detail=f"the source's current version ({str(sha)[:12]}…) has no documents in "
                                           f"the index: ingest the file again"))

    # Uploads live until their file is indexed or fails (`gaceta.api.ingest`); the doctor runs only while no
    # server does, so anything left under uploads/ is an orphan (a crash mid-upload or mid-ingest).
    uploads = index.settings.home / "uploads"
    for path in sorted(uploads.rglob("*")) if uploads.is_dir() else []:
        if path.is_file():
            problems.append(Problem(kind="orphan_upload", subject=str(path.relative_to(index.settings.home)),
                                    detail=f"an upload no ingest is reading ({path.stat().st_size} bytes)"))

    meta = index.store._meta()
    terms = sum(int(p.get("bm25_len", 0)) for p in index.store._scroll(Where(), ["bm25_len"]))
    if (meta.get("bm25_terms"), meta.get("bm25_chunks")) != (terms, points.total) or (
            index.store.exclusive and meta.get(POINTS) != points.total):
        problems.append(Problem(kind="meta_totals", subject="meta.json",
                                detail=f"records {meta.get('bm25_chunks')} chunks / {meta.get('bm25_terms')} BM25 terms"
                                       f", the points have {points.total} / {terms}"))
    return report


def _read_entry(path: Path) -> dict | None:
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) else None


def repair(index: Index, report: DoctorReport) -> DoctorReport:
    """Repair what `examine` found, in place (each problem says what was done, or why it could not be)."""
    originals = index.originals
    with originals.lock:
        index._recover_sources()
        for problem in report.problems:
            if problem.kind in ("original_missing", "original_changed"):
                _repair_original(index, problem)
        rebuild: dict[str, list[Problem]] = defaultdict(list)  # sha256 → the problems its re-ingest repairs
        for problem in report.problems:
            if problem.kind in ("record_without_points", "incomplete_points", "points_without_record",
                                "outdated_record", "unreadable_record"):
                sha = _sha_of(index, problem.subject)
                rebuild[sha or ""].append(problem)
        for sha, problems in rebuild.items():
            _rebuild(index, sha, problems)
        for problem in report.problems:
            if problem.kind == "stale_ledger":
                refs = originals.refs(problem.subject)
                known = {d for d in refs.doc_ids if index.records.load(d) is not None or _has_points(index, d)}
                for doc_id in refs.doc_ids - known:
                    originals.drop_ref(problem.subject, doc_id)
                problem.repaired, problem.repair = True, "the ledger entries were removed"
            elif problem.kind == "unreferenced_original" and not originals.refs(problem.subject).doc_ids:
                originals.path(problem.subject).unlink(missing_ok=True)
                problem.repaired, problem.repair = True, "the file was removed"
        for problem in report.problems:
            if problem.kind == "orphan_upload":
                path = index.settings.home / problem.subject
                path.unlink(missing_ok=True)
                for folder in (path.parent, path.parent.parent):
                    try:
                        folder.rmdir()  # its sha256 folder, then uploads/, once empty
                    except OSError:
                        break
                problem.repaired, problem.repair = True, "the upload was removed"
            elif problem.kind == "source_without_documents":
                originals._source_path(problem.subject).unlink(missing_ok=True)
                problem.repaired, problem.repair = True, "the source's ledger entry was removed"
        for problem in report.problems:
            if problem.kind == "meta_totals":
                index.store.recount()
                problem.repaired, problem.repair = True, "recounted from the points"
    return report


def _has_points(index: Index, doc_id: str) -> bool:
    return index.store._count(Where(must=(Match("doc_id", (doc_id,)),))) > 0


def _sha_of(index: Index, doc_id: str) -> str | None:
    try:
        doc = index.records.load(doc_id)
    except (OSError, ValueError):
        doc = None
    if doc is not None:
        return doc.source_sha256
    for payload in index.store._scroll(Where(must=(Match("doc_id", (doc_id,)),)), ["document"]):
        return (payload.get("document") or {}).get("source_sha256")
    return None


def _repair_original(index: Index, problem: Problem) -> None:
    """A kept original gone or overwritten: copied again from a source that still has its bytes, else its documents
    are dropped (nothing may cite text whose official file is gone)."""
    from retrieval.files import intact

    sha, originals = problem.subject, index.originals
    refs = originals.refs(sha)
    originals.path(sha).unlink(missing_ok=True)
    for key in sorted(refs.sources):
        if intact(key, sha) and originals.keep(key, sha) is not None:
            problem.repaired, problem.repair = True, f"copied again from {key}"
            return
    dropped = sorted(d for d in refs.doc_ids if index.delete_document(d))
    originals._remove(sha)
    problem.repaired = True
    problem.repair = (f"no source still has these bytes: dropped its documents ({_names(dropped)}); ingest the "
                      f"current file to index it again" if dropped else "no document referred to it: removed")


def _rebuild(index: Index, sha: str, problems: list[Problem]) -> None:
    """Re-ingest the file whose bytes are `sha` from its kept original (the source's current version), or rebuild
    an untracked document from its record; what cannot be rebuilt is dropped, and says so."""
    from ingest import INGEST_VERSION

    originals = index.originals
    doc_ids = {p.subject for p in problems}
    kept = originals.kept(sha) if sha else None
    refs = originals.refs(sha) if sha else None
    keys = sorted(k for k in (refs.sources if refs else ()) if originals.current(k) == sha)
    if kept is not None and keys:
        try:
            written = _reingest(index, kept, sha, keys[0])
        except Exception as exc:  # a kept file the parser now refuses: said, and left for the operator
            for problem in problems:
                problem.repair = f"re-ingesting {kept} failed: {exc}"
            return
        for doc_id in doc_ids - set(written):  # ids this version of the parser no longer makes
            index.delete_document(doc_id)
        for problem in problems:
            problem.repaired, problem.repair = True, f"re-ingested from {kept}"
        return
    for problem in problems:
        doc_id = problem.subject
        try:
            doc = index.records.load(doc_id)
        except (OSError, ValueError):
            doc = None
        untracked = not sha or (refs is not None and not refs.doc_ids and not refs.sources)
        if doc is not None and untracked and doc.ingest_version == INGEST_VERSION:
            chunks = index.chunk_document(doc)
            index._write_document(doc, chunks, index.embed(chunks))
            problem.repaired, problem.repair = True, "rebuilt from its record (no kept original)"
        elif problem.kind == "outdated_record" and doc is not None and _has_points(index, doc_id):
            problem.repair = "no kept original of its current version: ingest its file again"
        else:
            index.delete_document(doc_id)
            problem.repaired = True
            problem.repair = ("dropped: its kept original is gone (or no longer its source's current version); "
                              "ingest the current file to index it again")


def _reingest(index: Index, kept: Path, sha: str, key: str) -> list[str]:
    """Parse the kept original, chunk, embed and write its documents as the current version of source `key`; the
    records keep the path they were ingested from."""
    from ingest.parse import parse_pdf

    result = parse_pdf(kept)
    if not result.documents:
        raise ValueError(f"{result.status.value}: {result.message}")
    docs: list[LegalDocument] = []
    for doc in result.documents:
        try:
            old = index.records.load(doc.doc_id)
        except (OSError, ValueError):  # the damaged record this re-ingest replaces
            old = None
        source = old.source_path if old is not None and old.source_sha256 == sha else key
        docs.append(doc.model_copy(update={"source_path": source}))
    chunked = [(doc, index.chunk_document(doc)) for doc in docs]
    embedded = index.embed([c for _, chunks in chunked for c in chunks]).split([len(c) for _, c in chunked])
    for doc, _ in chunked:
        index.records.save(doc)
    index.upsert_documents([(doc, chunks, part) for (doc, chunks), part in zip(chunked, embedded)], source_key=key)
    return [doc.doc_id for doc in docs]


def run(settings, repair_it: bool, embedder=None) -> DoctorReport:
    """`gaceta doctor`: open the index (checks of its own off), examine it, and with `repair_it` repair it; a store
    that cannot be opened is set aside and rebuilt from the kept originals when repairing, else reported."""
    from retrieval.index import Index
    from retrieval.store.edge import EdgeStore

    try:
        with engine_panics_quiet():
            index = Index.open(settings, embedder=embedder, checked=False)
            try:  # a truncated vector file opens fine and fails every dense query: read every point once
                index.store.check_readable()
            except BaseException:
                index.close()
                raise
    except IndexDamaged as exc:
        report = DoctorReport(home=str(settings.home), opened=False,
                              problems=[Problem(kind="store_damaged", subject=str(settings.index_dir), detail=str(exc))])
        if not repair_it or settings.qdrant_url:
            return report
        aside = EdgeStore.set_aside(settings.index_dir, settings.collection)
        report.set_aside = str(aside) if aside else None
        rebuilt = run(settings, True, embedder)
        report.problems[0].repaired = True
        report.problems[0].repair = f"the damaged store was moved to {aside}; a new one was built"
        rebuilt.problems[:0] = report.problems
        rebuilt.set_aside = report.set_aside
        return rebuilt
    with index:
        report = examine(index)
        if repair_it and report.problems:
            repair(index, report)
            left = {(p.kind, p.subject) for p in report.unrepaired}
            after = examine(index)  # what a repair left or exposed, said as found
            report.problems += [p for p in after.problems if (p.kind, p.subject) not in left]
            report.documents, report.points = len(_record_ids(index)), index.store._count(None)
    return report
