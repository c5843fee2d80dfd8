"""One engine for every game: a game's rules and its facts behind the engine contract
(engines/contract.py).

Each engines/<kind>/engine.py declares its game as a `GameEngine`: its kind and rules
version, its seats, its messages, its rules (engines/<kind>/rules.py) and what each
viewer sees (engines/<kind>/visibility.py), what its players must remember
(engines/<kind>/memory.py, for a game whose rules say so), its bots and its event
limit. What every game does alike is written here once: a game stopped at its event
limit (engines/limits.py) refuses every command, offers none, shows itself over and
stopped, and nothing changes it; `evolve_all` folds `evolve`; a past event is read
again as `redact` shows it, less what the memory rule hides while it holds."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Generic, Protocol, TypeVar

from google.protobuf.message import Message

from engines import limits
from engines.contract import Bot, SeatInfo, Status, Viewer
from engines.limits import Stopped

S = TypeVar("S")
C = TypeVar("C", bound=Message)
E = TypeVar("E", bound=Message)
Opt = TypeVar("Opt", bound=Message)
V = TypeVar("V", bound=Message)
S_contra = TypeVar("S_contra", contravariant=True)
V_co = TypeVar("V_co", bound=Message, covariant=True)


class Rules(Protocol[S, C, E, Opt]):
    """A game's rules (engines/<kind>/rules.py): the decider, for a game going on."""

    def resolve_options(self, options: Opt, seats: Sequence[SeatInfo]) -> Opt: ...

    def setup(self, options: Opt, seats: Sequence[SeatInfo], rng: random.Random) -> list[E]: ...

    @property
    def evolve(self) -> Callable[[S, E], S]: ...  # engines/evolving.py's by_kind

    def decide(self, state: S, seat: int, command: C, rng: random.Random) -> list[E]: ...

    def legal_commands(self, state: S, seat: int) -> list[C]: ...

    def status(self, state: S) -> Status: ...


class Visibility(Protocol[S_contra, E, V_co]):
    """What each viewer may see of a game (engines/<kind>/visibility.py)."""

    def view(self, state: S_contra, viewer: Viewer) -> V_co: ...

    def redact(self, event: E, viewer: Viewer) -> E | None: ...


class Memory(Protocol[S_contra, E, V]):
    """What a game's players must remember (engines/<kind>/memory.py): the past read
    again shows only what the table shows now."""

    def holds(self, state: S_contra, viewer: Viewer) -> bool:
        """Whether the rule holds for `viewer` in `state`: the game goes on, the viewer
        is not the admin, and its options do not open the history."""
        ...

    def recall(self, event: E, redacted: E, state: S_contra, viewer: Viewer) -> E:
        """`redacted` (`event` as redact gave it to `viewer`) less what the table does not
        show in `state`: itself when nothing is to hide, else a copy (never changed: it
        may be the stored event itself); `event`, as stored, says which card or tile it
        speaks of."""
        ...

    def recall_view(self, view: V, then: S_contra, now: S_contra, viewer: Viewer) -> V:
        """`view` (a copy of the viewer's view of `then`) less what the table does not
        show in `now`. May change `view` and return it."""
        ...


class GameEngine(Generic[S, C, E, Opt, V]):
    """A game behind the engine contract: `Engine[S, C, E, Opt, V]`."""

    def __init__(
        self,
        *,
        kind: str,
        rules_version: str,
        seats: range,
        messages: tuple[type[C], type[E], type[Opt], type[V]],
        state_type: Callable[[], S],
        rules: Rules[S, C, E, Opt],
        visibility: Visibility[S, E, V],
        bots: Mapping[str, Bot[S, C]],
        default_event_limit: int,
        finished_phase: int,
        stopped_scores: Callable[[S], tuple[int, ...]] = lambda state: (),
        memory: Memory[S, E, V] | None = None,
    ) -> None:
        """`seats`: how many players may sit (range(2, 5): two to four); `messages`: the
        game's Command, Event, Options and View; `state_type`: its state class, whose
        instance made without arguments is the state before any event; `finished_phase`:
        the phase a View shows once the game is over; `stopped_scores`: the scores of a
        game stopped at its event limit, as they stood (none by default); `memory`: what
        its players must remember, if its rules say so (none: the past reads as it
        happened)."""
        self.kind = kind
        self.rules_version = rules_version
        self.min_seats, self.max_seats = seats[0], seats[-1]
        self.command_type, self.event_type, self.options_type, self.view_type = messages
        self.bots: Mapping[str, Bot[S, C]] = MappingProxyType(dict(bots))
        self.default_event_limit = default_event_limit
        self._state_type = state_type
        self._rules = rules
        self._evolve = rules.evolve
        self._visibility = visibility
        self._finished_phase = finished_phase
        self._stopped_scores = stopped_scores
        self._memory = memory

    def resolve_options(self, options: Opt, seats: Sequence[SeatInfo]) -> Opt:
        return self._rules.resolve_options(options, seats)

    def setup(self, options: Opt, seats: Sequence[SeatInfo], rng: random.Random) -> list[E]:
        return self._rules.setup(options, seats, rng)

    def initial_state(self) -> S:
        return self._state_type()

    def evolve(self, state: S, event: E) -> S:
        return self._evolve(state, event)  # a stopped game stays as it is (engines/evolving.py)

    def evolve_all(self, state: S, events: Iterable[E]) -> S:
        return functools.reduce(self._evolve, events, state)

    def decide(self, state: S, seat: int, command: C, rng: random.Random) -> list[E]:
        if isinstance(state, Stopped):
            limits.refuse(state)
        return self._rules.decide(state, seat, command, rng)

    def view(self, state: S, viewer: Viewer) -> V:
        view = self._visibility.view(state, viewer)
        if isinstance(state, Stopped):  # as it stood, marked over and stopped
            shown: Any = view  # every game's View has a phase and `stopped`, its GameStopped
            shown.phase = self._finished_phase
            shown.stopped.event_limit = state.event_limit
        return view

    def legal_commands(self, state: S, seat: int) -> list[C]:
        if isinstance(state, Stopped):
            return []
        return self._rules.legal_commands(state, seat)

    def redact(self, event: E, viewer: Viewer) -> E | None:
        return self._visibility.redact(event, viewer)

    def recall(self, event: E, state: S, viewer: Viewer) -> E | None:
        redacted = self._visibility.redact(event, viewer)
        if redacted is None or not self._remembers(state, viewer):
            return redacted
        assert self._memory is not None
        return self._memory.recall(event, redacted, state, viewer)

    def recall_view(self, view: V, then: S, now: S, viewer: Viewer) -> V:
        if not self._remembers(now, viewer):
            return view
        assert self._memory is not None
        return self._memory.recall_view(_copy(view), then, now, viewer)

    def _remembers(self, state: S, viewer: Viewer) -> bool:
        """Whether the memory rule holds: never once the game is over (a stopped game
        included), nor for the admin."""
        if self._memory is None or viewer.is_admin or isinstance(state, Stopped):
            return False
        return self._memory.holds(state, viewer)

    def status(self, state: S) -> Status:
        if isinstance(state, Stopped):
            return limits.status(state, self._stopped_scores(state))
        return self._rules.status(state)

    def stop(self, state: S, event_limit: int) -> list[E]:
        """The game reached the server's event limit unfinished (engines/limits.py)."""
        event: Any = self.event_type()  # every game's Event has `game_stopped`, its GameStopped
        event.game_stopped.SetInParent()
        event.game_stopped.event_limit = event_limit
        return [event]


M = TypeVar("M", bound=Message)


def _copy(message: M) -> M:
    copy = type(message)()
    copy.CopyFrom(message)
    return copy
