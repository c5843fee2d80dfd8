"""Checking a complete game log against the rules, event by event.

The deal is dealt again from the game's seed; each recorded command is decided again
on the state the events before it built, with the same random numbers the server
drew; a bot's command must be the one that bot plays there. Every event must be what
the rules make of its command (or the stop of a game that reached its event limit),
in order, numbered without gaps, under the rules version this server plays. Table
events must make sense where they stand: a player joins an open seat before the deal,
a turn times out only once the seat's clock says so (and its stand-in's moves follow),
a bot takes over a player's seat and hands it back. Events standing for versions the
event store lost (and the notice after them, `Event.history_loss`) carry no move and
change nothing. The first event that is not right is named, with the state before it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2

from engines.contract import DataUnavailable, RuleViolation
from engines.limits import Stopped
from engines.registry import ENGINES, AnyEngine
from service.app.model.gamelog import FORMAT
from service.app.model.seeding import BOT, DECIDE, SETUP, game_rng
from service.app.model.table import Table
from service.app.model.table_check import table_problem


@dataclass(frozen=True)
class Problem:
    """Where a log stops following the rules. `index`: the event's position in the
    log (0 for the first event), or None for the header. `states`: the states that
    replayed before it (states[v] at version v), when the deal could be checked."""

    index: int | None
    reason: str
    state_before: Any = None
    engine: AnyEngine | None = None
    rules_mismatch: bool = False
    states: tuple[Any, ...] = ()
    seats: tuple[game_pb2.Seat, ...] = ()  # as the table events before it left them
    dealt_at: int = 0  # the version after which the game was dealt (players joined before)

    @property
    def where(self) -> str:
        return "the header" if self.index is None else f"event {self.index + 1} (line {self.index + 2} of a .jsonl)"


@dataclass(frozen=True)
class Replayed:
    """A log that follows the rules: its engine and the state after each event."""

    engine: AnyEngine
    states: list[Any]  # states[v]: the state at version v (states[0]: before any event)
    seats: tuple[game_pb2.Seat, ...] = ()  # as the table events left them
    dealt_at: int = 0  # the version after which the game was dealt (players joined before)


def verify(log: game_pb2.GameLog, engines: Mapping[str, AnyEngine] = ENGINES) -> Problem | Replayed:
    header = log.header
    if header.format != FORMAT:
        return Problem(None, f"format {header.format!r} is not {FORMAT!r}")
    engine = engines.get(header.kind)
    if engine is None:
        return Problem(None, f"this server does not play {header.kind!r} games")
    if header.rules_version != engine.rules_version:
        reason = f"the game was played under rules {header.rules_version!r}; this server plays {engine.rules_version!r}"
        return Problem(None, reason, rules_mismatch=True)
    if header.viewer.role != game_pb2.VIEWER_ROLE_ADMIN or not header.HasField("seed"):
        return Problem(None, "only a complete log (exported by the admin, with its seed) can be checked")
    return _Checker(log, engine).run()


def payload_of(envelope: Message, kind: str) -> Message | None:
    if envelope.WhichOneof("game") != kind:
        return None
    payload: Message = getattr(envelope, kind)
    return payload


class _Checker:
    def __init__(self, log: game_pb2.GameLog, engine: AnyEngine) -> None:
        self.log = log
        self.engine = engine
        self.events = log.events
        self.seed = log.header.seed
        header = log.header
        record = game_pb2.GameRecord(
            game_id=header.game_id, kind=header.kind, seats=header.seats, options=header.options, clock=header.clock
        )
        self.table = Table(record, engine)  # who sits and plays where, as the events go
        self.states: list[Any] = [engine.initial_state()]
        self.dealt_at = 0

    @property
    def state(self) -> Any:
        return self.states[-1]

    def problem(self, index: int, reason: str) -> Problem:
        seats = tuple(self.table.seats)
        return Problem(
            index, reason, self.state, self.engine, states=tuple(self.states), seats=seats, dealt_at=self.dealt_at
        )

    def run(self) -> Problem | Replayed:
        for index, event in enumerate(self.events):
            if event.version != index + 1:
                return Problem(
                    index, f"version {event.version} where {index + 1} was due (an event is missing or out of place)"
                )
            if event.rules_version != self.log.header.rules_version:
                return Problem(index, f"rules version {event.rules_version!r} differs from the header's")
            if payload_of(event, self.engine.kind) is None and not (
                event.HasField("table") or event.HasField("history_loss")
            ):
                return Problem(index, f"not a {self.engine.kind!r} event")
        problem = self.check_setup()
        index = len(self.states) - 1
        while problem is None and index < len(self.events):
            problem = self.check_step(index)
            index = len(self.states) - 1
        if problem is not None:
            return problem
        if not self.events:
            return Problem(None, "the log has no events")
        return Replayed(self.engine, self.states, tuple(self.table.seats), self.dealt_at)

    def check_setup(self) -> Problem | None:
        header = self.log.header
        options = payload_of(header.options, self.engine.kind)
        if options is None:
            return Problem(None, f"the options are not {self.engine.kind!r} options")
        start = 0
        while start < len(self.events) and self.events[start].HasField("table"):  # players joining
            problem = self.check_table(start)
            if problem is not None:
                return problem
            start += 1
        self.dealt_at = start
        if self.table.open_seats:
            return Problem(start if start < len(self.events) else None, "the game was never dealt: seats are open")
        first = payload_of(self.events[start], self.engine.kind) if start < len(self.events) else None
        if first is not None and first.WhichOneof("kind") == "game_started":
            try:  # dealt with game data this build lacks: the deal cannot be compared, say why
                self.engine.evolve(self.state, first)
            except DataUnavailable as error:
                return Problem(None, str(error), rules_mismatch=True)
        seats = self.table.infos
        try:
            options = self.engine.resolve_options(options, seats)  # as asked, if seats were open at first
            expected = self.engine.setup(options, seats, game_rng(self.seed, SETUP, 0))
        except Exception as error:  # the header's options or seats cannot be dealt
            return Problem(None, f"the game cannot be dealt from this header: {error}")
        for offset, payload in enumerate(expected, start=start):
            if offset >= len(self.events):
                return Problem(offset, "the log ends in the middle of the deal")
            event = self.events[offset]
            if event.HasField("seat") or event.HasField("command"):
                return self.problem(offset, "a deal event must not name a seat or a command")
            if payload_of(event, self.engine.kind) != payload:
                return self.problem(offset, "the deal differs from the one the seed deals")
            problem = self.apply(event)
            if problem is not None:
                return problem
        return None

    def check_step(self, index: int) -> Problem | None:
        event = self.events[index]
        if event.HasField("history_loss"):  # versions the store lost, or the notice after them
            if event.HasField("command") or event.game_over:
                return self.problem(index, "an event standing for lost versions carries no move")
            self.states.append(self.state)  # they change nothing
            return None
        if event.HasField("table"):
            return self.check_table(index)
        if not event.HasField("command") and not event.HasField("seat"):
            return self.check_stop(index)
        if not event.HasField("command") or not event.HasField("seat"):
            return self.problem(index, "an event with no command behind it")
        seat, version = event.seat, event.version - 1
        command = payload_of(event.command, self.engine.kind)
        if command is None:
            return self.problem(index, f"its command is not a {self.engine.kind!r} command")
        if self.engine.status(self.state).finished:
            return self.problem(index, "the game was already over")
        try:
            expected = self.engine.decide(self.state, seat, command, game_rng(self.seed, DECIDE, version))
        except RuleViolation as violation:
            return self.problem(index, f"seat {seat} may not play {_short(command)}: {violation.message}")
        bot = self.table.bots.get(seat)
        clock = self.table.clock
        if bot is None and clock is not None and clock.times[seat].timed_out:
            bot = self.table.stand_in(seat)  # its time ran out: its stand-in plays its turn
        if bot is not None:  # a legal move, but is it the bot's?
            chosen = self.engine.bots[bot](self.state, seat, game_rng(self.seed, BOT, version))
            if chosen != command:
                return self.problem(index, f"seat {seat}'s {bot} bot would have played {_short(chosen)}")
        for offset, payload in enumerate(expected):
            position = index + offset
            if position >= len(self.events):
                return self.problem(position, "the log ends in the middle of a move")
            current = self.events[position]
            if offset and (
                current.HasField("command") or current.seat != seat or current.command_id != event.command_id
            ):
                return self.problem(position, "the events of one move must follow each other")
            if payload_of(current, self.engine.kind) != payload:
                return self.problem(position, f"the rules make {_short(payload)} of this move, not {_short(current)}")
            problem = self.apply(current)
            if problem is not None:
                return problem
        return None

    def check_stop(self, index: int) -> Problem | None:
        """An event of no seat between two moves must be the stop of a game that had
        reached its event limit (engines/limits.py). The limit is the server's setting,
        not the log's, and may have changed during the game: any limit the game had
        reached is accepted."""
        event = self.events[index]
        stopped = self.engine.evolve(self.state, payload_of(event, self.engine.kind))
        if not isinstance(stopped, Stopped):
            return self.problem(index, "an event with no command behind it")
        if self.engine.status(self.state).finished:
            return self.problem(index, "the game was already over")
        if stopped.event_limit > index or stopped.event_limit == 0:
            return self.problem(index, f"stopped at a limit of {stopped.event_limit} events after {index} events")
        for offset, payload in enumerate(self.engine.stop(self.state, stopped.event_limit)):
            position = index + offset
            if position >= len(self.events):
                return self.problem(position, "the log ends in the middle of the game's stop")
            current = self.events[position]
            if current.HasField("seat") or current.HasField("command"):
                return self.problem(position, "the events of the game's stop name no seat or command")
            if payload_of(current, self.engine.kind) != payload:
                return self.problem(position, f"the game's stop is {_short(payload)}, not {_short(current)}")
            problem = self.apply(current)
            if problem is not None:
                return problem
        return None

    def check_table(self, index: int) -> Problem | None:
        """A table event, where it stands: then folds it."""
        event = self.events[index]
        if event.HasField("seat") or event.HasField("command"):
            return self.problem(index, "a table event must not name a seat or a command")
        reason = table_problem(self.table, self.engine, self.state, event)
        return self.problem(index, reason) if reason else self.apply(event)

    def apply(self, event: game_pb2.Event) -> Problem | None:
        state = self.table.fold(self.state, event)
        finished = self.engine.status(state).finished
        last = event.version == len(self.events)
        if event.game_over and not finished:
            return self.problem(event.version - 1, "marked game_over, but the game goes on")
        if finished and not last:
            self.states.append(state)
            return self.problem(event.version, "the game was over: no event may follow")
        if last and finished and not event.game_over:
            return self.problem(event.version - 1, "the last event of a finished game must be marked game_over")
        self.states.append(state)
        return None


def _short(message: Message) -> str:
    return " ".join(str(message).split())[:160]
