"""Pirates & Compagnie behind the engine contract (engines/contract.py)."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines import limits
from engines.contract import Bot, SeatInfo, Status, Viewer
from engines.limits import Stopped
from engines.pirates import bots, rules, visibility
from engines.pirates.cards import MAX_SEATS, MIN_SEATS
from engines.pirates.data import RULES_VERSION
from engines.pirates.state import PiratesState


class PiratesEngine:
    kind = "pirates"
    rules_version = RULES_VERSION
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    command_type = pb.Command
    event_type = pb.Event
    options_type = pb.Options
    view_type = pb.View
    # Measured (scripts/game_lengths.py, pirates/2) over 100 games per seat count:
    # greedy bots end in 400 to 1,311 events, mixed greedy and random 440 to 1,257;
    # random bots, which draw rather than lay, need 3,300 (median) to 6,314.
    default_event_limit = 10_000
    bots: Mapping[str, Bot[PiratesState, pb.Command]] = MappingProxyType(bots.BOTS)

    def resolve_options(self, options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
        return rules.resolve_options(options, seats)

    def setup(self, options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
        return rules.setup(options, seats, rng)

    def initial_state(self) -> PiratesState:
        return PiratesState()

    def evolve(self, state: PiratesState, event: pb.Event) -> PiratesState:
        return rules.evolve(state, event)  # a stopped game stays as it is (engines/evolving.py)

    def evolve_all(self, state: PiratesState, events: Iterable[pb.Event]) -> PiratesState:
        return functools.reduce(rules.evolve, events, state)

    def decide(self, state: PiratesState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
        if isinstance(state, Stopped):
            limits.refuse(state)
        return rules.decide(state, seat, command, rng)

    def view(self, state: PiratesState, viewer: Viewer) -> pb.View:
        view = visibility.view(state, viewer)
        if isinstance(state, Stopped):  # as it stood, marked over and stopped
            view.phase = pb.PHASE_FINISHED
            view.stopped.event_limit = state.event_limit
        return view

    def legal_commands(self, state: PiratesState, seat: int) -> list[pb.Command]:
        if isinstance(state, Stopped):
            return []
        return rules.legal_commands(state, seat)

    def redact(self, event: pb.Event, viewer: Viewer) -> pb.Event | None:
        return visibility.redact(event, viewer)

    def status(self, state: PiratesState) -> Status:
        if isinstance(state, Stopped):
            return limits.status(state, tuple(state.ships))
        return rules.status(state)

    def stop(self, state: PiratesState, event_limit: int) -> list[pb.Event]:
        """The game reached the server's event limit unfinished (engines/limits.py)."""
        return [pb.Event(game_stopped=pb.GameStopped(event_limit=event_limit))]


# The class of a stopped game's state (engines/limits.py), named here for pickle and snapshots.
StoppedPiratesState = limits.stopped_class(PiratesState, __name__)

ENGINE = PiratesEngine()
