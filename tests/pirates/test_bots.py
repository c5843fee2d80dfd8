"""Pirates & Compagnie bots: the greedy bot plays sensibly (and the property suite
checks that both bots play legal moves on what their seat knows)."""

from __future__ import annotations

import random

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import fold
from engines.pirates import ENGINE
from engines.pirates.bots import BOTS, greedy_bot
from engines.pirates.cards import PARROT
from tests.pirates.helpers import (
    CIRCLE,
    DRAW,
    END_TURN,
    FLOWER,
    SQUARE,
    STAR,
    bottle,
    pirate,
    play,
    run,
    seats,
    sleeping,
    table,
)

RNG = random.Random(0)


def test_greedy_keeps_its_parrot_when_another_card_fits() -> None:
    state = table([[PARROT, pirate(FLOWER, 1), pirate(STAR, 2)], [pirate(SQUARE, 3)]], pirate(FLOWER, 5))
    assert greedy_bot(state, 0, RNG) == play(pirate(FLOWER, 1))


def test_greedy_asks_for_the_colour_it_holds_most() -> None:
    hand = [PARROT, pirate(CIRCLE, 1), pirate(CIRCLE, 2), pirate(STAR, 2)]
    state = table([hand, [pirate(SQUARE, 3)]], pirate(FLOWER, 5))
    assert greedy_bot(state, 0, RNG) == play(PARROT, CIRCLE)


def test_greedy_hits_a_player_about_to_win_the_round() -> None:
    hand = [pirate(FLOWER, 1), sleeping(FLOWER), pirate(FLOWER, 2), pirate(FLOWER, 3)]
    state = table([hand, [pirate(SQUARE, 3)], [pirate(SQUARE, 4), pirate(SQUARE, 6)]], pirate(FLOWER, 5))
    assert greedy_bot(state, 0, RNG) == play(sleeping(FLOWER))


def test_greedy_answers_a_bottle_and_calls_ohe() -> None:
    options = pb.Options(ohe_variant=True)
    state = table(
        [[bottle(FLOWER), pirate(STAR, 1)], [bottle(STAR), pirate(SQUARE, 3)]], pirate(FLOWER, 5), options=options
    )
    state, _ = run(state, 0, play(bottle(FLOWER), ohe=True))
    assert greedy_bot(state, 1, RNG) == play(bottle(STAR), ohe=True)


def test_greedy_draws_and_ends_its_turn_when_nothing_fits() -> None:
    state = table([[pirate(STAR, 1)], [pirate(SQUARE, 3)]], pirate(FLOWER, 5), pile=[pirate(CIRCLE, 9)])
    assert greedy_bot(state, 0, RNG) == DRAW
    state, _ = run(state, 0, DRAW)
    assert greedy_bot(state, 0, RNG) == END_TURN


def test_greedy_beats_random_play() -> None:
    """Over 30 two-player games (fixed seeds), the greedy bot wins nearly all."""
    wins = 0
    for seed in range(30):
        resolved = ENGINE.resolve_options(pb.Options(island_distance=2), seats(2))
        state = fold(ENGINE, ENGINE.setup(resolved, seats(2), random.Random(seed)))
        rng = random.Random(seed)
        while not ENGINE.status(state).finished:
            seat = ENGINE.status(state).to_act[0]
            command = BOTS["greedy" if seat == seed % 2 else "random"](state, seat, rng)
            state, _ = run(state, seat, command, seed=rng.randrange(1000))
        wins += state.winner == seed % 2
    assert wins >= 27
