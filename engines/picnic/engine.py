"""Facteur Souris's picnic behind the engine contract (engines/contract.py)."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines import limits
from engines.contract import Bot, SeatInfo, Status, Viewer
from engines.limits import Stopped
from engines.picnic import bots, rules, visibility
from engines.picnic.data import RULES_VERSION
from engines.picnic.state import PicnicState


class PicnicEngine:
    kind = "picnic"
    rules_version = RULES_VERSION
    min_seats = rules.MIN_SEATS
    max_seats = rules.MAX_SEATS
    command_type = pb.Command
    event_type = pb.Event
    options_type = pb.Options
    view_type = pb.View
    # Measured (scripts/game_lengths.py, picnic/2) over 300 games per seat count: greedy bots
    # end within 108 events, random ones within 179.
    default_event_limit = 2_000
    bots: Mapping[str, Bot[PicnicState, pb.Command]] = MappingProxyType(bots.BOTS)

    def resolve_options(self, options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
        return rules.resolve_options(options, seats)

    def setup(self, options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
        return rules.setup(options, seats, rng)

    def initial_state(self) -> PicnicState:
        return PicnicState()

    def evolve(self, state: PicnicState, event: pb.Event) -> PicnicState:
        return rules.evolve(state, event)  # a stopped game stays as it is (engines/evolving.py)

    def evolve_all(self, state: PicnicState, events: Iterable[pb.Event]) -> PicnicState:
        return functools.reduce(rules.evolve, events, state)

    def decide(self, state: PicnicState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
        if isinstance(state, Stopped):
            limits.refuse(state)
        return rules.decide(state, seat, command, rng)

    def view(self, state: PicnicState, viewer: Viewer) -> pb.View:
        view = visibility.view(state, viewer)
        if isinstance(state, Stopped):  # as it stood, marked over and stopped
            view.phase = pb.PHASE_FINISHED
            view.stopped.event_limit = state.event_limit
        return view

    def legal_commands(self, state: PicnicState, seat: int) -> list[pb.Command]:
        if isinstance(state, Stopped):
            return []
        return rules.legal_commands(state, seat)

    def redact(self, event: pb.Event, viewer: Viewer) -> pb.Event | None:
        return visibility.redact(event, viewer)

    def status(self, state: PicnicState) -> Status:
        if isinstance(state, Stopped):
            return limits.status(state, ())
        return rules.status(state)

    def stop(self, state: PicnicState, event_limit: int) -> list[pb.Event]:
        """The game reached the server's event limit unfinished (engines/limits.py)."""
        return [pb.Event(game_stopped=pb.GameStopped(event_limit=event_limit))]


# The class of a stopped game's state (engines/limits.py), named here for pickle and snapshots.
StoppedPicnicState = limits.stopped_class(PicnicState, __name__)

ENGINE = PicnicEngine()
