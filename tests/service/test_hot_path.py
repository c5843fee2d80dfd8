"""What the move's hot path skips, it skips without changing an answer: a cached game
is not read before deciding, and the summary's fixed fields are encoded once."""

from __future__ import annotations

from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app.errors import Code
from service.store.memory import MemoryStore
from tests.service.test_app import ADMIN, DRAW_LEFT, PLACE_SHOWN, command, expect_error, new_app, new_game, submit
from tests.support.aio import async_test

ROBIN_DRAW = command(mooki.Command(draw=mooki.Draw(pile=1)))


@async_test
async def test_an_expected_version_newer_than_the_cache_is_the_latest_not_stale() -> None:
    store = MemoryStore()
    one, two = new_app(store), new_app(store)
    created = await new_game(one)
    cleo = created.seat_tokens[0]
    await two.get_game(api.GetGameRequest(game_id=created.game_id), "")  # two caches version 1
    await one.submit(submit(created.game_id, DRAW_LEFT), cleo)
    placed = await two.submit(submit(created.game_id, PLACE_SHOWN, expected_version=2), cleo)
    assert placed.version == 3
    await expect_error(Code.ABORTED, two.submit(submit(created.game_id, ROBIN_DRAW, expected_version=2), cleo))


@async_test
async def test_a_command_id_played_elsewhere_and_now_illegal_still_answers_its_first_result() -> None:
    store = MemoryStore()
    one, two = new_app(store), new_app(store)
    created = await new_game(one)
    cleo, robin = created.seat_tokens
    await two.get_game(api.GetGameRequest(game_id=created.game_id), "")
    await one.submit(submit(created.game_id, DRAW_LEFT, "d"), cleo)
    await one.submit(submit(created.game_id, PLACE_SHOWN, "p"), cleo)
    await one.submit(submit(created.game_id, ROBIN_DRAW, "r"), robin)
    again = await two.submit(submit(created.game_id, DRAW_LEFT, "d"), cleo)  # not Cléo's turn any more
    assert again.replayed and again.version == 2
    changed = await expect_error(Code.ALREADY_EXISTS, two.submit(submit(created.game_id, PLACE_SHOWN, "d"), cleo))
    assert "command_id" in changed.message


@async_test
async def test_the_stored_summary_is_the_game_without_a_view() -> None:
    store = MemoryStore()
    app = new_app(store)
    created = await new_game(app)
    await app.submit(submit(created.game_id, DRAW_LEFT), created.seat_tokens[0])
    stored = game_pb2.Game.FromString((await store.info(created.game_id)).summary)
    listed = (await app.list_games(api.ListGamesRequest(), ADMIN)).games[0]
    live = await app.get_game(api.GetGameRequest(game_id=created.game_id), ADMIN)
    assert stored.version == 2 and stored.seats == live.seats and stored.options == live.options
    for field in ("view", "legal_commands", "viewer", "created_by", "presence"):  # the caller's, and now's
        live.ClearField(field)
        listed.ClearField(field)
    assert stored == live and listed == live
