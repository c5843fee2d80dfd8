"""Whether each shard of the Redis store can be written now, and how full it is: what
readiness and the store's health metrics report.

Each master gets a tiny write of its own (a counter under `<prefix>:probe:{<slot tag>}`,
in a slot it serves), followed by WAIT when writes wait for replicas: a master that is
down, frozen, read-only, out of memory, or whose replicas cannot confirm writes, is not
writable, and neither are the games it serves; slots that no master serves (a shard
whose master died, none of its replicas promoted yet) are reported as a shard of their
own that is not writable. Its memory use is read from INFO memory (used_memory over
maxmemory). A failed probe makes the cluster's slot map be read again, so the next
probe looks at the promoted master."""

from __future__ import annotations

import asyncio
import contextlib

from redis.asyncio.cluster import ClusterNode

from service.store.base import ShardHealth, StoreHealth, StoreUnavailable
from service.store.redis_client import RedisConnection, uncovered
from service.store.redis_errors import unavailable_on_redis_errors
from service.store.redis_keys import Keys


async def probe(redis: RedisConnection, keys: Keys) -> StoreHealth:
    try:
        with unavailable_on_redis_errors():
            primaries = await redis.primaries()
    except StoreUnavailable as error:
        return StoreHealth([ShardHealth("redis", writable=False, problem=str(error), reason=error.reason)])
    shards = list(await asyncio.gather(*(_probe(redis, keys, *primary) for primary in primaries)))
    for first, last in uncovered(redis.client):  # a shard with no master at all
        name = f"slots {first}-{last}"
        shards.append(ShardHealth(name, writable=False, problem="no Redis master serves them", reason="cluster_down"))
    if not all(shard.writable for shard in shards):
        with contextlib.suppress(StoreUnavailable), unavailable_on_redis_errors():
            await redis.refresh_topology()
    return StoreHealth(shards)


async def _probe(redis: RedisConnection, keys: Keys, name: str, node: ClusterNode | None, slot: int) -> ShardHealth:
    write = ("HINCRBY", keys.probe(slot), "probes", 1)
    try:
        with unavailable_on_redis_errors():
            async with redis.node_connection(node) as connection:
                if redis.wait_replicas:
                    await redis.write_and_wait(connection, write)
                else:
                    await connection.send_command(*write)
                    await connection.read_response()
                await connection.send_command("INFO", "memory")
                memory = _memory(await connection.read_response())
    except StoreUnavailable as error:
        return ShardHealth(name, writable=False, problem=str(error), reason=error.reason)
    return ShardHealth(name, writable=True, memory_used=memory)


def _memory(info: bytes | str) -> float:
    """used_memory / maxmemory from INFO memory (0 when there is no maxmemory)."""
    text = info.decode() if isinstance(info, bytes) else info
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    limit = int(fields.get("maxmemory", "0"))
    return int(fields.get("used_memory", "0")) / limit if limit else 0.0
