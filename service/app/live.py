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
from service.app.tracing import TracedMove
from service.store.base import CountersChanged, EventStore, GameInfo, GameNotFound, StoredEvent

GAME_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def seat_counter(seat: int) -> str:
    """The name of the store counter that holds a seat's token generation."""
    return f"seat:{seat}"


@dataclass(slots=True)
class LiveGame:
    """A game's record and its state at `version`, as cached."""

    record: game_pb2.GameRecord
    engine: AnyEngine
    state: Any
    version: int
    updated_at_ms: int
    summary_head: bytes = b""  # the summary's fields that never change, encoded (views.summary_bytes)
    bots: dict[int, str] | None = None  # seat -> bot, for the seats that are bots (steps.play_bots)
    # The game's counters in the store (seat token generations), at `counters_revision`.
    counters: Mapping[str, int] = field(default_factory=dict)
    counters_revision: int = 0
    traced_move: TracedMove | None = None  # the last move traced here, for its followers' spans

    @property
    def game_id(self) -> str:
        return self.record.game_id

    def seat_generation(self, seat: int) -> int:
        """The generation of the seat's tokens: how often the admin rotated them."""
        return self.counters.get(seat_counter(seat), 0)

    def take_counters(self, info: GameInfo) -> None:
        self.counters, self.counters_revision = info.counters, info.counters_revision

    @property
    def status(self) -> Status:
        return self.engine.status(self.state)


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
            event = parse_event(item)
            live.state = live.engine.evolve(live.state, envelopes.event_payload(event))
            live.version = item.version
            live.updated_at_ms = event.recorded_at.ToMilliseconds()

    async def state_at(self, live: LiveGame, version: int) -> Any:
        """The game's state after its first `version` events."""
        with store_errors():
            stored = await self.store.read(live.game_id, 1, version)
        return fold(live.engine, envelopes.event_payloads(map(parse_event, stored), live.engine.kind))

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
