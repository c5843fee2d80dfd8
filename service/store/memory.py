"""The embedded event store: everything in this process's memory, lost on exit.
The default of `ludotheque serve`, and the reference the Redis store is tested against.
It never drops a game by itself: the service's retention sweeps (service/app/keeping/retention.py)
delete the games due."""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace

from service.store.base import (
    KEEP_FOREVER,
    SHUTTING_DOWN,
    AppendRequest,
    AppendResult,
    CommandIdReused,
    CountersChanged,
    GameExists,
    GameInfo,
    GameNotFound,
    GamePage,
    InvalidCursor,
    Keep,
    NewGame,
    ShardHealth,
    StoredEvent,
    StoredSnapshot,
    StoreHealth,
    StoreUnavailable,
    VersionConflict,
    head,
)
from service.store.memory_coordination import MemoryCoordination
from service.store.memory_keeping import MemoryKeeping
from service.store.memory_sets import MemorySets


@dataclass(slots=True)
class MemoryGame:
    """One game as the memory store keeps it."""

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


class MemoryStore(MemoryKeeping, MemorySets):
    """Every part of the store (base.EventStore): the event log and snapshots here,
    retention in memory_keeping.py, the shared sets and marks in memory_sets.py,
    coordination in memory_coordination.py."""

    def __init__(self) -> None:
        super().__init__()  # (the sets' and marks' own state)
        self._games: dict[str, MemoryGame] = {}
        self._order: list[str] = []
        self._closed = False
        self._ending_subscriptions = False
        self.coordination = MemoryCoordination(self._check_open)

    def _game(self, game_id: str) -> MemoryGame:
        self._check_open()
        game = self._games.get(game_id)
        if game is None:
            raise GameNotFound(game_id)
        return game

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("the memory store is closed")

    async def create(self, game: NewGame) -> None:
        self._check_open()
        game_id = game.game_id
        if game_id in self._games:
            if self._games[game_id].info.record == game.record:
                return  # the same creation, sent again
            raise GameExists(game_id)
        now_ms, events = game.now_ms, list(game.events)
        info = GameInfo(
            game_id, game.kind, game.status, len(events), now_ms, now_ms, game.record, game.summary, game.listed
        )
        self._games[game_id] = MemoryGame(info, len(self._order), events, keep=game.keep)
        self._order.append(game_id)

    async def append(self, request: AppendRequest) -> AppendResult:
        game_id, expected_version, after = request.game_id, request.expected_version, request.after
        game = self._game(game_id)
        _check_revision(game, request.counters_revision)
        previous = _previous_result(game, game_id, request.command_id, request.fingerprint)
        if previous is not None:
            return previous
        current = len(game.events)
        if current != expected_version or (after and current and head(game.events[current - 1]) != after):
            raise VersionConflict(game_id, expected_version, current)
        game.events.extend(request.events)
        first, last = current + 1, len(game.events)
        game.commands[request.command_id] = (request.fingerprint, first, last)
        game.latest = (request.status, last, request.now_ms, request.summary)
        game.keep = request.keep
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


def _check_revision(game: MemoryGame, counters_revision: int | None) -> None:
    if counters_revision is not None and counters_revision != game.written.counters_revision:
        raise CountersChanged(game.written.game_id)


def _previous_result(game: MemoryGame, game_id: str, command_id: str, fingerprint: bytes) -> AppendResult | None:
    known = game.commands.get(command_id)
    if known is None:
        return None
    if known[0] != fingerprint:
        raise CommandIdReused(game_id, command_id)
    return AppendResult(known[1], known[2], replayed=True)
