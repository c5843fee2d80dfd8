"""Mooki Island behind the engine contract (engines/contract.py)."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines import limits
from engines.contract import Bot, SeatInfo, Status, Viewer
from engines.limits import Stopped
from engines.mooki import bots, rules, visibility
from engines.mooki.data import RULES_VERSION
from engines.mooki.state import MookiState


class MookiEngine:
    kind = "mooki"
    rules_version = RULES_VERSION
    min_seats = 2
    max_seats = 2
    command_type = pb.Command
    event_type = pb.Event
    options_type = pb.Options
    view_type = pb.View
    # Games end after 74 events at most (36 cards: a draw and a place each, then the
    # scoring); a server stops one at 1,000 only when configured below that.
    default_event_limit = 1_000
    bots: Mapping[str, Bot[MookiState, pb.Command]] = MappingProxyType(bots.BOTS)

    def resolve_options(self, options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
        return rules.resolve_options(options, seats)

    def setup(self, options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
        return rules.setup(options, seats, rng)

    def initial_state(self) -> MookiState:
        return MookiState()

    def evolve(self, state: MookiState, event: pb.Event) -> MookiState:
        return rules.evolve(state, event)  # a stopped game stays as it is (engines/evolving.py)

    def evolve_all(self, state: MookiState, events: Iterable[pb.Event]) -> MookiState:
        return functools.reduce(rules.evolve, events, state)

    def decide(self, state: MookiState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
        if isinstance(state, Stopped):
            limits.refuse(state)
        return rules.decide(state, seat, command, rng)

    def view(self, state: MookiState, viewer: Viewer) -> pb.View:
        view = visibility.view(state, viewer)
        if isinstance(state, Stopped):  # as it stood, marked over and stopped
            view.phase = pb.PHASE_FINISHED
            view.stopped.event_limit = state.event_limit
        return view

    def legal_commands(self, state: MookiState, seat: int) -> list[pb.Command]:
        if isinstance(state, Stopped):
            return []
        return rules.legal_commands(state, seat)

    def redact(self, event: pb.Event, viewer: Viewer) -> pb.Event | None:
        return visibility.redact(event, viewer)

    def status(self, state: MookiState) -> Status:
        if isinstance(state, Stopped):
            return limits.status(state, ())
        return rules.status(state)

    def stop(self, state: MookiState, event_limit: int) -> list[pb.Event]:
        """The game reached the server's event limit unfinished (engines/limits.py)."""
        return [pb.Event(game_stopped=pb.GameStopped(event_limit=event_limit))]


# The class of a stopped game's state (engines/limits.py), named here for pickle and snapshots.
StoppedMookiState = limits.stopped_class(MookiState, __name__)

ENGINE = MookiEngine()
