"""Fixtures for the service's tests: one event store per backend."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest

from service.store.base import EventStore
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from tests.support.redis import RedisServer, redis_server

__all__ = ["redis_server"]  # the session's Redis, a fixture


@asynccontextmanager
async def memory_store() -> AsyncIterator[EventStore]:
    store = MemoryStore()
    try:
        yield store
    finally:
        await store.close()


def redis_store(server: RedisServer) -> Callable[[], AbstractAsyncContextManager[EventStore]]:
    @asynccontextmanager
    async def open_store() -> AsyncIterator[EventStore]:
        # A key prefix of its own gives every test an empty store on the shared Redis.
        store = RedisStore.from_url(server.url, prefix=f"test-{uuid.uuid4().hex[:12]}")
        try:
            yield store
        finally:
            await store.close()

    return open_store


@pytest.fixture(params=["memory", "redis"])
def store_factory(request: pytest.FixtureRequest) -> Callable[[], AbstractAsyncContextManager[EventStore]]:
    """A function that opens a fresh, empty store of each backend."""
    if request.param == "redis":
        return redis_store(request.getfixturevalue("redis_server"))
    return memory_store
