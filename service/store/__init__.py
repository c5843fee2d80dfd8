"""Event stores: one interface (base.EventStore), one implementation per backend."""

from __future__ import annotations

from service.store.base import EventStore
from service.store.memory import MemoryStore

REDIS_SCHEMES = ("redis", "rediss", "unix", "redis+cluster")


def open_store(
    url: str,
    *,
    redis_wait_replicas: int = 0,
    redis_wait_timeout: float = 1.0,
    redis_timeout: float = 1.0,
    redis_follower_reads: int = 4,
) -> EventStore:
    """The store named by `url`: "memory" (the embedded default), "redis://host:port/db"
    (also rediss:// and unix://) or "redis+cluster://host:port" (any node of a cluster).
    Opening a Redis store does not connect: that happens on first use."""
    if url in ("", "memory", "memory://"):
        return MemoryStore()
    if url.partition("://")[0] in REDIS_SCHEMES:
        from service.store.redis import RedisStore

        return RedisStore.from_url(
            url,
            wait_replicas=redis_wait_replicas,
            wait_timeout=redis_wait_timeout,
            timeout=redis_timeout,
            follower_reads=redis_follower_reads,
        )
    raise ValueError(f"unknown store {url!r}: use 'memory', 'redis://host:port/db' or 'redis+cluster://host:port'")
