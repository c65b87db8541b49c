"""Kept originals and source identity: the PDFs a document was parsed from, kept by content, and which file is the
current version of each source.

On disk, under GACETA_HOME:

    originals/ab/abcdef….pdf    the bytes whose sha256 is abcdef…: a copy-on-write clone of the ingested file where
                                 the file system can (btrfs, XFS), else a copy; written under a temporary name, hashed,
                                 renamed into place. Not a hard link: a hard link shares the inbox file's inode, and
                                 `cp new.pdf inbox/x.pdf` (an in-place overwrite, the usual way a source changes)
                                 would silently turn the kept old version into the new bytes — measured in
                                 tests/retrieval/test_originals.py, where the old version's pages then answered 410
    originals/ab/abcdef….json   {"doc_ids": [...], "sources": [...]}: the documents parsed from these bytes and the
                                 source keys whose current version they are — the file goes when no document is left
    sources/12/1234….json       one per source key: {"key", "sha256" (current version), "incoming" | "retiring"}
    sources/inflight/1234…      a marker while a replacement of that source is under way (crash recovery reads these)

A **source key** is the absolute, resolved path of the file a document was ingested from (`source_key`): the same
file in the inbox, or the same explicit path, is the same source; a copy elsewhere is another source (with the same
bytes it shares the documents, whose ids come from the content). A caller that knows better (an upload's name in
the owner's inbox) passes its own key.

Replacing a source's version (`Index.upsert_documents`) is a small journal in that source's file:

    1. intent   {"sha256": OLD, "incoming": {"sha256": NEW, "pid": …}}   + the inflight marker
    2. the new documents are referenced, then written (each complete in the store before the next)
    3. commit   {"sha256": NEW, "retiring": OLD}                           (one atomic rename: the switch)
    4. the old version's documents (unless another source still has those bytes) lose their points, records and
       kept file; then {"sha256": NEW}, and the marker goes.

`recover()` finishes what a crash interrupted: before the commit it rolls the new version back (the old one stays),
after it rolls forward (the old one goes). So after a restart exactly one version of a source is searchable.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import threading
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrieval.files import file_sha256, intact, pid_alive

log = logging.getLogger(__name__)

_SHA = re.compile(r"^[0-9a-f]{64}$")
_BLOCK = 1 << 20
_FICLONE = 0x40049409  # ioctl: clone a file's extents (Linux)
_LOCKS: dict[Path, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


def source_key(path: str | os.PathLike[str]) -> str:
    """The identity of a source: its absolute path with symlinks and `..` resolved (no need for the file to exist)."""
    return str(Path(os.fsdecode(path)).expanduser().resolve(strict=False))


def _write_json(path: Path, data: Any) -> None:
    """Atomically: a temporary file in the same folder, flushed, renamed over the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=True, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("unreadable %s (%s): treated as absent", path, exc)
        return None


@dataclass
class Refs:
    """Who refers to one kept original."""

    doc_ids: set[str] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)


@dataclass
class Retired:
    """What a finished replacement (or a recovery) removed: the documents whose points and records must go."""

    doc_ids: list[str] = field(default_factory=list)
    originals: list[str] = field(default_factory=list)


class Originals:
    """The kept PDFs and the source ledger under one data dir."""

    def __init__(self, home: Path):
        home = Path(home).expanduser().resolve(strict=False)  # a later chdir must not move it
        self.root = home / "originals"
        self.sources_dir = home / "sources"
        self.inflight_dir = self.sources_dir / "inflight"
        with _LOCKS_GUARD:  # one lock per data dir in a process: a replacement and a delete never interleave
            self.lock = _LOCKS.setdefault(home, threading.RLock())
        self.recovered = False

    # --- kept files ------------------------------------------------------------------------------------
    def path(self, sha256: str) -> Path:
        if not _SHA.fullmatch(sha256 or ""):
            raise ValueError(f"not a sha256: {sha256!r}")
        return self.root / sha256[:2] / f"{sha256}.pdf"

    def kept(self, sha256: str) -> Path | None:
        """The kept original with these bytes, if there is one."""
        try:
            path = self.path(sha256)
        except ValueError:
            return None
        return path if path.is_file() else None

    def keep(self, source: str | os.PathLike[str], sha256: str) -> Path | None:
        """Keep `source` as the original with content `sha256`, once: None when the file is gone or its bytes are
        not those (a file changed after it was parsed is never kept under the old content's name)."""
        try:
            final = self.path(sha256)
        except ValueError:
            return None
        if intact(final, sha256):
            return final
        src = Path(os.fsdecode(source))
        if not src.is_file():
            return None
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.with_name(f".{sha256}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            got = self._copy(src, tmp)
            if got != sha256:
                log.warning("not keeping %s: its sha256 is %s, the document says %s", src, got, sha256)
                return None
            os.replace(tmp, final)
            return final
        except OSError as exc:
            log.warning("could not keep the original %s: %s", src, exc)
            return None
        finally:
            tmp.unlink(missing_ok=True)

    @staticmethod
    def _copy(src: Path, dst: Path) -> str:
        """A copy-on-write clone where the file system has them (btrfs, XFS: no second copy of the bytes), else a
        copy; either way hashing exactly the bytes that landed in `dst`."""
        with open(src, "rb") as fin, open(dst, "wb") as fout:
            try:
                import fcntl

                fcntl.ioctl(fout.fileno(), _FICLONE, fin.fileno())
            except (OSError, ImportError, AttributeError):
                shutil.copyfileobj(fin, fout, _BLOCK)
            fout.flush()
            os.fsync(fout.fileno())
        return file_sha256(dst)

    def _refs_path(self, sha256: str) -> Path:
        return self.path(sha256).with_suffix(".json")

    def refs(self, sha256: str) -> Refs:
        data = _read_json(self._refs_path(sha256)) or {}
        return Refs(set(data.get("doc_ids", [])), set(data.get("sources", [])))

    def _save_refs(self, sha256: str, refs: Refs) -> None:
        _write_json(self._refs_path(sha256), {"doc_ids": sorted(refs.doc_ids), "sources": sorted(refs.sources)})

    def add_ref(self, sha256: str, doc_id: str, key: str | None) -> None:
        """Record that `doc_id` (parsed from source `key`) refers to the kept original `sha256`; before the document
        is written, so a crash can never leave a written document that no ledger knows of."""
        refs = self.refs(sha256)
        new = Refs(refs.doc_ids | {doc_id}, refs.sources | ({key} if key else set()))
        if new != refs:
            self._save_refs(sha256, new)

    def drop_ref(self, sha256: str, doc_id: str) -> bool:
        """`doc_id` is gone; when no document refers to `sha256` any more its kept file and ledger entries go.
        Returns whether the kept file was removed."""
        try:
            refs = self.refs(sha256)
        except ValueError:
            return False
        refs.doc_ids.discard(doc_id)
        if refs.doc_ids:
            self._save_refs(sha256, refs)
            return False
        for key in refs.sources:  # the source's current version no longer has documents: forget it
            entry = self._source(key)
            if entry and entry.get("sha256") == sha256 and not entry.get("incoming") and not entry.get("retiring"):
                self._source_path(key).unlink(missing_ok=True)
        self._remove(sha256)
        return True

    def _remove(self, sha256: str) -> None:
        # The ledger entry first: a crash in between leaves a kept file no one refers to (harmless, `gaceta doctor`
        # removes it), never an entry whose file is gone (which opening the index reports as damage).
        self._refs_path(sha256).unlink(missing_ok=True)
        self.path(sha256).unlink(missing_ok=True)

    # --- the source ledger ------------------------------------------------------------------------------
    @staticmethod
    def _key_hash(key: str) -> str:
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()

    def _source_path(self, key: str) -> Path:
        h = self._key_hash(key)
        return self.sources_dir / h[:2] / f"{h}.json"

    def _source(self, key: str) -> dict[str, Any] | None:
        return _read_json(self._source_path(key))

    def current(self, key: str) -> str | None:
        """The sha256 of the source's current version, if it has been ingested."""
        entry = self._source(key)
        return entry.get("sha256") if entry else None

    def share(self, key: str, sha256: str, doc_ids: Iterable[str]) -> bool:
        """Source `key` holds the bytes `sha256`, already indexed as `doc_ids` (a twin of another source, or the
        same file asked again): record it as the source's current version and as one of the sources those
        documents stay for. False when the source's current version is other bytes (that is a replacement: the
        caller re-indexes through `Index.upsert_documents`)."""
        if self.kept(sha256) is None:
            return True  # nothing kept (an index from before originals, a store without them): nothing to share
        with self.lock:
            current = self.current(key)
            if current not in (None, sha256):
                return False
            refs = self.refs(sha256)
            new = Refs(refs.doc_ids | set(doc_ids), refs.sources | {key})
            if new != refs:
                self._save_refs(sha256, new)
            if current is None:
                _write_json(self._source_path(key), {"key": key, "sha256": sha256})
        return True

    def begin(self, key: str, sha256: str) -> str | None:
        """Before writing documents of `sha256` from source `key`: the version they replace (journalled as an
        intent), or None when this is the source's first version or its current one (nothing to replace)."""
        entry = self._source(key)
        old = entry.get("sha256") if entry else None
        if old is None:
            _write_json(self._source_path(key), {"key": key, "sha256": sha256})
            return None
        if old == sha256:
            return None
        self.inflight_dir.mkdir(parents=True, exist_ok=True)
        (self.inflight_dir / self._key_hash(key)).write_text(key, encoding="utf-8", errors="surrogateescape")
        _write_json(self._source_path(key),
                    {"key": key, "sha256": old, "incoming": {"sha256": sha256, "pid": os.getpid()}})
        return old

    def commit(self, key: str, new: str, old: str) -> Retired:
        """The switch: `new` is the source's version. Returns what of `old` must now be deleted (its documents,
        unless another source still has those bytes); call `finish` once they are."""
        _write_json(self._source_path(key), {"key": key, "sha256": new, "retiring": old})
        return self._retire(key, old, keep=self.refs(new).doc_ids)

    def finish(self, key: str) -> None:
        entry = self._source(key)
        if entry is not None:
            entry.pop("retiring", None)
            entry.pop("incoming", None)
            _write_json(self._source_path(key), entry)
        (self.inflight_dir / self._key_hash(key)).unlink(missing_ok=True)

    def _retire(self, key: str, sha256: str, keep: Iterable[str] = ()) -> Retired:
        refs = self.refs(sha256)
        refs.sources.discard(key)
        if refs.sources:  # the same bytes are another source's current version: its documents stay
            self._save_refs(sha256, refs)
            return Retired()
        return Retired(doc_ids=sorted(refs.doc_ids - set(keep)), originals=[sha256])

    def release(self, retired: Retired) -> None:
        """After `retired`'s documents are deleted: their kept files and refs go."""
        for sha256 in retired.originals:
            self._remove(sha256)

    def recover(self, delete_document: Callable[[str], Any]) -> list[str]:
        """Finish replacements a crash interrupted (not those of a live process): before the commit the incoming
        version is rolled back, after it the old one is removed. Returns the source keys repaired."""
        try:
            markers = list(self.inflight_dir.iterdir())
        except FileNotFoundError:
            return []
        repaired = []
        for marker in markers:
            try:
                key = marker.read_text(encoding="utf-8", errors="surrogateescape")
            except OSError:
                continue
            entry = self._source(key) or {}
            incoming = entry.get("incoming")
            if incoming and pid_alive(int(incoming.get("pid", 0))) and int(incoming.get("pid", 0)) != os.getpid():
                continue  # another live process is replacing it right now
            if incoming:  # crashed before the switch: the old version stays current
                new = incoming["sha256"]
                retired = self._retire(key, new, keep=self.refs(entry["sha256"]).doc_ids if entry.get("sha256") else ())
            elif entry.get("retiring"):  # crashed after the switch: the old version goes
                retired = self._retire(key, entry["retiring"], keep=self.refs(entry["sha256"]).doc_ids)
            else:
                retired = Retired()
            for doc_id in retired.doc_ids:
                delete_document(doc_id)
            self.release(retired)
            self.finish(key)
            log.warning("finished an interrupted replacement of %s", key)
            repaired.append(key)
        return repaired
