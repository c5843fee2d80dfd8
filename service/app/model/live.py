"""The live-game cache: each game's record and current state, loaded from the store
(its latest snapshot and the events after it, service/app/model/snapshots.py) and kept in
step with what other processes append.

The store is the truth: a refresh first checks that the store still holds the cached
version as it was applied (its fingerprint, marks.py). When it does not (a Redis
failover lost versions, or they were written again with other events), the game is
rebuilt from the store and the loss recorded (losses.py): nothing is ever served or
decided from a state the store does not have.

A loss found is owed until it is recorded (`LiveGames.owed`, kept apart from the
cache: evicting a game forgets nothing of it): until then every use of the game, a
move first, records it first, and answers UNAVAILABLE while that fails, so the lost
numbers are never given to other moves meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ludotheque.v1 import game_pb2

from engines.contract import DataUnavailable, Status, fold
from engines.registry import AnyEngine, get_engine
from service.app.model import claims
from service.app.model.errors import Code, ServiceError, game_lost, invalid_argument, not_found
from service.app.model.heavy_reads import HeavyReads
from service.app.model.marks import Marks
from service.app.model.snapshots import Checkpoint, Restored, Snapshots, payloads
from service.app.model.stored import parse_event, store_errors
from service.app.model.table import Table
from service.app.observe import request_context
from service.app.observe.metrics import Metrics
from service.app.observe.tracing import TracedMove
from service.store.base import CountersChanged, EventStore, GameInfo, GameLost, GameNotFound, StoredEvent, head

log = logging.getLogger(__name__)

GAME_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# A catch-up reads at most this many snapshot intervals of events before it looks
# for a snapshot ahead of the cached state.
CATCH_UP_INTERVALS = 2
RECHECKS = 32  # cached games checked at once after a failover
# Events past a snapshot a replay folds in the event loop; more are a heavy read
# (heavy_reads.py): folded in a worker thread, in their turn.
HEAVY_FOLD = 512


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
    marks: Marks = field(default_factory=Marks)  # fingerprints of the last versions applied
    head: bytes = b""  # what identifies the event at `version` in the store (base.head): appends build on it
    losses: list[game_pb2.HistoryLoss] = field(default_factory=list)  # versions the store lost
    traced_move: TracedMove | None = None  # the last move traced here, for its followers' spans
    event_limit: int = 0  # the most events this server lets the game have (0: its engine's default)
    table: Table = field(init=False)  # the seats: who sits and plays where, their clocks (table.py)
    # The game's lock (LiveGames.lock), held while the game is cached: a lock nobody
    # holds would be dropped after each move and made again for the next.
    lock: asyncio.Lock | None = None

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
        counters = self.counters  # (most games' are empty: no name to make)
        return self.table.joins[seat] + (counters.get(seat_counter(seat), 0) if counters else 0)

    def take_counters(self, info: GameInfo) -> None:
        self.counters, self.counters_revision = info.counters, info.counters_revision

    @property
    def status(self) -> Status:
        return self.engine.status(self.state)

    @property
    def limit(self) -> int:
        """The game's event limit here (engines/limits.py)."""
        return self.event_limit or self.engine.default_event_limit

    def apply(self, event: game_pb2.Event) -> None:
        """Folds the game's next event (version + 1) into its state and its table. An
        event standing for versions the store lost changes neither; the notice after
        them records the loss."""
        if event.HasField("history_loss"):
            loss = event.history_loss
            if event.version > loss.last and loss not in self.losses:  # the notice after the lost versions
                self.losses.append(loss)
        else:
            self.state = self.table.fold(self.state, event)
        self.version = event.version
        self.updated_at_ms = event.recorded_at.ToMilliseconds()

    def moved(self, events: Sequence[game_pb2.Event], stored: Sequence[bytes], state: Any, now_ms: int) -> None:
        """This process appended `events` (as `stored`), which bring the game to `state`.
        A game whose table follows them (a turn clock, table events) folds them one by
        one; the others just take the state. Nothing to do when a read of this process
        applied them meanwhile."""
        last = events[-1].version
        if self.version >= last:
            return
        if self.table.clock is not None or any(event.HasField("table") for event in events):
            for event in events:
                if event.version == self.version + 1:
                    self.apply(event)
        else:
            self.state, self.version, self.updated_at_ms = state, last, now_ms
        self.mark(events[0].version, stored)

    def mark(self, first: int, stored: Sequence[bytes]) -> None:
        """Remembers the events stored from version `first` on as this cache applied them
        (marks.py); the last one is the head the next append builds on."""
        for offset, data in enumerate(stored):
            self.marks.add(first + offset, data)
        if stored:
            self.head = head(stored[-1])


@dataclass(slots=True)
class Owed:
    """A loss this process found and has not recorded yet: the store does not hold
    versions up to `known` as this process applied or gave them out (`marks`, the
    fingerprints the cache had when it was found)."""

    known: int
    marks: Marks
    recording: asyncio.Lock = field(default_factory=asyncio.Lock)  # one recording at a time


# Records what the store lost of a game (losses.Losses.reconcile): rebuilds the game
# from the store and records the loss owed; raises ServiceError when it cannot now.
Reconcile = Callable[["LiveGames", LiveGame, Owed], Awaitable[None]]


class LiveGames:
    """The games this process plays, least recently used dropped first; one lock per
    game serialises its moves inside the process."""

    def __init__(
        self,
        store: EventStore,
        metrics: Metrics,
        cache_size: int,
        snapshots: Snapshots,
        event_limits: Mapping[str, int] | None = None,
        reconcile: Reconcile | None = None,
    ) -> None:
        self.store = store
        self.snapshots = snapshots
        self.event_limits: Mapping[str, int] = event_limits or {}  # kind -> limit (default: the engine's)
        self._metrics = metrics
        self._cache: OrderedDict[str, LiveGame] = OrderedDict()
        self._player_claims = claims.PlayerClaims()  # what players' claims may still record lost
        self._cache_size = cache_size
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        # What to do when the store is found behind this cache (GameApp: record the loss,
        # keeping/losses.py); without it, the game is just rebuilt from the store.
        self.reconcile = reconcile
        self.owed: dict[str, Owed] = {}  # game id -> the loss found and not yet recorded
        self.found_behind = 0  # times the store was found behind a cached game

    async def load(self, game_id: str, *, refresh: bool = True) -> LiveGame:
        """The game, cached; `refresh`: with the events other processes appended."""
        if not GAME_ID_PATTERN.match(game_id):
            raise invalid_argument("game_id", "game_id must be 1 to 64 letters, digits, '-' or '_'.")
        request_context.note(game_id=game_id)
        live = self._cache.get(game_id)
        if live is not None:
            self._cache.move_to_end(game_id)
            if self.owed:
                await self.settle(live)
            if refresh:
                await self.refresh(live)
            known = claims.claimed(game_id)
            if known > live.version:
                await self.vouch(live, known)
            return live
        with store_errors():
            try:
                info = await self.store.info(game_id)
            except GameLost:
                raise game_lost(game_id) from None
            except GameNotFound:
                raise not_found(game_id) from None
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
        live.event_limit = self.event_limits.get(engine.kind, 0)
        live.take_counters(info)
        # The losses as the last write summed them up (whatever part of the history is folded).
        live.losses = list(game_pb2.Game.FromString(info.summary).history_losses)
        try:
            with store_errors():
                restored = await self.snapshots.restore(game_id, engine, None)
            self.start_from(live, restored)
        except DataUnavailable as error:  # dealt with game data this build no longer has
            raise ServiceError(Code.FAILED_PRECONDITION, f"Game {game_id!r} cannot be replayed: {error}.") from error
        self._snapshot_if_far(live, restored)
        self.remember(live)
        if self.owed:
            await self.settle(live)
        known = claims.claimed(game_id)
        if known > live.version:
            await self.vouch(live, known)
        return live

    def keep_snapshots(self, live: LiveGame, checkpoints: Sequence[Checkpoint]) -> None:
        """Snapshots `live`'s checkpoints, if its table never changed (Table.pristine): a
        snapshot holds the engine's state alone, so an open or clocked game, or one a bot
        took a seat of, is folded from every event instead."""
        if checkpoints and live.table.pristine:
            self.snapshots.save(live.game_id, live.engine, checkpoints)

    def _snapshot_if_far(self, live: LiveGame, restored: Restored) -> None:
        """A game folded over more events than a snapshot's interval (stored before
        snapshots existed, or whose snapshot was lost) gets one now."""
        if restored.events and self.snapshots.due(restored.version, live.version):
            last = restored.events[-1]
            self.keep_snapshots(live, [Checkpoint(last.version, live.state, last.data)])

    async def caught_up(self, live: LiveGame) -> bool:
        """Applies the events other processes appended; whether there were any."""
        version = live.version
        await self.refresh(live)
        return live.version != version

    async def refresh(self, live: LiveGame) -> None:
        """Applies the events other processes appended since `live.version`, once sure
        the store still holds that version as it was applied here (read with them), and
        takes the game's counters anew if they changed (a seat token rotated on any
        process): the read says so in the same round trip. At most a few snapshot
        intervals of events are read: a game further ahead starts again from its latest
        snapshot when that is ahead of the cached state."""
        version, every = live.version, self.snapshots.every
        last = version + CATCH_UP_INTERVALS * every if every else None
        with store_errors():
            try:
                stored = await self.store.read(
                    live.game_id, max(version, 1), last, counters_revision=live.counters_revision
                )
            except CountersChanged:
                await self.reload_counters(live)
                stored = await self.store.read(live.game_id, max(version, 1), last)
        if version and (not stored or stored[0].version != version or not live.marks.matches(stored[0])):
            if live.version == version:  # else a concurrent request of this process saw to it
                await self.store_behind(live)
            return
        if last is not None and stored and stored[-1].version == last:  # far behind: a snapshot may be nearer
            with store_errors():
                restored = await self.snapshots.restore(live.game_id, live.engine, None)
                info = await self.store.info(live.game_id) if restored.version > live.version else None
            if info is not None and restored.version > live.version:  # (a concurrent request may have gone further)
                # The losses recorded in the versions skipped: as the last write summed them up.
                live.losses = list(game_pb2.Game.FromString(info.summary).history_losses)
                self.start_from(live, restored)
                return
            with store_errors():
                stored += await self.store.read(live.game_id, last + 1)
        self.advance(live, stored)

    async def store_behind(self, live: LiveGame, seen: int = 0) -> None:
        """The store does not hold the history `live` was built from (or that a reader
        was given, up to `seen`): the loss is owed from now on, and recorded (the game
        rebuilt from the store) before anything else is done with the game; raises
        ServiceError (UNAVAILABLE) when it cannot be recorded now."""
        self._metrics.labelled(self._metrics.store_behind, live.engine.kind).inc()
        self.found_behind += 1
        known = max(live.version, seen)
        log.warning(
            "game %s: the event store does not hold the versions this server had up to %d; "
            "rebuilding the game from what the store has",
            live.game_id,
            known,
        )
        self.owe(live.game_id, known, live.marks)
        await self.settle(live)

    async def vouch(self, live: LiveGame, known: int) -> None:
        """The caller was given versions up to `known`, past the cached game: another
        process stored them (with WAIT, perhaps not shown yet: reading them confirms
        them), or the store lost them, and the loss is recorded (as store_behind)."""
        claim = claims.claim_of(live.game_id)
        by_admin = claim is None or claim.by_admin  # (no claim: this process's own knowledge)
        if known - live.version > (claims.MAX_CLAIMED if by_admin else claims.MAX_CLAIMED_BY_PLAYER):
            _disbelieved(live, known, "too far past the store's")
            return
        await self.refresh(live)
        if known > live.version:
            with store_errors():
                self.advance(live, await self.store.read(live.game_id, live.version + 1, known))
        if known <= live.version:
            return
        if not by_admin and not self._player_claims.may_record(live.game_id, known - live.version):
            _disbelieved(live, known, "players' claims recorded enough of this game lost lately")
            return
        self._metrics.labelled(self._metrics.store_behind, live.engine.kind).inc()
        log.warning(
            "game %s: a caller was given versions up to %d; the event store has %d: recording the loss",
            live.game_id,
            known,
            live.version,
        )
        self.owe(live.game_id, known, live.marks)
        await self.settle(live)

    def owe(self, game_id: str, known: int, marks: Marks) -> None:
        """Notes that the store lacks versions up to `known` of the game (`marks`: what
        was applied of them), until the loss is recorded."""
        owed = self.owed.get(game_id)
        if owed is None:
            self.owed[game_id] = Owed(known, marks.copy())
            self._metrics.unrecorded_losses.set(len(self.owed))
        else:  # found again before it was recorded: the fingerprints of the first finding stand
            owed.known = max(owed.known, known)

    async def settle(self, live: LiveGame) -> None:
        """Records the loss owed of `live`'s game, if any (the game rebuilt from the
        store); raises ServiceError (UNAVAILABLE) while it cannot be recorded."""
        owed = self.owed.get(live.game_id)
        if owed is None:
            return
        async with owed.recording:
            if self.owed.get(live.game_id) is not owed:
                return  # recorded meanwhile
            if self.reconcile is None:
                await self.rebuild(live)
            else:
                await self.reconcile(self, live, owed)
            del self.owed[live.game_id]
            self._metrics.unrecorded_losses.set(len(self.owed))

    async def recheck(self) -> int:
        """Checks every cached game against the store (a failover may have lost versions
        of any: the one that acknowledged them is this process, which may be the only
        one to know), RECHECKS at a time; how many were found behind (their losses
        recorded, or owed)."""
        before = self.found_behind

        async def check(live: LiveGame) -> None:
            async with self.lock(live.game_id):
                with contextlib.suppress(ServiceError):  # owed if found behind; else seen at its next use
                    await self.refresh(live)

        games = list(self._cache.values())
        for start in range(0, len(games), RECHECKS):
            await asyncio.gather(*(check(live) for live in games[start : start + RECHECKS]))
        found = self.found_behind - before
        if found:
            log.warning("after a change of the store's masters, %d cached games were found behind the store", found)
        return found

    def cached(self, game_id: str) -> LiveGame | None:
        """The game if this process has it cached (its use unrecorded)."""
        return self._cache.get(game_id)

    async def rebuild(self, live: LiveGame) -> None:
        """Builds the game's state anew from every event the store has."""
        with store_errors():
            stored = await self.store.read(live.game_id, 1)
        live.state, live.version, live.marks, live.losses, live.head = live.engine.initial_state(), 0, Marks(), [], b""
        live.table = Table(live.record, live.engine)
        live.updated_at_ms = live.record.created_at.ToMilliseconds()
        self.advance(live, stored)

    async def reload_counters(self, live: LiveGame) -> None:
        with store_errors():
            info = await self.store.info(live.game_id)
        live.take_counters(info)

    def advance(self, live: LiveGame, stored: Sequence[StoredEvent]) -> None:
        applied = None
        for item in stored:
            if item.version != live.version + 1:
                continue  # already applied by a concurrent request of this process
            live.apply(parse_event(item))
            live.marks.add(item.version, item.data)
            applied = item
        if applied is not None:
            live.head = head(applied.data)

    def start_from(self, live: LiveGame, restored: Restored) -> None:
        """`live` from where a fold starts (a snapshot's state, or the initial one), then
        the events after it. The table starts as created: a snapshot is only taken of a
        game whose table never changed (Table.pristine)."""
        live.state, live.version, live.marks, live.head = restored.state, restored.version, Marks(), b""
        live.table = Table(live.record, live.engine)
        if restored.at is not None:
            live.marks.add(restored.version, restored.at.data)
            live.head = head(restored.at.data)
            live.updated_at_ms = parse_event(restored.at).recorded_at.ToMilliseconds()
        self.advance(live, restored.events)

    async def state_at(self, live: LiveGame, version: int, heavy: HeavyReads | None = None) -> Any:
        """The game's state after its first `version` events: from the nearest snapshot;
        a long fold in a turn of the process's `heavy` reads (heavy_reads.py), if given."""
        with store_errors():
            restored = await self.snapshots.restore(live.game_id, live.engine, version)
        engine, kind = live.engine, live.engine.kind
        if heavy is None or len(restored.events) < HEAVY_FOLD:
            return fold(engine, payloads(restored.events, kind), restored.state)
        return await heavy.run("ReplayGame", lambda: fold(engine, payloads(restored.events, kind), restored.state))

    def forget(self, game_id: str) -> None:
        """Drops a cached game (deleted, or to be read from the store at its next use)."""
        self._cache.pop(game_id, None)
        self._metrics.cached_games.set(len(self._cache))

    def remember(self, live: LiveGame) -> None:
        live.lock = self.lock(live.game_id)
        self._cache[live.game_id] = live
        self._cache.move_to_end(live.game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        self._metrics.cached_games.set(len(self._cache))

    def lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock


def _disbelieved(live: LiveGame, known: int, why: str) -> None:
    """Logs a claim about `live` (up to `known`) that is not believed, and why."""
    log.warning(
        "game %s: a caller says it was given version %d, the store has %d: not believed (%s)",
        live.game_id,
        known,
        live.version,
        why,
    )
