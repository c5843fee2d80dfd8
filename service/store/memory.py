"""The embedded event store: everything in this process's memory, lost on exit.
The default of `ludotheque serve`, and the reference the Redis store is tested against."""

from __future__ import annotations

import asyncio
import heapq
import math
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace

from service.store.base import (
    SHUTTING_DOWN,
    Admission,
    AppendResult,
    CommandIdReused,
    CountersChanged,
    GameExists,
    GameInfo,
    GameNotFound,
    GamePage,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
)
from service.store.memory_coordination import MemoryCoordination


@dataclass(slots=True)
class _Game:
    info: GameInfo
    sequence: int  # creation order, for listing newest first
    events: list[bytes] = field(default_factory=list)
    commands: dict[str, tuple[bytes, int, int]] = field(default_factory=dict)
    appended: asyncio.Event = field(default_factory=asyncio.Event)


class MemoryStore:
    def __init__(self) -> None:
        self._games: dict[str, _Game] = {}
        self._order: list[str] = []
        self._sets: dict[str, dict[str, float]] = {}  # admit's sets: member -> expiry (ms; inf: none)
        self._closed = False
        self._ending_subscriptions = False
        self._marks: dict[str, float] = {}  # key -> when its mark expires (monotonic clock)
        self._mark_expiries: list[tuple[float, str]] = []  # a heap, to forget expired marks
        self.coordination = MemoryCoordination(self._check_open)

    def _game(self, game_id: str) -> _Game:
        self._check_open()
        game = self._games.get(game_id)
        if game is None:
            raise GameNotFound(game_id)
        return game

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("the memory store is closed")

    async def create(
        self,
        game_id: str,
        kind: str,
        status: str,
        record: bytes,
        summary: bytes,
        events: Sequence[bytes],
        now_ms: int,
        *,
        listed: bool = True,
    ) -> None:
        self._check_open()
        if game_id in self._games:
            raise GameExists(game_id)
        info = GameInfo(game_id, kind, status, len(events), now_ms, now_ms, record, summary, listed)
        self._games[game_id] = _Game(info, len(self._order), list(events))
        self._order.append(game_id)

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        command_id: str,
        fingerprint: bytes,
        status: str,
        summary: bytes,
        now_ms: int,
        *,
        counters_revision: int | None = None,
    ) -> AppendResult:
        game = self._game(game_id)
        _check_revision(game, counters_revision)
        previous = _previous_result(game, game_id, command_id, fingerprint)
        if previous is not None:
            return previous
        current = len(game.events)
        if current != expected_version:
            raise VersionConflict(game_id, expected_version, current)
        game.events.extend(events)
        first, last = current + 1, len(game.events)
        game.commands[command_id] = (fingerprint, first, last)
        game.info = replace(game.info, status=status, version=last, updated_at_ms=now_ms, summary=summary)
        waiters, game.appended = game.appended, asyncio.Event()
        waiters.set()
        return AppendResult(first, last)

    async def find_command(self, game_id: str, command_id: str, fingerprint: bytes) -> AppendResult | None:
        return _previous_result(self._game(game_id), game_id, command_id, fingerprint)

    async def info(self, game_id: str) -> GameInfo:
        return self._game(game_id).info

    async def read(
        self, game_id: str, from_version: int, to_version: int | None = None, *, counters_revision: int | None = None
    ) -> list[StoredEvent]:
        game = self._game(game_id)
        _check_revision(game, counters_revision)
        events = game.events
        start = max(from_version, 1)
        stop = len(events) if to_version is None else min(to_version, len(events))
        return [StoredEvent(v, events[v - 1]) for v in range(start, stop + 1)]

    async def bump(self, game_id: str, name: str) -> int:
        game = self._game(game_id)
        info = game.info
        value = info.counters.get(name, 0) + 1
        game.info = replace(info, counters={**info.counters, name: value}, counters_revision=info.counters_revision + 1)
        return value

    async def list_games(
        self, kind: str, status: str, limit: int, cursor: str, *, listed_only: bool = False
    ) -> GamePage:
        self._check_open()
        position = int(cursor) if cursor else len(self._order)
        found: list[GameInfo] = []
        while position > 0 and len(found) < limit:
            position -= 1
            info = self._games[self._order[position]].info
            if (
                (not kind or info.kind == kind)
                and (not status or info.status == status)
                and (info.listed or not listed_only)
            ):
                found.append(info)
        return GamePage(found, str(position) if position > 0 and len(found) == limit else "")

    # --- bounded sets (admit) ---------------------------------------------------------

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

    async def subscribe(self, game_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        game = self._game(game_id)
        next_version = max(from_version, 1)
        while True:
            if self._ending_subscriptions:
                raise StoreUnavailable(SHUTTING_DOWN)
            # Subscribers read the game's own list, so they hold no copy of their
            # own and cannot fall behind by more than the game's length.
            while next_version <= len(game.events):
                yield StoredEvent(next_version, game.events[next_version - 1])
                next_version += 1
            await game.appended.wait()
            self._check_open()

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

    def end_subscriptions(self) -> None:
        self._ending_subscriptions = True
        for game in self._games.values():
            game.appended.set()

    async def ping(self) -> None:
        self._check_open()

    async def close(self) -> None:
        self._closed = True
        self.coordination.close()
        for game in self._games.values():
            game.appended.set()


def _check_revision(game: _Game, counters_revision: int | None) -> None:
    if counters_revision is not None and counters_revision != game.info.counters_revision:
        raise CountersChanged(game.info.game_id)


def _previous_result(game: _Game, game_id: str, command_id: str, fingerprint: bytes) -> AppendResult | None:
    known = game.commands.get(command_id)
    if known is None:
        return None
    if known[0] != fingerprint:
        raise CommandIdReused(game_id, command_id)
    return AppendResult(known[1], known[2], replayed=True)
