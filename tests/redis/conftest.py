"""Tests against real Redis processes: the store on its own, server processes sharing
one Redis, faults, a Redis Cluster."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.redis import RedisServer, running_redis


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A Redis of the test's own, to stop and start."""
    with running_redis() as server:
        yield server
