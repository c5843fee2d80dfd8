"""The decider contract every game engine fulfils.

An engine is a handful of pure functions over plain data (see DESIGN.md):

    setup(options, seats, rng)          -> opening events (the deal)
    decide(state, seat, command, rng)   -> new events, or raise RuleViolation
    evolve(state, event)                -> the next state
    evolve_all(state, events)           -> the state after them all (a replay)
    view(state, viewer)                 -> what that viewer may see
    legal_commands(state, seat)         -> every command decide would accept now
    redact(event, viewer)               -> the event as that viewer may see it
    recall(event, state, viewer)        -> a past event as that viewer may read it again now
    recall_view(view, then, now, viewer) -> a past view as that viewer may look at it again now
    status(state)                       -> who acts, finished or not, outcome
    stop(state, event_limit)            -> the events that stop a game too long

Commands, events, options and views are the game's protobuf messages; the state is
the engine's own immutable Python value. `redact` says what a viewer sees of an event
as it happens; `recall`, what it may read of it again later, while the game stands
at `state`: a game whose rules make players remember (Mooki Island's buried cards,
the picnic's Rain tiles back in the lid) lets them read again only what its table
shows now. Randomness comes only from the `rng`
argument and its outcome is written into events, so folding the events again never
draws a random number. Nothing here does I/O or reads a clock.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from google.protobuf.message import Message


class RuleViolation(Exception):
    """A command the rules do not allow now. `code` is stable for programs
    (e.g. "not_your_turn"); `message` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class InvalidSetup(Exception):
    """Options or seats a game cannot be created with (a malformed request)."""


class DataUnavailable(Exception):
    """A game was dealt with game data (seeds/<kind>/) that this build does not have.
    Replaying it with other data would not give the game that was played, so `evolve`
    refuses its GameStarted event."""

    def __init__(self, kind: str, rules_version: str, wanted: str, available: str) -> None:
        super().__init__(
            f"this {kind} game was played under rules {rules_version} with the game data {wanted}, "
            f"which this build no longer has (its {rules_version} data is {available})"
        )
        self.kind = kind
        self.rules_version = rules_version
        self.wanted = wanted
        self.available = available


class Role(enum.Enum):
    SEAT = "seat"
    SPECTATOR = "spectator"
    ADMIN = "admin"


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: a seat (a player), a spectator, or the admin."""

    role: Role
    seat: int | None = None

    @staticmethod
    def player(seat: int) -> Viewer:
        if 0 <= seat < len(_PLAYERS):
            return _PLAYERS[seat]  # asked on every call: viewers are immutable, made once
        return Viewer(Role.SEAT, seat)

    @staticmethod
    def spectator() -> Viewer:
        return SPECTATOR

    @staticmethod
    def admin() -> Viewer:
        return ADMIN

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    def is_seat(self, seat: int) -> bool:
        return self.role is Role.SEAT and self.seat == seat


SPECTATOR = Viewer(Role.SPECTATOR)
ADMIN = Viewer(Role.ADMIN)
_PLAYERS = tuple(Viewer(Role.SEAT, seat) for seat in range(16))


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """What an engine may know about a seat: its player's age (some rules need it)."""

    age: int | None = None


@dataclass(frozen=True, slots=True)
class Status:
    """Where a game stands."""

    finished: bool
    to_act: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    summary: str = ""


def playing(seat: int | None) -> Status:
    """The status of a game going on with `seat` to act (None: nobody, for now).
    Asked many times a move: statuses are immutable, these are made once."""
    if seat is None:
        return _NOBODY
    if 0 <= seat < len(_PLAYING):
        return _PLAYING[seat]
    return Status(finished=False, to_act=(seat,))


_NOBODY = Status(finished=False)
_PLAYING = tuple(Status(finished=False, to_act=(seat,)) for seat in range(16))


S = TypeVar("S")
C = TypeVar("C", bound=Message)
E = TypeVar("E", bound=Message)
Opt = TypeVar("Opt", bound=Message)
V = TypeVar("V", bound=Message)


S_contra = TypeVar("S_contra", contravariant=True)
C_co = TypeVar("C_co", bound=Message, covariant=True)


class Bot(Protocol[S_contra, C_co]):
    """Chooses a command for `seat`. Must use only what that seat may know, and
    draw randomness only from `rng`."""

    def __call__(self, state: S_contra, seat: int, rng: random.Random) -> C_co: ...


class Engine(Protocol[S, C, E, Opt, V]):
    """One game's rules. Implementations are stateless singletons."""

    kind: str  # its folder engines/<kind>/: also its field name in the envelopes and its proto package
    rules_version: str  # recorded in every event, e.g. "mooki/2"
    min_seats: int
    max_seats: int
    command_type: type[C]
    event_type: type[E]
    options_type: type[Opt]
    view_type: type[V]
    bots: Mapping[str, Bot[S, C]]
    # The events a game may have before the server stops it (engines/limits.py),
    # unless configured otherwise: well above the longest games bots play.
    default_event_limit: int

    def resolve_options(self, options: Opt, seats: Sequence[SeatInfo]) -> Opt:
        """The options with every default filled in; raises InvalidSetup."""
        ...

    def setup(self, options: Opt, seats: Sequence[SeatInfo], rng: random.Random) -> list[E]:
        """The opening events; `options` are resolved. Raises InvalidSetup."""
        ...

    def initial_state(self) -> S:
        """The state before any event."""
        ...

    def evolve(self, state: S, event: E) -> S:
        """The state after `event`. No validation, no randomness, no mutation.
        Raises DataUnavailable on a GameStarted dealt with data this build lacks."""
        ...

    def evolve_all(self, state: S, events: Iterable[E]) -> S:
        """The state after `events`, in order: what `evolve` gives one event at a
        time (a replay folds a whole game at once; engines/adapter.py)."""
        ...

    def decide(self, state: S, seat: int, command: C, rng: random.Random) -> list[E]:
        """The events `command` by `seat` causes; raises RuleViolation."""
        ...

    def view(self, state: S, viewer: Viewer) -> V:
        """What `viewer` may see of `state`."""
        ...

    def legal_commands(self, state: S, seat: int) -> list[C]:
        """Every command `decide` would accept from `seat` now."""
        ...

    def redact(self, event: E, viewer: Viewer) -> E | None:
        """`event` as `viewer` may see it (None: not at all). Never mutates `event`."""
        ...

    def recall(self, event: E, state: S, viewer: Viewer) -> E | None:
        """`event`, a past event of the game as stored (unredacted: it tells which card
        or tile it speaks of), as `viewer` may read it again while the game stands at
        `state`: what `redact` shows, less what the table no longer shows when the
        game's memory rule holds (a face since covered, a tile face down again). Once
        the game is over, for the admin, and in games without such a rule, `redact`.
        Never mutates `event`."""
        ...

    def recall_view(self, view: V, then: S, now: S, viewer: Viewer) -> V:
        """`view`, the viewer's view of a past state `then`, as the viewer may look at
        it again while the game stands at `now` (ReplayGame at a past version): less
        what the table no longer shows, as `recall` says. Never mutates `view`."""
        ...

    def status(self, state: S) -> Status:
        """Who acts, and how the game ended."""
        ...

    def stop(self, state: S, event_limit: int) -> list[E]:
        """The events that end the game now because it reached `event_limit` events
        unfinished (the server's bound on a game's length, engines/limits.py): after
        them the game is over and nobody wins."""
        ...


def fold(engine: Engine[S, C, E, Opt, V], events: Iterable[E], state: S | None = None) -> S:
    """Replays `events` from `state` (default: the initial state)."""
    return engine.evolve_all(engine.initial_state() if state is None else state, events)
