"""Live games read from the store (`GameRepository`): a game loaded from its latest
snapshot and the events after it (snapshots.py), kept in step with what other processes
append, rebuilt from every event, or folded to a past version; and the snapshots a
game's new states are kept as.

A refresh first checks that the store still holds the cached version as it was applied
(its fingerprint, marks.py), and says when it does not: what is then done (the loss
recorded) is loss_checks.py's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ludotheque.v1 import game_pb2

from engines.contract import DataUnavailable, fold
from engines.registry import GAMES, get_engine
from service.app.model.errors import Code, ServiceError, game_lost, not_found
from service.app.model.heavy_reads import HeavyReads
from service.app.model.live_game import LiveGame
from service.app.model.snapshots import Checkpoint, Restored, Snapshots, payloads
from service.app.model.stored import store_errors
from service.store.base import CountersChanged, EventStore, GameInfo, GameLost, GameNotFound, StoredEvent

# A catch-up reads at most this many snapshot intervals of events before it looks
# for a snapshot ahead of the cached state.
CATCH_UP_INTERVALS = 2


class GameRepository:
    """Reads games from `store` into live games, starting from `snapshots`; each game's
    event limit is its kind's in `event_limits` (default: its engine's)."""

    def __init__(self, store: EventStore, snapshots: Snapshots, event_limits: Mapping[str, int]) -> None:
        self.store = store
        self.snapshots = snapshots
        self.event_limits = event_limits

    async def open(self, game_id: str) -> LiveGame:
        """The game as the store holds it: from its latest snapshot and the events after
        it (snapshotted now if they are many); raises ServiceError if it is not there,
        or this server cannot play it."""
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
        live.in_store.take_counters(info)
        _take_losses(live, info)
        try:
            with store_errors():
                restored = await self.snapshots.restore(game_id, engine, None)
            live.start_from(restored)
        except DataUnavailable as error:  # dealt with game data this build no longer has
            raise ServiceError(Code.FAILED_PRECONDITION, f"Game {game_id!r} cannot be replayed: {error}.") from error
        self._snapshot_if_far(live, restored)
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

    async def refresh(self, live: LiveGame) -> bool:
        """Applies the events other processes appended since `live.version`, once sure
        the store still holds that version as it was applied here (read with them), and
        takes the game's counters anew if they changed (a seat token rotated on any
        process): the read says so in the same round trip. At most a few snapshot
        intervals of events are read: a game further ahead starts again from its latest
        snapshot when that is ahead of the cached state. False when the store does not
        hold the cached version as applied (nothing applied: the store is behind)."""
        version, every = live.version, self.snapshots.every
        last = version + CATCH_UP_INTERVALS * every if every else None
        with store_errors():
            try:
                stored = await self.store.read(
                    live.game_id, max(version, 1), last, counters_revision=live.in_store.counters_revision
                )
            except CountersChanged:
                await self.reload_counters(live)
                stored = await self.store.read(live.game_id, max(version, 1), last)
        if version and (not stored or stored[0].version != version or not live.in_store.marks.matches(stored[0])):
            return False
        if last is not None and stored and stored[-1].version == last:  # far behind: a snapshot may be nearer
            with store_errors():
                restored = await self.snapshots.restore(live.game_id, live.engine, None)
                info = await self.store.info(live.game_id) if restored.version > live.version else None
            if info is not None and restored.version > live.version:  # (a concurrent request may have gone further)
                _take_losses(live, info)  # those recorded in the versions skipped
                live.start_from(restored)
                return True
            with store_errors():
                stored += await self.store.read(live.game_id, last + 1)
        live.apply_stored(stored)
        return True

    async def read_to(self, live: LiveGame, version: int) -> None:
        """Applies the stored events after the game's version, up to `version`."""
        with store_errors():
            live.apply_stored(await self.store.read(live.game_id, live.version + 1, version))

    async def rebuild(self, live: LiveGame) -> None:
        """Builds the game's state anew from every event the store has."""
        with store_errors():
            stored = await self.store.read(live.game_id, 1)
        live.losses = []
        live.updated_at_ms = live.record.created_at.ToMilliseconds()
        live.start_from(Restored(live.engine.initial_state(), 0, stored))

    async def reload_counters(self, live: LiveGame) -> None:
        with store_errors():
            info = await self.store.info(live.game_id)
        live.in_store.take_counters(info)

    async def state_at(self, live: LiveGame, version: int, heavy: HeavyReads | None = None, token: str = "") -> Any:
        """The game's state after its first `version` events: from the nearest snapshot;
        a long fold (`heavy`'s threshold) in a worker process, for `token`'s caller."""
        with store_errors():
            restored = await self.snapshots.restore(live.game_id, live.engine, version)
        engine, kind = live.engine, live.engine.kind
        if heavy is None or len(restored.events) < heavy.settings.fold_events:
            return fold(engine, payloads(restored.events, kind), restored.state)
        return await heavy.run("ReplayGame", token, fold_in_worker, kind, restored.state, restored.events)


def fold_in_worker(kind: str, state: Any, events: Sequence[StoredEvent]) -> Any:
    """A worker's job: a `kind` game's `events` folded from `state`."""
    engine = GAMES[kind].engine
    return fold(engine, payloads(events, kind), state)


def _take_losses(live: LiveGame, info: GameInfo) -> None:
    """The game's losses as the last write summed them up (whatever part of its history
    is folded)."""
    live.losses = list(game_pb2.Game.FromString(info.summary).history_losses)
