"""Every picnic game ends, whatever its players do (seeds/picnic/RULES.md, decision 20):
the Rain tiles go back to the lid at most RAIN_RETURNS times, then leave the game when
they fall; every other tile leaves the lid when it is drawn. So a game draws at most
RAIN_RETURNS + (its Rain tiles) + (its other tiles) tiles: 10 + 3 + 34 = 47 with every
option's tiles in. Played here by players who do all they can not to end it."""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st
from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.contract import SeatInfo
from engines.picnic import ENGINE
from engines.picnic.rules import RAIN_RETURNS
from engines.picnic.state import PicnicState
from engines.picnic.tiles import lid_tiles
from tests.picnic.helpers import NIGHT, RAIN, at, dealt, draw, facteur, place, run, started

Policy = Callable[[PicnicState, int, list[pb.Command], random.Random], pb.Command]
EVERY_TILE = pb.Options(cold_dragon=True, trap_rain=True)
MOST_DRAWS = RAIN_RETURNS + 3 + 34  # the bound of the docstring, with every option's tiles


def most_draws(options: pb.Options) -> int:
    """RAIN_RETURNS, then each Rain tile once more, then every other tile once."""
    tiles = lid_tiles(ENGINE.resolve_options(options, [SeatInfo()]))
    rains = sum(tile.kind == pb.TILE_KIND_RAIN for tile in tiles)
    return RAIN_RETURNS + rains + (len(tiles) - rains)


def _action(command: pb.Command) -> str:
    return str(command.WhichOneof("action"))


def known_rain(state: PicnicState, seat: int, legal: list[pb.Command], rng: random.Random) -> pb.Command:
    """Always the place where everyone saw a Rain tile go back; else the first place.
    Keeps every Facteur Souris tile it can, discards the drawn one otherwise, never uses
    a kept tile before drawing, walks friends away from Facteur Souris, runs home."""
    draws = [c for c in legal if _action(c) == "draw"]
    if draws:
        rainy = [c for c in draws if c.draw.place in state.rain_places]
        return (rainy or draws)[0]
    by_action = {_action(c): c for c in legal}
    for stalling in ("keep_tile", "take_shelter"):
        if stalling in by_action:
            return by_action[stalling]
    discards = [c for c in legal if _action(c) == "discard_tile" and c.discard_tile.source == pb.TILE_SOURCE_DRAWN]
    if discards:
        return discards[0]
    friends = [c for c in legal if _action(c) == "move_friend"]
    if friends:  # a Friend tile must be used: as far from Facteur Souris as it goes
        board = state.board
        return max(friends, key=lambda c: board.path_distance[state.facteur][c.move_friend.route[-1]] or 99)
    return legal[0]


def always_keep(state: PicnicState, seat: int, legal: list[pb.Command], rng: random.Random) -> pb.Command:
    """Keeps whenever it may, else uses the kept tile rather than the drawn one; draws
    at random, a known Rain place first one time in two."""
    by_action = {_action(c): c for c in legal}
    if "keep_tile" in by_action:
        return by_action["keep_tile"]
    draws = [c for c in legal if _action(c) == "draw"]
    if draws:
        rainy = [c for c in draws if c.draw.place in state.rain_places]
        return rng.choice(rainy if rainy and rng.random() < 0.5 else draws)
    kept = [c for c in legal if _action(c) == "move_facteur" and c.move_facteur.source == pb.TILE_SOURCE_KEPT]
    return rng.choice(kept or legal)


def never_move_a_friend(state: PicnicState, seat: int, legal: list[pb.Command], rng: random.Random) -> pb.Command:
    """Moves friends only when a Friend tile leaves no choice, and then not onto
    Facteur Souris; otherwise plays at random, preferring the known Rain places."""
    draws = [c for c in legal if _action(c) == "draw"]
    if draws:
        rainy = [c for c in draws if c.draw.place in state.rain_places]
        return rng.choice(rainy or draws)
    friends = [c for c in legal if _action(c) == "move_friend"]
    if friends:
        away = [c for c in friends if c.move_friend.route[-1] != state.facteur]
        return rng.choice(away or friends)
    return rng.choice(legal)


POLICIES: dict[str, Policy] = {
    "known_rain": known_rain,
    "always_keep": always_keep,
    "never_move_a_friend": never_move_a_friend,
}


def play_out(state: PicnicState, policy: Policy, rng: random.Random, most_commands: int) -> tuple[PicnicState, int]:
    """Plays `policy` for every seat until the game ends or `most_commands` were played;
    the state then and the tiles drawn."""
    draws = 0
    for _ in range(most_commands):
        status = ENGINE.status(state)
        if status.finished:
            break
        seat = status.to_act[0]
        command = policy(state, seat, ENGINE.legal_commands(state, seat), rng)
        draws += command.WhichOneof("action") == "draw"
        state, _ = run(state, seat, command)
    return state, draws


def test_the_bound_counts_every_tile_of_the_box() -> None:
    assert most_draws(EVERY_TILE) == MOST_DRAWS == 47
    assert most_draws(pb.Options()) < MOST_DRAWS


@settings(max_examples=60)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    policy=st.sampled_from(sorted(POLICIES)),
    seats=st.integers(min_value=1, max_value=4),
    options=st.sampled_from([pb.Options(), EVERY_TILE, pb.Options(board=pb.BOARD_HARD, trap_rain=True)]),
)
def test_every_game_ends_whatever_the_players_do(seed: int, policy: str, seats: int, options: pb.Options) -> None:
    state, draws = play_out(dealt(options, seats, seed), POLICIES[policy], random.Random(seed), 10_000)
    assert ENGINE.status(state).finished, f"{policy}: no end after 10,000 moves"
    assert draws <= most_draws(options) <= MOST_DRAWS


def test_after_ten_returns_a_rain_tile_that_falls_leaves_the_game() -> None:
    state = place(started(first=[RAIN, NIGHT, facteur(1)]), facteur=at("C4"))
    for turn in range(RAIN_RETURNS):
        state, events = run(state, state.active_seat, draw(0))
        assert not events[1].rain_fell.left_game, turn
    assert state.lid[0] == RAIN and state.rains_back == RAIN_RETURNS
    state, events = run(state, state.active_seat, draw(0))
    assert events[1].rain_fell.left_game and events[1].rain_fell.place == 0
    assert state.lid[0] is None and state.removed[-1] == RAIN


def test_endless_rain_keeps_the_rulebooks_rain_and_a_game_may_then_never_end() -> None:
    endless = pb.Options(endless_rain=True)
    state = place(started(endless, first=[RAIN, NIGHT]), facteur=at("C4"))
    for _ in range(3 * RAIN_RETURNS):
        state, events = run(state, state.active_seat, draw(0))
        assert not events[1].rain_fell.left_game
    assert state.lid[0] == RAIN
    looping, draws = play_out(started(endless, first=[RAIN]), known_rain, random.Random(7), 2_000)
    assert not ENGINE.status(looping).finished and draws > 10 * MOST_DRAWS
