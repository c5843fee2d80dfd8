"""A child who cannot read plays alone, on a phone (390 × 844, touch): the game is read
aloud through the browser's speechSynthesis, in the page's language (every event shown,
the turn and what to pick, the curtain, the end), with a speaker switch remembered on the
device; the others' moves are shown at a child's pace (1.5 s each at least by default, a
speed switch remembered on the device), said to be the others' only when they are.

What the page says is recorded as it reaches the real speechSynthesis.speak
(clients/web/test/driver.mjs notes each utterance's text, language and rate in
`window.spoken`, then lets it speak)."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from ludotheque import Client
from ludotheque.pirates.v1 import pirates_pb2

from tests.support.browser import PHONE, Browser, Page
from tests.support.server import ServerProcess
from tests.web.playing import CHOICES, STATUS, choose, driver, wait_for_a_turn
from tests.web.test_family import hold

SPOKEN = "window.spoken"
SPEED = "document.querySelector('.speed-switch')?.dataset.speed"
# Each move shown: when, whose, and what the status line said meanwhile.
WATCH_BEATS = """(() => {
  window.beats = [];
  document.addEventListener('ludotheque:beat', (event) => window.beats.push({ at: performance.now(),
    seats: event.detail.events.map((e) => e.seat), status: document.querySelector('.status').textContent }));
  return true;
})()"""
VERSION = "Number(document.querySelector('.play-board')?.dataset.version ?? -1)"


@pytest.fixture(scope="module")
def phone(browser: Browser) -> Iterator[Page]:
    page = browser.new_page(PHONE, mobile=True)
    yield page
    page.close()


def spoken(page: Page) -> list[dict[str, Any]]:
    said: list[dict[str, Any]] = page.evaluate(SPOKEN)
    return said


def pirates_against_a_robot(server: ServerProcess) -> tuple[str, str]:
    """A short Pirates game (one space to the island): Cléo, 6, then a robot."""
    with Client(server.target) as lobby:
        created = lobby.create_game(
            "pirates",
            [{"name": "Cléo", "age": 6}, {"name": "Robot", "bot": "greedy"}],
            pirates_pb2.Options(island_distance=1),
        )
    return created.game_id, created.seat_tokens[0]


def test_a_game_is_read_aloud_in_the_pages_language(phone: Page, server: ServerProcess) -> None:
    """Cléo's turn and what to pick, then every event from then on (her moves, the robot's
    shown one after another, a turn skipped, a round won) and the end, in English at a
    child's rate; the speaker switch silences it, remembered after a reload; in French the
    same words are French."""
    page = phone
    page.problems()
    game_id, token = pirates_against_a_robot(server)
    cleo = [{"seat": 0, "name": "Cléo", "token": token}]
    hold(page, server.http, game_id, cleo, pace=300)
    assert wait_for_a_turn(page) == "move"
    prompt = page.text(".play-board .prompt")
    page.wait_until(f"{SPOKEN}.length > 0")
    assert spoken(page)[0]["text"] == f"Your turn, Cléo! {prompt}"
    assert spoken(page)[0]["lang"] == "en" and spoken(page)[0]["rate"] < 1

    # Off: nothing is said, and it stays off on this device.
    driver(page, "tap", selector=".speech-switch", timeout=15_000)
    assert page.evaluate("localStorage.getItem('ludotheque.speech')") == "off"
    before = len(spoken(page))
    rng = random.Random(5)
    choose(page, rng.choice(page.evaluate(CHOICES)), touch=True)
    assert wait_for_a_turn(page) == "move"
    assert len(spoken(page)) == before
    hold(page, server.http, game_id, cleo, pace=300)
    page.wait_until("document.querySelector('.speech-switch')?.getAttribute('aria-pressed') === 'false'")
    assert wait_for_a_turn(page) == "move"
    assert spoken(page) == []

    # In French, the page's words and the server's are French.
    page.evaluate("localStorage.setItem('ludotheque.locale', 'fr'); localStorage.setItem('ludotheque.speech', 'on')")
    hold(page, server.http, game_id, cleo, pace=300)
    assert wait_for_a_turn(page) == "move"
    page.wait_until(f"{SPOKEN}.length > 0")
    assert spoken(page)[0]["text"].startswith("À toi de jouer, Cléo ! ")
    assert {said["lang"] for said in spoken(page)} == {"fr"}
    page.evaluate("localStorage.setItem('ludotheque.locale', 'en')")

    # Back in English, played to the end: every event from the first version on the
    # board was said, in order, then how the game ended.
    hold(page, server.http, game_id, cleo, pace=300)
    assert wait_for_a_turn(page) == "move"
    start = int(page.evaluate(VERSION))
    page.evaluate(f"{SPOKEN}.length = 0")
    while wait_for_a_turn(page) == "move":
        choose(page, rng.choice(page.evaluate(CHOICES)), touch=True)
    page.wait_until("['won', 'lost'].includes(document.querySelector('.outcome:not([hidden])')?.dataset.ending)")
    outcome = page.text(".outcome-text span:last-child")
    page.wait_until(f"{SPOKEN}.some((said) => said.text.endsWith({json.dumps(outcome)}))")
    said = spoken(page)
    assert {one["lang"] for one in said} == {"en"}
    text = " ".join(one["text"] for one in said)
    with Client(server.target, token) as seat:
        events = [event for event in seat.history(game_id) if event.version > start]
    at = 0
    for event in events:  # each in turn, none left out
        found = text.find(event.description.text, at)
        assert found >= 0, f"version {event.version} was not said: {event.description.text!r} in {text!r}"
        at = found + len(event.description.text)
    assert "Your turn, Cléo!" in text
    assert page.evaluate(STATUS) == "finished"
    assert page.problems() == []


def test_the_curtain_is_read_aloud(phone: Page, server: ServerProcess) -> None:
    page = phone
    page.problems()
    with Client(server.target) as lobby:
        created = lobby.create_game("pirates", [{"name": "Cléo", "age": 6}, {"name": "Papa", "age": 38}])
    held = [{"seat": n, "name": name, "token": created.seat_tokens[n]} for n, name in enumerate(["Cléo", "Papa"])]
    hold(page, server.http, created.game_id, held)
    page.wait_for(".curtain:not([hidden])")
    page.wait_until(f"{SPOKEN}.length > 0")
    assert spoken(page)[0]["text"].startswith("Pass the device to Cléo. It is Cléo's turn.")
    assert page.problems() == []


def test_the_others_moves_are_shown_at_a_childs_pace(phone: Page, server: ServerProcess) -> None:
    """Three robots after Cléo: by default each one's move stays 1.5 s at least, the status
    saying "Look what the others did…" (and not while Cléo's own move is shown on the way
    to theirs); the speed switch goes fast, slow, remembered on this device."""
    page = phone
    page.problems()
    with Client(server.target) as lobby:  # no card makes a robot miss its turn
        robots = [{"name": f"Robot {n}", "bot": "greedy"} for n in (1, 2, 3)]
        specials = [pirates_pb2.CARD_KIND_SAILBOAT, pirates_pb2.CARD_KIND_SLEEPING_PIRATE]
        created = lobby.create_game(
            "pirates", [{"name": "Cléo", "age": 6}, *robots], pirates_pb2.Options(removed_specials=specials)
        )
    hold(page, server.http, created.game_id, [{"seat": 0, "name": "Cléo", "token": created.seat_tokens[0]}])
    page.evaluate("localStorage.setItem('ludotheque.pace', 'default')")  # as on a device never set
    page.goto(f"{server.http}/play/{created.game_id}")
    assert wait_for_a_turn(page) == "move"
    assert page.evaluate(SPEED) == "1500"
    page.evaluate(WATCH_BEATS)
    robots_played = "window.beats.some((beat) => beat.seats.some((seat) => seat !== 0))"
    while not page.evaluate(robots_played):
        choose(page, page.evaluate(CHOICES)[0], touch=True)
        settled = f"{STATUS} === 'your-turn' && !document.querySelector('.play-board.pending')"
        page.wait_until(f"{robots_played} || ({settled})")
    page.wait_until(f"{STATUS} === 'your-turn'", 60_000)
    beats: list[dict[str, Any]] = page.evaluate("window.beats")
    theirs = [beat for beat in beats if any(seat != 0 for seat in beat["seats"])]
    assert len(theirs) >= 3, beats
    assert all(beat["status"] == "Look what the others did…" for beat in theirs), beats
    assert all(beat["status"] == "Your move…" for beat in beats if set(beat["seats"]) == {0}), beats
    gaps = [later["at"] - earlier["at"] for earlier, later in itertools.pairwise(theirs)]
    assert min(gaps) >= 0.98 * 1500, gaps  # a timer never ends early; no upper bound on a busy machine

    driver(page, "tap", selector=".speed-switch", timeout=15_000)
    assert page.evaluate(SPEED) == "800" and page.evaluate("localStorage.getItem('ludotheque.pace')") == "800"
    driver(page, "tap", selector=".speed-switch", timeout=15_000)
    assert page.evaluate(SPEED) == "2500"
    page.goto(f"{server.http}/play/{created.game_id}")
    page.wait_until(f"{SPEED} === '2500'")
    assert "slow" in str(page.evaluate("document.querySelector('.speed-switch').getAttribute('aria-label')"))
    page.evaluate("localStorage.setItem('ludotheque.pace', '0')")
    assert page.problems() == []
