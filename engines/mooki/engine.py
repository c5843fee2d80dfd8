"""Mooki Island behind the engine contract (engines/contract.py)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import Bot, SeatInfo, Status, Viewer
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
    bots: Mapping[str, Bot[MookiState, pb.Command]] = MappingProxyType(bots.BOTS)

    def resolve_options(self, options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
        return rules.resolve_options(options, seats)

    def setup(self, options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
        return rules.setup(options, seats, rng)

    def initial_state(self) -> MookiState:
        return MookiState()

    def evolve(self, state: MookiState, event: pb.Event) -> MookiState:
        return rules.evolve(state, event)

    def evolve_all(self, state: MookiState, events: Iterable[pb.Event]) -> MookiState:
        return rules.evolve_all(state, events)

    def decide(self, state: MookiState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
        return rules.decide(state, seat, command, rng)

    def view(self, state: MookiState, viewer: Viewer) -> pb.View:
        return visibility.view(state, viewer)

    def legal_commands(self, state: MookiState, seat: int) -> list[pb.Command]:
        return rules.legal_commands(state, seat)

    def redact(self, event: pb.Event, viewer: Viewer) -> pb.Event | None:
        return visibility.redact(event, viewer)

    def status(self, state: MookiState) -> Status:
        return rules.status(state)


ENGINE = MookiEngine()
