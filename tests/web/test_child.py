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
import re
from collections.abc import Iterator
from typing import Any

import pytest
from ludotheque import Client
from ludotheque.pirates.v1 import pirates_pb2

from tests.support.browser import PHONE, Browser, Page
from tests.support.server import ServerProcess
from tests.web.facts import page_facts, problems
from tests.web.playing import (
    CHOICES,
    STATUS,
    TURN,
    assert_accessible,
    choose,
    driver,
    open_as_a_grown_up,
    wait_for_a_turn,
)
from tests.web.test_family import hold, shoot

SPOKEN = "window.spoken"
SPEED = "document.querySelector('.speed-switch')?.dataset.speed"
# Each move shown: when, whose, and what the status line said meanwhile.
WATCH_BEATS = """(() => {
  window.beats = [];
  document.addEventListener('ludotheque:beat', (event) => window.beats.push({ at: performance.now(),
    seats: event.detail.events.map((e) => e.seat), status: document.querySelector('.status').textContent }));
  return true;
})()"""
# Buttons on the board or the curtain without a picture, or without words of their own.
BARE_BUTTONS = """[...document.querySelectorAll('.play-board button, .curtain button, .play-bar button')]
  .filter((b) => !b.querySelector('svg, .button-picture') || !(b.textContent.trim() || b.getAttribute('aria-label')))
  .map((b) => b.outerHTML.slice(0, 120))"""
# The choices offered that do not beckon (a pulsing ring on what to tap now).
STILL_CHOICES = """[...document.querySelectorAll('.play-board [data-choice]')]
  .filter((c) => !c.getAnimations().some((a) => ['beckon', 'glow'].includes(a.animationName)))
  .map((c) => c.dataset.choice)"""
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
    child's rate (at every step, what to tap beckons and every button has its picture
    and its words); the speaker switch silences it, remembered after a reload; in French the
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
        # What to do now: the things to tap beckon, and no button is words alone.
        assert page.evaluate(BARE_BUTTONS) == []
        assert page.evaluate(STILL_CHOICES) == []
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
    # No word is cut in two on the page ("Grenouill e"): lines break between words only.
    cut = "[...document.querySelectorAll('main *')].filter((e) => getComputedStyle(e).overflowWrap === 'anywhere')"
    assert page.evaluate(f"{cut}.map((e) => e.className)") == []
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


SEAT = "form.new-game li.seat:nth-child({n})"
CURTAIN = ".curtain:not([hidden])"
BOARD_VERSION = "document.querySelector('.play-board')?.dataset.version"


def seat_name(page: Page, n: int) -> tuple[str, str]:
    """The seat's name field: its value and its placeholder."""
    field = f"document.querySelector('{SEAT.format(n=n)} input[name=name]')"
    value, placeholder = page.evaluate(f"[{field}.value, {field}.placeholder]")
    return str(value), str(placeholder)


def hint_shown(page: Page, n: int) -> bool:
    """Whether the seat's number shows its badge (the next animal's face: a picture to
    tap), 20 px at least, whole on the screen."""
    box = page.evaluate(
        f"(() => {{ const badge = document.querySelector('{SEAT.format(n=n)} .seat-picture .picture-hint svg');"
        " const r = badge?.getBoundingClientRect(); return r && [r.width, r.height, r.left, r.right]; })()"
    )
    return bool(box) and box[0] >= 20 and box[1] >= 20 and box[2] >= 0 and box[3] <= PHONE[0]


def seat_two_people_by_their_pictures(page: Page, base: str, kind: str, pictures: tuple[str, str]) -> None:
    """From the phone's lobby: `kind`, the second seat switched from a robot to a person
    (no name proposed for either: "Player 2" is the empty field's placeholder, what every
    page calls it if it stays empty), each seat named by tapping its picture; then started."""
    page.goto(f"{base}/")
    page.wait_for(f"form.new-game input[value={kind}]")
    page.click(f"form.new-game input[value={kind}]")
    page.wait_for(f"{SEAT.format(n=1)} select[name=bot]")
    if page.evaluate(f"document.querySelector('{SEAT.format(n=2)}') === null"):  # a game one may play alone
        page.click("form.new-game .seats-box > button")
        page.select(f"{SEAT.format(n=2)} select[name=bot]", "greedy")
    assert seat_name(page, 2) == ("", "Player 2")
    assert hint_shown(page, 1) and not hint_shown(page, 2)  # a robot has no picture to tap
    page.select(f"{SEAT.format(n=2)} select[name=bot]", "")
    assert seat_name(page, 2) == ("", "Player 2")
    assert hint_shown(page, 2)
    shoot(page, f"lobby-seats-{kind}-phone")
    for n, picture in enumerate(pictures, start=1):  # each tap on the seat's number: the next animal
        shown = f"document.querySelector('{SEAT.format(n=n)} .seat-picture').dataset.picture"
        for _ in range(6):
            driver(page, "tap", selector=f"{SEAT.format(n=n)} .seat-picture", timeout=15_000)
            if page.evaluate(shown) == picture:
                break
        assert seat_name(page, n) == (picture.capitalize(), f"Player {n}")
    assert problems(page_facts(page)) == {}
    driver(page, "tap", selector="form.new-game button[type=submit]", timeout=15_000)
    page.wait_until("location.pathname.startsWith('/play/')")


def test_a_curtain_only_where_the_game_hides_something(phone: Page, server: ServerProcess) -> None:
    """Two people at one phone, named by their pictures: the picnic (cooperative, nothing
    hidden: GameKind.seatSecrets false) goes from one to the other with no curtain;
    Pirates (hands) passes behind a curtain showing whose turn by their picture, ringed
    in their ship's colour, its button their picture too."""
    page = phone
    driver(page, "front")
    page.problems()
    seat_two_people_by_their_pictures(page, server.http, "picnic", ("fox", "rabbit"))
    turns: set[str] = set()
    rng = random.Random(7)
    for _ in range(12):
        # The status may say whose turn a moment before the board offers its choices.
        page.wait_until(f"document.querySelector('{CURTAIN}') || ({STATUS} === 'your-turn' && {CHOICES}.length > 0)")
        assert page.evaluate(f"document.querySelector('{CURTAIN}')") is None
        turns.add(page.text(".status"))
        choose(page, rng.choice(page.evaluate(CHOICES)), touch=True)
        if len(turns) == 2:
            break
    assert turns == {"Your turn, Fox!", "Your turn, Rabbit!"}

    seat_two_people_by_their_pictures(page, server.http, "pirates", ("fox", "cat"))
    ships = page.evaluate(
        "fetch('/v1/kinds/pirates').then((r) => r.json()).then((kind) => kind.pirates.ships.map((ship) => ship.rgb))"
    )
    for picture, colour in (("fox", ships[0]), ("cat", ships[1])):
        page.wait_for(f"{CURTAIN} .curtain-mark[data-picture={picture}]")
        assert page.evaluate(f"document.querySelector('{CURTAIN} .curtain-mark').dataset.colour") == colour
        assert page.evaluate(f"document.querySelector('{CURTAIN} button .button-picture svg') !== null")
        assert problems(page_facts(page)) == {}
        if picture == "fox":
            assert_accessible(page)
            shoot(page, "curtain-picture-phone")
        driver(page, "tap", selector=f"{CURTAIN} button", timeout=15_000)
        # Until the curtain comes down again: each wait ends on the curtain as well as on a
        # turn, and a choice is followed until the board has moved on (the status still says
        # "your turn" a moment after a tap, before the move is made).
        while (now := page.wait_until(f"document.querySelector('{CURTAIN}') ? 'curtain' : ({TURN})")) != "curtain":
            assert now == "move"
            before = page.evaluate(BOARD_VERSION)
            choose(page, page.evaluate(CHOICES)[0], touch=True)
            page.wait_until(f"document.querySelector('{CURTAIN}') || {BOARD_VERSION} !== {json.dumps(before)}")
    assert page.problems() == []


def test_a_joiner_taps_a_picture_and_is_named_in_their_language(browser: Browser, server: ServerProcess) -> None:
    """The host's seat has no name (created in English): the French joiner reads it as
    « Joueur 1 », on the join page and the play page alike."""
    with Client(server.target, locale="en") as lobby:
        created = lobby.create_game("mooki", [{"age": 7}, {"open": True}])
    guest = browser.new_page(PHONE, mobile=True, isolated=True)
    try:
        guest.goto(f"{server.http}/")
        guest.evaluate("localStorage.setItem('ludotheque.locale', 'fr')")
        guest.goto(f"{server.http}/join/{created.game.join_code}?game={created.game_id}")
        guest.wait_for(".join-seats li.free")
        assert guest.text("#invitation-title").startswith("Joueur 1 t’invite à jouer")
        assert problems(page_facts(guest)) == {}
        assert_accessible(guest)
        driver(guest, "tap", selector="form.join-game [data-picture=frog]", timeout=15_000)
        assert guest.evaluate("document.querySelector('form.join-game input[name=name]').value") == "Grenouille"
        shoot(guest, "join-picture-phone")
        driver(guest, "tap", selector="form.join-game button[type=submit]", timeout=15_000)
        guest.wait_until(f"location.pathname === '/play/{created.game_id}'")
        guest.wait_until("document.querySelector('.play-top .lead')?.textContent.includes('Grenouille (toi)')")
        assert guest.text(".play-top .lead") == "Joueur 1 · Grenouille (toi)"
        held = json.loads(guest.evaluate(f"localStorage.getItem('ludotheque.seats.{created.game_id}')"))
        assert held[0]["picture"] == "frog" and held[0]["name"] == "Grenouille"
        assert guest.problems() == []
    finally:
        guest.close()


def test_the_debug_panel_is_behind_a_grown_ups_gate(browser: Browser, server: ServerProcess) -> None:
    """Not in the main menu, nor on the play page or the lobby's lists: a link at the
    bottom of the lobby leads to a sum of two two-digit numbers; a wrong answer asks
    another; the right one opens the panel, and then, in this tab, the ways to it show."""
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robot", "bot": "greedy"}])
    child = browser.new_page(PHONE, mobile=True, isolated=True)
    try:
        hold(child, server.http, created.game_id, [{"seat": 0, "name": "Cléo", "token": created.seat_tokens[0]}])
        assert wait_for_a_turn(child) == "move"
        to_the_panel = "[...document.querySelectorAll('a')].filter((a) => a.pathname.startsWith('/debug')).length"
        assert child.evaluate(to_the_panel) == 0  # the header's menu and the play page
        child.goto(f"{server.http}/")
        child.wait_for(".grown-ups a")
        assert child.evaluate(to_the_panel) == 1  # the lobby's last line only
        assert child.evaluate("document.querySelector('.site-header nav').textContent.includes('Debug')") is False
        driver(child, "tap", selector=".grown-ups a", timeout=15_000)
        child.wait_for(".grown-up-gate")
        assert child.evaluate("document.querySelector('.page.debug, [data-drop], input[name=admin-token]')") is None
        assert_accessible(child)
        question = child.text(".gate-question")
        a, b = map(int, re.findall(r"\d+", question))
        assert 11 <= a <= 89 and 11 <= b <= 89
        child.type(".grown-up-gate input[name=answer]", str(a + b + 1))
        driver(child, "tap", selector=".grown-up-gate button[type=submit]", timeout=15_000)
        child.wait_until(f"document.querySelector('.gate-question').textContent !== {json.dumps(question)}")
        assert child.evaluate("document.querySelector('.page.debug')") is None
        assert child.text(".grown-up-gate .error") == "That is not it: here is another one."
        shoot(child, "gate-phone")
        open_as_a_grown_up(child, f"{server.http}/debug/{created.game_id}")
        child.wait_for(".timeline li")
        child.goto(f"{server.http}/play/{created.game_id}")
        child.wait_for(f"a[href='/debug/{created.game_id}']")  # this tab passed the gate
        assert child.problems() == []
    finally:
        child.close()


def two_friends_on_one_space(server: ServerProcess) -> tuple[str, str]:
    """A one-seat picnic played (its first legal move, but a friend walked onto another
    friend's space whenever it may) until two friends stand on one space."""
    from ludotheque.v1 import game_pb2

    with Client(server.target) as lobby:
        for _ in range(30):
            created = lobby.create_game("picnic", [{"name": "Cléo"}])
            player = lobby.with_token(created.seat_tokens[0])
            for _ in range(200):
                game = player.get_game(created.game_id)
                cells = [f.cell for f in game.view.picnic.friends if not f.invited and f.HasField("cell")]
                if len(set(cells)) < len(cells):
                    return created.game_id, created.seat_tokens[0]
                if game.status == game_pb2.GAME_STATUS_FINISHED or not game.legal_commands:
                    break
                onto = [c for c in game.legal_commands if list(c.picnic.move_friend.route[-1:]) in ([x] for x in cells)]
                player.submit(created.game_id, (onto or list(game.legal_commands))[0])
    raise AssertionError("no game put two friends on one space")


# Each friend drawn on the board: its circle's size and centre on the screen, and its initial.
FRIENDS_DRAWN = """[...document.querySelectorAll('.play-board [data-anchor^="friend:"]')].map((g) => {
  const face = [...g.querySelectorAll('circle')].filter((c) => !c.classList.length)
    .sort((a, b) => b.r.baseVal.value - a.r.baseVal.value)[0].getBoundingClientRect();
  return { size: face.width, x: face.x + face.width / 2, y: face.y + face.height / 2,
    space: g.getAttribute('aria-label').split(' ').pop(), initial: g.querySelector('text')?.textContent ?? '' };
})"""
CHIPS = """[...document.querySelectorAll('.friend-chip')]
  .map((c) => [c.getBoundingClientRect().width, c.getBoundingClientRect().height])"""


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_two_friends_on_one_space_are_drawn_large_enough_to_read(
    browser: Browser, server: ServerProcess, size: str
) -> None:
    game_id, token = two_friends_on_one_space(server)
    page = browser.new_page(PHONE, mobile=True) if size == "phone" else browser.new_page()
    try:
        hold(page, server.http, game_id, [{"seat": 0, "name": "Cléo", "token": token}])
        page.wait_for('.play-board [data-anchor^="friend:"]')
        drawn: list[dict[str, Any]] = page.evaluate(FRIENDS_DRAWN)
        spaces = [one["space"] for one in drawn]
        shared = [one for one in drawn if spaces.count(one["space"]) > 1]
        assert len(shared) >= 2, drawn
        shoot(page, f"picnic-friends-together-{size}")
        alone = max(one["size"] for one in drawn if one not in shared)
        for one in shared:  # each a face with its initial, as large as a friend alone on its space
            assert one["initial"] and one["size"] >= alone - 0.5 and one["size"] >= (25 if size == "phone" else 30), (
                drawn
            )
        for one, other in itertools.combinations(shared, 2):  # side by side, not on top of each other
            apart = ((one["x"] - other["x"]) ** 2 + (one["y"] - other["y"]) ** 2) ** 0.5
            assert apart >= (one["size"] + other["size"]) / 2 - 2, (one, other)
        # The friends' buttons under the forest: each a 44 px target at least.
        assert all(width >= 44 and height >= 44 for width, height in page.evaluate(CHIPS))
        shoot(page, f"picnic-friends-together-{size}")
        assert problems(page_facts(page)) == {}
        assert page.problems() == []
    finally:
        page.close()
