"""Heavy reads under one budget (issue 27, item 7): ReplayGame folding a long past and
ReplayLog take turns of the process's one HeavyReads, each folding in a worker thread,
so that a flood of them waits or is refused (HEAVY_READS) while the event loop, which
plays the moves, keeps serving."""

from __future__ import annotations

import asyncio

from ludotheque.v1 import game_service_pb2 as api

from service.app.model.errors import Code, ServiceError
from service.app.model.game_repository import HEAVY_FOLD
from service.app.model.heavy_reads import HeavyReads
from tests.support.aio import async_test
from tests.support.apps import ADMIN, bots_request, new_app


@async_test
async def test_a_replay_of_a_long_past_is_folded_in_a_turn_of_the_budget_and_answers_the_same() -> None:
    app = new_app(snapshot_interval=0)  # no snapshot: every replay folds from the first event
    snapshotted = new_app()  # the same game (the same seed), replayed from its snapshots
    created = await app.games.create_game(bots_request("pirates", 3), ADMIN)
    await snapshotted.games.create_game(bots_request("pirates", 3), ADMIN)
    game_id, last = created.game_id, created.game.version
    assert last > HEAVY_FOLD + 10
    short = api.ReplayGameRequest(game_id=game_id, at_version=HEAVY_FOLD - 10)
    assert await app.history.replay(short, ADMIN) == await snapshotted.history.replay(short, ADMIN)
    assert app.heavy_reads.served == 0  # a short past: folded at once
    long = api.ReplayGameRequest(game_id=game_id, at_version=last - 1)
    assert await app.history.replay(long, ADMIN) == await snapshotted.history.replay(long, ADMIN)
    assert app.heavy_reads.served == 1


@async_test
async def test_heavy_reads_past_the_budget_wait_and_past_the_queue_are_refused() -> None:
    heavy = HeavyReads(at_once=1, waiting=2)
    release = asyncio.Event()
    loop = asyncio.get_running_loop()

    def work() -> int:
        asyncio.run_coroutine_threadsafe(release.wait(), loop).result(10)
        return 1

    running = [asyncio.ensure_future(heavy.run("ReplayGame", work)) for _ in range(3)]  # one runs, two wait
    for _ in range(5):
        await asyncio.sleep(0)  # (no time passes: each task gets to its turn or its wait)
    try:
        await heavy.run("ReplayGame", lambda: 0)
    except ServiceError as error:
        assert error.code is Code.RESOURCE_EXHAUSTED and "try again" in error.message
    else:
        raise AssertionError("a fourth heavy read was let in")
    release.set()
    assert await asyncio.gather(*running) == [1, 1, 1]
    assert await heavy.run("ReplayGame", lambda: 2) == 2  # once they are done, the next one runs
