"""The state of a Pirates & Compagnie game: immutable, complete (every hand and the
draw pile's order included)."""

from __future__ import annotations

from dataclasses import dataclass

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.pirates.cards import Card, ColourId

CLOCKWISE, COUNTERCLOCKWISE = 1, -1


@dataclass(frozen=True, slots=True)
class PiratesState:
    phase: pb.Phase.ValueType = pb.PHASE_UNSPECIFIED
    options: pb.Options | None = None  # resolved; read-only by convention
    seat_count: int = 0
    removed: tuple[Card, ...] = ()  # left in the box for the whole game
    round: int = 0
    round_first_seat: int = 0
    hands: tuple[tuple[Card, ...], ...] = ()  # per seat, sorted
    draw_pile: tuple[Card, ...] = ()  # top first
    discard: tuple[Card, ...] = ()  # bottom first: the top card is the last
    active_seat: int = 0
    direction: int = CLOCKWISE  # +1: seat 0, 1, 2...; -1: the other way
    announced: ColourId = pb.COLOUR_UNSPECIFIED  # asked for by the Parrot on top
    draw_penalty: int = 0  # owed by the active seat (a Bottle), unless it answers
    drawn: tuple[Card, ...] = ()  # drawn by the active seat this turn (PHASE_DRAWN)
    drawn_reason: pb.DrawReason.ValueType = pb.DRAW_REASON_UNSPECIFIED
    rebuilds: int = 0  # how many times this round's draw pile was rebuilt
    ships: tuple[int, ...] = ()  # spaces sailed, per seat
    winner: int | None = None

    @property
    def top(self) -> Card:
        return self.discard[-1]
