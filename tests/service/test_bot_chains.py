"""Chains of bot moves under the creation policy: a take-over, a turn clock's timeout or a
start plays bots for as long as the game waits for them, handing the event loop back as a
move's chain does; and a game with no player left is a game of bots only for the
creation limits (--bot-game-rate), however it became one (issue 27: a player's own
`:takeOver` of a game of one player and three bots played it out in one call, holding the
loop up to 0.47 s, and got around `--bot-game-rate 0`)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable
from dataclasses import replace
from typing import Any, TypeVar

import pytest
from ludotheque.pirates.v1 import pirates_pb2 as pirates
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.access.auth import TokenAuthority
from service.app.access.limits import NO_LIMITS
from service.app.game_app import Settings, World
from service.app.model.errors import Code, ServiceError
from service.app.moves import steps
from service.app.words.catalogs import catalogs
from service.store.memory import MemoryStore
from tests.support.aio import async_test

ADMIN = "admin-token-for-the-bot-chain-tests-0123456789"
SECRET = b"0123456789abcdef-bot-chain-test-secret-0123456789"
START = 1_800_000_000.0
LONG = game_pb2.GameOptions(pirates=pirates.Options(island_distance=20))  # a long race: thousands of events
# The most steps between two turns of the loop: a chain's loops (its bots' moves, their
# envelopes, their bytes, the preview) each hand it back every BOT_SLICE_STEPS, so the
# tail of one loop and the head of the next.
MOST_STEPS_HELD = 2 * steps.BOT_SLICE_STEPS
T = TypeVar("T")


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


def new_app(bot_games_per_minute: int | None = None, clock: Clock | None = None) -> GameApp:
    catalogs()  # read once per process, at the first words said: not what is measured here
    ids = itertools.count(1)
    settings = Settings(limits=replace(NO_LIMITS, bot_games_per_minute=bot_games_per_minute))
    world = World(clock=clock or Clock(), new_game_id=lambda: f"game{next(ids)}", new_seed=lambda: 27)
    return GameApp(MemoryStore(), TokenAuthority(SECRET, ADMIN), settings, world=world)


def pirates_game(*, humans: int = 1, clock: game_pb2.TurnClock | None = None) -> api.CreateGameRequest:
    seats = [game_pb2.SeatSpec(name=f"Player {n}") for n in range(humans)]
    seats += [game_pb2.SeatSpec(name=f"Bot {n}", bot="random") for n in range(4 - humans)]
    return api.CreateGameRequest(kind="pirates", seats=seats, options=LONG, clock=clock)


async def longest_hold(work: Awaitable[T]) -> tuple[T, int, int]:
    """`work`'s result, how many times it handed the event loop back and the most steps
    of a chain it took between two turns of the loop (counted, not timed, so that a busy
    machine changes nothing)."""
    ticks = 0
    runs: list[int] = []
    tick = steps.Slices.tick

    async def counted(self: steps.Slices) -> None:
        nonlocal ticks
        ticks += 1
        await tick(self)

    async def watch() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            runs.append(ticks)
            ticks = 0

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(steps.Slices, "tick", counted)
        watcher = asyncio.create_task(watch())
        await asyncio.sleep(0)
        runs.clear()
        try:
            result = await work
            await asyncio.sleep(0)  # the watcher sees the last stretch too
        finally:
            watcher.cancel()
    return result, sum(1 for run in runs if run), max(runs)


async def refused(code: Code, call: Awaitable[Any]) -> ServiceError:
    with pytest.raises(ServiceError) as raised:
        await call
    assert raised.value.code is code, raised.value.message
    return raised.value


@async_test
async def test_a_take_over_that_plays_a_long_game_out_hands_the_loop_back() -> None:
    app = new_app()
    created = await app.games.create_game(pirates_game(), "")
    taken, turns, held = await longest_hold(
        app.takeovers.take_over(api.TakeOverSeatRequest(game_id=created.game_id), created.seat_tokens[0])
    )
    assert taken.game.status == game_pb2.GAME_STATUS_FINISHED and taken.game.version > 1000
    assert turns > 3 and held < MOST_STEPS_HELD, (turns, held)


@async_test
async def test_a_timeout_whose_bot_plays_a_long_game_out_hands_the_loop_back() -> None:
    clock = Clock()
    app = new_app(clock=clock)
    created = await app.games.create_game(pirates_game(clock=game_pb2.TurnClock(turn_seconds=1, take_over_after=1)), "")
    clock.now += 2
    fired, turns, held = await longest_hold(app.clocks.fire_due())
    game = await app.games.get_game(api.GetGameRequest(game_id=created.game_id), ADMIN)
    assert fired == 1 and game.status == game_pb2.GAME_STATUS_FINISHED and game.version > 1000
    assert turns > 3 and held < MOST_STEPS_HELD, (turns, held)


@async_test
async def test_a_start_with_nobody_seated_hands_the_loop_back() -> None:
    app = new_app()
    request = api.CreateGameRequest(kind="pirates", seats=[game_pb2.SeatSpec(open=True)] * 4, options=LONG)
    created = await app.games.create_game(request, "")
    started, turns, held = await longest_hold(
        app.seating.start_game(api.StartGameRequest(game_id=created.game_id, bot="random"), created.host_token)
    )
    assert started.game.status == game_pb2.GAME_STATUS_FINISHED and started.game.version > 1000
    assert turns > 3 and held < MOST_STEPS_HELD, (turns, held)


@async_test
async def test_the_last_players_take_over_is_a_game_of_bots_only_for_the_creation_limits() -> None:
    app = new_app(bot_games_per_minute=0)  # the default: games of bots only for the admin alone
    created = await app.games.create_game(pirates_game(humans=2), "")
    first = api.TakeOverSeatRequest(game_id=created.game_id)
    assert (await app.takeovers.take_over(first, created.seat_tokens[0])).game.status == game_pb2.GAME_STATUS_ACTIVE
    before = await app.games.get_game(api.GetGameRequest(game_id=created.game_id), ADMIN)
    error = await refused(Code.PERMISSION_DENIED, app.takeovers.take_over(first, created.seat_tokens[1]))
    assert "last player" in error.message
    after = await app.games.get_game(api.GetGameRequest(game_id=created.game_id), ADMIN)
    assert after.version == before.version and not after.seats[1].taken_over_by  # nothing played
    by_admin = api.TakeOverSeatRequest(game_id=created.game_id, seat=1)
    assert (await app.takeovers.take_over(by_admin, ADMIN)).game.status == game_pb2.GAME_STATUS_FINISHED


@async_test
async def test_the_last_players_take_overs_count_against_the_bot_game_rate() -> None:
    app = new_app(bot_games_per_minute=1)
    games = [await app.games.create_game(pirates_game(), "") for _ in range(2)]
    take = [api.TakeOverSeatRequest(game_id=game.game_id) for game in games]
    assert (await app.takeovers.take_over(take[0], games[0].seat_tokens[0])).game.status == (
        game_pb2.GAME_STATUS_FINISHED
    )
    error = await refused(Code.RESOURCE_EXHAUSTED, app.takeovers.take_over(take[1], games[1].seat_tokens[0]))
    assert any(getattr(detail, "reason", "") == "BOT_GAMES_RATE" for detail in error.details)


@async_test
async def test_a_clock_leaves_the_last_player_seat_to_its_player_when_bot_games_are_the_admins() -> None:
    clock = Clock()
    app = new_app(bot_games_per_minute=0, clock=clock)
    request = pirates_game(clock=game_pb2.TurnClock(turn_seconds=1, take_over_after=1))
    created = await app.games.create_game(request, "")
    versions: list[int] = []
    for _ in range(3):  # three missed turns: the stand-in plays each, no more
        clock.now += 2
        assert await app.clocks.fire_due() == 1
        game = await app.games.get_game(api.GetGameRequest(game_id=created.game_id), ADMIN)
        assert game.status == game_pb2.GAME_STATUS_ACTIVE and not game.seats[0].taken_over_by
        assert game.seats[0].clock.missed_turns == len(versions) + 1
        versions.append(game.version)
    assert versions == sorted(set(versions))  # each timeout one round, the clock pacing the game
