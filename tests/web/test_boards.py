"""The three games on their boards in a real browser, against bots: Pirates & Compagnie
in French and the picnic, each started in the lobby with a rulebook preset and played
to its end by clicking the choices on the board; Mooki Island played with the keyboard
only. Screenshots of each at its start, middle and end, at desktop and phone sizes;
axe-core on each; the log is the game's events, once each, in the server's words."""

from __future__ import annotations

from ludotheque import Client
from ludotheque.v1 import game_pb2

from tests.support.browser import Page
from tests.support.server import ServerProcess
from tests.web.playing import (
    FOCUSED_CHOICE,
    STATUS,
    assert_accessible,
    assert_the_log_is_the_games,
    open_as_seat,
    play_by_clicking,
    wait_for_a_turn,
)

# A laptop's screen: every step of each game must fit it (play_by_clicking's `fits`;
# Mooki Island's, from the lobby, in tests/web/test_browser.py).
WIDE = (1366, 768)


def game_id_of(page: Page) -> str:
    page.wait_until("location.pathname.startsWith('/play/')")
    return page.url().rsplit("/", 1)[1]


def test_pirates_in_french_from_a_preset_played_by_clicking_the_board(clean_page: Page, server: ServerProcess) -> None:
    page = clean_page
    page.goto(f"{server.http}/")
    page.click("[data-locale=fr]")
    try:
        page.wait_for("form.new-game input[value=pirates]")
        page.click("form.new-game input[value=pirates] + label")
        page.click("form.new-game input[data-preset=first_game] + label")  # open hands, fewer specials
        page.click("form.new-game details summary")
        assert page.evaluate("document.querySelector('[data-field=open_hands]').checked")
        page.type("form.new-game [data-field=island_distance]", "1")  # one round
        page.type("form.new-game li.seat:first-child input[name=name]", "Cléo")
        page.click("form.new-game button[type=submit]")
        game_id = game_id_of(page)
        assert wait_for_a_turn(page) in ("move", "finished")
        assert page.text(".prompt") in (
            "Pose une carte de ta main, ou pioche.",
            "Touche la pioche pour piocher une carte.",
        )
        assert page.evaluate("document.querySelectorAll('.other-hand .fan.open').length") == 1  # open hands
        assert_accessible(page)
        page.screenshots("pirates-start")
        clicks = play_by_clicking(page, seed=7, shots="pirates", middle=3, fits=WIDE)
        assert clicks >= 1
        with Client(server.target) as lobby:
            game = lobby.get_game(game_id)
            token = page.evaluate(f"JSON.parse(localStorage.getItem('ludotheque.seats.{game_id}'))[0].token")
        assert game.status == game_pb2.GAME_STATUS_FINISHED and game.options.pirates.open_hands
        assert page.text(".status") == "La partie est terminée."
        assert_the_log_is_the_games(page, server, game_id, str(token), locale="fr")
        assert page.text(".outcome-text").strip() == page.evaluate(
            "document.querySelector('.event-log li:last-child').textContent.split(' ').slice(1).join(' ')"
        )
        assert_accessible(page)
        page.screenshots("pirates-end")
    finally:
        page.click("[data-locale=en]")
        page.wait_until("document.documentElement.lang === 'en'")


def test_the_picnic_from_the_first_game_preset_played_by_clicking_the_board(
    clean_page: Page, server: ServerProcess
) -> None:
    page = clean_page
    page.goto(f"{server.http}/")
    page.click("form.new-game input[value=picnic] + label")
    page.click("form.new-game input[data-preset=first_game] + label")
    page.click("form.new-game details summary")
    assert page.evaluate("document.querySelector('[data-field=preset]').value") == str(1)  # PRESET_FIRST_GAME
    assert page.evaluate("document.querySelectorAll('form.new-game li.seat').length") == 1  # 1 to 4 players
    page.click("form.new-game button[type=submit]")
    game_id = game_id_of(page)
    assert wait_for_a_turn(page) == "move"
    assert page.evaluate("document.querySelectorAll('.lid .lid-place.choice').length") > 20  # the lid's tiles
    assert page.evaluate("document.querySelectorAll('.forest-map rect').length") > 63  # every space
    assert_accessible(page)
    page.screenshots("picnic-start")
    clicks = play_by_clicking(page, seed=3, shots="picnic", middle=12, fits=WIDE)
    assert clicks > 12
    with Client(server.target) as lobby:
        game = lobby.get_game(game_id)
    assert game.status == game_pb2.GAME_STATUS_FINISHED and game.options.picnic.no_tents
    token = page.evaluate(f"JSON.parse(localStorage.getItem('ludotheque.seats.{game_id}'))[0].token")
    assert_the_log_is_the_games(page, server, game_id, str(token))
    assert_accessible(page)
    page.screenshots("picnic-end")


def test_a_mooki_game_played_with_the_keyboard_only(clean_page: Page, server: ServerProcess) -> None:
    """Tab to the board, the arrow keys among a group's choices, Enter to pick; after a
    move the focus goes to the next step's first choice by itself."""
    page = clean_page
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "bot": "greedy"}])
    open_as_seat(page, server.http, created.game_id, [{"seat": 0, "name": "Cléo", "token": created.seat_tokens[0]}])
    moves = arrows = found_by_itself = 0
    while wait_for_a_turn(page) == "move":
        if page.evaluate(FOCUSED_CHOICE):
            found_by_itself += 1
        for _ in range(40):
            if page.evaluate(FOCUSED_CHOICE):
                break
            page.press("Tab")
        before = page.evaluate(FOCUSED_CHOICE)
        assert before, "Tab never reached a choice"
        group = page.evaluate("document.activeElement.dataset.group")
        if page.evaluate(f"document.querySelectorAll('.play-board [data-group={group}]').length") > 1:
            page.press("ArrowRight")
            if page.evaluate(FOCUSED_CHOICE) == before:
                page.press("ArrowLeft")
            assert page.evaluate(FOCUSED_CHOICE) not in ("", before)
            arrows += 1
        assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"  # focus shows
        page.press("Enter")
        moves += 1
        assert moves < 200
    page.wait_for(".outcome:not([hidden])")
    assert page.evaluate(STATUS) == "finished"
    assert moves >= 20 and arrows >= 10 and found_by_itself >= moves - 2
    with Client(server.target) as lobby:
        assert lobby.get_game(created.game_id).status == game_pb2.GAME_STATUS_FINISHED
    assert_the_log_is_the_games(page, server, created.game_id, created.seat_tokens[0])
    assert_accessible(page)
