"""The event store's settings (`ludotheque serve --store ...`), and the store they open."""

from __future__ import annotations

from dataclasses import dataclass

from service.settings import at_least, setting
from service.store import open_store
from service.store.base import EventStore
from service.store.redis_live import FOLLOWER_READS


@dataclass(frozen=True, slots=True)
class StoreSettings:
    url: str = setting(
        "memory",
        "event store: 'memory' (embedded, lost on exit), 'redis://host:port/db' (one Redis) "
        "or 'redis+cluster://host:port' (a Redis Cluster, any of its nodes)",
        name="store",
    )
    redis_wait_replicas: int = setting(
        0,
        "Redis store: replicas that must have a move (WAIT) before it is acknowledged; "
        "0: the primary's own durability (AOF appendfsync always) only",
    )
    redis_wait_timeout: float = setting(1.0, "Redis store: seconds to wait for those replicas, else UNAVAILABLE")
    redis_timeout: float = setting(
        1.0,
        "Redis store: seconds a Redis node has to answer before the call fails with UNAVAILABLE "
        "(and readiness fails while it does not answer)",
    )
    redis_follower_reads: int = setting(
        FOLLOWER_READS,
        "Redis store: reads of a game's past that followers catching up (event streams, Play sessions) may have "
        "in flight at once in one server process; the others wait holding no connection, so no number of "
        "followers takes the connections the moves need",
        check=at_least(1),
    )

    def open(self) -> EventStore:
        """The store these settings name (a Redis store connects on first use)."""
        return open_store(
            self.url,
            redis_wait_replicas=self.redis_wait_replicas,
            redis_wait_timeout=self.redis_wait_timeout,
            redis_timeout=self.redis_timeout,
            redis_follower_reads=self.redis_follower_reads,
        )
