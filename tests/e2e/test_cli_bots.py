"""`ludotheque bots`: each game's bots, and bots played against each other on the
engines (the figures of docs/GAMES.md, "The bots", come from it)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from engines.registry import ENGINES
from tests.support.server import ROOT


def bots(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service", "bots", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_it_lists_each_games_bots() -> None:
    done = bots()
    assert done.returncode == 0, done.stderr
    for kind, engine in ENGINES.items():
        assert f"{kind}: {', '.join(sorted(engine.bots))}\n" in done.stdout
    assert "mooki: greedy, random, strong\n" in done.stdout


def test_versus_counts_every_game_and_the_first_bots_moves() -> None:
    done = bots("--versus", "--game", "pirates", "--games", "6", "--bot", "greedy", "--against", "random")
    assert done.returncode == 0, done.stderr
    said = r"pirates, 2 seats: greedy won (\d+) of 6 games \(.*\) against random, seats alternated"
    won = re.search(said, done.stdout)
    assert won is not None, done.stdout
    assert int(won.group(1)) >= 5  # greedy beats random all but always (measured: 100% of thousands)
    assert re.search(r"greedy's CPU per move: p50 [\d.]+ ms, p99 [\d.]+ ms over \d+ moves", done.stdout)


def test_a_team_of_strong_seats_plays_the_same_deals_as_the_other_team() -> None:
    done = bots("--versus", "--game", "picnic", "--team", "--games", "1", "--seats", "2", "--against", "random")
    assert done.returncode == 0, done.stderr
    assert re.search(r"a team of strong won [01] of 1 games, a team of random [01] of 1 \(", done.stdout), done.stdout


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("--game", "chess"), "no game 'chess'"),
        (("--bot", "clever"), "mooki has no bot 'clever'"),
        (("--seats", "3"), "--seats 2 to 2"),
        (("--games", "0"), "--games is 1 or more"),
        (("--options", '{"nope": 1}'), "--options"),
    ],
)
def test_bad_arguments_are_refused_with_a_clear_error(args: tuple[str, ...], error: str) -> None:
    done = bots("--versus", *args)
    assert done.returncode != 0 and error in done.stderr, done.stderr
