"""A cached game (`LiveGame`): its record and its state at a version, its table, and what
it knows of the game as the store holds it (`InStore`: the fingerprints of the versions
it applied, the head the next append builds on, the store's counters), with the
listing summary's seat fields as last encoded (`SummaryHead`).

The cache that holds live games is live_cache.py, the code that loads and refreshes
them from the store game_repository.py, the checks against what the store lost
loss_checks.py; live.py puts them together (LiveGames)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ludotheque.v1 import game_pb2

from engines.contract import Status
from engines.registry import AnyEngine
from service.app.model.marks import Marks
from service.app.model.snapshots import Restored
from service.app.model.stored import parse_event
from service.app.model.table import Table
from service.app.observe.tracing import TracedMove
from service.store.base import GameInfo, StoredEvent, head


def seat_counter(seat: int) -> str:
    """The name of the store counter that holds how often the admin rotated a seat's token."""
    return f"seat:{seat}"


@dataclass(slots=True)
class InStore:
    """What a cached game knows of itself as the store holds it: the fingerprints of the
    last versions it applied (marks.py), the head an append builds on (what identifies
    the event at the game's version, base.head), and the game's counters (seat token
    rotations) at `counters_revision`, which every read and append checks."""

    marks: Marks = field(default_factory=Marks)
    head: bytes = b""
    counters: Mapping[str, int] = field(default_factory=dict)
    counters_revision: int = 0

    def take_counters(self, info: GameInfo) -> None:
        self.counters, self.counters_revision = info.counters, info.counters_revision

    def mark(self, first: int, stored: Sequence[bytes]) -> None:
        """Remembers the events stored from version `first` on as applied; the last one
        is the head."""
        for offset, data in enumerate(stored):
            self.marks.add(first + offset, data)
        if stored:
            self.head = head(stored[-1])

    def start_at(self, at: StoredEvent | None) -> None:
        """Forgets what was applied: the game starts again after `at` (None: from its
        first event)."""
        self.marks, self.head = Marks(), b""
        if at is not None:
            self.marks.add(at.version, at.data)
            self.head = head(at.data)


@dataclass(slots=True)
class SummaryHead:
    """The listing summary's fields that change only with the seats, encoded
    (views.summary_bytes), at the table's `revision`."""

    encoded: bytes = b""
    revision: int = 0


@dataclass(slots=True)
class LiveGame:
    """A game's record and its state at `version`, as cached."""

    record: game_pb2.GameRecord
    engine: AnyEngine
    state: Any
    version: int
    updated_at_ms: int
    in_store: InStore = field(default_factory=InStore)
    losses: list[game_pb2.HistoryLoss] = field(default_factory=list)  # versions the store lost
    event_limit: int = 0  # the most events this server lets the game have (0: its engine's default)
    summary_head: SummaryHead = field(default_factory=SummaryHead)
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
        revision, which every read and append checks (GameRepository.refresh, Moves)."""
        counters = self.in_store.counters  # (most games' are empty: no name to make)
        return self.table.joins[seat] + (counters.get(seat_counter(seat), 0) if counters else 0)

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

    def apply_stored(self, stored: Sequence[StoredEvent]) -> None:
        """Folds the stored events that follow the game's version (those before it were
        applied by a concurrent request of this process) and remembers them as applied."""
        applied = None
        for item in stored:
            if item.version != self.version + 1:
                continue
            self.apply(parse_event(item))
            self.in_store.marks.add(item.version, item.data)
            applied = item
        if applied is not None:
            self.in_store.head = head(applied.data)

    def start_from(self, restored: Restored) -> None:
        """The game from where a fold starts (a snapshot's state, or the initial one),
        then the events after it. The table starts as created: a snapshot is only taken
        of a game whose table never changed (Table.pristine)."""
        self.state, self.version = restored.state, restored.version
        self.table = Table(self.record, self.engine)
        self.in_store.start_at(restored.at)
        if restored.at is not None:
            self.updated_at_ms = parse_event(restored.at).recorded_at.ToMilliseconds()
        self.apply_stored(restored.events)

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
        self.in_store.mark(first, stored)
