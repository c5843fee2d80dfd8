"""Playing a game in the browser as a person would: by clicking the choices the board
offers (or tapping them, or with the keyboard), until the game is over, with screenshots
on the way."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from ludotheque import Client

from tests.support.browser import Page
from tests.support.server import ServerProcess
from tests.web.facts import page_facts, problems

STATUS = "document.querySelector('.status')?.dataset.status"
CHOICES = "[...document.querySelectorAll('.play-board [data-choice]')].map(e => e.dataset.choice)"
TURN = (
    f"{STATUS} === 'finished' ? 'finished'"
    f" : ({STATUS} === 'your-turn' && document.querySelector('.play-board [data-choice]')) ? 'move' : ''"
)
FOCUSED_CHOICE = "document.activeElement?.closest('.play-board [data-choice]')?.dataset.choice ?? ''"
MAX_CLICKS = 400


def driver(page: Page, op: str, **arguments: Any) -> Any:
    """One of the driver's operations the Page class has no method for (tap, settle,
    emulate, grant: clients/web/test/driver.mjs)."""
    return page.browser.call(op, page=page.number, **arguments)


def settle(page: Page) -> None:
    """Waits until the pieces moving on the page have arrived."""
    driver(page, "settle")


def choose(page: Page, key: str, *, touch: bool = False) -> None:
    """Picks the choice `key` on the board: a tap on a phone, a click elsewhere."""
    selector = f".play-board [data-choice={json.dumps(key)}]"
    if touch:
        driver(page, "tap", selector=selector, timeout=15_000)
    else:
        page.click(selector)


def assert_accessible(page: Page) -> None:
    violations = page.accessibility_violations()
    assert violations == [], json.dumps(violations, indent=1)


def wait_for_a_turn(page: Page) -> str:
    """'move' once the board offers this browser's seat a choice, 'finished' at the end."""
    return str(page.wait_until(TURN, 30_000))


def play_by_clicking(page: Page, seed: int, shots: str, middle: int, *, fits: tuple[int, int] | None = None) -> int:
    """Clicks one of the choices the board offers (chosen by a seeded random), step after
    step, until the game is over; screenshots `shots`-middle after `middle` clicks and
    `shots`-end. With `fits` (a window's size), the page is that size and at every step
    the board, the player's pieces and the move to make are on the screen, nothing is
    cut off or too small (tests/web/facts.py). Returns the number of clicks."""
    rng = random.Random(seed)
    clicks = 0
    if fits:
        page.viewport(fits)
    while wait_for_a_turn(page) == "move":
        if fits:
            settle(page)
            found = problems(page_facts(page))
            assert found == {}, f"{fits[0]}×{fits[1]}, step {clicks}: {json.dumps(found)}"
        keys: list[str] = page.evaluate(CHOICES)
        page.click(f".play-board [data-choice={json.dumps(rng.choice(keys))}]")
        clicks += 1
        assert clicks < MAX_CLICKS, "the game did not end"
        if clicks == middle:
            assert_accessible(page)
            page.screenshots(f"{shots}-middle")
            if fits:
                page.viewport(fits)
    page.wait_for(".outcome:not([hidden])")
    return clicks


def open_as_seat(page: Page, base: str, game_id: str, seats: list[dict[str, object]]) -> None:
    """Opens the play page holding `seats` ({seat, name, token}), as the lobby would have
    kept them in this browser's storage."""
    page.goto(f"{base}/")
    page.evaluate(f"localStorage.setItem('ludotheque.seats.{game_id}', {json.dumps(json.dumps(seats))})")
    page.goto(f"{base}/play/{game_id}")


def assert_the_log_is_the_games(page: Page, server: ServerProcess, game_id: str, token: str, locale: str = "en") -> int:
    """The page's log is every event of the game, once, in order, in the server's words."""
    with Client(server.target, token, locale=locale) as seat:
        events = seat.history(game_id)
    page.wait_until(f"document.querySelectorAll('.event-log li').length >= {len(events)}")
    shown = page.evaluate(
        "[...document.querySelectorAll('.event-log li')].map(li => [Number(li.dataset.version), li.textContent])"
    )
    assert [version for version, _ in shown] == [event.version for event in events]
    assert [text.split(" ", 1)[1] for _, text in shown] == [event.description.text for event in events]
    return len(events)


def open_as_a_grown_up(page: Page, url: str) -> None:
    """Opens a debug page (`url`) as a grown-up would: the gate's sum answered when it
    asks (once a tab: clients/web/src/pages/gate.ts)."""
    page.goto(url)
    page.wait_until("document.querySelector('.grown-up-gate, .page.debug')")
    if page.evaluate("document.querySelector('.grown-up-gate') !== null"):
        a, b = map(int, re.findall(r"\d+", page.text(".gate-question")))
        page.type(".grown-up-gate input[name=answer]", str(a + b))
        page.click(".grown-up-gate button[type=submit]")
        page.wait_for(".page.debug")
