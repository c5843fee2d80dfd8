"""`ludotheque play`: a human at the terminal against a bot, in-process or remote."""

from __future__ import annotations

import subprocess
import sys

from service.cli.play import parse_seat, parse_seats
from tests.support.server import ROOT, ServerProcess


def play(*args: str, answers: str = "1\n" * 200) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service", "play", "mooki", *args],
        cwd=ROOT,
        input=answers,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_human_plays_a_whole_game_against_a_bot_in_process() -> None:
    done = play("--seat", "Cléo:6", "--seat", "bot:greedy:40")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Cléo, Greedy bot" in out and "Cléo, the youngest, starts." in out
    assert "Your move, Cléo" in out
    assert "Cléo holds a card: shown side" in out and "(hidden from you)" not in out  # her own card, both faces
    # The deal is random: a win by stars, or a tie the youngest player takes.
    assert "Scoring" in out and "Game over." in out and ("stars to" in out or "stars each" in out)


def test_a_seat_given_no_name_is_player_n_in_the_terminals_language() -> None:
    done = play("--seat", "", "--seat", "bot:greedy", "--locale", "fr", answers="q\n")
    assert done.returncode == 0, done.stderr
    assert ": Joueur 1, Robot malin\n" in done.stdout and "Your move, Joueur 1 (" in done.stdout
    assert "Player" not in done.stdout


def test_playing_through_a_running_server(server: ServerProcess) -> None:
    done = play("--server", server.target)
    assert done.returncode == 0, done.stderr
    assert "Game over." in done.stdout


def test_quitting_and_bad_answers() -> None:
    done = play(answers="7\nnope\nq\n")
    assert done.returncode == 0
    assert done.stdout.count("Please type one of the numbers above.") == 2
    assert done.stdout.rstrip().endswith("Bye.")


def test_unknown_games_are_named() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service", "play", "chess"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "Unknown game 'chess'" in done.stdout


def test_seat_specs() -> None:
    assert parse_seat("Cléo") == {"name": "Cléo"}
    assert parse_seat("Cléo:6") == {"name": "Cléo", "age": 6}
    assert parse_seat("") == {"name": ""}
    assert parse_seat("bot:greedy") == {"name": "Greedy bot", "bot": "greedy"}
    assert parse_seat("bot:random:7") == {"name": "Random bot", "bot": "random", "age": 7}


def test_bots_of_one_kind_get_numbered_names() -> None:
    names = [seat["name"] for seat in parse_seats(["You", "bot:random", "bot:greedy", "bot:random"])]
    assert names == ["You", "Random bot 1", "Greedy bot", "Random bot 2"]
