"""How often one Mooki Island bot beats another, over many games played on the engine
alone: each bot plays half the games as seat 0 (the youngest, who starts and wins a
tie in stars) and half as seat 1.

    python -m tests.mooki.duel 2000 greedy random     # the greedy bot against the random one
"""

from __future__ import annotations

import random
import sys

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import SeatInfo
from engines.mooki import ENGINE
from engines.mooki.bots import BOTS


def winner(seed: int, bots: tuple[str, str]) -> int:
    """The seat that wins game `seed`, `bots[seat]` playing each seat."""
    rng = random.Random(seed)
    seats = [SeatInfo(), SeatInfo()]
    state = ENGINE.initial_state()
    for event in ENGINE.setup(ENGINE.resolve_options(pb.Options(), seats), seats, rng):
        state = ENGINE.evolve(state, event)
    while not (status := ENGINE.status(state)).finished:
        seat = status.to_act[0]
        for event in ENGINE.decide(state, seat, BOTS[bots[seat]](state, seat, rng), rng):
            state = ENGINE.evolve(state, event)
    return status.winners[0]


def win_rate(games: int, bot: str, against: str) -> float:
    """The share of `games` that `bot` wins against `against`, half of them as each seat."""
    won = 0
    for seed in range(games):
        seat = seed % 2
        bots = (bot, against) if seat == 0 else (against, bot)
        won += winner(seed, bots) == seat
    return won / games


if __name__ == "__main__":
    count, bot, against = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    print(f"{bot} beats {against} in {win_rate(count, bot, against):.1%} of {count} games")
