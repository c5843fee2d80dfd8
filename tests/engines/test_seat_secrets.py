"""A kind's `seat_secrets` (its describer's, served by GetGameKind, which the web app
reads to pass one screen behind a curtain or not) says what its views do: a kind
without secrets shows every seat what a spectator sees, at every step of random games;
a kind with secrets shows some seat something a spectator does not, in one game at least."""

from __future__ import annotations

import random

import pytest

from engines.contract import SeatInfo, Viewer, fold
from engines.registry import GAMES
from service.app.views.kinds import game_kind
from tests.support.kinds import EVERY_KIND

GAMES_PLAYED = 4
STEPS = 120


def differing_views(kind: str) -> int:
    """How many (step, seat) pairs of random games show a seat a view a spectator's differs from."""
    engine = GAMES[kind].engine
    differing = 0
    for seed in range(GAMES_PLAYED):
        rng = random.Random(seed)
        seats = [SeatInfo(age=6 + i) for i in range(max(engine.min_seats, min(3, engine.max_seats)))]
        state = fold(engine, engine.setup(engine.resolve_options(engine.options_type(), seats), seats, rng))
        for _ in range(STEPS):
            spectator = engine.view(state, Viewer.spectator())
            differing += sum(engine.view(state, Viewer.player(seat)) != spectator for seat in range(len(seats)))
            status = engine.status(state)
            if status.finished:
                break
            seat = status.to_act[0]
            state = fold(engine, engine.decide(state, seat, rng.choice(engine.legal_commands(state, seat)), rng), state)
    return differing


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_seat_secrets_says_what_the_views_show(kind: str) -> None:
    secrets = GAMES[kind].describer.seat_secrets
    assert game_kind(GAMES[kind].engine).seat_secrets is secrets
    differing = differing_views(kind)
    assert (differing > 0) is secrets, f"{kind}: seat_secrets={secrets}, {differing} seat views differ"
