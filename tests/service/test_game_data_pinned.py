"""A stored game dealt with game data this build no longer has (another digest in its
GameStarted) is refused clearly, naming the rules version, and never replayed with
the data at hand."""

from __future__ import annotations

from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.mooki import ENGINE
from service.app.model.errors import Code
from service.store.base import NewGame
from service.store.memory import MemoryStore
from tests.support.aio import async_test
from tests.support.apps import create_request, new_app
from tests.support.refusals import expect_error


@async_test
async def test_a_game_dealt_with_other_game_data_is_refused_naming_the_rules_version() -> None:
    store = MemoryStore()
    created = await new_app(store).games.create_game(create_request(), "")
    info = await store.info(created.game_id)
    (stored,) = await store.read(created.game_id, 1, 1)
    started = game_pb2.Event.FromString(stored.data)
    assert started.mooki.game_started.data_digest.startswith("sha256:")
    started.mooki.game_started.data_digest = "sha256:" + "1" * 64  # dealt with other cards.json
    await store.create(NewGame("other", "mooki", "active", info.record, b"", [started.SerializeToString()], 0))

    error = await expect_error(
        Code.FAILED_PRECONDITION, new_app(store).games.get_game(api.GetGameRequest(game_id="other"), "")
    )
    assert ENGINE.rules_version in error.message and "sha256:111" in error.message
    assert "no longer has" in error.message
    assert (await new_app(store).games.get_game(api.GetGameRequest(game_id=created.game_id), "")).version == 1
