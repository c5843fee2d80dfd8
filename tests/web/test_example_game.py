"""The example games of docs/NEW_GAME.md (Higher or Lower, `highlow`; Tic-tac-toe) in a real browser,
as the guide's last step promises: on a server that serves the example games, the
lobby offers it, and a whole game against the greedy bot is played by clicking the
choices of the generic board (the web app has no board of its own for it), with
screenshots at its start, middle and end and axe-core on each; the log is the game's
events, once each, in the server's words."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ludotheque import Client
from ludotheque.v1 import game_pb2

from tests.support.browser import Page
from tests.support.server import ServerProcess, watched_server
from tests.web.playing import (
    assert_accessible,
    assert_the_log_is_the_games,
    open_as_seat,
    play_by_clicking,
    wait_for_a_turn,
)

KIND = "highlow"
WIDE = (1366, 768)  # a laptop's screen: every step must fit it (play_by_clicking's `fits`)
CALLS = 19  # the deal turns one card of 20 up; each call turns the next


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    """This module's server serves the example games too (and only it, in tests/web/)."""
    with watched_server(["--example-games"]) as process:
        yield process


def test_higher_or_lower_is_played_to_its_end_by_clicking_the_generic_board(
    clean_page: Page, server: ServerProcess
) -> None:
    page = clean_page
    page.goto(f"{server.http}/")
    page.wait_for(f"form.new-game input[value={KIND}]")  # the lobby offers the example
    with Client(server.target) as lobby:
        created = lobby.create_game(KIND, [{"name": "Cléo"}, {"name": "Robin", "bot": "greedy"}])
    open_as_seat(page, server.http, created.game_id, [{"seat": 0, "name": "Cléo", "token": created.seat_tokens[0]}])
    assert wait_for_a_turn(page) == "move"  # seat 0 calls first
    page.wait_for(f".play-board .generic-board[data-kind={KIND}]")
    assert page.evaluate("document.querySelectorAll('.play-board [data-choice]').length") == 2  # higher, lower
    # A prompt named after a step of another game is not its (Pirates' "call" is ohé!).
    assert page.text(".play-board .prompt").strip() == "Your move: pick one."
    # The fields the proto marks as seats show the players' names, not seat numbers.
    start = shown_fields(page)
    assert start.pop("Face up").isdigit()  # the deal's
    assert start == {
        "Phase": "Call",
        "Active seat": "Cléo",
        "Cards left": str(CALLS),
        "Points": "Cléo 0 · Robin 0",
        "Options": "Ties win no",
    }
    assert_accessible(page)
    page.screenshots("highlow-start")
    clicks = play_by_clicking(page, seed=5, shots="highlow", middle=4, fits=WIDE)
    assert clicks == (CALLS + 1) // 2  # seat 0 calls first, then every other card
    with Client(server.target) as lobby:
        game = lobby.get_game(created.game_id)
    assert game.status == game_pb2.GAME_STATUS_FINISHED
    assert page.text(".outcome-text").strip()
    over = shown_fields(page)
    assert "Active seat" not in over  # nobody is expected to act
    winners = over["Result"].split(" · ")[0]
    assert winners.startswith("Winners ") and set(winners.removeprefix("Winners ").split(", ")) <= {"Cléo", "Robin"}
    assert_the_log_is_the_games(page, server, created.game_id, created.seat_tokens[0])
    assert_accessible(page)
    page.screenshots("highlow-end")


def test_tic_tac_toe_draws_its_declared_grid_as_a_grid_and_is_played_to_its_end(
    clean_page: Page, server: ServerProcess
) -> None:
    """The game that hides nothing (docs/NEW_GAME.md, step 11): its view's `grid`, marked
    `grid_columns = 3`, is a table of three rows of three squares, empty ones blank, and
    each mark clicked lands in its square."""
    page = clean_page
    with Client(server.target) as lobby:
        created = lobby.create_game("tictactoe", [{"name": "Cléo"}, {"name": "Robin", "bot": "greedy"}])
    open_as_seat(page, server.http, created.game_id, [{"seat": 0, "name": "Cléo", "token": created.seat_tokens[0]}])
    assert wait_for_a_turn(page) == "move"
    page.wait_for(".play-board .generic-board[data-kind=tictactoe] table.grid-field")
    assert grid(page) == [["", "", ""], ["", "", ""], ["", "", ""]]
    assert page.evaluate("document.querySelectorAll('.play-board [data-choice]').length") == 9
    page.click(".play-board [data-choice]")  # the first square offered: the top left
    marked = "[...document.querySelectorAll('table.grid-field td')].filter((td) => td.textContent).length"
    page.wait_until(f"{marked} === 2")  # mine, and the bot's answer
    first = grid(page)
    assert first[0][0] == "X" and sum(row.count("O") for row in first) == 1
    assert_accessible(page)
    page.screenshots("tictactoe-start")
    play_by_clicking(page, seed=3, shots="tictactoe", middle=2, fits=WIDE)
    over = grid(page)
    with Client(server.target) as lobby:
        game = lobby.get_game(created.game_id)
    assert game.status == game_pb2.GAME_STATUS_FINISHED
    marks = [square for row in over for square in row]
    assert marks == [{1: "X", 2: "O"}.get(mark, "") for mark in game.view.tictactoe.grid]
    page.screenshots("tictactoe-end")


def grid(page: Page) -> list[list[str]]:
    """The generic board's grid, row by row, each square's text."""
    rows: list[list[str]] = page.evaluate(
        "[...document.querySelectorAll('table.grid-field tr')].map((tr) => [...tr.cells].map((td) => td.textContent))"
    )
    return rows


def shown_fields(page: Page) -> dict[str, str]:
    """The generic board's view, field by field: a nested field's words joined by " · "."""
    return dict(
        page.evaluate(
            """[...document.querySelectorAll('.generic-board .view > dl.tree > dt')].map((dt) => [
                dt.textContent,
                [...dt.nextElementSibling.querySelectorAll('dt, dd')].length
                    ? [...dt.nextElementSibling.querySelectorAll(':scope > dl > dt')]
                        .map((inner) => `${inner.textContent} ${inner.nextElementSibling.textContent}`).join(' · ')
                    : dt.nextElementSibling.textContent,
            ])"""
        )
    )
