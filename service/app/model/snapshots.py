"""Snapshots of engine states, so that reading a game folds about N events, not all.

Every `every` events (the first step that passes a multiple of it) the game's engine
state is encoded (engines/state_codec.py: a checked encoding, never pickle) in a
StateSnapshot (proto/ludotheque/v1/snapshot.proto) and kept in the store beside the
events, written in the background once the events are stored. Loading a game, its
state at a past version (ReplayGame) and a catch-up start from the nearest snapshot at
or before the version wanted and fold only the events after it.

A snapshot is used only when it matches: its game and version, the engine's rules
version and codec, the checksum of its state, and the digest of the stored event at
its version (read with the events after it, in the same read). One that does not is
ignored and reported (a warning in the log, ludotheque_snapshots_rejected_total): the
state is folded from the first event instead, and the snapshot is written again.

Events standing for versions the store lost (`Event.history_loss`: placeholders and the
notice after them, service/app/keeping/losses.py) change no state: every fold skips them."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from google.protobuf.message import DecodeError
from ludotheque.v1 import event_run_pb2, snapshot_pb2

from engines.contract import fold
from engines.registry import AnyEngine
from engines.state_codec import CodecError, for_engine
from service.app.model.stored import parse_event
from service.app.observe.metrics import Metrics
from service.store.base import EventLog, SnapshotStore, StoredEvent, StoredSnapshot, StoreError

log = logging.getLogger(__name__)

DEFAULT_EVERY = 100


class SnapshotSource(EventLog, SnapshotStore, Protocol):
    """The parts of the store snapshots use: the snapshots kept, and the events after them."""


class SnapshotRejected(Exception):
    """A snapshot that cannot stand for its game's state: `reason` is a metric label."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason  # corrupt, mismatch or outdated
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Restored:
    """Where a fold starts: the state after `version` events (0: the initial state),
    the stored event at `version` (None at 0), and the stored events after it, up to
    the version asked."""

    state: Any
    version: int
    events: list[StoredEvent]
    at: StoredEvent | None = None


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A state to snapshot: the game's after `version` events, and that event as stored."""

    version: int
    state: Any
    event: bytes


class Snapshots:
    def __init__(self, store: SnapshotSource, metrics: Metrics, every: int = DEFAULT_EVERY) -> None:
        if every < 0:
            raise ValueError("the snapshot interval is a number of events, 0 for none")
        self.every = every  # 0: no snapshots are written or read
        self._store = store
        self._metrics = metrics
        self._writing: set[asyncio.Task[None]] = set()

    def due(self, before: int, after: int) -> bool:
        """Whether a step from version `before` to `after` passes a multiple of `every`."""
        return passes(before, after, self.every)

    # --- reading -----------------------------------------------------------------------

    async def restore(self, game_id: str, engine: AnyEngine, at_most: int | None) -> Restored:
        """The nearest usable snapshot at or before `at_most` (None: the latest) and the
        stored events after it up to `at_most`; without one, every event from the first."""
        stored = await self._store.snapshot(game_id, at_most) if self.every else None
        if stored is None:
            return Restored(engine.initial_state(), 0, await self._store.read(game_id, 1, at_most))
        events = await self._store.read(game_id, stored.version, at_most)
        at_snapshot = events[0] if events and events[0].version == stored.version else None
        try:
            state = self.unpack(game_id, engine, stored, at_snapshot)
        except SnapshotRejected as rejected:
            self._report(game_id, engine, stored.version, rejected)
            earlier = await self._store.read(game_id, 1, stored.version - 1)
            if at_snapshot is None:  # the game has no event there: fold all there is
                return Restored(engine.initial_state(), 0, earlier + events)
            state = fold(engine, payloads([*earlier, at_snapshot], engine.kind))
            self.save(game_id, engine, [Checkpoint(stored.version, state, at_snapshot.data)])  # repaired
        return Restored(state, stored.version, events[1:], at_snapshot)

    def unpack(self, game_id: str, engine: AnyEngine, stored: StoredSnapshot, event: StoredEvent | None) -> Any:
        """The state a stored snapshot holds, once it proved to match; raises SnapshotRejected."""
        snapshot = snapshot_pb2.StateSnapshot()
        try:
            snapshot.ParseFromString(stored.data)
        except DecodeError:
            raise SnapshotRejected("corrupt", "not a StateSnapshot") from None
        codec = for_engine(engine)
        if snapshot.rules_version != engine.rules_version or snapshot.codec != codec.name:
            raise SnapshotRejected(
                "outdated",
                f"taken under {snapshot.rules_version} {snapshot.codec}, not {engine.rules_version} {codec.name}",
            )
        if snapshot.game_id != game_id or snapshot.version != stored.version:
            raise SnapshotRejected("mismatch", f"it says game {snapshot.game_id!r} at version {snapshot.version}")
        if hashlib.sha256(snapshot.state).digest() != snapshot.state_sha256:
            raise SnapshotRejected("corrupt", "its state does not match its checksum")
        if event is None or hashlib.sha256(event.data).digest() != snapshot.event_sha256:
            raise SnapshotRejected("mismatch", f"it does not follow the stored event {stored.version}")
        try:
            return codec.decode(snapshot.state)
        except CodecError as error:
            raise SnapshotRejected("corrupt", f"its state does not decode: {error}") from None

    def _report(self, game_id: str, engine: AnyEngine, version: int, rejected: SnapshotRejected) -> None:
        metrics = self._metrics
        metrics.labelled(metrics.snapshots_rejected, engine.kind, rejected.reason).inc()
        level = logging.INFO if rejected.reason == "outdated" else logging.WARNING
        log.log(
            level, "snapshot of game %s at version %d ignored (%s): %s", game_id, version, rejected.reason, rejected
        )

    # --- writing -----------------------------------------------------------------------

    def pack(self, game_id: str, engine: AnyEngine, checkpoint: Checkpoint) -> bytes:
        """A StateSnapshot of `checkpoint`, encoded; raises CodecError for a state its
        engine's codec cannot encode (a bug)."""
        codec = for_engine(engine)
        state = codec.encode(checkpoint.state)
        return snapshot_pb2.StateSnapshot(
            game_id=game_id,
            version=checkpoint.version,
            rules_version=engine.rules_version,
            codec=codec.name,
            event_sha256=hashlib.sha256(checkpoint.event).digest(),
            state=state,
            state_sha256=hashlib.sha256(state).digest(),
        ).SerializeToString()

    def save(self, game_id: str, engine: AnyEngine, checkpoints: Sequence[Checkpoint]) -> None:
        """Writes snapshots of `checkpoints` in the background (the events they follow
        must be stored already). A write that fails only costs later reads a longer fold."""
        if not checkpoints or not self.every:
            return
        task = asyncio.create_task(self._write(game_id, engine, list(checkpoints)), name=f"snapshots-{game_id}")
        self._writing.add(task)
        task.add_done_callback(self._writing.discard)

    async def _write(self, game_id: str, engine: AnyEngine, checkpoints: list[Checkpoint]) -> None:
        snapshots = []
        try:
            for checkpoint in checkpoints:
                snapshots.append(StoredSnapshot(checkpoint.version, self.pack(game_id, engine, checkpoint)))
                await asyncio.sleep(0)  # hundreds after a long game of bots: let requests in
            await self._store.put_snapshots(game_id, snapshots)
        except StoreError as error:
            log.info("snapshots of game %s not written: %s", game_id, error)
            return
        except CodecError:
            log.exception("snapshots of game %s: a %s state cannot be encoded", game_id, engine.kind)
            return
        metrics = self._metrics
        metrics.labelled(metrics.snapshots_written, engine.kind).inc(len(snapshots))

    async def idle(self) -> None:
        """Returns once the snapshot writes under way are done."""
        while self._writing:
            await asyncio.gather(*self._writing, return_exceptions=True)


def passes(before: int, after: int, every: int) -> bool:
    """Whether going from version `before` to `after` passes a multiple of `every` (0: never)."""
    return every > 0 and after // every > before // every


def checkpoints(steps: Sequence[Any], first_version: int, events: Sequence[bytes]) -> list[Checkpoint]:
    """The checkpoints of the steps that kept their state (service/app/moves/steps.py), whose
    events, as stored, are `events` from version `first_version` on."""
    found = []
    version = first_version - 1
    for step in steps:
        version += len(step.payloads)
        if step.state is not None:
            found.append(Checkpoint(version, step.state, events[version - first_version]))
    return found


# The EventRun fields of which every stored event has exactly one: its game's payload,
# a table event or a loss.
_ONE_OF_EACH_EVENT = [field.name for field in event_run_pb2.EventRun.DESCRIPTOR.fields if field.name != "versions"]


def payloads(items: Sequence[StoredEvent], kind: str) -> list[Any]:
    """The engine payloads of a `kind` game's stored events, in order, leaving out those
    of no move (versions the store lost and the notice after them; table events).

    The events' bytes, joined, are parsed at once as an EventRun (one call into upb,
    no envelope made per event), whose `kind` field lists the payloads in order. The
    run holds what parsing each event gives when each holds its version and one game
    payload, table event or loss, each once, as the server's own encoding of an event
    does. It is used only when it has as many of those as there are events, and their
    versions in a row from the first item's (which a corrupt event's bytes, run into the
    next, would break); otherwise each event is parsed on its own, which reports a
    corrupt one."""
    try:
        run = event_run_pb2.EventRun.FromString(b"".join([item.data for item in items]))
    except DecodeError:
        return _one_at_a_time(items, kind)
    given = sum([len(getattr(run, name)) for name in _ONE_OF_EACH_EVENT])
    # The store's events are numbered in a row: their own versions, read as a slice
    # (one call into upb), must be the items' (an item out of that row is read alone).
    first = items[0].version if items else 0
    if given != len(items) or run.versions[:] != list(range(first, first + len(items))):
        return _one_at_a_time(items, kind)
    found: list[Any] = getattr(run, kind)[:]
    return found


def _one_at_a_time(items: Sequence[StoredEvent], kind: str) -> list[Any]:
    field: Any = kind  # one of the envelope's game fields, named at run time
    events = (parse_event(item) for item in items)
    return [getattr(event, kind) for event in events if event.HasField(field)]
