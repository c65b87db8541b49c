"""Parsed chunks of recent search hits, so a busy server neither re-reads nor re-validates their payloads.

Reading ten hits' payloads out of qdrant-edge and converting them to Python was half of a hybrid query's time at 4k
chunks (1.1 of 2.3 ms), and validating them into models another 0.26 ms. A search asks the store for point ids only
and takes the parsed `(Chunk, DocumentInfo)` of each hit from here, fetching just the ones it lacks.

Only for a store that sees every write to its data (`Store.exclusive`: the embedded store its one owner holds):
everything cached belongs to one `Store.revision`, and any write moves the revision
on, which empties the cache. A least-recently-used bound keeps memory flat on big indexes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from ingest.models import Chunk, DocumentInfo

Parsed = tuple[Chunk, DocumentInfo]


class ChunkCache:
    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[str, Parsed] = OrderedDict()
        self._revision: int | None = None
        self._lock = threading.Lock()

    def get_many(self, ids: Iterable[str], revision: int) -> dict[str, Parsed]:
        """The cached entries among `ids` (the store at `revision`); a newer revision empties the cache first."""
        with self._lock:
            self._move_to(revision)
            found = {}
            for pid in ids:
                parsed = self._items.get(pid)
                if parsed is not None:
                    self._items.move_to_end(pid)
                    found[pid] = parsed
            return found

    def put_many(self, items: Mapping[str, Parsed], revision: int) -> None:
        """Keep `items`, read from the store at `revision`; dropped if the store has been written since."""
        with self._lock:
            if revision != self._revision:
                return
            self._items.update(items)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def _move_to(self, revision: int) -> None:
        if revision != self._revision:
            self._items.clear()
            self._revision = revision
