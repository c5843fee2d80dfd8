"""The Redis store's bounded sets and marks, shared by every server process. The sets
(base.SharedSets: admit, release, members: creation quotas and rate limits,
service/app/access/limits.py) are one sorted set each, `<prefix>:limit:<key>`, their members
scored by when they expire (+inf: never); the ADMIT script counts and adds in one step.
A mark (SharedSets.mark_once: a stream ticket spent) is a key with an expiry,
`<prefix>:mark:<key>`, set with SET NX PX."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.store.base import Admission
from service.store.redis_client import RedisConnection
from service.store.redis_keys import Keys
from service.store.redis_lua import ADMIT, MEMBERS


class RedisSets:
    """RedisStore's bounded sets and marks (base.SharedSets: admit, release, members, mark_once)."""

    redis: RedisConnection
    keys: Keys

    if TYPE_CHECKING:  # RedisStore's own

        def _check_open(self) -> None: ...

    async def admit(self, key: str, member: str, limit: int, now_ms: int, ttl_ms: int | None = None) -> Admission:
        self._check_open()
        ttl = "" if ttl_ms is None else ttl_ms
        reply = await self.redis.run(ADMIT, [self.keys.limit(key)], [member, limit, now_ms, ttl], durable=True)
        if reply[0] == 1:
            return Admission(True)
        first = reply[1].decode()
        return Admission(False, None if first == "inf" else max(int(float(first)) - now_ms, 0))

    async def release(self, key: str, member: str) -> None:
        self._check_open()
        await self.redis.call("ZREM", self.keys.limit(key), member)

    async def members(self, key: str, now_ms: int) -> list[str]:
        self._check_open()
        found = await self.redis.run(MEMBERS, [self.keys.limit(key)], [now_ms])
        return sorted(member.decode() for member in found)

    async def mark_once(self, key: str, ttl_ms: int) -> bool:
        self._check_open()
        # One atomic command, so two processes racing for a key cannot both mark it; a
        # durable write (it waits for the replicas when writes do), so that a failover
        # does not forget a spent mark.
        return await self.redis.write("SET", self.keys.mark(key), b"1", "NX", "PX", max(ttl_ms, 1)) is not None
