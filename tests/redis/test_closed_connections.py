"""Connections closed under a command, as redis-py's cluster client closes them while a
node dies: when it gives up on a node (CLUSTERDOWN, a failed node, the slot map read
anew) it closes every connection it has to it, those other commands are using too.
redis-py then raised an AttributeError from its own code (`'NoneType' object has no
attribute 'writelines'`: redis-py issues #3546 and #4287); the store must answer a
connection failure (retried by redis-py where the command was not sent), logged as a
warning, never "the Redis client failed unexpectedly" with a traceback."""

from __future__ import annotations

import asyncio
import collections
import logging
import time
import uuid

import pytest
from redis.asyncio.connection import Connection

from service.store.base import StoreUnavailable
from service.store.redis import RedisStore
from service.store.redis_errors import reason_of
from tests.support.aio import async_test
from tests.support.redis import RedisClusterNodes

STORE_LOG = "service.store.redis"


@async_test
async def test_connections_closed_under_commands_are_connection_failures_logged_as_warnings(
    redis_cluster: RedisClusterNodes, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=STORE_LOG)
    store = RedisStore.from_url(redis_cluster.url, prefix=f"test-{uuid.uuid4().hex[:12]}")
    try:
        games = [f"g{i}" for i in range(12)]  # on every master
        for game_id in games:
            await store.create(game_id, "mooki", "active", b"r", b"s", [b"e"], 1)
        outcomes: collections.Counter[str] = collections.Counter()
        deadline = time.monotonic() + 1.5

        async def player(number: int) -> None:
            game_id = games[number % len(games)]
            while time.monotonic() < deadline:
                try:
                    await store.read(game_id, 1)
                    outcomes["ok"] += 1
                except StoreUnavailable as error:
                    outcomes[error.reason] += 1

        async def closer() -> None:
            # What redis-py's cluster client does on CLUSTERDOWN: close every node's connections.
            while time.monotonic() < deadline:
                await asyncio.sleep(0.01)
                await store.redis.client.nodes_manager.aclose()  # type: ignore[union-attr]

        await asyncio.gather(*(player(number) for number in range(32)), closer())
    finally:
        await store.close()
    assert outcomes["ok"] > 100, outcomes
    assert set(outcomes) <= {"ok", "connection"}, outcomes  # never client_bug (INTERNAL-like, logged as an error)
    records = [record for record in caplog.records if record.name == STORE_LOG]
    assert not [record for record in records if record.levelno >= logging.ERROR], records[:3]
    assert not any(record.exc_info for record in records)
    # One line for the burst (rate-limited; none if another test's burst was told just now).
    assert len([record for record in records if "(connection)" in record.getMessage()]) <= 1, records
    print(f"\nconnections closed under commands for 1.5 s: {dict(outcomes)}")


@async_test
async def test_redis_py_finding_its_connection_gone_is_a_connection_failure() -> None:
    gone = Connection(host="127.0.0.1", port=1)  # never connected: no writer, as after a close
    with pytest.raises(AttributeError) as raised:
        await gone._send_packed_command([b"*1\r\n$4\r\nPING\r\n"])  # redis-py's own write
    assert "writelines" in str(raised.value)
    assert reason_of(raised.value) == "connection"
    writer = None
    with pytest.raises(AttributeError) as ours:
        writer.writelines([])  # type: ignore[attr-defined]  # the same error from our own code: a bug
    assert reason_of(ours.value) == "client_bug"
