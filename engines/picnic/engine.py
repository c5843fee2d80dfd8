"""Facteur Souris's picnic behind the engine contract (engines/contract.py)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.contract import Bot, SeatInfo, Status, Viewer
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
    bots: Mapping[str, Bot[PicnicState, pb.Command]] = MappingProxyType(bots.BOTS)

    def resolve_options(self, options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
        return rules.resolve_options(options, seats)

    def setup(self, options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
        return rules.setup(options, seats, rng)

    def initial_state(self) -> PicnicState:
        return PicnicState()

    def evolve(self, state: PicnicState, event: pb.Event) -> PicnicState:
        return rules.evolve(state, event)

    def evolve_all(self, state: PicnicState, events: Iterable[pb.Event]) -> PicnicState:
        return rules.evolve_all(state, events)

    def decide(self, state: PicnicState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
        return rules.decide(state, seat, command, rng)

    def view(self, state: PicnicState, viewer: Viewer) -> pb.View:
        return visibility.view(state, viewer)

    def legal_commands(self, state: PicnicState, seat: int) -> list[pb.Command]:
        return rules.legal_commands(state, seat)

    def redact(self, event: pb.Event, viewer: Viewer) -> pb.Event | None:
        return visibility.redact(event, viewer)

    def status(self, state: PicnicState) -> Status:
        return rules.status(state)


ENGINE = PicnicEngine()
