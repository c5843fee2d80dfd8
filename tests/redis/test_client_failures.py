"""Whatever goes wrong inside the Redis client is UNAVAILABLE (retryable), never
INTERNAL: after a kill, redis-py has been seen to raise an AttributeError from its
own code. Here such exceptions are injected into a real store's connections."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api
from redis.asyncio.connection import AbstractConnection

from service.app import GameApp
from service.app.access.auth import TokenAuthority
from service.app.game_app import World
from service.app.model.errors import Code, ServiceError
from service.store.base import AppendRequest, NewGame, StoreUnavailable
from service.store.redis import RedisStore
from tests.support.aio import async_test
from tests.support.redis import RedisServer

# What redis-py's own code raised, or could raise, mid-command.
CLIENT_BUGS = [
    AttributeError("'NoneType' object has no attribute 'read'"),
    KeyError("b'slots'"),
    TypeError("'NoneType' object is not subscriptable"),
    IndexError("list index out of range"),
    ValueError("invalid literal for int() with base 10: b''"),
    RuntimeError("read() called while another coroutine is already waiting for incoming data"),
]

Operation = Callable[[RedisStore], Awaitable[Any]]


async def first_event(store: RedisStore) -> Any:
    return await anext(store.subscribe("g1", 1))


OPERATIONS: dict[str, Operation] = {
    "create": lambda s: s.create(NewGame("g2", "mooki", "active", b"r", b"s", [b"e"], 1)),
    "append": lambda s: s.append(AppendRequest("g1", 1, [b"e2"], "c", b"f", "active", b"s", 2)),
    "find_command": lambda s: s.find_command("g1", "c", b"f"),
    "info": lambda s: s.info("g1"),
    "read": lambda s: s.read("g1", 1),
    "list_games": lambda s: s.list_games("", "", 10, ""),
    "subscribe": first_event,
    "ping": lambda s: s.ping(),
}


@pytest.fixture
def broken_client(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Exception], None]]:
    """Makes every later read of a Redis reply raise the given exception."""

    def breaks_with(error: Exception) -> None:
        async def read_response(self: AbstractConnection, *args: Any, **kwargs: Any) -> Any:
            raise error

        monkeypatch.setattr(AbstractConnection, "read_response", read_response)

    yield breaks_with


@pytest.mark.parametrize("error", CLIENT_BUGS, ids=lambda e: type(e).__name__)
@async_test
async def test_every_store_operation_turns_a_client_failure_into_unavailable(
    redis_server: RedisServer, broken_client: Callable[[Exception], None], error: Exception
) -> None:
    store = RedisStore.from_url(redis_server.url, prefix=f"test-{uuid.uuid4().hex[:12]}")
    try:
        await store.create(NewGame("g1", "mooki", "active", b"r", b"s", [b"e"], 1))
        broken_client(error)
        for name, operation in OPERATIONS.items():
            with pytest.raises(StoreUnavailable):
                await operation(store)
            assert name  # (the failing operation is named in pytest's report)
    finally:
        await store.close()


@async_test
async def test_a_game_read_while_the_client_misbehaves_is_unavailable_not_internal(
    redis_server: RedisServer, broken_client: Callable[[Exception], None]
) -> None:
    ids = itertools.count(1)
    store = RedisStore.from_url(redis_server.url, prefix=f"test-{uuid.uuid4().hex[:12]}")
    app = GameApp(
        store,
        TokenAuthority(b"0123456789abcdef-test-secret-0123456789abcdef"),
        world=World(new_game_id=lambda: f"g{next(ids)}"),
    )
    try:
        seats = [game_pb2.SeatSpec(name="A"), game_pb2.SeatSpec(name="B")]
        created = await app.games.create_game(api.CreateGameRequest(kind="mooki", seats=seats), "")
        app.live.cache.forget(created.game_id)  # read from the store, not the cache
        broken_client(AttributeError("'NoneType' object has no attribute 'read'"))
        with pytest.raises(ServiceError) as refused:
            await app.games.get_game(api.GetGameRequest(game_id=created.game_id), "")
        assert refused.value.code is Code.UNAVAILABLE
    finally:
        await store.close()
