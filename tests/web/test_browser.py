"""The web app in a real browser (headless Chromium) against the real server: a game
created in the lobby against a bot and played to its end by clicking legal moves, the
debug panel stepping through a dropped log file (and naming a broken log's first bad
event), time travel with the keyboard, an admin's fork, axe-core's accessibility check
on every page, and screenshots at desktop and phone sizes (build/screenshots/)."""

from __future__ import annotations

from pathlib import Path

from ludotheque import Client
from ludotheque.v1 import game_pb2

from service.app.model import gamelog
from tests.support.browser import Page
from tests.support.server import ADMIN_TOKEN, ROOT, ServerProcess
from tests.web.playing import (
    CHOICES,
    assert_accessible,
    assert_the_log_is_the_games,
    open_as_a_grown_up,
    play_by_clicking,
    wait_for_a_turn,
)

GOLDEN = ROOT / "seeds" / "replays"
WIDE = (1366, 768)


def test_the_lobby_creates_a_mooki_game_against_a_bot_and_it_is_played_on_the_board(
    clean_page: Page, server: ServerProcess
) -> None:
    page = clean_page
    answer = page.goto(f"{server.http}/")
    assert answer["status"] == 200 and "default-src 'self'" in answer["headers"]["content-security-policy"]
    page.wait_for("form.new-game input[value=mooki]")
    with Client(server.target) as lobby:
        names = [k.name.text for k in lobby.list_game_kinds()]
    assert page.evaluate("[...document.querySelectorAll('.kind-choice strong')].map(s => s.textContent)") == names
    assert page.evaluate("document.querySelector('form.new-game .seats-box > button').disabled")  # Mooki: 2 seats
    assert_accessible(page)
    page.screenshots("lobby")
    page.type("form.new-game li.seat:first-child input[name=name]", "Cléo")
    page.click("form.new-game button[type=submit]")
    page.wait_until("location.pathname.startsWith('/play/')")
    assert wait_for_a_turn(page) == "move"
    assert "Cléo (you)" in page.text(".lead")
    assert page.text(".prompt") == "Pick a pile to draw a card from."
    assert page.evaluate(CHOICES) == ["pile:0", "pile:1"]
    assert_accessible(page)
    page.screenshots("mooki-start")
    clicks = play_by_clicking(page, seed=1, shots="mooki", middle=14, fits=WIDE)  # each step fits a laptop
    assert clicks > 20
    game_id = page.url().rsplit("/", 1)[1]
    with Client(server.target) as lobby:
        game = lobby.get_game(game_id)
    assert game.status == game_pb2.GAME_STATUS_FINISHED
    token = page.evaluate(f"JSON.parse(localStorage.getItem('ludotheque.seats.{game_id}'))[0].token")
    assert assert_the_log_is_the_games(page, server, game_id, str(token)) == game.version
    assert page.text(".status") == "The game is over."
    assert page.evaluate("document.querySelectorAll('.by-family').length") == 2  # every card shown at the end
    assert_accessible(page)
    page.screenshots("mooki-end")
    page.goto(f"{server.http}/")  # the lobby lists it among the finished games
    page.wait_for(f"li[data-game='{game_id}']")


def test_the_debug_panel_steps_through_a_dropped_log_file(clean_page: Page, server: ServerProcess) -> None:
    page = clean_page
    text = (GOLDEN / "pirates" / "game-1.jsonl").read_text()
    events = len(text.splitlines()) - 1
    open_as_a_grown_up(page, f"{server.http}/debug")
    page.drop_file("[data-drop]", "game-1.jsonl", text)
    page.wait_until(f"document.querySelectorAll('.timeline li').length === {events + 1}")
    page.wait_until(f"document.querySelector('.position')?.textContent === 'Version {events} of {events}'")
    assert page.text(".problem") == ""
    page.click(".timeline li[data-version='3'] button")
    page.wait_until(f"document.querySelector('.position')?.textContent === 'Version 3 of {events}'")
    page.wait_for("table.diff")  # what changed from version 2 to 3
    page.select(".controls select", "seat:1")
    page.wait_until("document.querySelector('#legal-title') !== null")
    page.type(".controls input[type=search]", "parrot")
    page.wait_until("document.querySelectorAll('.timeline li.match').length > 0")
    assert_accessible(page)
    page.screenshots("debug-log")


def test_the_debug_panel_names_the_first_event_of_a_broken_log(clean_page: Page, server: ServerProcess) -> None:
    page = clean_page
    log = gamelog.parse((GOLDEN / "mooki" / "game-1.jsonl").read_bytes())
    bad = next(i for i, e in enumerate(log.events) if e.HasField("command") and i > 8)
    log.events[bad].seat = 1 - log.events[bad].seat
    open_as_a_grown_up(page, f"{server.http}/debug")
    page.drop_file("[data-drop]", "broken.jsonl", gamelog.to_jsonl(log))
    page.wait_for(f".problem [data-problem-event='{bad + 1}']")
    assert f"Event {bad + 1} (version {bad + 1}, line {bad + 2}) does not replay" in page.text(".problem")
    page.wait_until(f"document.querySelector('.position')?.textContent === 'Version {bad} of {bad}'")
    row = f"document.querySelector(\".timeline li[data-version='{bad + 1}']\")"
    assert page.evaluate(f"{row}.classList.contains('broken')")
    page.drop_file("[data-drop]", "garbage.jsonl", '{"format": "ludotheque-log/1"}\nnot json\n')
    page.wait_until("document.querySelector('.problem')?.textContent.includes('line 2')")


def test_time_travel_with_the_keyboard_and_an_admins_fork(clean_page: Page, server: ServerProcess) -> None:
    page = clean_page
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Ana", "bot": "greedy"}, {"name": "Bo", "bot": "random"}])
        last = created.game.version
    open_as_a_grown_up(page, f"{server.http}/debug/{created.game_id}")  # as a spectator: ReplayGame at each version
    position = "document.querySelector('.position')?.textContent"
    page.wait_until(f"{position} === 'Version {last} of {last}'")
    page.focus(".timeline li[data-version='1'] button")
    page.press("End")
    page.press("ArrowLeft")
    page.press("ArrowLeft")
    page.wait_until(f"{position} === 'Version {last - 2} of {last}'")
    page.press("Home")
    page.wait_until(f"{position} === 'Version 0 of {last}'")
    page.press("ArrowRight")
    page.wait_until(f"{position} === 'Version 1 of {last}'")
    page.focus(".travel input[type=range]")
    page.press("ArrowRight")
    page.wait_until(f"{position} === 'Version 2 of {last}'")
    assert page.evaluate("document.querySelector('.timeline li.current')?.dataset.version") == "2"

    page.type(".admin-token input", ADMIN_TOKEN)  # every seat's view, and forking
    page.press("Enter")
    page.wait_until("document.querySelectorAll('.controls select option').length === 4")
    page.focus(".timeline li[data-version='1'] button")
    with Client(server.target, ADMIN_TOKEN) as admin:
        log = admin.export_game(created.game_id)
    cut = next(e.version - 1 for e in log.events if e.HasField("command"))
    page.press("Home")
    for _ in range(cut):
        page.press("ArrowRight")
    page.wait_until(f"{position} === 'Version {cut} of {last}'")
    page.click(".controls .actions button:last-child")
    href = page.wait_until("document.querySelector('.controls [role=status] a')?.getAttribute('href')")
    with Client(server.target) as lobby:
        forked = lobby.get_game(str(href).rsplit("/", 1)[1])
    assert forked.version >= cut
    assert_accessible(page)
    page.screenshots("debug-game")


def test_the_pages_speak_french(clean_page: Page, server: ServerProcess) -> None:
    page = clean_page
    page.goto(f"{server.http}/")
    page.click("[data-locale=fr]")
    page.wait_until("document.documentElement.lang === 'fr'")
    assert page.text("h1") == "On joue !"
    page.wait_for("form.new-game button[type=submit]")  # the kinds come in French first
    assert page.text("form.new-game button[type=submit]") == "Commencer la partie"
    page.click("[data-locale=en]")
    page.wait_until("document.documentElement.lang === 'en'")


def test_screenshots_are_written(clean_page: Page) -> None:
    del clean_page
    names = {p.name for p in (ROOT / "build" / "screenshots").glob("*.png")}
    assert {"lobby-desktop.png", "lobby-phone.png", "debug-log-phone.png"} <= names


def test_the_committed_screenshot_is_small() -> None:
    shot = Path(ROOT / "docs" / "web-app.png")
    assert shot.exists() and shot.stat().st_size < 200_000
