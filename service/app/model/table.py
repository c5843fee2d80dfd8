"""The table around a game: who sits in each seat, who plays it (its player or a bot)
and each seat's turn clock, folded from the game's events.

Table events (game_pb2.TableEvent: a player joined or left, a turn's time ran out, a
bot took a seat over or handed it back) change the seats; the rules never see them.
The clock follows every event: a human seat waits from the moment the game needs it
until it no longer does, and what it used beyond the time per turn comes out of its
bank. Times are the events' own (recorded_at), so folding a log again gives the same
clocks to the millisecond, on any server, at any time: nothing here reads a clock."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from ludotheque.v1 import game_pb2

from engines.contract import SeatInfo, Status
from engines.registry import ENGINES, AnyEngine
from service.app.model import envelopes
from service.app.model.errors import DOMAIN, MESSAGE_KEY, Code, ServiceError

# The bot that plays for a human seat that named none (falls back to the engine's
# first bot by name for an engine without it).
DEFAULT_BOT = "greedy"


def default_bot(engine: AnyEngine) -> str:
    return DEFAULT_BOT if DEFAULT_BOT in engine.bots else sorted(engine.bots)[0]


class SeatTime:
    """One seat's clock: its bank, since when the game waits for it, and the turns in
    a row the clock played for it."""

    __slots__ = ("bank_ms", "missed", "timed_out", "waiting_since_ms")

    def __init__(self, bank_ms: int) -> None:
        self.bank_ms = bank_ms
        self.waiting_since_ms: int | None = None
        self.missed = 0
        self.timed_out = False  # its time ran out this turn: its moves are its stand-in's


class Clock:
    """The turn clocks of a game's seats (TurnClock)."""

    def __init__(self, settings: game_pb2.TurnClock, seats: int) -> None:
        self.settings = settings
        self.turn_ms = settings.turn_seconds * 1000
        self.times = [SeatTime(settings.bank_seconds * 1000) for _ in range(seats)]

    def clone(self) -> Clock:
        copy = Clock(self.settings, 0)
        for time in self.times:
            twin = SeatTime(time.bank_ms)
            twin.waiting_since_ms, twin.missed, twin.timed_out = time.waiting_since_ms, time.missed, time.timed_out
            copy.times.append(twin)
        return copy

    def deadline(self, seat: int) -> int | None:
        """When the seat's time runs out, if the game waits for it."""
        time = self.times[seat]
        if time.waiting_since_ms is None:
            return None
        return time.waiting_since_ms + self.turn_ms + time.bank_ms

    def next_deadline(self) -> tuple[int, int] | None:
        """The soonest deadline and its seat, if the game waits for a clocked seat."""
        deadlines = [(d, seat) for seat in range(len(self.times)) if (d := self.deadline(seat)) is not None]
        return min(deadlines) if deadlines else None

    def bank_left(self, seat: int, now_ms: int) -> int:
        """The seat's bank as of now_ms (a waiting seat's drains once its turn's time is used)."""
        time = self.times[seat]
        if time.waiting_since_ms is None:
            return time.bank_ms
        over = now_ms - time.waiting_since_ms - self.turn_ms
        return max(0, time.bank_ms - max(0, over))

    def moved(self, seat: int) -> None:
        """The seat's player made a move (not its stand-in): no missed turn in a row."""
        if not self.times[seat].timed_out:
            self.times[seat].missed = 0

    def timed_out(self, seat: int, missed: int) -> None:
        time = self.times[seat]
        time.timed_out = True
        time.missed = missed

    def waiting(self, seats: Sequence[int], at_ms: int) -> None:
        """After an event at at_ms, the game waits for `seats` (the clocked ones among
        those to act): their clocks start; the others' stop, charged what they used."""
        for seat, time in enumerate(self.times):
            if seat in seats:
                if time.waiting_since_ms is None:
                    time.waiting_since_ms = at_ms
            elif time.waiting_since_ms is not None:
                over = at_ms - time.waiting_since_ms - self.turn_ms
                time.bank_ms = max(0, time.bank_ms - max(0, over))
                time.waiting_since_ms = None
                time.timed_out = False

    def message(self, seat: int, now_ms: int) -> game_pb2.SeatClock:
        time = self.times[seat]
        clock = game_pb2.SeatClock(bank=_duration(self.bank_left(seat, now_ms)), missed_turns=time.missed)
        deadline = self.deadline(seat)
        if deadline is not None:
            clock.deadline.FromMilliseconds(deadline)
            clock.remaining.CopyFrom(_duration(max(0, deadline - now_ms)))
        return clock


class Table:
    """The seats of one game as its events left them."""

    def __init__(self, record: game_pb2.GameRecord, engine: AnyEngine) -> None:
        self.record = record
        self.engine = engine
        self.seats = [_copy(seat) for seat in record.seats]
        self.joins = [0] * len(self.seats)  # players who joined each seat so far (its token generation counts them)
        self.reasons: dict[int, game_pb2.TakeOverReason.ValueType] = {}
        self.opened = any(seat.open for seat in record.seats)  # created with open seats
        self.started = not self.opened  # dealt (a game without open seats is dealt at once)
        self.dealt_after = 0  # the version after which the deal came (the players' joins before it)
        self.clock = Clock(record.clock, len(self.seats)) if record.HasField("clock") else None
        self.revision = 0  # bumped whenever the seats change
        self._bots: dict[int, str] | None = None
        self._options: game_pb2.GameOptions | None = None

    def clone(self) -> Table:
        """A copy to fold events into without changing this one (a change's preview)."""
        copy = Table.__new__(Table)
        copy.record, copy.engine = self.record, self.engine
        copy.seats = [_copy(seat) for seat in self.seats]
        copy.joins = list(self.joins)
        copy.reasons = dict(self.reasons)
        copy.opened, copy.started, copy.revision = self.opened, self.started, self.revision
        copy.dealt_after = self.dealt_after
        copy.clock = self.clock.clone() if self.clock is not None else None
        copy._bots, copy._options = None, self._options
        return copy

    def __getstate__(self) -> dict[str, Any]:
        """A table pickled (a heavy work's answer, heavy_reads.py: an import's table folded
        in a worker process) names its engine by kind: an engine does not pickle."""
        state = dict(self.__dict__)
        state["engine"] = self.engine.kind
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.engine = ENGINES[state["engine"]]

    @property
    def bots(self) -> dict[int, str]:
        """Seat -> the bot that plays it: bot seats, and human seats a bot took over."""
        if self._bots is None:
            self._bots = {i: s.bot or s.taken_over_by for i, s in enumerate(self.seats) if s.bot or s.taken_over_by}
        return self._bots

    @property
    def pristine(self) -> bool:
        """Whether the table is as created and follows no clock: then the engine's state
        is the whole game, and a snapshot of it may stand for the events before it
        (service/app/model/snapshots.py). Seats that open, change or run a clock are folded
        from every event instead."""
        return not self.opened and self.clock is None and self.revision == 0

    @property
    def open_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if seat.open]

    @property
    def clocked(self) -> list[int]:
        """The seats the clock runs for: human seats their players play."""
        return [i for i, seat in enumerate(self.seats) if not (seat.open or seat.bot or seat.taken_over_by)]

    @property
    def options(self) -> game_pb2.GameOptions:
        """The options in force: for a game created with open seats, resolved for its
        players once it is dealt."""
        if not self.opened or not self.started:
            return self.record.options
        if self._options is None:
            payload = envelopes.unwrap(self.record.options, self.engine.kind, "options", allow_empty=True)
            self._options = envelopes.options(self.engine.kind, self.engine.resolve_options(payload, self.infos))
        return self._options

    @property
    def infos(self) -> list[SeatInfo]:
        return [SeatInfo(age=seat.age if seat.HasField("age") else None) for seat in self.seats]

    def started_at(self, version: int) -> bool:
        """Whether the game was dealt at `version` (ReplayGame's status then)."""
        return self.started and (not self.opened or version > self.dealt_after)

    def stand_in(self, seat: int) -> str:
        return self.seats[seat].stand_in or default_bot(self.engine)

    def check_playable(self, seat: int) -> None:
        """Raises FAILED_PRECONDITION unless `seat`'s player may make a move now."""
        if not self.started:
            raise refusal(
                "GAME_NOT_STARTED",
                "The game waits for players: it is dealt when every seat is taken, or when its host starts it.",
            )
        bot = self.seats[seat].taken_over_by
        if bot:
            raise refusal(
                "SEAT_TAKEN_OVER",
                f"The {bot} bot plays seat {seat} now: hand the seat back (HandBackSeat) to play it yourself.",
            )

    def seat_messages(self, now_ms: int | None = None) -> list[game_pb2.Seat]:
        """The seats, with their clocks as of now_ms when given (and the game has a clock)."""
        if now_ms is None or self.clock is None:
            return self.seats
        seats = [_copy(seat) for seat in self.seats]
        for index, seat in enumerate(seats):
            if not (seat.open or seat.bot):
                seat.clock.CopyFrom(self.clock.message(index, now_ms))
        return seats

    # --- folding ----------------------------------------------------------------------

    def fold(self, state: Any, event: game_pb2.Event) -> Any:
        """The state after `event`: the game's own events go to the rules, table events
        change the seats; the clock follows both."""
        if event.HasField("table"):
            self.apply_change(event.table)
        else:
            state = self.engine.evolve(state, envelopes.event_payload(event))
            if not self.started:  # the deal: the options in force are resolved for the players now
                self.started = True
                self.dealt_after = event.version - 1
                self.revision += 1
            if self.clock is not None and event.HasField("command") and event.HasField("seat"):
                seat = self.seats[event.seat]
                if not (seat.bot or seat.taken_over_by):
                    self.clock.moved(event.seat)
        if self.clock is not None:
            self.observe(self.engine.status(state), event.recorded_at.ToMilliseconds())
        return state

    def observe(self, status: Status, at_ms: int) -> None:
        """The clock after an event at at_ms, the game standing at `status`."""
        if self.clock is not None:
            clocked = set(self.clocked)
            self.clock.waiting([seat for seat in status.to_act if seat in clocked], at_ms)

    def apply_change(self, change: game_pb2.TableEvent) -> None:
        """A table event's change of the seats (fold() does it for a stored event)."""
        which = change.WhichOneof("change")
        if which == "joined":
            joined = change.joined
            seat = self.seats[joined.seat]
            seat.open, seat.name, seat.bot = False, joined.name, joined.bot
            seat.ClearField("age")
            if joined.HasField("age"):
                seat.age = joined.age
            seat.stand_in = joined.stand_in or self.record.seats[joined.seat].stand_in
            self.joins[joined.seat] += 1
        elif which == "left":  # open again, as created (a seat that was not open loses its name)
            created = self.record.seats[change.left.seat]
            self.seats[change.left.seat] = game_pb2.Seat(
                index=created.index, name=created.name if created.open else "", open=True, stand_in=created.stand_in
            )
        elif which == "timed_out" and self.clock is not None:
            self.clock.timed_out(change.timed_out.seat, change.timed_out.missed_turns)
        elif which == "taken_over":
            self.seats[change.taken_over.seat].taken_over_by = change.taken_over.bot
            self.reasons[change.taken_over.seat] = change.taken_over.reason
        elif which == "handed_back":
            self.seats[change.handed_back.seat].taken_over_by = ""
            self.reasons.pop(change.handed_back.seat, None)
            if self.clock is not None:
                self.clock.times[change.handed_back.seat].missed = 0
        self._bots = None
        self.revision += 1


# Why a table change is refused (ErrorInfo.reason); each has the message key
# "table.refusal.<reason in lower case>" in the catalogs of seeds/locales/.
REFUSALS = (
    "GAME_NOT_STARTED",
    "GAME_STARTED",
    "GAME_FULL",
    "GAME_OVER",
    "GAME_NOT_OVER",
    "SEAT_TAKEN",
    "SEAT_TAKEN_OVER",
    "SEAT_OPEN",
    "ALREADY_SEATED",
)


def refusal_key(reason: str) -> str:
    return f"table.refusal.{reason.lower()}"


def refusal(reason: str, description: str, code: Code = Code.FAILED_PRECONDITION) -> ServiceError:
    """A table change refused (FAILED_PRECONDITION unless said): `reason` (e.g. GAME_FULL)
    names it for programs (ErrorInfo.reason, and in lower case the PreconditionFailure's
    subject), its message key for people."""
    assert reason in REFUSALS, reason
    key = refusal_key(reason)
    details: list[Message] = [error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata={MESSAGE_KEY: key})]
    if code is Code.FAILED_PRECONDITION:
        violation = error_details_pb2.PreconditionFailure.Violation(
            type="TABLE", subject=reason.lower(), description=description
        )
        details.insert(0, error_details_pb2.PreconditionFailure(violations=[violation]))
    return ServiceError(code, description, details, key=key)


def table_event(**change: Any) -> game_pb2.TableEvent:
    """A TableEvent, e.g. table_event(joined=game_pb2.SeatJoined(seat=1, name="Cléo"))."""
    return game_pb2.TableEvent(**change)


def _copy(seat: game_pb2.Seat) -> game_pb2.Seat:
    copy = game_pb2.Seat()
    copy.CopyFrom(seat)
    return copy


def _duration(ms: int) -> Duration:
    duration = Duration()
    duration.FromMilliseconds(ms)
    return duration
