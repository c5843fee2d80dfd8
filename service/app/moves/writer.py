"""The one writer of a game's events: whatever writes them (a game's creation, an
import, a move and the bots' replies, a table change, a recorded loss) hands its steps
to `Writer`, and only this module calls the event log's `create` and `append`
(tests/tooling/test_architecture.py fails if anything else does).

Each write, in one place:

1. stamped: every event in its envelope (version, seat, command id, time, rules
   version; the last one says whether the game is over), then serialised;
2. summarised: the game's status label and the summary ListGames lists
   (service/app/views/listing.py), of the game as it will be once the events are stored
   (a table change is previewed on a copy of the game: its seats change too);
3. kept: how long the store keeps the game (the retention policy, by the new status);
4. stored: a creation, or an append with the store's compare-and-set on the version
   and the event (`head`) it was decided at, under its key, once
   (`VersionConflict`, `CountersChanged` and a key stored already are the caller's to
   handle: moves/append.py retries, a loss is decided again);
5. then the cached game moves on, its snapshots are kept (a game whose table never
   changed), the turn clocks' schedule hears of it, a game it ended frees its creator's
   quota slot, and the write is counted (games created, games finished, losses)."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ludotheque.v1 import game_pb2

from service.app.access.limits import Quotas
from service.app.model import envelopes
from service.app.model.live_game import LiveGame
from service.app.model.snapshots import Checkpoint, Snapshots, checkpoints
from service.app.model.stored import store_errors
from service.app.moves.steps import Slices, Step
from service.app.observe import tracing
from service.app.observe.metrics import Metrics
from service.app.views.listing import status_label, summary_bytes, timestamp
from service.store.base import AppendRequest, EventLog, Keep, NewGame, VersionConflict

# The visibilities a listing for everyone shows.
LISTED = (game_pb2.VISIBILITY_LISTED, game_pb2.VISIBILITY_PUBLIC)


class KeepPolicy(Protocol):
    """How long the store keeps a game after a write (keeping/retention.py's RetentionPolicy)."""

    def keep(self, status: str, last_write_ms: int) -> Keep: ...


@dataclass(frozen=True, slots=True)
class Decision:
    """What to append: the steps (a command's then its bots', or a table change's),
    the game's state after them, the key that makes them happen once ("<seat>/<command
    id>" or "table/<change>": the events carry what follows the '/' as their command
    id) and the fingerprint that tells a replay of the key from a different request
    reusing it."""

    steps: list[Step]
    state: Any
    key: str
    fingerprint: bytes

    @property
    def command_id(self) -> str:
        return self.key.split("/", 1)[1]

    @property
    def changes_table(self) -> bool:
        return any(isinstance(p, game_pb2.TableEvent) for step in self.steps for p in step.payloads)


@dataclass(frozen=True, slots=True)
class Appended:
    """What an append did: the events stored (none when there was nothing to do, or
    when the key was stored already: `replayed`), versions first..last."""

    events: list[game_pb2.Event]
    first_version: int
    last_version: int
    replayed: bool = False


class Writer:
    """Writes a game's events: a creation (or an import), an append, a recorded loss;
    each stamped, summarised, kept, stored, then followed up as the module says."""

    def __init__(
        self,
        store: EventLog,
        snapshots: Snapshots,
        metrics: Metrics,
        retention: KeepPolicy,
        quotas: Quotas,
        on_moved: Callable[[LiveGame, int], Awaitable[None]],
    ) -> None:
        self._store = store
        self._snapshots = snapshots
        self._metrics = metrics
        self._retention = retention
        self._quotas = quotas
        self._on_moved = on_moved  # after each write this process stored (the turn clocks' schedule)

    async def create(
        self,
        live: LiveGame,
        steps: Sequence[Step],
        state: Any,
        now: int,
        *,
        given: Sequence[game_pb2.Event] = (),
        given_states: Sequence[tuple[int, Any]] = (),
        command_id: str = "",
    ) -> None:
        """Stores a new game: `live` at version 0, or as the events `given` left it (an
        import: stored as they are, their envelopes their own), then `steps` (its deal
        and the bots' moves; stamped with `command_id`), which bring it to `state`.
        `given_states`: (version, state) of given events to snapshot. Raises GameExists.
        The caller caches the game."""
        record, first = live.record, len(given) + 1
        finished = live.engine.status(state).finished
        played = await stamp(live, len(given), steps, command_id, now, finished)
        events = [*given, *played]
        if events:
            events[-1].game_over = finished
        stored = await serialized(events)
        if events:
            live.moved(events, stored, state, now)
        live.updated_at_ms = now
        label = status_label(live.status, live.table.started)
        with store_errors():
            await self._store.create(
                NewGame(
                    record.game_id,
                    record.kind,
                    label,
                    record.SerializeToString(),
                    summary_bytes(live, live.status, live.version, now),
                    stored,
                    now,
                    self._retention.keep(label, now),
                    listed=record.visibility in LISTED,
                )
            )
        live.mark(1, stored)
        kept = [Checkpoint(version, state, stored[version - 1]) for version, state in given_states]
        self._keep_snapshots(live, kept + checkpoints(steps, first, stored[first - 1 :]))
        await self._on_moved(live, 0)  # a turn clock's first deadline
        metrics = self._metrics
        metrics.labelled(metrics.games_created, record.kind).inc()
        status = live.status
        if status.finished:  # a game of bots plays itself out at once; so may an import
            metrics.game_finished(record.kind, bool(status.winners))
            await self._quotas.game_over(record.created_by, record.game_id)

    async def append(self, live: LiveGame, decision: Decision, now: int) -> Appended:
        """Stamps and appends one decision on the version it was made at; raises what
        the store's compare-and-set raises."""
        base = live.version
        finished = live.engine.status(decision.state).finished
        events = await stamp(live, base, decision.steps, decision.command_id, now, finished)
        stored = await serialized(events)
        ahead = await preview(live, events) if decision.changes_table else None
        label, summary = _summary(live, decision.state, ahead, len(events), now)
        request = AppendRequest(
            live.game_id,
            base,
            stored,
            decision.key,
            decision.fingerprint,
            label,
            summary,
            now,
            self._retention.keep(label, now),
            after=live.in_store.head,  # never build on a history this cache did not see
            counters_revision=live.in_store.counters_revision,
        )
        # Before the append: a follower may be handed these events before it returns.
        live.traced_move = tracing.this_move(base + 1, base + len(events))
        try:
            with store_errors(), tracing.span("append", expected_version=base):
                result = await self._store.append(request)
        except BaseException:
            live.traced_move = None
            raise
        if result.replayed:  # the key was stored already (here, or on another process)
            live.traced_move = None
            return Appended([], result.first_version, result.last_version, replayed=True)
        if ahead is not None and live.version == base:
            _take(live, ahead, stored)  # the change as previewed: its events are not folded twice
        else:
            live.moved(events, stored, decision.state, now)
        self._keep_snapshots(live, checkpoints(decision.steps, result.first_version, stored))
        await self._on_moved(live, base)
        if finished:
            self._metrics.game_finished(live.engine.kind, bool(live.engine.status(decision.state).winners))
            await self._quotas.game_over(live.record.created_by, live.game_id)
        return Appended(events, result.first_version, result.last_version)

    async def record_loss(self, live: LiveGame, loss: game_pb2.HistoryLoss, placeholders: int, now: int) -> bool:
        """Appends `placeholders` events standing for lost versions, then the notice of
        `loss` (keeping/losses.py), on the game as the store has it: no move, the state
        does not change; the summary lists the loss. False when the game moved meanwhile."""
        base, engine = live.version, live.engine
        events = await stamp(live, base, [Step(None, None, [loss] * (placeholders + 1))], "", now, False)
        stored = await serialized(events)
        live.losses.append(loss)  # (the summary lists it)
        status = engine.status(live.state)
        label = status_label(status, live.table.started)
        key = f"system/history-loss-{base}-{loss.last}"
        request = AppendRequest(
            live.game_id,
            base,
            stored,
            key,
            hashlib.sha256(key.encode()).digest(),
            label,
            summary_bytes(live, status, base + len(stored), now),
            now,
            self._retention.keep(label, now),
            after=live.in_store.head,
        )
        try:
            with store_errors():
                result = await self._store.append(request)
        except VersionConflict:
            live.losses.remove(loss)
            return False
        except BaseException:
            live.losses.remove(loss)
            raise
        if result.replayed:
            # Another process recorded this very loss first (the same key): the store holds
            # its events, stamped at its time, not ours; the caller reads them back.
            live.losses.remove(loss)
            return False
        live.moved(events, stored, live.state, now)
        self._metrics.labelled(self._metrics.history_losses, engine.kind, str(loss.reused).lower()).inc()
        return True

    def _keep_snapshots(self, live: LiveGame, kept: Sequence[Checkpoint]) -> None:
        """Snapshots the checkpoints of a game whose table never changed
        (Table.pristine): a snapshot holds the engine's state alone."""
        if kept and live.table.pristine:
            self._snapshots.save(live.game_id, live.engine, kept)


def _summary(live: LiveGame, state: Any, ahead: LiveGame | None, count: int, now: int) -> tuple[str, bytes]:
    """The game's status label and summary for listings once `count` events bringing it
    to `state` are stored. A change of the table is previewed on a copy of the game
    (`ahead`: the seats change too); a move keeps the seats and reuses their encoding
    (listing.summary_bytes)."""
    if ahead is not None:
        return status_label(ahead.status, ahead.table.started), summary_bytes(
            ahead, ahead.status, ahead.version, ahead.updated_at_ms
        )
    status = live.engine.status(state)
    return status_label(status, live.table.started), summary_bytes(live, status, live.version + count, now, state)


async def stamp(
    live: LiveGame, version: int, steps: Sequence[Step], command_id: str, now_ms: int, finished: bool
) -> list[game_pb2.Event]:
    """The steps' events in their envelopes, numbered from `version` + 1; the last one
    says whether the game is over. Yields the event loop every BOT_SLICE_SECONDS of a
    long chain (thousands of bot moves take tens of milliseconds to wrap)."""
    engine = live.engine
    recorded_at = timestamp(now_ms)
    events: list[game_pb2.Event] = []
    slices = Slices()
    for step in steps:
        await slices.tick()
        for index, payload in enumerate(step.payloads):
            version += 1
            if isinstance(payload, game_pb2.TableEvent):  # around the table, not in the game
                event = game_pb2.Event(table=payload)
            elif isinstance(payload, game_pb2.HistoryLoss):  # versions the store lost, or its notice
                event = game_pb2.Event(history_loss=payload)
            else:
                event = envelopes.wrap(game_pb2.Event, engine.kind, payload)
            event.version = version
            event.recorded_at.CopyFrom(recorded_at)
            event.rules_version = engine.rules_version
            event.command_id = command_id if step.seat is not None else ""
            if step.seat is not None:
                event.seat = step.seat
            if index == 0 and step.command is not None:
                event.command.CopyFrom(step.command)
            events.append(event)
    if events:
        events[-1].game_over = finished
    return events


async def serialized(events: Sequence[game_pb2.Event]) -> list[bytes]:
    """The events as stored, handing the event loop back in a long chain."""
    slices = Slices()
    stored = []
    for event in events:
        stored.append(event.SerializeToString())
        await slices.tick()
    return stored


async def preview(live: LiveGame, events: Sequence[game_pb2.Event]) -> LiveGame:
    """The game as it will be once `events` are stored (the live game is left alone),
    handing the event loop back in a long chain (a take-over playing a game out)."""
    ahead = LiveGame(live.record, live.engine, live.state, live.version, live.updated_at_ms)
    ahead.table, ahead.losses, ahead.event_limit = live.table.clone(), list(live.losses), live.event_limit
    slices = Slices()
    for event in events:
        ahead.apply(event)
        await slices.tick()
    return ahead


def _take(live: LiveGame, ahead: LiveGame, stored: Sequence[bytes]) -> None:
    """The live game moves on to its preview once its events are stored (what
    LiveGame.moved would fold again, event by event): state, table, losses."""
    first = live.version + 1
    live.state, live.version, live.updated_at_ms = ahead.state, ahead.version, ahead.updated_at_ms
    live.mark(first, stored)
    live.table, live.losses = ahead.table, ahead.losses
