"""The memory store's coordination (base.Coordination): claims, process leases and the
holders of scopes, notices and the schedule, in this process's memory, for the
processes that share it: just this one. (A scope's holders are dropped when the last is
released: one process forgets nothing it should keep.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence

# Notices a reader has not taken yet; past this the oldest are dropped (best effort,
# as the interface says), so a reader that stopped reading holds no growing backlog.
NOTICE_BACKLOG = 1024


class MemoryCoordination:
    def __init__(self, check_open: Callable[[], None]) -> None:
        self._check_open = check_open
        self._claims: dict[str, tuple[str, float]] = {}  # key -> (value, when it expires: monotonic)
        self._cleanup_at = 1024
        self._processes: dict[str, int] = {}  # process -> when its lease ends (ms)
        self._holders: dict[str, dict[str, int | None]] = {}  # scope -> holder -> when it ends (ms)
        self._readers: set[asyncio.Queue[str | None]] = set()
        self._schedule: dict[str, int] = {}  # key -> when it is due (ms)

    # --- claims ---------------------------------------------------------------------

    async def claim(self, key: str, value: str, ttl_ms: int) -> str:
        self._check_open()
        now = time.monotonic()
        held = self._claims.get(key)
        if held is not None and held[1] > now:
            return held[0]
        if len(self._claims) >= self._cleanup_at:  # expired claims are forgotten: memory stays bounded
            self._claims = {k: held for k, held in self._claims.items() if held[1] > now}
            self._cleanup_at = max(1024, 2 * len(self._claims))
        self._claims[key] = (value, now + max(ttl_ms, 1) / 1000)
        return value

    async def replace(self, key: str, expected: str, value: str, ttl_ms: int) -> str:
        self._check_open()
        held = self._claims.get(key)
        if held is not None and held[1] > time.monotonic() and held[0] != expected:
            return held[0]
        self._claims.pop(key, None)
        return await self.claim(key, value, ttl_ms)

    async def lookup(self, key: str) -> str | None:
        self._check_open()
        held = self._claims.get(key)
        return held[0] if held is not None and held[1] > time.monotonic() else None

    # --- process leases and holders -----------------------------------------------

    async def renew_process(
        self, process: str, now_ms: int, ttl_ms: int, forget_ms: int
    ) -> tuple[bool, dict[str, int]]:
        self._check_open()
        old = self._processes.get(process)
        forget_before = now_ms - forget_ms
        self._processes = {name: ends for name, ends in self._processes.items() if ends >= forget_before}
        self._processes[process] = now_ms + ttl_ms
        return old is None or old <= now_ms, dict(self._processes)

    async def processes(self, names: Sequence[str]) -> dict[str, int]:
        self._check_open()
        return {name: self._processes[name] for name in names if name in self._processes}

    async def hold(self, scope: str, holder: str, ends_ms: int | None, now_ms: int) -> bool:
        self._check_open()
        holders = self._holders.setdefault(scope, {})
        for ended in [name for name, ends in holders.items() if ends is not None and ends <= now_ms]:
            del holders[ended]
        new = holder not in holders
        holders[holder] = ends_ms
        return new

    async def unhold(self, scope: str, holders: Sequence[str]) -> None:
        self._check_open()
        held = self._holders.get(scope)
        if held is not None:
            for holder in holders:
                held.pop(holder, None)
            if not held:
                del self._holders[scope]

    async def holders(self, scope: str, now_ms: int) -> dict[str, int | None]:
        self._check_open()
        held = self._holders.get(scope, {})
        return {holder: ends for holder, ends in held.items() if ends is None or ends > now_ms}

    # --- notices --------------------------------------------------------------------

    async def notify(self, topic: str) -> None:
        self._check_open()
        for reader in self._readers:
            if reader.full():
                reader.get_nowait()
            reader.put_nowait(topic)

    async def notices(self) -> AsyncIterator[str]:
        self._check_open()
        reader: asyncio.Queue[str | None] = asyncio.Queue(NOTICE_BACKLOG)
        self._readers.add(reader)
        try:
            while (topic := await reader.get()) is not None:
                yield topic
            self._check_open()  # None: the store closed
        finally:
            self._readers.discard(reader)

    def close(self) -> None:
        """Ends every notices() reader (the store is closed)."""
        for reader in self._readers:
            if reader.full():
                reader.get_nowait()
            reader.put_nowait(None)

    # --- the schedule ---------------------------------------------------------------

    async def schedule(self, key: str, due_ms: int) -> None:
        self._check_open()
        self._schedule[key] = due_ms

    async def unschedule(self, key: str) -> None:
        self._check_open()
        self._schedule.pop(key, None)

    async def due(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        self._check_open()
        found = sorted((due, key) for key, due in self._schedule.items() if due <= now_ms)
        return [(key, due) for due, key in found[:limit]]
