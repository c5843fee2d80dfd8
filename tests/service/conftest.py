"""Fixtures for the service's tests: one event store per backend."""

from __future__ import annotations

import pytest

from tests.support.stores import StoreFactory, memory_store, redis_store_factory


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def store_factory(request: pytest.FixtureRequest) -> StoreFactory:
    """A function that opens a fresh, empty store of each backend: in memory, on one
    Redis, on a 3-master Redis Cluster (real redis-server processes)."""
    if request.param == "redis":
        return redis_store_factory(request.getfixturevalue("redis_server").url)
    if request.param == "redis-cluster":
        return redis_store_factory(request.getfixturevalue("redis_cluster").url)
    return memory_store
