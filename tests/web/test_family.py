"""The web app tried as a family would, on a phone held upright (390 × 844, touch) and on
a laptop (1366 × 768), asserting facts rather than pixels (each game's every step at
1366 × 768 is checked by tests/web/test_boards.py, which plays them whole there):

- every step of every game shows the board, the player's own hand or pieces and the move
  to make without scrolling; every tap target is at least 44 × 44 CSS px; no text is cut
  off; the boards' labels are 12 CSS px or more; the lobby's first game starts from the
  first screen; axe-core finds nothing on any page;
- a robot's moves are shown one after another, in their order, each for a while, its
  pieces moving (only outlined under prefers-reduced-motion); a tap skips to the present;
  the tab's title, a sound and a notification say it is your turn; the sound switch is
  remembered;
- between two people at one screen, a curtain "Pass the device to Papa" hides the hand
  until Papa taps, and nothing shows the other's hand;
- a join link shows its game, resumes the seat of a browser that holds it, offers to
  watch once the game started; a rematch asked for on one device is offered on the other;
- the debug panel opens a log a player saved, its keys work wherever the focus is, and
  its errors name the versions.

Screenshots of each game mid-play and at its end (build/screenshots/family/; the phone's
are copied by hand to docs/screens/, shown in clients/web/README.md, once looked at)."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ludotheque import Client
from ludotheque.pirates.v1 import pirates_pb2
from ludotheque.v1 import game_pb2

from service.app.model import gamelog
from tests.support.browser import PHONE, Browser, Page
from tests.support.server import ROOT, ServerProcess
from tests.web.facts import page_facts, problems
from tests.web.playing import (
    CHOICES,
    STATUS,
    TURN,
    assert_accessible,
    choose,
    driver,
    open_as_a_grown_up,
    settle,
    wait_for_a_turn,
)

DESKTOP = (1366, 768)
SHOTS = ROOT / "build" / "screenshots" / "family"
LOGGED = "document.querySelectorAll('.event-log li').length"
START = "document.querySelector('form.new-game button[type=submit]').getBoundingClientRect()"
BEATS = """(() => {
  window.beats = [];
  document.addEventListener('ludotheque:beat', (event) => {
    const board = document.querySelector('.play-board');
    window.beats.push({ ...event.detail, at: performance.now(), shown: board.dataset.version,
      status: document.querySelector('.status').dataset.status, choices: board.querySelectorAll('[data-choice]').length,
      outlined: board.querySelectorAll('.moved').length,
      moving: document.getAnimations().filter((a) => board.contains(a.effect?.target ?? null)).length });
  });
  window.sounds = [];
  window.notes = [];
  document.addEventListener('ludotheque:sound', (event) => window.sounds.push(event.detail));
  return true;
})()"""


@pytest.fixture(scope="module")
def phone(browser: Browser) -> Iterator[Page]:
    page = browser.new_page(PHONE, mobile=True)
    yield page
    page.close()


@pytest.fixture(scope="module")
def desktop(browser: Browser) -> Iterator[Page]:
    page = browser.new_page(DESKTOP)
    yield page
    page.close()


def shoot(page: Page, name: str) -> Path:
    """The screen as the player sees it (not the whole page)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    driver(page, "screenshot", path=str(path), fullPage=False)
    return path


def hold(page: Page, base: str, game_id: str, seats: list[dict[str, Any]], *, pace: int = 0) -> None:
    """Opens the play page holding `seats` ({seat, name, token}), moves shown at `pace`."""
    driver(page, "front")
    page.goto(f"{base}/")
    page.evaluate(f"localStorage.setItem('ludotheque.pace', '{pace}')")
    page.evaluate(f"localStorage.setItem('ludotheque.seats.{game_id}', {json.dumps(json.dumps(seats))})")
    page.goto(f"{base}/play/{game_id}")


def play_checking_each_step(page: Page, game: str, size: str, *, seed: int, touch: bool, middle: int = 6) -> int:
    """Plays by tapping one of the choices offered, step after step, until the game is
    over; at every step, the facts a family meets must hold. Returns the steps played."""
    rng = random.Random(seed)
    steps = 0
    faults: list[str] = []
    while wait_for_a_turn(page) == "move":
        settle(page)
        found = problems(page_facts(page))
        if found:
            faults.append(f"step {steps}: {found}")
            shoot(page, f"{game}-fault-{len(faults)}-{size}")
        keys: list[str] = page.evaluate(CHOICES)
        if steps == middle:
            assert_accessible(page)
            shoot(page, f"{game}-middle-{size}")
        choose(page, rng.choice(keys), touch=touch)
        steps += 1
        assert steps < 300, "the game did not end"
    # The outcome says "over" until GetGame names the winners: then won or lost.
    page.wait_until("['won', 'lost'].includes(document.querySelector('.outcome:not([hidden])')?.dataset.ending)")
    # Played with the voice on (by default): the end was said aloud (clients/web/test/driver.mjs records it).
    outcome = json.dumps(page.text(".outcome-text span:last-child"))
    page.wait_until(f"window.spoken.some((said) => said.text.endsWith({outcome}))")
    settle(page)
    shoot(page, f"{game}-end-{size}")
    at_the_end = page_facts(page)
    assert problems(at_the_end) == {}, json.dumps(problems(at_the_end))
    assert_accessible(page)
    assert faults == [], "\n".join(faults)
    return steps


def test_the_lobby_starts_the_first_game_from_the_first_screen(desktop: Page, server: ServerProcess) -> None:
    """At 1366 × 768 (the phone's lobby is checked as the phone's games start, and every
    step of each game at this size by tests/web/test_boards.py)."""
    page = desktop
    driver(page, "front")
    page.problems()
    page.goto(f"{server.http}/")
    page.wait_for("form.new-game input[value=mooki]")
    assert page.evaluate(f"{START}.bottom <= innerHeight"), "the lobby's Start is below the first screen"
    assert problems(page_facts(page)) == {}
    assert_accessible(page)
    shoot(page, "lobby-desktop")
    assert page.problems() == []


def test_every_step_of_every_game_fits_a_phone(phone: Page, server: ServerProcess) -> None:
    """Mooki Island started from the phone's lobby against its robot, Pirates (one round,
    four players) and the picnic, played to their ends by tapping what the board offers."""
    page = phone
    driver(page, "front")
    page.problems()
    page.goto(f"{server.http}/")
    page.evaluate("localStorage.setItem('ludotheque.pace', '0')")
    page.wait_for("form.new-game input[value=mooki]")
    assert page.evaluate(f"{START}.bottom <= innerHeight"), "the lobby's Start is below the first screen"
    assert problems(page_facts(page)) == {}
    assert_accessible(page)
    shoot(page, "lobby-phone")
    driver(page, "tap", selector="form.new-game button[type=submit]", timeout=15_000)
    page.wait_until("location.pathname.startsWith('/play/')")
    assert play_checking_each_step(page, "mooki", "phone", seed=2, touch=True) > 15
    with Client(server.target) as lobby:
        pirates = lobby.create_game(
            "pirates",
            [
                {"name": "Cléo", "age": 6},
                {"name": "Robot malin", "bot": "greedy"},
                {"name": "Robin", "bot": "random"},
                {"name": "Papa", "bot": "greedy"},
            ],
            pirates_pb2.Options(island_distance=1),
        )
        picnic = lobby.create_game("picnic", [{"name": "Cléo", "age": 6}, {"name": "Robot", "bot": "greedy"}])
    hold(page, server.http, pirates.game_id, [{"seat": 0, "name": "Cléo", "token": pirates.seat_tokens[0]}])
    assert play_checking_each_step(page, "pirates", "phone", seed=3, touch=True, middle=2) > 2
    hold(page, server.http, picnic.game_id, [{"seat": 0, "name": "Cléo", "token": picnic.seat_tokens[0]}])
    assert play_checking_each_step(page, "picnic", "phone", seed=4, touch=True) > 6
    assert page.problems() == []


def test_a_robots_moves_are_shown_one_after_another_and_a_tap_skips_them(phone: Page, server: ServerProcess) -> None:
    """Three robots after Cléo: each one's move is on the board in turn, about half a
    second each, its card travelling; then it is Cléo's turn, said in the tab's title and
    by a chime. A tap during the robots' moves skips to the present. Under
    prefers-reduced-motion nothing moves: what moved is outlined. The sound switch is
    remembered; a page out of sight gets a notification."""
    page = phone
    page.problems()
    pace = 300
    with Client(server.target) as lobby:  # no card makes a robot miss its turn
        robots = [{"name": f"Robot {n}", "bot": "greedy"} for n in (1, 2, 3)]
        specials = [pirates_pb2.CARD_KIND_SAILBOAT, pirates_pb2.CARD_KIND_SLEEPING_PIRATE]
        created = lobby.create_game(
            "pirates", [{"name": "Cléo", "age": 6}, *robots], pirates_pb2.Options(removed_specials=specials)
        )
    hold(page, server.http, created.game_id, [{"seat": 0, "name": "Cléo", "token": created.seat_tokens[0]}], pace=pace)

    robots_played = "window.beats.some((beat) => beat.events.some((e) => e.seat !== 0))"

    def cleos_move() -> None:
        """Cléo's move, all its steps (a card, a Parrot's colour...), until the robots play."""
        assert wait_for_a_turn(page) == "move"
        settle(page)
        page.evaluate(BEATS)
        while not page.evaluate(robots_played):
            choose(page, page.evaluate(CHOICES)[0], touch=True)
            page.wait_until(f"{robots_played} || ({TURN})")

    def move_and_watch() -> list[dict[str, Any]]:
        cleos_move()
        page.wait_until(f"{STATUS} === 'your-turn'")
        beats: list[dict[str, Any]] = page.evaluate("window.beats")
        return [beat for beat in beats if any(event["seat"] in (1, 2, 3) for event in beat["events"])]

    beats = move_and_watch()
    robots_in_order = [next(e["seat"] for e in beat["events"] if e["seat"] in (1, 2, 3)) for beat in beats]
    assert sorted(robots_in_order) == robots_in_order and set(robots_in_order) == {1, 2, 3}, beats
    versions = [int(beat["version"]) for beat in beats]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    assert all(beat["shown"] == beat["version"] for beat in beats)  # the board is that move's
    assert all(beat["status"] != "your-turn" and beat["choices"] == 0 for beat in beats)  # nothing to tap meanwhile
    assert all("travel" in beat["motions"] and beat["moving"] > 0 for beat in beats), beats  # a card travels
    # Each move stays on the board for a while (a timer never ends early; no upper bound:
    # a busy machine may be slow).
    gaps = [later["at"] - earlier["at"] for earlier, later in itertools.pairwise(beats)]
    assert min(gaps) >= 0.8 * pace, gaps
    assert "Your turn!" in page.evaluate("document.title")
    assert page.evaluate("window.sounds.map((s) => s.sound)") == ["turn"]

    # A tap skips the robots' moves: the present at once. Shown slowly this time (5 s a
    # move: the robots, who play on the server within milliseconds, have all played by the
    # time the first of their moves is on the board), so that the tap, not the time, ends them.
    page.evaluate("localStorage.setItem('ludotheque.pace', '5000')")
    cleos_move()
    assert page.evaluate(STATUS) != "your-turn"  # the robots' moves are being shown
    driver(page, "tap", selector=".play-board", timeout=5_000)
    shown = int(page.evaluate("window.beats.length"))
    page.wait_until(f"{STATUS} === 'your-turn'")
    assert page.evaluate("window.beats.length") == shown  # nothing more was shown after the tap
    page.evaluate(f"localStorage.setItem('ludotheque.pace', '{pace}')")

    # Under prefers-reduced-motion: the same moves in turn, outlined, nothing moving.
    driver(page, "emulate", features=[{"name": "prefers-reduced-motion", "value": "reduce"}])
    try:
        calm = move_and_watch()
        assert calm and all(beat["outlined"] > 0 and beat["moving"] == 0 for beat in calm), calm
    finally:
        driver(page, "emulate", features=[{"name": "prefers-reduced-motion", "value": "no-preference"}])

    # The sound switch, remembered; a page out of sight is told by a notification.
    page.click(".sound-switch")
    assert page.evaluate("localStorage.getItem('ludotheque.sound')") == "off"
    hold(page, server.http, created.game_id, [{"seat": 0, "name": "Cléo", "token": created.seat_tokens[0]}], pace=pace)
    page.wait_until("document.querySelector('.sound-switch')?.getAttribute('aria-pressed') === 'false'")
    page.evaluate(
        "window.notes = []; window.Notification = class { static permission = 'granted';"
        " constructor(title, options) { window.notes.push([title, options.body]); } };"
        " Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });"
    )
    move_and_watch()
    assert page.evaluate("window.sounds") == [{"sound": "turn", "muted": True}]
    assert page.evaluate("window.notes") == [["Your turn!", "Your turn, Cléo!"]]
    page.click(".sound-switch")
    assert page.evaluate("localStorage.getItem('ludotheque.sound')") == "on"
    assert page.problems() == []


def test_a_curtain_passes_the_device_between_two_people(phone: Page, server: ServerProcess) -> None:
    page = phone
    page.problems()
    with Client(server.target) as lobby:
        created = lobby.create_game(
            "pirates", [{"name": "Cléo", "age": 6}, {"name": "Papa", "age": 38}, {"name": "Robot", "bot": "greedy"}]
        )
    held = [
        {"seat": 0, "name": "Cléo", "token": created.seat_tokens[0]},
        {"seat": 1, "name": "Papa", "token": created.seat_tokens[1]},
    ]
    hold(page, server.http, created.game_id, held)
    curtain = "document.querySelector('.curtain:not([hidden]) h2')?.textContent"
    hand = "[...document.querySelectorAll('.my-hand .card')].map((card) => card.textContent)"
    seen: dict[str, list[str]] = {}
    for _ in range(4):  # Cléo, Papa, Cléo, Papa
        name = str(page.wait_until(curtain)).removeprefix("Pass the device to ")
        assert page.evaluate("document.querySelectorAll('.my-hand, .play-board .card[data-choice]').length") == 0
        assert page.evaluate("document.querySelector('.play-top select, #seat-select')") is None  # no seat switch
        assert problems(page_facts(page)) == {}
        if not seen:
            assert_accessible(page)
            shoot(page, "curtain-phone")
        driver(page, "tap", selector=".curtain button", timeout=15_000)
        assert wait_for_a_turn(page) == "move"
        cards = page.evaluate(hand)
        assert cards and seen.get("Papa" if name == "Cléo" else "Cléo") != cards
        seen[name] = cards
        while page.evaluate(curtain) is None and page.evaluate(STATUS) == "your-turn":
            choose(page, page.evaluate(CHOICES)[0], touch=True)
            page.wait_until(f"{curtain} || {STATUS} !== 'your-turn' || !document.querySelector('.play-board.pending')")
            page.wait_until(f"({curtain}) || ({TURN}) || {STATUS} === 'waiting'")
        assert page.evaluate(STATUS) != "finished"
    assert set(seen) == {"Cléo", "Papa"}
    with Client(server.target) as spectator:  # the log is the table's: nobody's secrets
        told = [event.description.text for event in spectator.history(created.game_id)]
    page.wait_until(f"{LOGGED} >= {len(told)}")
    logged = page.evaluate("[...document.querySelectorAll('.event-log li .words')].map((line) => line.textContent)")
    assert logged[: len(told)] == told
    assert page.problems() == []


def test_back_by_the_link_and_a_rematch_offered_on_the_other_device(
    desktop: Page, browser: Browser, server: ServerProcess
) -> None:
    host = desktop
    driver(host, "front")
    host.problems()
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 7}, {"open": True}])
    hold(host, server.http, created.game_id, [{"seat": 0, "name": "Cléo", "token": created.seat_tokens[0]}])
    link = str(host.wait_until("document.querySelector('.join-link a')?.href"))
    assert link.endswith(f"?game={created.game_id}") and created.seat_tokens[0] not in link
    guest = browser.new_page(PHONE, mobile=True, isolated=True)
    stranger = browser.new_page(DESKTOP, isolated=True)
    try:
        guest.goto(link)  # the game, who invites, the free seat
        assert (
            guest.wait_until("document.querySelector('.invitation h2')?.textContent")
            == "Cléo invites you to play Mooki Island"
        )
        assert guest.evaluate("document.querySelectorAll('.join-seats li.free').length") == 1
        assert problems(page_facts(guest)) == {}
        assert_accessible(guest)
        shoot(guest, "join-phone")
        guest.type("form.join-game input[name=name]", "Robin")
        guest.type("form.join-game input[name=age]", "5")
        driver(guest, "tap", selector="form.join-game button[type=submit]", timeout=15_000)
        guest.wait_until(f"location.pathname === '/play/{created.game_id}'")
        assert wait_for_a_turn(guest) == "move"  # dealt: the youngest, Robin, starts

        guest.goto(link)  # opened again: the seat this browser holds, at once
        guest.wait_until(f"location.pathname === '/play/{created.game_id}' && {STATUS} === 'your-turn'")
        assert guest.evaluate("document.querySelector('form.join-game')") is None

        stranger.goto(link)  # the game started: watch it
        stranger.wait_for(".join-state[data-state=started]")
        assert stranger.evaluate("document.querySelector('form.join-game').hidden")
        assert_accessible(stranger)
        stranger.click(f".invitation-panel a[href='/play/{created.game_id}']")
        stranger.wait_until(f"location.pathname === '/play/{created.game_id}'")
        stranger.wait_for(".watching-badge:not([hidden])")
        assert stranger.text(".watching-badge") == "You are watching this game."
        assert_accessible(stranger)

        guest_token = json.loads(guest.evaluate(f"localStorage.getItem('ludotheque.seats.{created.game_id}')"))[0][
            "token"
        ]
        with Client(server.target, created.seat_tokens[0]) as cleo, Client(server.target, guest_token) as robin:
            while (game := cleo.get_game(created.game_id)).status != game_pb2.GAME_STATUS_FINISHED:
                player = cleo if game.legal_commands else robin
                player.submit(created.game_id, player.get_game(created.game_id).legal_commands[0])
        ending = "document.querySelector('.outcome:not([hidden])')?.dataset.ending"
        for page in (host, guest):  # "over" until the outcome names the winner
            page.wait_until(f"['won', 'lost'].includes({ending})")
        assert {
            host.evaluate("document.querySelector('.outcome').dataset.ending"),
            guest.evaluate("document.querySelector('.outcome').dataset.ending"),
        } == {"won", "lost"}
        host.click(".outcome button.rematch")  # one device asks: the other is offered it
        host.wait_until(f"location.pathname.startsWith('/play/') && location.pathname !== '/play/{created.game_id}'")
        rematch = host.url().rsplit("/", 1)[1]
        guest.wait_for(".outcome .rematch-offer")
        assert (
            guest.text(".outcome .rematch-offer")
            == "Another player wants to play again: the new game is waiting for you!"
        )
        shoot(guest, "rematch-offered-phone")
        driver(guest, "tap", selector=".outcome button.rematch", timeout=15_000)
        guest.wait_until(f"location.pathname === '/play/{rematch}'")
        stranger.wait_for(f".outcome a.watch-next[href='/play/{rematch}']")
        assert guest.problems() == [] and stranger.problems() == []
    finally:
        guest.close()
        stranger.close()
    assert host.problems() == []


def test_the_debug_panel_opens_a_log_a_player_saved_and_its_keys_work_anywhere(
    desktop: Page, phone: Page, server: ServerProcess
) -> None:
    page = desktop
    driver(page, "front")
    page.problems()
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robot", "bot": "greedy"}])
    with Client(server.target, created.seat_tokens[0]) as cleo:
        for _ in range(6):
            cleo.submit(created.game_id, cleo.get_game(created.game_id).legal_commands[0])
        saved = cleo.export_game(created.game_id)  # what "Save the log" saves for a player
    events = len(saved.events)
    open_as_a_grown_up(page, f"{server.http}/debug")
    assert_accessible(page)
    page.drop_file("[data-drop]", "cleo.jsonl", gamelog.to_jsonl(saved))
    page.wait_for(".saved-log[data-saved-by='seat:0']")
    assert page.text(".saved-log").startswith("A log saved by Cléo:")
    assert f"its {events} events are numbered in order" in page.text(".saved-log")
    page.wait_until(f"document.querySelectorAll('.timeline li').length === {events + 1}")
    position = "document.querySelector('.position')?.textContent"
    page.wait_until(f"{position} === 'Version {events} of {events}'")
    assert page.text(".event-description") == saved.events[-1].description.text  # its own words
    page.click("h1")  # the keys, with the focus on no control at all
    page.evaluate("document.activeElement.blur()")
    page.press("Home")
    page.wait_until(f"{position} === 'Version 0 of {events}'")
    page.press("ArrowRight")
    page.press("ArrowRight")
    page.wait_until(f"{position} === 'Version 2 of {events}'")
    assert problems(page_facts(page)) == {}  # the timeline's rows are targets too
    assert_accessible(page)
    shoot(page, "debug-saved-log-desktop")

    saved.events[3].version = 9  # out of order: the versions before it can be shown
    page.drop_file("[data-drop]", "shuffled.jsonl", gamelog.to_jsonl(saved))
    page.wait_for(".problem [data-problem-event='4']")
    assert "Event 4 (version 4, line 5) is not where it should be: its version is 9, not 4." in page.text(".problem")
    page.wait_until(f"{position} === 'Version 3 of 3'")
    lines = gamelog.to_jsonl(saved).splitlines()
    page.drop_file("[data-drop]", "cut.jsonl", "\n".join([*lines[:2], "{not json", *lines[3:]]) + "\n")
    page.wait_until("document.querySelector('.problem')?.textContent.includes('line 3 (the event of version 2)')")
    assert page.problems() == []

    # On a phone, a game's panel as a spectator: its timeline's rows are targets too.
    driver(phone, "front")
    phone.problems()
    open_as_a_grown_up(phone, f"{server.http}/debug/{created.game_id}")
    last = len(saved.events)
    phone.wait_until(f"{position} === 'Version {last} of {last}'")
    facts = page_facts(phone)  # the board shown far down the panel is no game to play: not in view
    assert (facts["small"], facts["clipped"], facts["smallLabels"]) == ([], [], []), json.dumps(facts["small"])
    assert_accessible(phone)
    assert phone.problems() == []
    driver(page, "front")


def test_the_phones_screenshots_in_docs_are_small_and_shown() -> None:
    """docs/screens/ holds each game mid-play and at its end on a phone (copied from a
    run's build/screenshots/family/ once looked at): each small, each shown by the web
    app's README, and the README shows no other."""
    screens = ROOT / "docs" / "screens"
    shots = sorted(path.name for path in screens.glob("*.png"))
    for game in ("mooki", "pirates", "picnic"):
        assert {f"{game}-middle-phone.png", f"{game}-end-phone.png"} <= set(shots)
    assert all((screens / name).stat().st_size < 200_000 for name in shots)
    readme = (ROOT / "clients" / "web" / "README.md").read_text()
    shown = sorted(re.findall(r"\(\.\./\.\./docs/screens/([a-z-]+\.png)\)", readme))
    assert shown == shots
