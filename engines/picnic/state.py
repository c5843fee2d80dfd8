"""The state of a picnic game: immutable and complete (the faces in the lid included).

The drawn tile and the result are named tuples: a replay makes one per tile drawn,
and a tuple costs half as much to make as a frozen dataclass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.picnic.board import BOARDS, Board, BoardId
from engines.picnic.tiles import Tile, TileBackId


class Drawn(NamedTuple):
    """The tile turned over by the active player, until its effect is played."""

    seat: int
    place: int
    tile: Tile


class Result(NamedTuple):
    won: bool
    reason: pb.LossReason.ValueType = pb.LOSS_REASON_UNSPECIFIED


@dataclass(frozen=True, slots=True)
class PicnicState:
    phase: pb.Phase.ValueType = pb.PHASE_UNSPECIFIED
    board_id: BoardId = pb.BOARD_EASY
    seat_count: int = 0
    active_seat: int = 0
    backs: tuple[TileBackId, ...] = ()  # per lid place, as dealt (everyone sees them)
    lid: tuple[Tile | None, ...] = ()  # per lid place; None once its tile left for good
    facteur: int = 0
    friends: tuple[int | None, ...] = ()  # per friend: its cell, None once at the picnic
    dragon: int | None = None
    tent: int | None = None
    tent_tile: Tile | None = None
    nights: tuple[Tile, ...] = ()  # the filled night spaces
    kept: tuple[Tile | None, ...] = ()  # per seat
    drawn: Drawn | None = None
    removed: tuple[Tile, ...] = ()  # out of the game, in order
    # Places where everyone saw a Rain tile go back face down. Never shown in a
    # view (players must remember); the bots remember perfectly.
    rain_places: frozenset[int] = frozenset()
    rains_back: int = 0  # how many times a Rain tile went back to the lid
    result: Result | None = None
    options: pb.Options | None = None  # resolved; read-only by convention

    @property
    def board(self) -> Board:
        return BOARDS[self.board_id]

    @property
    def taking_effect(self) -> bool:
        """Between the events of one move: the tile drawn takes effect with the move's
        next events (a Rain without a choice of shelter, a Night...), nobody acts."""
        return self.phase == pb.PHASE_DRAW and self.drawn is not None

    @property
    def invited_count(self) -> int:
        return sum(cell is None for cell in self.friends)
