"""The web app's "Help me" in a real browser: on a seat's turn the button asks for a hint (GetHint), the
board lights the hinted move's next step (blue), its reason stands beside the prompt and is
said aloud (speechSynthesis, recorded by clients/web/test/driver.mjs in `window.spoken`),
in the page's language, on a phone and on a desktop (screenshots in build/screenshots/
family/hint-*); the light goes once the move is played. And the lobby offers the robots
as a child says them, from the easiest to the strongest: the easy robot (random), the
good robot (greedy), the strong robot (where the kind lists it)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from ludotheque import Client
from ludotheque.pirates.v1 import pirates_pb2
from ludotheque.v1.game_service_pb2 import GetHintResponse

from tests.support.browser import PHONE, Browser, Page
from tests.support.server import ServerProcess, running_server
from tests.web.facts import page_facts, problems
from tests.web.playing import CHOICES, assert_accessible, choose, driver, settle, wait_for_a_turn
from tests.web.test_family import DESKTOP, hold, shoot

HINTED = "[...document.querySelectorAll('.play-board .hinted[data-choice]')].map((e) => e.dataset.choice)"
REASON = "document.querySelector('.play-board .hint-reason')?.textContent ?? ''"
VERSION = "Number(document.querySelector('.play-board')?.dataset.version ?? -1)"


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


def against_a_robot(server: ServerProcess, kind: str) -> tuple[str, str]:
    """A game of `kind`: Cléo, 6, then the good robot (Pirates: one space to the island)."""
    options = pirates_pb2.Options(island_distance=1) if kind == "pirates" else None
    with Client(server.target) as lobby:
        created = lobby.create_game(kind, [{"name": "Cléo", "age": 6}, {"name": "Robot", "bot": "greedy"}], options)
    return created.game_id, created.seat_tokens[0]


def ask_for_help(page: Page, server: ServerProcess, game_id: str, token: str, locale: str, *, touch: bool) -> list[str]:
    """Taps "Help me" on Cléo's turn: the hint the server gives her is lit and said. Returns
    the keys lit."""
    assert wait_for_a_turn(page) == "move"
    settle(page)
    assert problems(page_facts(page)) == {}, "the button fits beside the prompt"
    shoot(page, f"hint-before-{locale}")
    if touch:
        driver(page, "tap", selector=".play-board [data-help]", timeout=15_000)
    else:
        page.click(".play-board [data-help]")
    page.wait_until(f"{REASON} !== ''")
    with Client(server.target, token=token, locale=locale) as cleo:
        hint = cleo.get_hint(game_id)  # the same hint, asked again at the same version
    reason = hint.reason.text
    assert page.evaluate(REASON).endswith(reason)
    first = hint.command.choices[0]
    lit: list[str] = page.evaluate(HINTED)
    assert lit and set(lit) == {f"{first.subject}:{first.value}"}, (lit, first)
    page.wait_until(f"window.spoken.some((said) => said.text === {json.dumps(reason)})")
    assert {said["lang"] for said in page.evaluate("window.spoken")} == {locale}
    assert problems(page_facts(page)) == {}
    return lit


def test_help_me_lights_the_hinted_move_and_says_why_on_a_phone_in_french(phone: Page, server: ServerProcess) -> None:
    page = phone
    page.problems()
    game_id, token = against_a_robot(server, "mooki")
    page.goto(f"{server.http}/")
    page.evaluate("localStorage.setItem('ludotheque.locale', 'fr'); localStorage.setItem('ludotheque.speech', 'on')")
    hold(page, server.http, game_id, [{"seat": 0, "name": "Cléo", "token": token}])
    lit = ask_for_help(page, server, game_id, token, "fr", touch=True)
    assert page.evaluate("document.querySelector('.play-board [data-help]').getAttribute('aria-label')") == "Aide-moi"
    assert page.evaluate(REASON).startswith("Idée :")
    shoot(page, "hint-mooki-phone")
    before = page.evaluate(VERSION)
    choose(page, lit[0], touch=True)  # the pile the hint lit: drawn
    page.wait_until(f"{VERSION} > {before}")
    assert wait_for_a_turn(page) == "move"
    assert page.evaluate(REASON) == "" and page.evaluate(HINTED) == [], "the hint was for the move before"
    page.evaluate("localStorage.setItem('ludotheque.locale', 'en')")
    assert page.problems() == []


def test_help_me_on_a_desktop_in_english(desktop: Page, server: ServerProcess) -> None:
    page = desktop
    page.problems()
    game_id, token = against_a_robot(server, "pirates")
    page.goto(f"{server.http}/")
    page.evaluate("localStorage.setItem('ludotheque.locale', 'en'); localStorage.setItem('ludotheque.speech', 'on')")
    hold(page, server.http, game_id, [{"seat": 0, "name": "Cléo", "token": token}])
    ask_for_help(page, server, game_id, token, "en", touch=False)
    assert page.evaluate(REASON).startswith("Idea:")
    assert_accessible(page)
    shoot(page, "hint-pirates-desktop")
    assert page.problems() == []


def test_the_lobby_offers_the_robots_from_the_easiest_to_the_strongest(desktop: Page, server: ServerProcess) -> None:
    page = desktop
    with Client(server.target) as lobby:
        bots = {kind.kind: [bot.name for bot in kind.bots] for kind in lobby.list_game_kinds()}
    page.goto(f"{server.http}/")
    page.evaluate("localStorage.setItem('ludotheque.locale', 'en')")
    page.goto(f"{server.http}/")
    page.wait_for("form.new-game input[value=mooki]")
    page.click("form.new-game input[value=mooki]")
    who = "form.new-game .seats li:nth-child(2) select[name=bot]"
    page.wait_for(who)
    offered = page.evaluate(f"[...document.querySelector('{who}').options].map((o) => [o.value, o.textContent])")
    robots = [pair for pair in offered if pair[0] not in ("", "open")]
    levels = {"random": "the easy robot", "greedy": "the good robot", "strong": "the strong robot"}
    expected = [[name, levels[name]] for name in levels if name in bots["mooki"]]
    assert robots[: len(expected)] == expected
    assert page.evaluate(f"document.querySelector('{who}').value") == "greedy"  # the good robot by default
    shoot(page, "hint-lobby-levels-desktop")


def test_a_hinted_move_of_several_steps_is_lit_step_after_step(desktop: Page) -> None:
    """The picnic, alone: at the first turn whose hint takes two steps (a tile, then where
    Facteur Souris walks) and whose first step is the player's to pick (the page takes a
    step that has one option for them), "Help me" lights the first; picked, the second."""
    page = desktop
    page.problems()
    # A server of its own, where hints are not counted: the turns are played by their hints.
    with running_server(env={"LUDOTHEQUE_HINT_RATE": "0", "LUDOTHEQUE_HINT_CLIENT_RATE": "0"}) as server:
        with Client(server.target) as lobby:
            created = lobby.create_game("picnic", [{"name": "Cléo", "age": 6}])
        game_id, token = created.game_id, created.seat_tokens[0]
        with Client(server.target, token=token) as cleo:
            for _ in range(60):
                hint = cleo.get_hint(game_id)
                legal = cleo.get_game(game_id).legal_commands
                first_steps = {(c.choices[0].subject, c.choices[0].value) for c in legal}
                if len(hint.command.choices) >= 2 and len(first_steps) > 1:
                    break
                cleo.submit(game_id, hint.command)
            else:
                pytest.fail("no hint of two steps to pick in 60 turns")
        lit_step_after_step(page, server, game_id, token, hint)


def lit_step_after_step(page: Page, server: ServerProcess, game_id: str, token: str, hint: GetHintResponse) -> None:
    """Cléo's page on her turn: "Help me" lights the hint's first step; picked, its second."""
    hold(page, server.http, game_id, [{"seat": 0, "name": "Cléo", "token": token}])
    assert wait_for_a_turn(page) == "move"
    settle(page)
    page.click(".play-board [data-help]")
    page.wait_until(f"{REASON} !== ''")
    steps = [f"{step.subject}:{step.value}" for step in hint.command.choices]
    assert page.evaluate(HINTED) == [steps[0]]
    choose(page, steps[0], touch=False)
    page.wait_until(f"JSON.stringify({HINTED}) === {json.dumps(json.dumps([steps[1]]))}")
    assert page.evaluate(REASON).endswith(hint.reason.text)
    shoot(page, "hint-picnic-second-step-desktop")
    assert page.evaluate(CHOICES)  # the move is not played until its last step is picked
    assert page.problems() == []
    page.goto("about:blank")  # before its server stops
