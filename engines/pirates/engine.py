"""Pirates & Compagnie behind the engine contract (engines/contract.py)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import Bot, SeatInfo, Status, Viewer
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
    bots: Mapping[str, Bot[PiratesState, pb.Command]] = MappingProxyType(bots.BOTS)

    def resolve_options(self, options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
        return rules.resolve_options(options, seats)

    def setup(self, options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
        return rules.setup(options, seats, rng)

    def initial_state(self) -> PiratesState:
        return PiratesState()

    def evolve(self, state: PiratesState, event: pb.Event) -> PiratesState:
        return rules.evolve(state, event)

    def evolve_all(self, state: PiratesState, events: Iterable[pb.Event]) -> PiratesState:
        return rules.evolve_all(state, events)

    def decide(self, state: PiratesState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
        return rules.decide(state, seat, command, rng)

    def view(self, state: PiratesState, viewer: Viewer) -> pb.View:
        return visibility.view(state, viewer)

    def legal_commands(self, state: PiratesState, seat: int) -> list[pb.Command]:
        return rules.legal_commands(state, seat)

    def redact(self, event: pb.Event, viewer: Viewer) -> pb.Event | None:
        return visibility.redact(event, viewer)

    def status(self, state: PiratesState) -> Status:
        return rules.status(state)


ENGINE = PiratesEngine()
