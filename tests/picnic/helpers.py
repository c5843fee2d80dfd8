"""Building picnic situations for tests: rigged lids, pieces put where a test
needs them, and what the property suite needs (inventory, commands, perturb)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import replace

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.contract import SeatInfo, Viewer
from engines.picnic import ENGINE
from engines.picnic.board import BOARDS, parse_cell_name
from engines.picnic.data import DATA
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


def draw(place_: int) -> pb.Command:
    return pb.Command(draw=pb.Draw(place=place_))


def walk(*route: int, source: pb.TileSource.ValueType = pb.TILE_SOURCE_DRAWN) -> pb.Command:
    return pb.Command(move_facteur=pb.MoveFacteur(source=source, route=route))


def use_kept(*route: int) -> pb.Command:
    return walk(*route, source=pb.TILE_SOURCE_KEPT)


def keep() -> pb.Command:
    return pb.Command(keep_tile=pb.KeepTile())


def discard(source: pb.TileSource.ValueType) -> pb.Command:
    return pb.Command(discard_tile=pb.DiscardTile(source=source))


def move_friend(friend_: int, *route: int) -> pb.Command:
    return pb.Command(move_friend=pb.MoveFriend(friend=friend_, route=route))


def place_tent(cell: int) -> pb.Command:
    return pb.Command(place_tent=pb.PlaceTent(cell=cell))


def move_dragon(cell: int) -> pb.Command:
    return pb.Command(move_dragon=pb.MoveDragon(cell=cell))


def rulebook_outcome(state: PicnicState) -> tuple[int, ...] | None:
    """« La partie s'arrête immédiatement »: won (every seat) when Facteur Souris is
    at the picnic site with at least 4 friends there; lost (no seat) when the sixth
    night is down, or when the dragon stands on his space; None otherwise."""
    board = state.board
    if state.facteur == board.picnic and sum(cell is None for cell in state.friends) >= 4:
        return tuple(range(state.seat_count))
    if len(state.nights) >= board.night_spaces or (state.dragon is not None and state.dragon == state.facteur):
        return ()
    return None


# --- what the property suite needs -------------------------------------------------


def inventory(state: PicnicState) -> Counter[Hashable]:
    """Every tile wherever it is: in the lid, drawn, kept, on a night space, up as
    the Tent, or out of the game."""
    items: Counter[Hashable] = Counter(tile for tile in state.lid if tile is not None)
    items.update(tile for tile in state.kept if tile is not None)
    items.update(state.removed)
    items.update(state.nights)
    if state.drawn is not None:
        items[state.drawn.tile] += 1
    if state.tent_tile is not None:
        items[state.tent_tile] += 1
    return items


def command_universe(state: PicnicState) -> list[pb.Command]:
    """Legal and illegal moves alike: a sample of the active seat's legal moves
    (every one would make the suite slow), and broken variants of them."""
    if state.phase in (pb.PHASE_UNSPECIFIED, pb.PHASE_FINISHED):
        return [draw(0), keep(), pb.Command()]
    legal = ENGINE.legal_commands(state, state.active_seat)
    sample = legal[:: max(1, len(legal) // 6)]
    board = state.board
    empty = [p for p, tile in enumerate(state.lid) if tile is None]
    commands = [*sample, draw(len(state.lid)), draw(99), *(draw(p) for p in empty[:1])]
    near = board.path_neighbours[state.facteur]
    for source in (pb.TILE_SOURCE_DRAWN, pb.TILE_SOURCE_KEPT, pb.TILE_SOURCE_UNSPECIFIED):
        commands += [walk(source=source), walk(near[0], source=source), walk(board.picnic, source=source)]
    for command in sample:
        action = command.WhichOneof("action")
        if action in ("move_facteur", "move_friend"):
            moved = getattr(command, action)
            longer, shorter = pb.Command(), pb.Command()
            longer.CopyFrom(command)
            getattr(longer, action).route.append(getattr(command, action).route[0])
            shorter.CopyFrom(command)
            del getattr(shorter, action).route[-1:]
            commands += [longer, shorter]
            if action == "move_friend":
                commands.append(move_friend(len(state.friends), *moved.route))
    commands += [keep(), *(discard(s) for s in (pb.TILE_SOURCE_DRAWN, pb.TILE_SOURCE_KEPT, pb.TILE_SOURCE_UNSPECIFIED))]
    commands += [move_friend(LAPIN, board.picnic), move_friend(9, 0)]
    commands += [place_tent(board.picnic), place_tent(board.house), place_tent(0), place_tent(999)]
    commands += [move_dragon(state.dragon if state.dragon is not None else 0), move_dragon(999), pb.Command()]
    shelters = (pb.SHELTER_UNSPECIFIED, pb.SHELTER_HOUSE, pb.SHELTER_TENT)
    commands += [pb.Command(take_shelter=pb.TakeShelter(shelter=shelter)) for shelter in shelters]
    return commands


def perturb(state: PicnicState, viewer: Viewer, rng: random.Random) -> PicnicState:
    """A state that differs from `state` only in what `viewer` cannot know: which
    face lies at each occupied place of the lid, among places with the same back
    (a Rain tile that went back included: the view must not give it away). Once
    the game is over, the lid is turned over for everyone: nothing is hidden."""
    if viewer.is_admin or not state.lid or state.result is not None:
        return state
    lid = list(state.lid)
    for back in (PLAIN, ENVELOPE):
        places = [p for p, tile in enumerate(lid) if tile is not None and state.backs[p] == back]
        tiles = [lid[p] for p in places]
        rng.shuffle(tiles)
        for p, tile in zip(places, tiles, strict=True):
            lid[p] = tile
    return replace(state, lid=tuple(lid))
