"""What the move's hot path skips, it skips without changing an answer: a cached game
is not read before deciding, and the summary's fixed fields are encoded once."""

from __future__ import annotations

import asyncio
from typing import Any

from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app.model.errors import Code
from service.store.memory import MemoryStore
from tests.support.aio import async_test
from tests.support.apps import ADMIN, DRAW_LEFT, PLACE_SHOWN, command, create_game, new_app, submit
from tests.support.refusals import expect_error

ROBIN_DRAW = command(mooki.Command(draw=mooki.Draw(pile=1)))


@async_test
async def test_an_expected_version_newer_than_the_cache_is_the_latest_not_stale() -> None:
    store = MemoryStore()
    one, two = new_app(store), new_app(store)
    created = await create_game(one)
    cleo = created.seat_tokens[0]
    await two.games.get_game(api.GetGameRequest(game_id=created.game_id), "")  # two caches version 1
    await one.moves.submit(submit(created.game_id, DRAW_LEFT), cleo)
    placed = await two.moves.submit(submit(created.game_id, PLACE_SHOWN, expected_version=2), cleo)
    assert placed.version == 3
    await expect_error(Code.ABORTED, two.moves.submit(submit(created.game_id, ROBIN_DRAW, expected_version=2), cleo))


@async_test
async def test_a_command_id_played_elsewhere_and_now_illegal_still_answers_its_first_result() -> None:
    store = MemoryStore()
    one, two = new_app(store), new_app(store)
    created = await create_game(one)
    cleo, robin = created.seat_tokens
    await two.games.get_game(api.GetGameRequest(game_id=created.game_id), "")
    await one.moves.submit(submit(created.game_id, DRAW_LEFT, "d"), cleo)
    await one.moves.submit(submit(created.game_id, PLACE_SHOWN, "p"), cleo)
    await one.moves.submit(submit(created.game_id, ROBIN_DRAW, "r"), robin)
    again = await two.moves.submit(submit(created.game_id, DRAW_LEFT, "d"), cleo)  # not Cléo's turn any more
    assert again.replayed and again.version == 2
    changed = await expect_error(Code.ALREADY_EXISTS, two.moves.submit(submit(created.game_id, PLACE_SHOWN, "d"), cleo))
    assert "command_id" in changed.message


@async_test
async def test_the_stored_summary_is_the_game_without_a_view() -> None:
    store = MemoryStore()
    app = new_app(store)
    created = await create_game(app)
    await app.moves.submit(submit(created.game_id, DRAW_LEFT), created.seat_tokens[0])
    stored = game_pb2.Game.FromString((await store.info(created.game_id)).summary)
    listed = (await app.games.list_games(api.ListGamesRequest(), ADMIN)).games[0]
    live = await app.games.get_game(api.GetGameRequest(game_id=created.game_id), ADMIN)
    assert stored.version == 2 and stored.seats == live.seats and stored.options == live.options
    for field in ("view", "legal_commands", "viewer", "created_by", "presence"):  # the caller's, and now's
        live.ClearField(field)
        listed.ClearField(field)
    assert stored == live and listed == live


class _GatedStore(MemoryStore):
    """A memory store whose appends wait for a gate once `hold` is set, and which counts
    its reads."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = False
        self.appending = asyncio.Event()
        self.gate = asyncio.Event()
        self.reads = 0

    async def append(self, *args: Any, **kwargs: Any) -> Any:
        result = await super().append(*args, **kwargs)  # stored: a follower may see it now
        if self.hold:
            self.appending.set()
            await self.gate.wait()  # ... while the append's answer is still on its way
        return result

    async def read(self, *args: Any, **kwargs: Any) -> Any:
        self.reads += 1
        return await super().read(*args, **kwargs)


@async_test
async def test_a_move_of_this_process_seen_stored_before_its_append_answered_is_not_read_back() -> None:
    store = _GatedStore()
    app = new_app(store)
    created = await create_game(app)
    live = await app.live.load(created.game_id)
    version = live.version
    store.hold, store.reads = True, 0
    move = asyncio.create_task(app.moves.submit(submit(created.game_id, DRAW_LEFT), created.seat_tokens[0]))
    await store.appending.wait()
    # A Play session's follower got the move's event from the store: the cached game is behind.
    caught_up = asyncio.create_task(app.catch_up(live, version + 1))
    await asyncio.sleep(0)
    assert not caught_up.done()  # it waits for the move, which holds the game
    store.gate.set()
    await asyncio.gather(move, caught_up)
    assert live.version == version + 1
    assert store.reads == 0


@async_test
async def test_a_move_of_another_process_is_read_from_the_store() -> None:
    store = _GatedStore()
    one, two = new_app(store), new_app(store)
    created = await create_game(one)
    live = await two.live.load(created.game_id)
    await one.moves.submit(submit(created.game_id, DRAW_LEFT), created.seat_tokens[0])
    store.reads = 0
    await two.catch_up(live, live.version + 1)
    assert live.version == 2
    assert store.reads == 1
