"""Building picnic situations for tests: rigged lids, pieces put where a test
needs them (what the property suite needs is engines/picnic/proof.py)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.contract import SeatInfo
from engines.picnic import ENGINE
from engines.picnic.board import BOARDS, parse_cell_name
from engines.picnic.data import DATA
from engines.picnic.proof import discard as discard  # the commands, as the property suite builds them
from engines.picnic.proof import draw as draw
from engines.picnic.proof import keep as keep
from engines.picnic.proof import move_dragon as move_dragon
from engines.picnic.proof import move_friend as move_friend
from engines.picnic.proof import place_tent as place_tent
from engines.picnic.proof import rulebook_outcome as rulebook_outcome
from engines.picnic.proof import use_kept as use_kept
from engines.picnic.proof import walk as walk
from engines.picnic.state import PicnicState
from engines.picnic.tiles import Tile, lid_tiles

EASY, HARD = BOARDS[pb.BOARD_EASY], BOARDS[pb.BOARD_HARD]
PLAIN, ENVELOPE = pb.TILE_BACK_PLAIN, pb.TILE_BACK_ENVELOPE
LAPIN, ECUREUIL, GRENOUILLE, HERISSON, TAUPE, OURS = range(6)

RAIN = Tile(pb.TILE_KIND_RAIN, 0, PLAIN)
TRAP_RAIN = Tile(pb.TILE_KIND_RAIN, 0, ENVELOPE)
TENT = Tile(pb.TILE_KIND_TENT, 0, ENVELOPE)
NIGHT = Tile(pb.TILE_KIND_NIGHT, 0, PLAIN)


def facteur(steps: int) -> Tile:
    return Tile(pb.TILE_KIND_FACTEUR, steps, PLAIN)


def friend(steps: int) -> Tile:
    return Tile(pb.TILE_KIND_FRIEND, steps, PLAIN)


def dragon(arrows: int) -> Tile:
    return Tile(pb.TILE_KIND_DRAGON, arrows, PLAIN)


def at(name: str, board_id: pb.Board.ValueType = pb.BOARD_EASY) -> int:
    board = BOARDS[board_id]
    return parse_cell_name(board.width, board.height, name)


def cells(*names: str, board_id: pb.Board.ValueType = pb.BOARD_EASY) -> list[int]:
    return [at(name, board_id) for name in names]


def started(options: pb.Options | None = None, seats: int = 2, first: Sequence[Tile] = ()) -> PicnicState:
    """A new game whose lid holds `first` at places 0, 1, 2... and the rest of the
    options' tiles after them, in the data's order."""
    infos = [SeatInfo()] * seats
    resolved = ENGINE.resolve_options(options or pb.Options(), infos)
    placed_first = Counter(first)
    tiles = list(first)
    for tile in lid_tiles(resolved):
        if placed_first[tile] > 0:
            placed_first[tile] -= 1
        else:
            tiles.append(tile)
    if +placed_first:
        raise ValueError(f"these options put no such tiles in the lid: {+placed_first}")
    event = pb.GameStarted(options=resolved, seat_count=seats, first_seat=resolved.first_seat, data_digest=DATA.digest)
    for tile in tiles:
        event.lid.add(back=tile.back, tile=tile.to_proto())
    return ENGINE.evolve(ENGINE.initial_state(), pb.Event(game_started=event))


def dealt(options: pb.Options | None = None, seats: int = 2, seed: int = 1) -> PicnicState:
    infos = [SeatInfo()] * seats
    resolved = ENGINE.resolve_options(options or pb.Options(), infos)
    state = ENGINE.initial_state()
    for event in ENGINE.setup(resolved, infos, random.Random(seed)):
        state = ENGINE.evolve(state, event)
    return state


def place(state: PicnicState, **pieces: object) -> PicnicState:
    """The same state with pieces moved: facteur=cell, friends=(...), dragon=cell, tent=cell."""
    return replace(state, **pieces)  # type: ignore[arg-type]


def run(state: PicnicState, seat: int, command: pb.Command) -> tuple[PicnicState, list[pb.Event]]:
    events = ENGINE.decide(state, seat, command, random.Random(0))
    for event in events:
        state = ENGINE.evolve(state, event)
    return state, events


def kinds(events: Sequence[pb.Event]) -> list[str]:
    return [str(event.WhichOneof("kind")) for event in events]
