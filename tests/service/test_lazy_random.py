"""service/app/model/lazy_random.py: a generator seeded on its first draw draws exactly what the
generator it stands for draws."""

from __future__ import annotations

import random

import pytest

from service.app.model.lazy_random import LazyRandom
from service.app.model.seeding import BOT, DECIDE, SETUP, game_rng


def _draws(rng: random.Random) -> list[object]:
    deck = list(range(40))
    rng.shuffle(deck)
    return [
        rng.random(),
        rng.choice("abcdefgh"),
        rng.randrange(1000),
        rng.randint(1, 6),
        rng.sample(range(50), 5),
        rng.uniform(0, 1),
        rng.gauss(0, 1),
        rng.gauss(0, 1),
        rng.getrandbits(100),
        rng.randbytes(5),
        deck,
    ]


@pytest.mark.parametrize("purpose", [SETUP, DECIDE, BOT])
@pytest.mark.parametrize("seed", [0, 1, 2**62 + 12345])
def test_it_draws_the_same_numbers_as_the_seeded_generator(seed: int, purpose: str) -> None:
    for version in (0, 1, 57):
        lazy = LazyRandom(lambda: game_rng(seed, purpose, version))  # noqa: B023 (used at once)
        assert _draws(lazy) == _draws(game_rng(seed, purpose, version))


def test_it_seeds_itself_only_when_drawn_from() -> None:
    made: list[int] = []

    def make() -> random.Random:
        made.append(1)
        return game_rng(7, DECIDE, 3)

    lazy = LazyRandom(make)
    assert made == []
    state = lazy.getstate()
    assert made == [1] and state == game_rng(7, DECIDE, 3).getstate()
    lazy.random()
    assert made == [1]


def test_seeding_or_setting_the_state_replaces_the_pending_seed() -> None:
    lazy = LazyRandom(lambda: game_rng(7, DECIDE, 3))
    lazy.seed(99)
    assert lazy.random() == random.Random(99).random()
    other = LazyRandom(lambda: game_rng(7, DECIDE, 3))
    other.setstate(random.Random(5).getstate())
    assert other.random() == random.Random(5).random()
