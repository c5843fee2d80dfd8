"""ImportGame's heavy part, made from bytes: the uploaded log verified (each event against
the rules, the deal again from its seed, each bot's move chosen again: verify.py), cut
where asked, and folded into the new game's state and table, with the states its
snapshots keep. The same answer whether made in a worker process (a long log:
heavy_reads.py) or on the loop (a short one), and the same errors (a bad log, the first
bad event named). Nothing here writes: the answer is what the one writer
(moves/writer.py) needs to store the import."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ludotheque.v1 import game_pb2

from engines.registry import AnyEngine
from service.app.logs.verify import Problem, verify
from service.app.model.errors import Code, ServiceError, invalid_argument
from service.app.model.live_game import LiveGame
from service.app.model.table import Table


@dataclass(frozen=True, slots=True)
class Verified:
    """An uploaded log that follows the rules, replayed: its events as the store keeps
    them, and the game they leave (its state, its table, its version, its time, the
    versions it says were lost), with (version, state) of the events to snapshot."""

    given: list[game_pb2.Event]
    state: Any
    table: Table
    version: int
    updated_at_ms: int
    losses: list[game_pb2.HistoryLoss]
    snapshots: list[tuple[int, Any]]

    def live(self, record: game_pb2.GameRecord, engine: AnyEngine) -> LiveGame:
        """The new game of `record` (its id and time given now) as the log left it."""
        live = LiveGame(record, engine, self.state, self.version, self.updated_at_ms, losses=list(self.losses))
        self.table.record = record  # (made from the worker's copy of it: the game's own from now on)
        live.table = self.table
        return live


def replay_import(record: game_pb2.GameRecord, log: game_pb2.GameLog, cut: int | None, snapshot_every: int) -> Verified:
    """Verifies `log` and folds it (up to `cut`, when given) into the game of `record`
    (its kind, seats, options and clock); raises the ServiceError ImportGame answers."""
    checked = verify(log)
    if isinstance(checked, Problem):
        field = "log.header" if checked.index is None else f"log.events[{checked.index}]"
        if checked.rules_mismatch:
            raise ServiceError(Code.FAILED_PRECONDITION, f"This log cannot be replayed: {checked.reason}.")
        raise invalid_argument(field, f"The log breaks the rules at {checked.where}: {checked.reason}.")
    events = list(log.events)
    if cut is not None:
        events = events[: _cut(events, cut)]
    engine = checked.engine
    live = LiveGame(record, engine, engine.initial_state(), 0, 0)
    given = [_as_stored(event) for event in events]
    for event in given:
        live.apply(event)  # the state, and the table: who sits and plays where, the clocks
    # The verification folded every state: the imported events' snapshots cost nothing.
    versions = range(snapshot_every, len(events) + 1, snapshot_every) if snapshot_every else range(0)
    snapshots = [(version, checked.states[version]) for version in versions]
    return Verified(given, live.state, live.table, live.version, live.updated_at_ms, live.losses, snapshots)


def import_in_worker(record: bytes, log: bytes, cut: int | None, snapshot_every: int) -> Verified:
    """A worker's job: `replay_import` of the record's and the log's bytes."""
    return replay_import(game_pb2.GameRecord.FromString(record), game_pb2.GameLog.FromString(log), cut, snapshot_every)


def _cut(events: list[game_pb2.Event], cut: int) -> int:
    """`cut` if it falls between two moves: before a command's first event, unless a
    table event before it says why it was played (a timeout's stand-in move)."""
    starts = [
        e.version - 1
        for e in events
        if e.HasField("command") and not (e.version > 1 and events[e.version - 2].HasField("table"))
    ] + [len(events)]
    if cut not in starts or cut == 0:
        nearest = ", ".join(str(v) for v in starts[:3]) + (" ..." if len(starts) > 3 else "")
        raise invalid_argument("truncate_at", f"Cut between two moves, e.g. at {nearest}; not at {cut}.")
    return cut


def _as_stored(event: game_pb2.Event) -> game_pb2.Event:
    """A logged event as the store keeps it: not marked last (the import may go on),
    without descriptions (words for one reader, never stored: an exported log has them)."""
    copy = game_pb2.Event()
    copy.CopyFrom(event)
    copy.game_over = False
    copy.ClearField("description")
    if copy.HasField("command"):
        copy.command.ClearField("description")
        del copy.command.choices[:]
    return copy
