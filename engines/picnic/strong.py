"""The picnic's strong bot: the information-set search of engines/search.py, in
worlds built from what every player knows.

Everybody knows the board and its pieces, the backs of the tiles in the lid, every
tile turned over so far (so the tiles left, per back), and the places where a Rain
tile went back face down (the table saw it; the bot remembers, as the greedy bot
does). Nobody knows which face lies at any other place: `determinise` keeps the Rain
tiles where they went back and deals the other tiles left, per back and sorted first
(two states nobody can tell apart give the same worlds for the same random draws),
to the places of that back. The players win or lose together: every seat's reward is
the team's. It searches the choice of where to draw (or to play the tile it kept
instead), where chance and what nobody knows weigh; the moves whose outcome is on the
table (a route, a friend, the Tent, the Dragon) are the greedy bot's, whose reading of
the table ranks them all (measured: a search over them, with this budget, played
worse: docs/GAMES.md, "The bots"). Places of one back that nobody knows more of are one move to the search
(it draws at the first of them): the tiles left could lie at any."""

from __future__ import annotations

import math
import random
from collections import Counter

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.picnic import rules
from engines.picnic.bots import _dragon_to_come, greedy_bot, potential
from engines.picnic.state import PicnicState
from engines.picnic.tiles import Tile
from engines.search import SearchBot, SearchGame


def determinise(state: PicnicState, seat: int, rng: random.Random) -> PicnicState:
    """A world nobody at the table can tell from `state`."""
    if not state.lid or state.result is not None:
        return state
    lid = list(state.lid)
    for back in sorted(set(state.backs)):
        occupied = [place for place, tile in enumerate(lid) if tile is not None and state.backs[place] == back]
        tiles: Counter[Tile] = Counter(tile for tile in lid if tile is not None and tile.back == back)
        rains = [place for place in occupied if place in state.rain_places]
        rain = Tile(pb.TILE_KIND_RAIN, 0, back)
        tiles[rain] -= len(rains)  # the Rain tiles seen going back lie where they went
        for place in rains:
            lid[place] = rain
        places = [place for place in occupied if place not in state.rain_places]
        dealt = sorted(tiles.elements())
        rng.shuffle(dealt)
        for place, tile in zip(places, dealt, strict=True):
            lid[place] = tile
    return rules.replace(state, lid=tuple(lid))


def moves(state: PicnicState, seat: int) -> list[pb.Command]:
    """The moves worth searching: one draw per back of the places nobody knows more of
    (the Rain places only when no other is left), and of the other legal moves the
    `WIDTH` the greedy bot's reading of the table likes best (a route of Facteur Souris
    or of a friend has dozens of ways: the search's budget goes to the likely ones)."""
    legal = rules.legal_commands(state, seat)
    draws = [command for command in legal if command.HasField("draw")]
    others = _best_of(state, seat, [command for command in legal if not command.HasField("draw")])
    if not draws:
        return others
    unknown = [command for command in draws if command.draw.place not in state.rain_places] or draws
    first_of_back: dict[int, pb.Command] = {}
    for command in unknown:
        first_of_back.setdefault(state.backs[command.draw.place], command)
    return [*first_of_back.values(), *others]


WIDTH = 3


def _best_of(state: PicnicState, seat: int, commands: list[pb.Command]) -> list[pb.Command]:
    """The `WIDTH` commands whose outcome the greedy bot's `potential` values most, in
    the order of `commands` (none of them draws a tile: their outcomes are on the
    table: were `decide` to draw a number for one, a fresh generator keeps it the
    same every time)."""
    if len(commands) <= WIDTH:
        return commands
    dragon_to_come = _dragon_to_come(state)
    scored = []
    for index, command in enumerate(commands):
        after = state
        for event in rules.decide(state, seat, command, random.Random(0)):
            after = rules.evolve(after, event)
        scored.append((potential(after, seat, dragon_to_come), -index))
    kept = sorted(-index for _, index in sorted(scored, reverse=True)[:WIDTH])
    return [commands[index] for index in kept]


# How much of the greedy bot's `potential` (100 an invitation) makes a win about e
# times as likely, and the potential of an even game.
POTENTIAL_SCALE, EVEN = 80.0, 250.0


def rewards(state: PicnicState) -> tuple[float, ...]:
    """The team's, for every seat: 1 won, 0 lost; before the end, a guess from the
    greedy bot's reading of the table, less for each night already down."""
    if state.result is not None:
        won = 1.0 if state.result.won else 0.0
    else:
        active = state.active_seat
        value = potential(state, active, _dragon_to_come(state)) - NIGHT_COST * len(state.nights)
        # `potential` counts the active seat's kept tile: the others' count too, whoever acts next.
        value += sum(1.0 + tile.value for seat, tile in enumerate(state.kept) if tile is not None and seat != active)
        won = 1.0 / (1.0 + math.exp(-(value - EVEN) / POTENTIAL_SCALE))
    return (won,) * state.seat_count


# A night down brings the sixth, which loses the game, nearer.
NIGHT_COST = 25.0


def _to_act(state: PicnicState) -> int | None:
    to_act = rules.status(state).to_act
    return to_act[0] if to_act else None


SEARCH: SearchGame[PicnicState, pb.Command] = SearchGame(
    legal=moves,
    decide=rules.decide,
    evolve=rules.evolve,
    to_act=_to_act,
    rewards=rewards,
    policy=greedy_bot,
    determinise=determinise,
    worth=lambda state, seat: state.phase == pb.PHASE_DRAW,
)
# Measured on the project's machine (docs/GAMES.md, "The strong bots"): the p99 of a
# move's CPU time stays under 100 ms.
ITERATIONS, HORIZON = 40, 1
strong_bot = SearchBot(SEARCH, iterations=ITERATIONS, horizon=HORIZON)
