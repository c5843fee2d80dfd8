"""Fingerprints of the last versions a cached game applied: what tells whether the store
still holds the history the cache was built from. A Redis failover can promote a
replica that lacks the latest versions; a server that then writes those numbers again
makes a history that differs from the cache's under the same version numbers."""

from __future__ import annotations

import zlib
from array import array

from service.store.base import StoredEvent

# Versions remembered per cached game (4 bytes each): a failover loses at most the
# replica's lag, far fewer versions of one game than this.
KEPT = 256


class Marks:
    """The CRC-32 of the stored bytes of each of the last KEPT versions."""

    __slots__ = ("_crcs", "_since", "last")

    def __init__(self) -> None:
        self._crcs = array("I", bytes(4 * KEPT))
        self.last = 0  # the last version marked
        self._since = 1  # the first version marked (a cache started from a snapshot knows none before it)

    def add(self, version: int, data: bytes) -> None:
        if not self.last:
            self._since = version
        self._crcs[version % KEPT] = zlib.crc32(data)
        self.last = version

    @property
    def first(self) -> int:
        """The first version still remembered (1 when every one is)."""
        return max(self.last - KEPT + 1, self._since, 1)

    def knows(self, version: int) -> bool:
        return self.first <= version <= self.last

    def crc(self, version: int) -> int | None:
        """The CRC-32 of the stored bytes of `version`, if remembered."""
        return self._crcs[version % KEPT] if self.knows(version) else None

    def matches(self, stored: StoredEvent) -> bool:
        """Whether the store's event is the one this cache applied (True when it
        does not remember that version)."""
        if not self.knows(stored.version):
            return True
        return self._crcs[stored.version % KEPT] == zlib.crc32(stored.data)

    def copy(self) -> Marks:
        marks = Marks()
        marks._crcs = array("I", self._crcs)
        marks.last, marks._since = self.last, self._since
        return marks

    def given(self, version: int, crc: int) -> Marks:
        """A copy that says the event given out at `version` (which it remembers) had
        the CRC-32 `crc` (what a receipt proves: claims.py)."""
        marks = self.copy()
        marks._crcs[version % KEPT] = crc
        return marks
