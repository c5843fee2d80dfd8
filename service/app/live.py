"""The live-game cache: each game's record and current state, loaded from the store's
events and kept in step with what other processes append."""

from __future__ import annotations

import asyncio
import re
import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ludotheque.v1 import game_pb2

from engines.contract import DataUnavailable, Status, fold
from engines.registry import AnyEngine, get_engine
from service.app import envelopes, request_context
from service.app.errors import Code, ServiceError, invalid_argument, not_found
from service.app.metrics import Metrics
from service.app.stored import parse_event, store_errors
from service.app.table import Table
from service.app.tracing import TracedMove
from service.store.base import CountersChanged, EventStore, GameInfo, GameNotFound, StoredEvent

GAME_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def seat_counter(seat: int) -> str:
    """The name of the store counter that holds how often the admin rotated a seat's token."""
    return f"seat:{seat}"


@dataclass(slots=True)
class LiveGame:
    """A game's record and its state at `version`, as cached."""

    record: game_pb2.GameRecord
    engine: AnyEngine
    state: Any
    version: int
    updated_at_ms: int
    summary_head: bytes = b""  # the summary's fields that change only with the seats, encoded (views.summary_bytes)
    summary_revision: int = 0  # the table's revision summary_head was encoded at
    # The game's counters in the store (seat token rotations), at `counters_revision`.
    counters: Mapping[str, int] = field(default_factory=dict)
    counters_revision: int = 0
    traced_move: TracedMove | None = None  # the last move traced here, for its followers' spans
    table: Table = field(init=False)  # the seats: who sits and plays where, their clocks (table.py)

    def __post_init__(self) -> None:
        self.table = Table(self.record, self.engine)

    @property
    def game_id(self) -> str:
        return self.record.game_id

    def seat_generation(self, seat: int) -> int:
        """The generation of the seat's tokens: the players who joined it (the table's
        events) plus the admin's rotations of its token (the store's counter). Each
        only goes up, so a seat's generation never comes back to a past value: a token
        made for a generation is good until the seat's next join or rotation, and never
        again. Both are known on every process without a round trip of their own: the
        events come with the game's reads, and a rotation changes the counters'
        revision, which every read and append checks (LiveGames.refresh, Moves)."""
        return self.table.joins[seat] + self.counters.get(seat_counter(seat), 0)

    def take_counters(self, info: GameInfo) -> None:
        self.counters, self.counters_revision = info.counters, info.counters_revision

    @property
    def status(self) -> Status:
        return self.engine.status(self.state)

    def apply(self, event: game_pb2.Event) -> None:
        """Folds the game's next event (version + 1) into its state and its table."""
        self.state = self.table.fold(self.state, event)
        self.version = event.version
        self.updated_at_ms = event.recorded_at.ToMilliseconds()

    def moved(self, events: Sequence[game_pb2.Event], state: Any, version: int, now_ms: int) -> None:
        """This process appended `events`, which bring the game to `state` at `version`.
        A game whose table follows them (a turn clock, table events) folds them one by
        one; the others just take the state."""
        if self.table.clock is not None or any(event.HasField("table") for event in events):
            for event in events:
                if event.version == self.version + 1:
                    self.apply(event)
        elif self.version < version:
            self.state, self.version, self.updated_at_ms = state, version, now_ms


class LiveGames:
    """The games this process plays, least recently used dropped first; one lock per
    game serialises its moves inside the process."""

    def __init__(self, store: EventStore, metrics: Metrics, cache_size: int) -> None:
        self.store = store
        self._metrics = metrics
        self._cache: OrderedDict[str, LiveGame] = OrderedDict()
        self._cache_size = cache_size
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    async def load(self, game_id: str, *, refresh: bool = True) -> LiveGame:
        """The game, cached; `refresh`: with the events other processes appended."""
        if not GAME_ID_PATTERN.match(game_id):
            raise invalid_argument("game_id", "game_id must be 1 to 64 letters, digits, '-' or '_'.")
        request_context.note(game_id=game_id)
        live = self._cache.get(game_id)
        if live is not None:
            self._cache.move_to_end(game_id)
            if refresh:
                await self.refresh(live)
            return live
        with store_errors():
            try:
                info = await self.store.info(game_id)
            except GameNotFound:
                raise not_found(game_id) from None
            stored = await self.store.read(game_id, 1)
        record = game_pb2.GameRecord.FromString(info.record)
        engine = get_engine(record.kind)
        if engine is None:
            raise ServiceError(Code.FAILED_PRECONDITION, f"This server does not play {record.kind!r} games.")
        if record.rules_version != engine.rules_version:
            raise ServiceError(
                Code.FAILED_PRECONDITION,
                f"Game {game_id!r} was played under rules {record.rules_version!r}; "
                f"this server plays {engine.rules_version!r}.",
            )
        live = LiveGame(record, engine, engine.initial_state(), 0, info.updated_at_ms)
        live.take_counters(info)
        try:
            self.advance(live, stored)
        except DataUnavailable as error:  # dealt with game data this build no longer has
            raise ServiceError(Code.FAILED_PRECONDITION, f"Game {game_id!r} cannot be replayed: {error}.") from error
        self.remember(live)
        return live

    async def caught_up(self, live: LiveGame) -> bool:
        """Applies the events other processes appended; whether there were any."""
        version = live.version
        await self.refresh(live)
        return live.version != version

    async def refresh(self, live: LiveGame) -> None:
        """Applies the events other processes appended since `live.version`, and takes
        the game's counters anew if they changed (a seat token rotated on any process):
        the read says so in the same round trip."""
        with store_errors():
            try:
                stored = await self.store.read(live.game_id, live.version + 1, counters_revision=live.counters_revision)
            except CountersChanged:
                await self.reload_counters(live)
                stored = await self.store.read(live.game_id, live.version + 1)
        self.advance(live, stored)

    async def reload_counters(self, live: LiveGame) -> None:
        with store_errors():
            info = await self.store.info(live.game_id)
        live.take_counters(info)

    def advance(self, live: LiveGame, stored: Sequence[StoredEvent]) -> None:
        for item in stored:
            if item.version != live.version + 1:
                continue  # already applied by a concurrent request of this process
            live.apply(parse_event(item))

    async def state_at(self, live: LiveGame, version: int) -> Any:
        """The game's state after its first `version` events."""
        with store_errors():
            stored = await self.store.read(live.game_id, 1, version)
        events = [parse_event(item) for item in stored]
        return fold(live.engine, [envelopes.event_payload(event) for event in events if not event.HasField("table")])

    def remember(self, live: LiveGame) -> None:
        self._cache[live.game_id] = live
        self._cache.move_to_end(live.game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        self._metrics.cached_games.set(len(self._cache))

    def forget(self, game_id: str) -> None:
        self._cache.pop(game_id, None)

    def lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock
