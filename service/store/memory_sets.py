"""The memory store's bounded sets and marks (base.SharedSets: admit, release,
members, mark_once), in this process's memory: the processes that share them are just
this one. Expired members and marks are forgotten as they are met, so memory stays
bounded."""

from __future__ import annotations

import heapq
import math
import time
from typing import TYPE_CHECKING

from service.store.base import Admission


class MemorySets:
    """MemoryStore's bounded sets and marks."""

    if TYPE_CHECKING:  # MemoryStore's own

        def _check_open(self) -> None: ...

    def __init__(self) -> None:
        self._sets: dict[str, dict[str, float]] = {}  # admit's sets: member -> expiry (ms; inf: none)
        self._marks: dict[str, float] = {}  # key -> when its mark expires (monotonic clock)
        self._mark_expiries: list[tuple[float, str]] = []  # a heap, to forget expired marks

    def _live_members(self, key: str, now_ms: int) -> dict[str, float]:
        members = self._sets.get(key, {})
        for member in [m for m, expiry in members.items() if expiry <= now_ms]:
            del members[member]
        if not members:
            self._sets.pop(key, None)  # an idle identity's set does not linger
        return members

    async def admit(self, key: str, member: str, limit: int, now_ms: int, ttl_ms: int | None = None) -> Admission:
        self._check_open()
        members = self._live_members(key, now_ms)
        if member in members:
            return Admission(True)
        if len(members) < limit:
            self._sets.setdefault(key, members)[member] = math.inf if ttl_ms is None else now_ms + ttl_ms
            return Admission(True)
        first = min(members.values(), default=math.inf)
        return Admission(False, None if first == math.inf else int(first) - now_ms)

    async def release(self, key: str, member: str) -> None:
        self._check_open()
        members = self._sets.get(key)
        if members is not None:
            members.pop(member, None)
            if not members:
                del self._sets[key]

    async def members(self, key: str, now_ms: int) -> list[str]:
        self._check_open()
        return sorted(self._live_members(key, now_ms))

    async def mark_once(self, key: str, ttl_ms: int) -> bool:
        self._check_open()
        now = time.monotonic()
        expiries = self._mark_expiries
        while expiries and expiries[0][0] <= now:  # expired marks are forgotten: memory stays bounded
            expiry, expired = heapq.heappop(expiries)
            if self._marks.get(expired) == expiry:
                del self._marks[expired]
        if self._marks.get(key, now) > now:
            return False
        expiry = now + max(ttl_ms, 1) / 1000
        self._marks[key] = expiry
        heapq.heappush(expiries, (expiry, key))
        return True
