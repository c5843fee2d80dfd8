"""The state of a Mooki Island game: immutable, complete (hidden faces included).

The cards in it are named tuples: a replay makes one per card drawn and placed, and a
tuple costs half as much to make as a frozen dataclass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.encoded import Shared
from engines.mooki.cards import Face, FamilyId


class PileCard(NamedTuple):
    """A card lying in a draw pile: the face up and the face down."""

    card_id: int
    shown: Face
    hidden: Face


# One shared instance per card and side up (72 in all): every live game holds 36. Found
# by the card's encoding (engines/encoded.py).
PILE_CARDS: Shared[pb.DealtCard, PileCard] = Shared(
    pb.DealtCard, lambda dealt: PileCard(dealt.card_id, Face.from_proto(dealt.shown), Face.from_proto(dealt.hidden))
)


class Drawn(NamedTuple):
    """The card the active player holds between drawing and placing it."""

    seat: int
    pile: int
    card: PileCard


class Placed(NamedTuple):
    """A card in a collection: the face kept up, the face lying under it, and
    whether the player who placed it kept the side that was shown on the pile."""

    card_id: int
    face: Face
    other_face: Face
    placed_by: int
    side: pb.Side.ValueType


@dataclass(frozen=True, slots=True)
class Scoring:
    """End-of-game tallies (TrophiesAwarded)."""

    counts: tuple[tuple[int, ...], ...]  # per family (FAMILIES order), per seat
    winners: tuple[int | None, ...]  # per family: the trophy's winner, None on a tie
    spiders: tuple[int, ...]  # per seat
    penalised_seat: int | None


@dataclass(frozen=True, slots=True)
class Result:
    """GameFinished."""

    stars: tuple[int, ...]
    winner: int
    won_by_age: bool
    youngest_unknown: bool = False  # won by age, nobody's age known: the first player stood in


@dataclass(frozen=True, slots=True)
class MookiState:
    phase: pb.Phase.ValueType = pb.PHASE_UNSPECIFIED
    stars: tuple[int, ...] = ()  # per family, FAMILIES order
    youngest_seat: int = 0
    active_seat: int = 0
    piles: tuple[tuple[PileCard, ...], ...] = ()  # top card first
    dealt: tuple[tuple[PileCard, ...], ...] = ()  # the piles as dealt, top card first (engines/mooki/memory.py)
    collections: tuple[tuple[Placed, ...], ...] = ((), ())  # bottom card first
    drawn: Drawn | None = None
    scoring: Scoring | None = None
    trophies: tuple[tuple[FamilyId, ...], ...] = ((), ())  # families held, per seat
    discarded: tuple[int, FamilyId, bool] | None = None  # (seat, family, auto)
    result: Result | None = None
    options: pb.Options | None = None  # resolved; read-only by convention
