"""Fixtures for the service's tests: one event store per backend."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest

from service.store.base import EventStore
from service.store.memory import MemoryStore


@asynccontextmanager
async def memory_store() -> AsyncIterator[EventStore]:
    store = MemoryStore()
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture(params=["memory"])
def store_factory(request: pytest.FixtureRequest) -> Callable[[], AbstractAsyncContextManager[EventStore]]:
    """A function that opens a fresh, empty store of each backend."""
    return memory_store
