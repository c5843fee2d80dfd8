"""Fixtures for the service's tests: one event store per backend."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest

from service.store.base import EventStore
from service.store.memory import MemoryStore
from service.store.redis import RedisStore


@asynccontextmanager
async def memory_store() -> AsyncIterator[EventStore]:
    store = MemoryStore()
    try:
        yield store
    finally:
        await store.close()


def redis_store(url: str) -> Callable[[], AbstractAsyncContextManager[EventStore]]:
    @asynccontextmanager
    async def open_store() -> AsyncIterator[EventStore]:
        # A key prefix of its own gives every test an empty store on the shared Redis.
        store = RedisStore.from_url(url, prefix=f"test-{uuid.uuid4().hex[:12]}")
        try:
            yield store
        finally:
            await store.close()

    return open_store


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def store_factory(request: pytest.FixtureRequest) -> Callable[[], AbstractAsyncContextManager[EventStore]]:
    """A function that opens a fresh, empty store of each backend: in memory, on one
    Redis, on a 3-master Redis Cluster (real redis-server processes)."""
    if request.param == "redis":
        return redis_store(request.getfixturevalue("redis_server").url)
    if request.param == "redis-cluster":
        return redis_store(request.getfixturevalue("redis_cluster").url)
    return memory_store
