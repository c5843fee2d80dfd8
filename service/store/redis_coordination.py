"""The Redis store's coordination (base.Coordination), on a single Redis or a Redis Cluster.

Keys (every command touches one key, so each works in a cluster whatever its slot):
    <prefix>:claim:<key>       string: a claimed key's value, with an expiry (PX)
    <prefix>:{processes}       sorted set: process -> when its lease ends (ms), renewed
                               by each process once per interval for all it holds;
                               ended ones are remembered a while (forget_ms)
    <prefix>:{<scope>}:holders sorted set: holder -> when its hold ends (ms; +inf: until
                               released), written when a hold starts or ends, not
                               renewed; a game's share the game's hash tag, so its slot
    <prefix>:{notices}         stream of notices (field t: the topic), capped
    <prefix>:{schedule}        sorted set: key -> when it is due (ms)

A claim (and its replacement), a process's renewal and a hold are small Lua scripts
(read and write as one step). Notices are a stream every process reads with XREAD
BLOCK, from the entry that was last when it started reading: a process that cannot
reach Redis misses notices meanwhile, which the interface allows (readers also look
again on their own now and then).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import AsyncIterator, Callable, Sequence

from service.store.base import HOLDERS_KEPT_MS, StoreUnavailable
from service.store.redis_client import RedisConnection
from service.store.redis_index import _pairs
from service.store.redis_keys import Keys
from service.store.redis_lua import Script

log = logging.getLogger(__name__)

NOTICES_KEPT = 1000  # the notices stream is capped near this length (MAXLEN ~)
NOTICES_BLOCK_MS = 2000  # at most; and half the connection's timeout, which a longer block would outlast
MAX_PAUSE = 1.0

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

# KEYS: the claim. ARGV: expected, value, ttl_ms. The value it holds now.
REPLACE = Script(
    "replace",
    """#!lua
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return held end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return ARGV[2]
""",
)

# KEYS: the processes. ARGV: process, now_ms, ends_ms, forget_before_ms, keep_ms.
# Forgets the processes whose lease ended long ago, holds this one's, keeps the key a
# while after the last renewal. {1 when the process had no lease alive, every process
# remembered with when its lease ends}.
RENEW_PROCESS = Script(
    "renew_process",
    """#!lua
local old = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
local new = 0
if not old or tonumber(old) <= tonumber(ARGV[2]) then new = 1 end
return {new, redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')}
""",
)

# KEYS: a scope's holders. ARGV: holder, ends_ms (or +inf), now_ms, keep_ms. Drops the
# holds that ended, holds this one, keeps the key keep_ms. 1 when the holder held
# nothing alive, 0 when this renewed its hold.
HOLD = Script(
    "hold",
    """#!lua
local old = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if old and (old == 'inf' or tonumber(old) > tonumber(ARGV[3])) then return 0 end
return 1
""",
)


class RedisCoordination:
    def __init__(self, redis: RedisConnection, keys: Keys, check_open: Callable[[], None]) -> None:
        self._redis = redis
        self._prefix = keys.prefix
        self._check_open = check_open

    def _claim_key(self, key: str) -> str:
        return f"{self._prefix}:claim:{key}"

    def _holders_key(self, scope: str) -> str:
        return f"{self._prefix}:{{{scope}}}:holders"

    @property
    def _processes_key(self) -> str:
        return f"{self._prefix}:{{processes}}"

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

    async def replace(self, key: str, expected: str, value: str, ttl_ms: int) -> str:
        self._check_open()
        args = [expected, value, max(ttl_ms, 1)]
        held = await self._redis.run(REPLACE, [self._claim_key(key)], args, durable=True)
        return bytes(held).decode()

    async def lookup(self, key: str) -> str | None:
        self._check_open()
        held = await self._redis.call("GET", self._claim_key(key))
        return None if held is None else bytes(held).decode()

    # --- process leases and holders -----------------------------------------------

    async def renew_process(
        self, process: str, now_ms: int, ttl_ms: int, forget_ms: int
    ) -> tuple[bool, dict[str, int]]:
        self._check_open()
        args = [process, now_ms, now_ms + ttl_ms, now_ms - forget_ms, forget_ms + ttl_ms]
        new, remembered = await self._redis.run(RENEW_PROCESS, [self._processes_key], args)
        return bool(new), {bytes(name).decode(): int(float(ends)) for name, ends in _pairs(remembered)}

    async def processes(self, names: Sequence[str]) -> dict[str, int]:
        self._check_open()
        if not names:
            return {}
        ends = await self._redis.call("ZMSCORE", self._processes_key, *names)
        return {name: int(float(end)) for name, end in zip(names, ends, strict=True) if end is not None}

    async def hold(self, scope: str, holder: str, ends_ms: int | None, now_ms: int) -> bool:
        self._check_open()
        args = [holder, "+inf" if ends_ms is None else ends_ms, now_ms, HOLDERS_KEPT_MS]
        # Confirmed by replicas when writes are (--redis-wait-replicas): a hold is written
        # once, not renewed, so one lost in a failover would leave its seat offline.
        return bool(await self._redis.run(HOLD, [self._holders_key(scope)], args, durable=True))

    async def unhold(self, scope: str, holders: Sequence[str]) -> None:
        self._check_open()
        if holders:
            await self._redis.write("ZREM", self._holders_key(scope), *holders)  # (or online for good)

    async def holders(self, scope: str, now_ms: int) -> dict[str, int | None]:
        self._check_open()
        reply = await self._redis.call("ZRANGEBYSCORE", self._holders_key(scope), f"({now_ms}", "+inf", "WITHSCORES")
        return {bytes(holder).decode(): _ends(score) for holder, score in _pairs(reply)}

    # --- notices --------------------------------------------------------------------

    async def notify(self, topic: str) -> None:
        self._check_open()
        await self._redis.call("XADD", self._notices_key, "MAXLEN", "~", NOTICES_KEPT, "*", "t", topic)

    async def notices(self) -> AsyncIterator[str]:
        key = self._notices_key
        block_ms = max(min(NOTICES_BLOCK_MS, int(self._redis.timeout * 500)), 1)
        last: bytes | None = None
        pause = 0.0
        while True:
            self._check_open()  # StoreUnavailable once the store is closed: the end
            try:
                if last is None:  # read from the newest notice on: only what comes from now
                    newest = await self._redis.call("XREVRANGE", key, "+", "-", "COUNT", 1)
                    last = bytes(newest[0][0]) if newest else b"0-0"
                reply = await self._redis.call("XREAD", "COUNT", 100, "BLOCK", block_ms, "STREAMS", key, last)
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


def _ends(score: float) -> int | None:
    """A hold's end as the sorted set scores it (+inf: until released)."""
    return None if score == math.inf else int(score)


def _raise_if_cancelled() -> None:
    """Raises CancelledError if this task was asked to stop. redis-py sends with
    asyncio.wait_for, which on Python 3.11 can lose a cancellation that arrives as the
    reply does: the request is still counted (Task.cancelling), so honour it here."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
