"""Playing online in a real browser: a game created in the lobby with a seat left open,
its join link (a join code and the game's id, never a token) opened in a second, isolated page, the lobby
listing it as open, both players seeing each other connected, the game played to its end
by clicking in the two pages, and the rematch in one click from each; "play with anyone"
seating a player, named by a picture, in the game waiting for one; a spectator's page;
a page whose connection drops resuming by itself (through a proxy the test cuts), with
its seat's turn clock counting down."""

from __future__ import annotations

import json
import random
import re

from ludotheque import Client
from ludotheque.v1 import game_pb2

from tests.support.browser import Browser, Page
from tests.support.proxy import CuttingProxy
from tests.support.server import ServerProcess
from tests.web.playing import CHOICES, STATUS, TURN, assert_accessible, open_as_seat, wait_for_a_turn

CONNECTION = "document.querySelector('.connection')?.dataset.connection"
LOGGED = "document.querySelectorAll('.event-log li').length"
ROBINS_TURN = "document.querySelector('.status').textContent.includes('Robin')"


def presence(page: Page, seat: int) -> str:
    return str(page.evaluate(f"document.querySelector('.table-seat[data-seat=\"{seat}\"]')?.dataset.presence ?? ''"))


def test_a_join_link_opened_in_a_second_page_then_a_game_and_its_rematch(
    clean_page: Page, browser: Browser, server: ServerProcess
) -> None:
    host = clean_page
    host.goto(f"{server.http}/")
    host.wait_for("form.new-game input[value=mooki]")
    host.type("form.new-game li.seat:first-child input[name=name]", "Cléo")
    host.type("form.new-game li.seat:first-child input[name=age]", "7")
    host.select("form.new-game li.seat:nth-child(2) select[name=bot]", "open")
    host.click("form.new-game button[type=submit]")
    host.wait_until("location.pathname.startsWith('/play/')")
    game_id = host.url().rsplit("/", 1)[1]
    link = str(host.wait_until("document.querySelector('.join-link a')?.href"))
    assert host.evaluate(STATUS) == "open" and host.text(".status") == "Waiting for players to join…"
    tokens = json.loads(host.evaluate(f"localStorage.getItem('ludotheque.seats.{game_id}')"))
    # The link names the game (to show it first, and to watch it once it started), never a token.
    assert len(tokens) == 1 and tokens[0]["token"] not in link and link.endswith(f"?game={game_id}")
    presences = "[0, 1].map((seat) => document.querySelector(`.table-seat[data-seat='${seat}']`)?.dataset.presence)"
    host.wait_until(f"{presences}.join() === 'online,open'")  # the page's own connection comes first
    assert presence(host, 0) == "online" and presence(host, 1) == "open"
    assert_accessible(host)
    host.screenshots("online-waiting")

    guest = browser.new_page(isolated=True)
    try:
        guest.goto(f"{server.http}/")  # the lobby lists the open game, with a way to join it
        guest.wait_for(f"li[data-game='{game_id}'] a[href^='/join/']")
        guest.goto(link)
        guest.type("form.join-game input[name=name]", "Robin")
        guest.type("form.join-game input[name=age]", "5")
        assert_accessible(guest)
        guest.screenshots("online-join")
        guest.click("form.join-game button[type=submit]")
        guest.wait_until(f"location.pathname === '/play/{game_id}'")
        for page in (host, guest):  # dealt: the youngest (Robin) starts
            page.wait_until(f"{STATUS} === 'your-turn' || {STATUS} === 'waiting'")
            page.wait_until("document.querySelector('.table-seat[data-seat=\"0\"]')?.dataset.presence === 'online'")
            page.wait_until("document.querySelector('.table-seat[data-seat=\"1\"]')?.dataset.presence === 'online'")
        assert guest.evaluate(STATUS) == "your-turn" and "Robin (you)" in guest.text(".lead")
        assert guest.text(".invite") == ""

        rng = random.Random(5)
        clicks = 0
        whose_turn = f"({TURN}) || ({STATUS} === 'waiting' && {ROBINS_TURN} ? 'guest' : '')"
        while (state := host.wait_until(whose_turn)) != "finished":
            page, other = (host, guest) if state == "move" else (guest, host)
            if wait_for_a_turn(page) == "finished":
                break
            before = int(page.evaluate(LOGGED))
            keys: list[str] = page.evaluate(CHOICES)
            page.click(f".play-board [data-choice={json.dumps(rng.choice(keys))}]")
            logged = int(page.wait_until(f"{LOGGED} > {before} && {LOGGED}"))  # the move is played,
            other.wait_until(f"{LOGGED} >= {logged}")  # and the other page has seen it
            clicks += 1
            assert clicks < 300
            if clicks == 10:
                assert_accessible(guest)
                guest.screenshots("online-middle")
        guest.wait_until(f"{STATUS} === 'finished'")
        with Client(server.target) as lobby:
            assert lobby.get_game(game_id).status == game_pb2.GAME_STATUS_FINISHED

        host.click(".outcome button.rematch")  # one click: the rematch, and its page
        host.wait_until(f"location.pathname.startsWith('/play/') && location.pathname !== '/play/{game_id}'")
        rematch = host.url().rsplit("/", 1)[1]
        guest.click(".outcome button.rematch")
        guest.wait_until(f"location.pathname === '/play/{rematch}'")
        for page in (host, guest):
            page.wait_until(f"{STATUS} === 'your-turn' || {STATUS} === 'waiting'")
        assert "Robin (you)" in guest.text(".lead") and "Cléo (you)" in host.text(".lead")
        assert guest.problems() == []
    finally:
        guest.close()


def test_play_with_anyone_seats_the_player_in_the_game_waiting_for_one(clean_page: Page, server: ServerProcess) -> None:
    with Client(server.target) as client:
        waiting = client.quick_match("mooki", "Robin", age=5)  # someone waits, on another device
    page = clean_page
    page.goto(f"{server.http}/")
    button = ".quick-match button.quick-kind[data-kind=mooki]"
    page.wait_for(button)
    box = f"document.querySelector('{button}').getBoundingClientRect()"
    size = page.evaluate(f"[{box}.width, {box}.height]")
    assert min(size) >= 44, size  # a child's finger
    assert page.evaluate(f"!!document.querySelector('{button} .kind-icon svg')")  # a picture with the words
    page.click(".quick-match .picture-choice[data-picture=fox]")
    assert_accessible(page)
    page.click(button)
    page.wait_until(f"location.pathname === '/play/{waiting.game_id}'")
    page.wait_until(f"{STATUS} === 'your-turn' || {STATUS} === 'waiting'")  # the last seat taken: dealt
    held = json.loads(page.evaluate(f"localStorage.getItem('ludotheque.seats.{waiting.game_id}')"))
    assert [(seat["seat"], seat["name"], seat["picture"]) for seat in held] == [(1, "Fox", "fox")]
    with Client(server.target) as client:
        game = client.get_game(waiting.game_id)
    assert [seat.name for seat in game.seats] == ["Robin", "Fox"] and game.status == game_pb2.GAME_STATUS_ACTIVE


def test_a_spectator_watches_a_game_of_bots(clean_page: Page, server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("pirates", [{"name": "Ana", "bot": "greedy"}, {"name": "Bo", "bot": "random"}])
    page = clean_page
    page.goto(f"{server.http}/play/{created.game_id}")
    page.wait_until(f"{STATUS} === 'finished'", 30_000)
    assert page.evaluate(CHOICES) == []  # nothing to click for a spectator
    assert page.evaluate("document.querySelector('.outcome button.rematch')") is None
    assert [presence(page, seat) for seat in (0, 1)] == ["bot", "bot"]


def test_a_dropped_connection_is_resumed_by_the_page(page: Page, server: ServerProcess) -> None:
    """The page's WebSocket (and everything else) goes through a proxy the test cuts:
    the page says it is reconnecting, connects again by itself when it can, and the game
    goes on from where it was."""
    with Client(server.target) as lobby:
        created = lobby.create_game(
            "mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "bot": "greedy"}], clock={"turn_seconds": 600}
        )
    with CuttingProxy(int(server.http.rsplit(":", 1)[1])) as proxy:
        open_as_seat(page, proxy.url, created.game_id, [{"seat": 0, "name": "Cléo", "token": created.seat_tokens[0]}])
        assert wait_for_a_turn(page) == "move"
        clock = "document.querySelector('.table-seat[data-seat=\"0\"] .seat-clock.running')?.textContent"
        assert re.fullmatch(r"(10:00|9:[0-5]\d) left", str(page.wait_until(clock)))  # the turn's clock, counting down
        page.click(f".play-board [data-choice={json.dumps(page.evaluate(CHOICES)[0])}]")
        assert wait_for_a_turn(page) == "move"
        before = int(page.evaluate("document.querySelectorAll('.event-log li').length"))
        page.problems()
        proxy.hold()
        assert proxy.cut() >= 1
        page.wait_until(f"{CONNECTION} === 'reconnecting'")
        assert "joining the game again" in page.text(".connection")
        assert proxy.refusing.wait(15)  # the page tried again while the network was down
        proxy.release()
        page.wait_until(f"{CONNECTION} === 'open'", 20_000)
        assert wait_for_a_turn(page) == "move"
        page.click(f".play-board [data-choice={json.dumps(page.evaluate(CHOICES)[0])}]")
        page.wait_until(f"document.querySelectorAll('.event-log li').length > {before}")
        versions = page.evaluate("[...document.querySelectorAll('.event-log li')].map(e => Number(e.dataset.version))")
        assert versions == list(range(1, len(versions) + 1))  # every event once, none lost
        # The browser reports the refused connections; nothing else went wrong.
        assert [p for p in page.problems() if "WebSocket" not in p and "ERR_" not in p] == []
        page.goto("about:blank")  # leaves the game before the proxy closes
