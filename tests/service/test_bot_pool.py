"""Bots that search choose beside the move loop (issue 45, item 3; issue 42, item 1): a bot
named in `--heavy-bots` chooses in the heavy workers and plays exactly what it plays
inline (the same games, event for event, and their logs verify); the loop plays other
games while it thinks; its choice is the game's, never refused, though it counts in the
pool's total; a worker killed in the middle of a choice costs the game nothing: the
choice is made inline, the same."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import multiprocessing
import os
import signal
import threading
from dataclasses import replace
from typing import Any

import pytest
from google.protobuf.message import Message
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.contract import Bot
from service.app.access.auth import TokenAuthority
from service.app.access.origins import ClientAddresses
from service.app.game_app import GameApp, Settings, World
from service.app.logs.verify import Replayed, verify
from service.app.model import envelopes
from service.app.model.bot_choices import BotChoices, engine_bot
from service.app.model.errors import Code
from service.app.model.heavy_reads import HeavyReads, HeavySettings
from service.app.model.live_game import LiveGame
from service.settings import SettingsError, read
from service.store.memory import MemoryStore
from tests.service.test_heavy_reads import turns, wait_for_word, word_channel
from tests.support.aio import async_test
from tests.support.apps import ADMIN, SECRET, bots_request, create_request, new_app
from tests.support.refusals import expect_error

IN_WORKERS = replace(HeavySettings(), bots=frozenset({"greedy", "random"}))
INLINE = replace(HeavySettings(), bots=frozenset())
REPORT_TO = "LUDOTHEQUE_TEST_BOT_REPORTS_TO"  # a worker's bot tells its pid through this FIFO, then waits


def NOON() -> float:  # noqa: N802 (a fixed clock: the two apps' games are the same)
    return 1_800_000_000.0


def reporting_bot(kind: str, name: str) -> Bot[Any, Message]:
    """Who plays a bot in the kill test: the engine's bot, which, in a worker process
    while REPORT_TO names a FIFO, first writes the worker's pid there and waits to be
    killed (a search that never ends)."""
    fifo = os.environ.get(REPORT_TO)
    if fifo is not None and multiprocessing.parent_process() is not None:
        with open(fifo, "wb", buffering=0) as reporting:
            reporting.write(b"%d\n" % os.getpid())
        threading.Event().wait()
    return engine_bot(kind, name)


async def reported(end: int, choice: asyncio.Future[Any]) -> int:
    """The pid a worker reports through the FIFO whose test end is `end`, once `choice`
    is being made there (an AssertionError if `choice` is over first: no worker thought)."""
    report = asyncio.ensure_future(asyncio.to_thread(os.read, end, 32))
    await asyncio.wait({report, choice}, return_when=asyncio.FIRST_COMPLETED)
    if not report.done():
        os.write(end, b"\n")  # (frees the thread reading)
        await report
        raise AssertionError(f"the choice was made without a worker: {choice.result()}")
    return int(report.result())


async def stored_events(app: GameApp, game_id: str) -> list[bytes]:
    live = await app.live.load(game_id)
    return [event.data for event in await app.store.read(game_id, 1, live.version)]


async def first_turn(app: GameApp) -> tuple[LiveGame, int]:
    """A Mooki game of two players at its first turn, and the seat to act."""
    created = await app.games.create_game(create_request(), ADMIN)
    live = await app.live.load(created.game_id)
    return live, live.status.to_act[0]


async def inline_choice(live: LiveGame, seat: int) -> Message:
    """What the greedy bot plays for `seat` now, chosen on the loop."""
    return await BotChoices(HeavyReads(INLINE)).choose(live, "greedy", live.state, seat, live.version)


@async_test
async def test_a_bot_in_the_workers_plays_the_games_it_plays_inline() -> None:
    pooled, inline = new_app(clock=NOON, heavy=IN_WORKERS), new_app(clock=NOON, heavy=INLINE)
    try:
        moved = 0
        for request in (bots_request("mooki", 2, "greedy"), bots_request("pirates", 3, "random")):
            game_id = (await pooled.games.create_game(request, ADMIN)).game_id
            assert game_id == (await inline.games.create_game(request, ADMIN)).game_id
            events = await stored_events(pooled, game_id)
            assert events == await stored_events(inline, game_id)
            moved += sum(1 for data in events if game_pb2.Event.FromString(data).HasField("command"))
        assert pooled.heavy_reads.served == moved > 0 and inline.heavy_reads.served == 0
        # A player against a bot, move after move: the same answers, the bot's moves made in a worker.
        seats = ({"name": "Cléo"}, {"name": "Bot", "bot": "greedy"})
        games = [await app.games.create_game(create_request(*seats), ADMIN) for app in (pooled, inline)]
        for move in range(10):
            answers = []
            for app, game in zip((pooled, inline), games, strict=True):
                live = await app.live.load(game.game_id)
                command = envelopes.command(live.engine.kind, live.engine.legal_commands(live.state, 0)[0])
                move_request = api.SubmitCommandRequest(game_id=game.game_id, command=command, command_id=f"m{move}")
                answers.append(await app.moves.submit(move_request, game.seat_tokens[0]))
            assert answers[0] == answers[1]
        assert pooled.heavy_reads.served > moved and pooled.bots.made_inline_again == 0
        for game_id in ("game1", "game2", games[0].game_id):  # verify plays the bots again, inline: the same moves
            log = (await pooled.logs.export_game(api.ExportGameRequest(game_id=game_id), ADMIN)).log
            assert isinstance(verify(log), Replayed), game_id
    finally:
        pooled.heavy_reads.close()
        inline.heavy_reads.close()


@async_test
async def test_a_bots_choice_is_never_refused_however_busy_the_pool() -> None:
    live, seat = await first_turn(new_app(clock=NOON))
    settings = replace(IN_WORKERS, workers=1, waiting=0, per_client=1)
    heavy = HeavyReads(settings, ClientAddresses().calling)
    choices = BotChoices(heavy)
    try:
        with word_channel() as (fifo, end):
            held = asyncio.ensure_future(heavy.run("ExportGame", "", wait_for_word, fifo))
            await turns()
            await expect_error(Code.RESOURCE_EXHAUSTED, heavy.run("ExportGame", "", os.getpid), "HEAVY_READS")
            choice = asyncio.ensure_future(choices.choose(live, "greedy", live.state, seat, live.version))
            await turns()
            assert heavy.in_flight == 2  # past the total: it waits for the worker
            os.write(end, b"x")
            assert await held == b"x"
            assert await choice == await inline_choice(live, seat)
        assert heavy.refused == 1 and heavy.served == 2 and choices.made_inline_again == 0
    finally:
        heavy.close()


@async_test
async def test_a_worker_killed_in_the_middle_of_a_choice_costs_the_game_nothing() -> None:
    live, seat = await first_turn(new_app(clock=NOON))
    heavy = HeavyReads(replace(IN_WORKERS, workers=1, waiting=0))
    choices = BotChoices(heavy, reporting_bot)
    expected = await inline_choice(live, seat)
    try:
        with word_channel() as (fifo, end):
            os.environ[REPORT_TO] = fifo
            try:
                choice = asyncio.ensure_future(choices.choose(live, "greedy", live.state, seat, live.version))
                worker = await reported(end, choice)
            finally:
                del os.environ[REPORT_TO]
            # The bot thinking counts in the pool's total: a read is refused meanwhile.
            await expect_error(Code.RESOURCE_EXHAUSTED, heavy.run("ReplayLog", "", os.getpid), "HEAVY_READS")
            os.kill(worker, signal.SIGKILL)
            assert await choice == expected
        assert choices.made_inline_again == 1 and heavy.failed == 1
        # The next choice is made in a worker again: the pool is made anew.
        assert await choices.choose(live, "greedy", live.state, seat, live.version) == expected
        assert choices.made_inline_again == 1 and heavy.served == 2
    finally:
        heavy.close()


@async_test
async def test_the_loop_plays_other_games_while_a_bot_thinks_in_a_worker() -> None:
    ids = (f"game{n}" for n in itertools.count(1))
    world = World(clock=NOON, new_game_id=lambda: next(ids), new_seed=lambda: 42)  # new_app's, for `inline`
    settings = Settings(heavy=replace(HeavySettings(), bots=frozenset({"greedy"})))  # the other game's bot: inline
    app = GameApp(MemoryStore(), TokenAuthority(SECRET, ADMIN), settings, world=world, find_bot=reporting_bot)
    inline = new_app(clock=NOON, heavy=INLINE)
    seats = ({"name": "Cléo"}, {"name": "Bot", "bot": "greedy"})
    thinking = await app.games.create_game(create_request(*seats), ADMIN)
    other = await app.games.create_game(create_request({"name": "Robin"}, {"name": "Bot", "bot": "random"}), ADMIN)
    same = await inline.games.create_game(create_request(*seats), ADMIN)
    try:
        for one, game in ((app, thinking), (inline, same)):  # a Mooki turn is a draw, then a place
            await submit_first(one, game)
        with word_channel() as (fifo, end):
            os.environ[REPORT_TO] = fifo
            try:
                move = asyncio.ensure_future(submit_first(app, thinking))  # its place: the bot's turn next
                worker = await reported(end, move)
            finally:
                del os.environ[REPORT_TO]
            # Its bot is thinking: another game's move is played and answered meanwhile.
            answered = await submit_first(app, other)
            assert answered.version > other.game.version and not move.done()
            os.kill(worker, signal.SIGKILL)  # and its game still gets the bot's move, made inline
            assert await move == await submit_first(inline, same)
        assert app.bots.made_inline_again == 1
    finally:
        app.heavy_reads.close()
        inline.heavy_reads.close()


async def submit_first(app: GameApp, game: api.CreateGameResponse) -> api.SubmitCommandResponse:
    """The first seat's first legal command, played (its command id: the game's version)."""
    token = game.seat_tokens[0]
    shown = await app.games.get_game(api.GetGameRequest(game_id=game.game_id), token)
    request = api.SubmitCommandRequest(
        game_id=game.game_id, command=shown.legal_commands[0], command_id=f"at-{shown.version}"
    )
    return await app.moves.submit(request, token)


def test_the_bots_that_choose_in_the_workers_are_a_setting_strong_by_default() -> None:
    choices = BotChoices(HeavyReads())
    assert choices.in_worker("strong") and not choices.in_worker("greedy") and not choices.in_worker("random")
    flags = argparse.Namespace()
    given = read(HeavySettings, flags, {"LUDOTHEQUE_HEAVY_BOTS": " strong, deep ,"})
    assert given.bots == {"strong", "deep"}
    assert read(HeavySettings, flags, {"LUDOTHEQUE_HEAVY_BOTS": ""}).bots == frozenset()  # every bot inline
    with pytest.raises(SettingsError, match="HEAVY_BOTS"):
        read(HeavySettings, flags, {"LUDOTHEQUE_HEAVY_BOTS": "Strong Bot"})
