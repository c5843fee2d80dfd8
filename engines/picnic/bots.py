"""The picnic's bots. They read only what every player knows: the board and its
pieces, the backs in the lid, the tiles turned over so far, and where a Rain tile
went back (the table saw it; the bots simply remember perfectly). They never read
a face lying down in the lid."""

from __future__ import annotations

import random
from collections import Counter

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.picnic.board import Board
from engines.picnic.rules import FRIENDS_NEEDED, decide, evolve, legal_commands
from engines.picnic.state import PicnicState
from engines.picnic.tiles import Tile, TileBackId, lid_tiles

WON, LOST = 1e6, -1e6
# Using the kept tile before drawing must be worth about an invitation.
KEPT_TILE_THRESHOLD = 20.0


def random_bot(state: PicnicState, seat: int, rng: random.Random) -> pb.Command:
    """Any legal move, uniformly."""
    return rng.choice(legal_commands(state, seat))


def greedy_bot(state: PicnicState, seat: int, rng: random.Random) -> pb.Command:
    """Looks one move ahead on the board, and picks tiles from the back most
    likely to help, never where it saw a Rain tile go back."""
    legal = legal_commands(state, seat)
    if state.phase == pb.PHASE_DRAW:
        uses = [c for c in legal if c.WhichOneof("action") == "move_facteur"]
        if uses:
            score, command = _best(state, seat, uses, rng)
            if score > potential(state, seat, _dragon_to_come(state)) + KEPT_TILE_THRESHOLD:
                return command
        return pb.Command(draw=pb.Draw(place=choose_place(state, rng)))
    return _best(state, seat, legal, rng)[1]


def _best(state: PicnicState, seat: int, commands: list[pb.Command], rng: random.Random) -> tuple[float, pb.Command]:
    """The command whose outcome is worth most (no draw among them: their
    outcomes are on the table)."""
    scored = []
    dragon_to_come = _dragon_to_come(state)
    for command in commands:
        after = state
        for event in decide(state, seat, command, rng):
            after = evolve(after, event)
        scored.append((potential(after, seat, dragon_to_come), rng.random(), command))
    best = max(scored, key=lambda item: (item[0], item[1]))
    return best[0], best[2]


def _manhattan(board: Board, a: int, b: int) -> int:
    (row_a, col_a), (row_b, col_b) = divmod(a, board.width), divmod(b, board.width)
    return abs(row_a - row_b) + abs(col_a - col_b)


def _friend_cost(board: Board, facteur: int, cell: int) -> float:
    """How far a friend is from an invitation: walked to Facteur Souris, or
    Facteur Souris walking to it (tiles move him about two spaces)."""
    walk = _manhattan(board, cell, facteur) + (0 if board.invitable(facteur) else 2)
    along = board.path_distance[facteur][cell]
    if board.path[cell] and board.invitable(cell) and along is not None:
        return min(walk, along / 2)
    return walk


def _dragon_to_come(state: PicnicState) -> bool:
    return state.dragon is not None and any(t.kind == pb.TILE_KIND_DRAGON for t in _unseen(state))


def potential(state: PicnicState, seat: int, dragon_to_come: bool) -> float:
    """How promising the table looks, from public information only.
    `dragon_to_come`: Dragon tiles are still to be drawn."""
    if state.result is not None:
        return WON if state.result.won else LOST
    board = state.board
    invited = state.invited_count
    needed = max(0, FRIENDS_NEEDED - invited)
    costs = sorted(_friend_cost(board, state.facteur, cell) for cell in state.friends if cell is not None)
    to_picnic = board.path_distance[state.facteur][board.picnic] or 0
    score = 100.0 * min(invited, FRIENDS_NEEDED) + 5.0 * max(0, invited - FRIENDS_NEEDED)
    score -= 3.0 * sum(costs[:needed]) + (4.0 if needed == 0 else 1.0) * to_picnic
    shelter = state.tent if state.tent is not None else board.house
    score -= 0.3 * (board.path_distance[shelter][board.picnic] or 0)
    if state.dragon is not None and dragon_to_come:
        near = _manhattan(board, state.dragon, state.facteur)
        score -= 30.0 if near <= 2 else 0.0
    held = state.kept[seat]
    if held is not None:
        score += 1.0 + held.value
    return score


def _unseen(state: PicnicState) -> Counter[Tile]:
    """The tiles that may lie at the places nobody saw into: every tile of the
    game minus those turned over and out of the lid, and minus the Rain tiles seen
    going back (their places are known)."""
    assert state.options is not None
    unseen = Counter(lid_tiles(state.options))
    out = [*state.removed, *state.nights, *(t for t in state.kept if t is not None)]
    out += [state.tent_tile] if state.tent_tile is not None else []
    out += [state.drawn.tile] if state.drawn is not None else []
    rain = pb.TILE_KIND_RAIN
    out += [Tile(rain, 0, state.backs[place]) for place in state.rain_places]
    unseen.subtract(out)
    return +unseen


def unseen_tiles(state: PicnicState) -> dict[TileBackId, Counter[Tile]]:
    """_unseen, per back."""
    by_back: dict[TileBackId, Counter[Tile]] = {}
    for tile, count in _unseen(state).items():
        if count > 0:
            by_back.setdefault(tile.back, Counter())[tile] = count
    return by_back


def _tile_value(state: PicnicState, tile: Tile) -> float:
    board = state.board
    if tile.kind == pb.TILE_KIND_RAIN:
        shelter = state.tent if state.tent is not None else board.house
        return -float(board.path_distance[state.facteur][shelter] or 0)
    if tile.kind == pb.TILE_KIND_NIGHT:
        return -3.0
    if tile.kind == pb.TILE_KIND_DRAGON:
        return -2.0
    if tile.kind == pb.TILE_KIND_TENT:
        return 1.0 + (board.path_distance[state.facteur][board.house] or 0) / 3
    return 2.0


def choose_place(state: PicnicState, rng: random.Random) -> int:
    """A place whose back promises most, among those not known to hold Rain."""
    occupied = [place for place, tile in enumerate(state.lid) if tile is not None]
    unknown = [place for place in occupied if place not in state.rain_places]
    if not unknown:
        return rng.choice(occupied)
    unseen = unseen_tiles(state)

    def promise(back: TileBackId) -> float:
        tiles = unseen.get(back, Counter())
        total = sum(tiles.values())
        return sum(count * _tile_value(state, tile) for tile, count in tiles.items()) / total if total else 0.0

    best_back = max(sorted({state.backs[p] for p in unknown}), key=promise)
    return rng.choice([place for place in unknown if state.backs[place] == best_back])


BOTS = {"random": random_bot, "greedy": greedy_bot}
