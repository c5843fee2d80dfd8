"""The greedy bot weighs the last card (seeds/mooki/RULES.md, decision 8): with the card
that ends the game in hand it keeps the face whose end of game is best for it — as the
engine itself then scores it — and it wins against the random bot at least as often as
the bot before it did (94.6% of the first 1,000 games of tests/mooki/duel.py)."""

from __future__ import annotations

import random

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import SeatInfo
from engines.mooki import ENGINE
from engines.mooki.bots import greedy_bot, random_bot
from engines.mooki.state import MookiState
from tests.mooki.duel import win_rate
from tests.mooki.helpers import place, run

# The greedy bot before it weighed the last card, against the random bot, over the
# first 1,000 games of tests/mooki/duel.py (2,000: 94.9%).
BEFORE = 0.946


def ending(state: MookiState, seat: int, side: pb.Side.ValueType) -> tuple[bool, int]:
    """What the engine makes of keeping `side` of the last card: whether `seat` wins,
    and by how many stars (a trophy to give back goes the guide's way)."""
    state, _ = run(state, seat, place(side))
    if state.phase == pb.PHASE_DISCARD_TROPHY:
        state, _ = run(state, state.active_seat, pb.Command(discard_trophy=pb.DiscardTrophy(auto=True)))
    status = ENGINE.status(state)
    return status.winners == (seat,), status.scores[seat] - status.scores[1 - seat]


def test_with_the_last_card_the_greedy_bot_keeps_the_face_that_ends_the_game_best() -> None:
    seen = differing = 0
    for seed in range(300):
        rng = random.Random(seed)
        seats = [SeatInfo(), SeatInfo()]
        state = ENGINE.initial_state()
        for event in ENGINE.setup(ENGINE.resolve_options(pb.Options(), seats), seats, rng):
            state = ENGINE.evolve(state, event)
        while not ENGINE.status(state).finished:
            seat = ENGINE.status(state).to_act[0]
            bot = greedy_bot if seat == seed % 2 else random_bot
            command = bot(state, seat, rng)
            if bot is greedy_bot and state.phase == pb.PHASE_PLACE and any(not pile for pile in state.piles):
                outcomes = {side: ending(state, seat, side) for side in (pb.SIDE_SHOWN, pb.SIDE_HIDDEN)}
                assert outcomes[command.place.side] == max(outcomes.values()), (seed, outcomes)
                seen += 1
                differing += len(set(outcomes.values())) > 1
            for event in ENGINE.decide(state, seat, command, rng):
                state = ENGINE.evolve(state, event)
    assert seen > 100 and differing > 20  # the last card often matters


def test_the_greedy_bot_beats_the_random_bot_at_least_as_often_as_before() -> None:
    assert win_rate(1000, "greedy", "random") >= BEFORE
