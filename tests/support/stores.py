"""Event stores for the tests: fresh ones of each backend (in memory; on a real Redis,
under a key prefix of their own), and writing games into one directly (the store
tests, below any GameApp)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from service.store.base import AppendRequest, AppendResult, EventLog, EventStore, NewGame
from service.store.memory import MemoryStore
from service.store.redis import RedisStore

StoreFactory = Callable[[], AbstractAsyncContextManager[EventStore]]
# Seconds Redis has to answer a store of a test that is not about timeouts: the default
# second is a production deadline (a frozen Redis noticed soon), which a busy machine's
# scheduling alone can outlast. Tests of that deadline give their own.
STORE_TIMEOUT = 30.0
# The same for a server a test starts on Redis (its environment), unless the test is
# about Redis failing.
PATIENT_REDIS = {"LUDOTHEQUE_REDIS_TIMEOUT": str(STORE_TIMEOUT)}


@asynccontextmanager
async def memory_store() -> AsyncIterator[EventStore]:
    store = MemoryStore()
    try:
        yield store
    finally:
        await store.close()


@asynccontextmanager
async def redis_stores(url: str, count: int = 1, prefix: str = "", **options: Any) -> AsyncIterator[list[RedisStore]]:
    """`count` stores on the Redis at `url` under one key prefix, as as many server
    processes would have: `prefix`, or a new one (an empty store on a shared Redis).
    Redis has STORE_TIMEOUT to answer unless `options` say otherwise."""
    prefix = prefix or f"test-{uuid.uuid4().hex[:12]}"
    options.setdefault("timeout", STORE_TIMEOUT)
    opened = [RedisStore.from_url(url, prefix=prefix, **options) for _ in range(count)]
    try:
        yield opened
    finally:
        for store in opened:
            await store.close()


@asynccontextmanager
async def redis_store(url: str, prefix: str = "", **options: Any) -> AsyncIterator[RedisStore]:
    """One store on the Redis at `url` (see redis_stores)."""
    async with redis_stores(url, 1, prefix, **options) as (store,):
        yield store


def redis_store_factory(url: str) -> StoreFactory:
    """Opens a fresh, empty store on the Redis at `url` each time it is called."""
    return lambda: redis_store(url)


async def create_stored_game(
    store: EventLog, game_id: str = "g1", events: int = 1, kind: str = "mooki", status: str = "active"
) -> None:
    """Game `game_id` created in `store` with `events` events, b"e1", b"e2"..., at 1000 ms."""
    stored = [b"e%d" % i for i in range(1, events + 1)]
    await store.create(NewGame(game_id, kind, status, b"record", b"summary-0", stored, 1000))


async def append(
    store: EventLog,
    game_id: str,
    expected: int,
    *events: bytes,
    command_id: str = "",
    fingerprint: bytes = b"f",
    status: str = "active",
) -> AppendResult:
    """`events` appended after version `expected`, by command `command_id` (c<expected>
    unless given), at 2000 + `expected` ms."""
    command = command_id or f"c{expected}"
    return await store.append(
        AppendRequest(game_id, expected, list(events), command, fingerprint, status, b"summary", 2000 + expected)
    )
