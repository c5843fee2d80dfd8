"""The connections a single Redis's scripts keep between calls (RedisConnection.run):
a call cancelled or failed at any point never leaves its reply to the next call, and
no more are made than the pool's size (past them, calls wait for one)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from redis.asyncio import Redis

from service.store.base import StoreError, StoreUnavailable
from service.store.redis_client import SCRIPT_CONNECTIONS, RedisConnection
from service.store.redis_lua import Script
from tests.support.aio import async_test
from tests.support.redis import RedisServer
from tests.support.stores import STORE_TIMEOUT

ECHO = Script("test_echo", "#!lua flags=no-writes\nreturn ARGV[1]\n")
FAIL = Script("test_fail", "#!lua flags=no-writes\nreturn redis.error_reply('refused on purpose')\n")
KEY = "{kept-connections-test}"


@async_test
async def test_a_call_cancelled_at_any_point_leaves_nothing_to_the_next(redis_server: RedisServer) -> None:
    redis = RedisConnection.from_url(redis_server.url)
    try:
        # Cancelled after 0, 1, 2... turns of the loop: before sending, once sent, while
        # reading: the next call on the connections kept reads its own reply all the same.
        for turns in range(10):
            first = asyncio.create_task(redis.run(ECHO, [KEY], [f"first-{turns}"]))
            for _ in range(turns):
                await asyncio.sleep(0)  # one turn of the event loop: no waiting for time
            first.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await first
            assert await redis.run(ECHO, [KEY], [f"next-{turns}"]) == f"next-{turns}".encode()
    finally:
        await redis.close()


@async_test
async def test_a_refused_script_keeps_its_connection_in_step(redis_server: RedisServer) -> None:
    redis = RedisConnection.from_url(redis_server.url)
    try:
        for attempt in range(3):
            with pytest.raises(StoreError):
                await redis.run(FAIL, [KEY], [])
            assert await redis.run(ECHO, [KEY], [f"after-{attempt}"]) == f"after-{attempt}".encode()
    finally:
        await redis.close()


@async_test
async def test_calls_past_the_connections_wait_for_one(redis_server: RedisServer) -> None:
    # Not a test of timeouts: the calls past the connections wait while the first ones
    # connect and load the script, which takes more than the default second on a busy
    # machine (the waiting's own deadline is the next test's).
    redis = RedisConnection.from_url(redis_server.url, timeout=STORE_TIMEOUT)
    try:
        calls = SCRIPT_CONNECTIONS + 40
        replies = await asyncio.gather(*(redis.run(ECHO, [KEY], [str(i)]) for i in range(calls)))
        assert replies == [str(i).encode() for i in range(calls)]
        assert len(redis._kept) == SCRIPT_CONNECTIONS  # as many made as may be busy at once, no more
        # None went the pool's way: it serves the other commands.
        assert isinstance(redis.client, Redis)
        pool = redis.client.connection_pool
        assert not pool._in_use_connections
        assert await redis.call("PING") is True
    finally:
        await redis.close()


@async_test
async def test_a_call_that_waits_too_long_for_a_connection_is_unavailable(redis_server: RedisServer) -> None:
    redis = RedisConnection.from_url(redis_server.url, timeout=0.2)
    try:
        for _ in range(SCRIPT_CONNECTIONS):  # every connection busy (with calls that never end)
            await redis._free.acquire()
        with pytest.raises(StoreUnavailable) as refused:
            await redis.run(ECHO, [KEY], ["waited"])
        assert refused.value.reason == "pool_exhausted"
        redis._free.release()
        assert await redis.run(ECHO, [KEY], ["served"]) == b"served"
    finally:
        await redis.close()


@async_test
async def test_a_call_with_an_argument_redis_cannot_take_takes_no_connection(redis_server: RedisServer) -> None:
    redis = RedisConnection.from_url(redis_server.url)
    try:
        for _ in range(SCRIPT_CONNECTIONS + 1):
            with pytest.raises(StoreUnavailable):
                await redis.run(ECHO, [KEY], [None])
        assert await redis.run(ECHO, [KEY], ["served"]) == b"served"
    finally:
        await redis.close()
