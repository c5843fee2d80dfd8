"""The embedded event store: everything in this process's memory, lost on exit.
The default of `ludotheque serve`, and the reference the Redis store is tested against.
It never drops a game by itself: the service's retention sweeps (service/app/keeping/retention.py)
delete the games due."""

from __future__ import annotations

import asyncio
import bisect
import heapq
import math
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace

from service.store.base import (
    KEEP_FOREVER,
    SHUTTING_DOWN,
    Admission,
    AppendResult,
    CommandIdReused,
    CountersChanged,
    GameExists,
    GameInfo,
    GameNotFound,
    GamePage,
    InvalidCursor,
    Keep,
    ShardHealth,
    StoredEvent,
    StoredSnapshot,
    StoreHealth,
    StoreUnavailable,
    VersionConflict,
    head,
)
from service.store.memory_coordination import MemoryCoordination


@dataclass(slots=True)
class _Game:
    written: GameInfo  # the game's info, but for what `latest` holds
    sequence: int  # creation order, for listing newest first
    events: list[bytes] = field(default_factory=list)
    commands: dict[str, tuple[bytes, int, int]] = field(default_factory=dict)
    snapshots: dict[int, bytes] = field(default_factory=dict)
    snapshot_versions: list[int] = field(default_factory=list)  # sorted
    keep: Keep = KEEP_FOREVER
    claim: tuple[str, int] | None = None  # (owner, until_ms)
    deleted: bool = False
    appended: asyncio.Event = field(default_factory=asyncio.Event)
    # The last append's status, version, time and summary, until `info` is asked for:
    # an append sets them, it does not make a GameInfo that nobody may read.
    latest: tuple[str, int, int, bytes] | None = None

    @property
    def info(self) -> GameInfo:
        latest = self.latest
        if latest is not None:
            status, version, updated_at_ms, summary = latest
            self.written = replace(
                self.written, status=status, version=version, updated_at_ms=updated_at_ms, summary=summary
            )
            self.latest = None
        return self.written

    @info.setter
    def info(self, info: GameInfo) -> None:
        self.written, self.latest = info, None


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
        keep: Keep = KEEP_FOREVER,
        *,
        listed: bool = True,
    ) -> None:
        self._check_open()
        if game_id in self._games:
            if self._games[game_id].info.record == record:
                return  # the same creation, sent again
            raise GameExists(game_id)
        info = GameInfo(game_id, kind, status, len(events), now_ms, now_ms, record, summary, listed)
        self._games[game_id] = _Game(info, len(self._order), list(events), keep=keep)
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
        keep: Keep = KEEP_FOREVER,
        *,
        after: bytes = b"",
        counters_revision: int | None = None,
    ) -> AppendResult:
        game = self._game(game_id)
        _check_revision(game, counters_revision)
        previous = _previous_result(game, game_id, command_id, fingerprint)
        if previous is not None:
            return previous
        current = len(game.events)
        if current != expected_version or (after and current and head(game.events[current - 1]) != after):
            raise VersionConflict(game_id, expected_version, current)
        game.events.extend(events)
        first, last = current + 1, len(game.events)
        game.commands[command_id] = (fingerprint, first, last)
        game.latest = (status, last, now_ms, summary)
        game.keep = keep
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

    async def put_snapshots(self, game_id: str, snapshots: Sequence[StoredSnapshot]) -> None:
        self._check_open()
        game = self._games.get(game_id)
        if game is None:
            return
        for snapshot in snapshots:
            if snapshot.version not in game.snapshots:
                bisect.insort(game.snapshot_versions, snapshot.version)
            game.snapshots[snapshot.version] = snapshot.data

    async def snapshot(self, game_id: str, at_most: int | None = None) -> StoredSnapshot | None:
        game = self._game(game_id)
        versions = game.snapshot_versions
        index = len(versions) if at_most is None else bisect.bisect_right(versions, at_most)
        if index == 0:
            return None
        version = versions[index - 1]
        return StoredSnapshot(version, game.snapshots[version])

    async def list_games(
        self, kind: str, status: str, limit: int, cursor: str, *, listed_only: bool = False
    ) -> GamePage:
        self._check_open()
        position = len(self._order)
        if cursor:
            if not (cursor.isascii() and cursor.isdigit()) or int(cursor) > position:
                raise InvalidCursor(cursor)
            position = int(cursor)
        found: list[GameInfo] = []
        while position > 0 and len(found) < limit:
            position -= 1
            game = self._games.get(self._order[position])  # None: deleted (the order keeps its place)
            if game is None:
                continue
            info = game.info
            if (
                (not kind or info.kind == kind)
                and (not status or info.status == status)
                and (info.listed or not listed_only)
            ):
                found.append(info)
        return GamePage(found, str(position) if position > 0 and len(found) == limit else "")

    async def due_games(self, now_ms: int, limit: int) -> list[str]:
        self._check_open()
        due = [(g.keep.review_at_ms, g.sequence, g.written.game_id) for g in self._games.values()]
        return [game_id for review_at, _, game_id in sorted(due) if 0 < review_at <= now_ms][:limit]

    async def keep(self, game_id: str, keep: Keep) -> None:
        self._game(game_id).keep = keep

    async def claim(self, game_id: str, owner: str, until_ms: int, now_ms: int) -> bool:
        game = self._game(game_id)
        if game.claim is not None and game.claim[0] != owner and game.claim[1] > now_ms:
            return False
        game.claim = (owner, until_ms)
        return True

    async def delete(self, game_id: str, version: int | None = None) -> bool:
        game = self._game(game_id)
        if version is not None and game.info.version != version:
            return False
        del self._games[game_id]
        game.deleted = True
        game.appended.set()  # its subscribers end
        return True

    async def forget(self, game_id: str) -> None:
        self._check_open()  # a game this store deletes is unlisted at once

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
            if game.deleted:
                raise GameNotFound(game_id)
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

    async def health(self) -> StoreHealth:
        if self._closed:
            return StoreHealth([ShardHealth("memory", writable=False, problem="the memory store is closed")])
        return StoreHealth([ShardHealth("memory", writable=True)])

    async def close(self) -> None:
        self._closed = True
        self.coordination.close()
        for game in self._games.values():
            game.appended.set()


def _check_revision(game: _Game, counters_revision: int | None) -> None:
    if counters_revision is not None and counters_revision != game.written.counters_revision:
        raise CountersChanged(game.written.game_id)


def _previous_result(game: _Game, game_id: str, command_id: str, fingerprint: bytes) -> AppendResult | None:
    known = game.commands.get(command_id)
    if known is None:
        return None
    if known[0] != fingerprint:
        raise CommandIdReused(game_id, command_id)
    return AppendResult(known[1], known[2], replayed=True)
