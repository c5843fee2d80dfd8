"""The Redis store's coordination (base.Coordination), on a single Redis or a Redis Cluster.

Keys (every command touches one key, so each works in a cluster whatever its slot):
    <prefix>:claim:<key>       string: a claimed key's value, with an expiry (PX)
    <prefix>:{<scope>}:leases  sorted set: holder -> when its lease ends (ms); a game's
                               leases share the game's hash tag, so its slot
    <prefix>:{notices}         stream of notices (field t: the topic), capped
    <prefix>:{schedule}        sorted set: key -> when it is due (ms)

A claim and a lease are small Lua scripts (read and write as one step). Notices are a
stream every process reads with XREAD BLOCK, from the entry that was last when it
started reading: a process that cannot reach Redis misses notices meanwhile, which the
interface allows (readers also look again on their own now and then).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable

from service.store.base import StoreUnavailable
from service.store.redis_client import RedisConnection
from service.store.redis_index import _pairs
from service.store.redis_keys import Keys
from service.store.redis_lua import Script

log = logging.getLogger(__name__)

NOTICES_KEPT = 1000  # the notices stream is capped near this length (MAXLEN ~)
NOTICES_BLOCK_MS = 2000  # below the connection's socket timeout
MAX_PAUSE = 1.0
# A leases key outlives its last lease by this much, then Redis drops it: the leases
# of a game nobody plays any more do not stay forever.
LEASES_KEY_SLACK_MS = 60_000

# KEYS: the claim. ARGV: value, ttl_ms. The value it holds now.
CLAIM = Script(
    "claim",
    """#!lua
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]
""",
)

# KEYS: the leases. ARGV: holder, now_ms, ends_ms, slack_ms. Drops the leases that
# ended, holds this one, and keeps the key until the last lease ends (plus the slack).
# 1 when the holder had no lease alive, 0 when this renewed it.
PUT_LEASE = Script(
    "put_lease",
    """#!lua
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local new = redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.max(tonumber(last[2]) - tonumber(ARGV[2]), 1) + tonumber(ARGV[4]))
return new
""",
)


class RedisCoordination:
    def __init__(self, redis: RedisConnection, keys: Keys, check_open: Callable[[], None]) -> None:
        self._redis = redis
        self._prefix = keys.prefix
        self._check_open = check_open

    def _claim_key(self, key: str) -> str:
        return f"{self._prefix}:claim:{key}"

    def _leases_key(self, scope: str) -> str:
        return f"{self._prefix}:{{{scope}}}:leases"

    @property
    def _notices_key(self) -> str:
        return f"{self._prefix}:{{notices}}"

    @property
    def _schedule_key(self) -> str:
        return f"{self._prefix}:{{schedule}}"

    # --- claims ---------------------------------------------------------------------

    async def claim(self, key: str, value: str, ttl_ms: int) -> str:
        self._check_open()
        held = await self._redis.run(CLAIM, [self._claim_key(key)], [value, max(ttl_ms, 1)], durable=True)
        return bytes(held).decode()

    async def lookup(self, key: str) -> str | None:
        self._check_open()
        held = await self._redis.call("GET", self._claim_key(key))
        return None if held is None else bytes(held).decode()

    # --- leases ---------------------------------------------------------------------

    async def put_lease(self, scope: str, holder: str, now_ms: int, ttl_ms: int) -> bool:
        self._check_open()
        args = [holder, now_ms, now_ms + ttl_ms, LEASES_KEY_SLACK_MS]
        return bool(await self._redis.run(PUT_LEASE, [self._leases_key(scope)], args))

    async def drop_lease(self, scope: str, holder: str) -> None:
        self._check_open()
        await self._redis.call("ZREM", self._leases_key(scope), holder)

    async def leases(self, scope: str, now_ms: int) -> dict[str, int]:
        self._check_open()
        reply = await self._redis.call("ZRANGEBYSCORE", self._leases_key(scope), f"({now_ms}", "+inf", "WITHSCORES")
        return {bytes(holder).decode(): int(float(ends)) for holder, ends in _pairs(reply)}

    # --- notices --------------------------------------------------------------------

    async def notify(self, topic: str) -> None:
        self._check_open()
        await self._redis.call("XADD", self._notices_key, "MAXLEN", "~", NOTICES_KEPT, "*", "t", topic)

    async def notices(self) -> AsyncIterator[str]:
        key = self._notices_key
        last: bytes | None = None
        pause = 0.0
        while True:
            self._check_open()  # StoreUnavailable once the store is closed: the end
            try:
                if last is None:  # read from the newest notice on: only what comes from now
                    newest = await self._redis.call("XREVRANGE", key, "+", "-", "COUNT", 1)
                    last = bytes(newest[0][0]) if newest else b"0-0"
                reply = await self._redis.call("XREAD", "COUNT", 100, "BLOCK", NOTICES_BLOCK_MS, "STREAMS", key, last)
            except StoreUnavailable as error:
                _raise_if_cancelled()
                if pause == 0.0:
                    log.warning("notices: %s; retrying", error)
                pause = min(max(pause * 2, 0.05), MAX_PAUSE)
                await asyncio.sleep(pause)  # Redis is unreachable: don't spin
                continue
            _raise_if_cancelled()
            pause = 0.0
            for _, entries in reply or ():
                for entry_id, fields in entries:
                    last = bytes(entry_id)
                    yield bytes(fields[b"t"]).decode()

    # --- the schedule ---------------------------------------------------------------

    async def schedule(self, key: str, due_ms: int) -> None:
        self._check_open()
        # Confirmed by replicas when writes are (--redis-wait-replicas): a deadline lost in
        # a failover would leave a game waiting for a player who has gone, with no timeout.
        await self._redis.write("ZADD", self._schedule_key, due_ms, key)

    async def unschedule(self, key: str) -> None:
        self._check_open()
        await self._redis.call("ZREM", self._schedule_key, key)

    async def due(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        self._check_open()
        reply = await self._redis.call(
            "ZRANGEBYSCORE", self._schedule_key, "-inf", now_ms, "WITHSCORES", "LIMIT", 0, limit
        )
        return [(bytes(key).decode(), int(float(due))) for key, due in _pairs(reply)]


def _raise_if_cancelled() -> None:
    """Raises CancelledError if this task was asked to stop. redis-py sends with
    asyncio.wait_for, which on Python 3.11 can lose a cancellation that arrives as the
    reply does: the request is still counted (Task.cancelling), so honour it here."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
