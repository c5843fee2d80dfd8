"""The Redis store's connection: one redis-py asyncio client (single Redis or Redis
Cluster), the Lua scripts run by SHA, an optional WAIT for replicas after writes, and
every Redis failure turned into StoreUnavailable.

Nothing connects until the first command, so a server starts while Redis is down;
redis-py reconnects by itself on the next command once Redis is back.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from redis.asyncio import BlockingConnectionPool, Redis, RedisCluster
from redis.asyncio.connection import Connection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.crc import key_slot
from redis.exceptions import (
    AskError,
    ClusterDownError,
    NoScriptError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    ResponseError,
    TryAgainError,
)

from service.store.base import StoreUnavailable
from service.store.redis_lua import Script

log = logging.getLogger(__name__)

CLUSTER_SCHEME = "redis+cluster"
# Short timeouts: a Redis that does not answer must turn into UNAVAILABLE quickly, not
# hold calls (and the readiness probe) for long. Blocking reads ask for less than this.
SOCKET_TIMEOUT = 5.0
CONNECT_TIMEOUT = 2.0
# A pooled connection may have died with a restarted Redis: retry on a fresh one,
# briefly. Retrying a script is safe: appends are idempotent by command id.
RETRIES = 2
MAX_CONNECTIONS = 64  # per Redis node


@contextmanager
def unavailable_on_redis_errors() -> Iterator[None]:
    """Any failure to talk to Redis becomes StoreUnavailable (UNAVAILABLE for clients)."""
    try:
        yield
    except (RedisError, RedisClusterException, OSError) as error:
        transient = (ReadOnlyError, ClusterDownError, TryAgainError, AskError)
        if isinstance(error, ResponseError) and not isinstance(error, transient):
            log.error("Redis refused a command: %s", error)  # not a network problem: say so loudly
        raise StoreUnavailable(f"Redis: {error}") from error


class RedisConnection:
    """What the store needs from Redis, the same for a single Redis and a cluster."""

    def __init__(self, client: Redis | RedisCluster, *, wait_replicas: int = 0, wait_timeout: float = 1.0) -> None:
        if wait_replicas < 0 or wait_timeout <= 0:
            raise ValueError("the replicas to wait for must be 0 or more, and the time to wait for them positive")
        self.client = client
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = max(int(wait_timeout * 1000), 1)

    @classmethod
    def from_url(cls, url: str, *, wait_replicas: int = 0, wait_timeout: float = 1.0) -> RedisConnection:
        """`redis://host:port/db`, `rediss://...`, `unix://...`, or `redis+cluster://host:port`."""
        options: dict[str, Any] = {
            "socket_timeout": SOCKET_TIMEOUT,
            "socket_connect_timeout": CONNECT_TIMEOUT,
            "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), RETRIES),
        }
        parts = urlsplit(url)
        client: Redis | RedisCluster
        if parts.scheme == CLUSTER_SCHEME:
            client = RedisCluster.from_url(
                urlunsplit(parts._replace(scheme="redis")), max_connections=MAX_CONNECTIONS, **options
            )
        else:
            # Bounded: a burst of calls waits for a connection instead of opening hundreds.
            pool = BlockingConnectionPool.from_url(
                url, max_connections=MAX_CONNECTIONS, timeout=SOCKET_TIMEOUT, **options
            )
            client = Redis(connection_pool=pool)
        return cls(client, wait_replicas=wait_replicas, wait_timeout=wait_timeout)

    @property
    def is_cluster(self) -> bool:
        return isinstance(self.client, RedisCluster)

    def slot(self, key: str) -> int:
        """The key's cluster slot (0 for a single Redis: everything reads together)."""
        return key_slot(key.encode()) if self.is_cluster else 0

    async def call(self, *command: Any) -> Any:
        with unavailable_on_redis_errors():
            return await self.client.execute_command(*command)

    async def run(self, script: Script, keys: Sequence[str], args: Sequence[Any], *, durable: bool = False) -> Any:
        """Runs `script` by its SHA, loading it when Redis does not know it (first use,
        a restarted or failed-over Redis). `durable`: a write that must reach the
        configured number of replicas before it counts."""
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        with unavailable_on_redis_errors():
            try:
                return await self._write(command) if durable else await self.client.execute_command(*command)
            except NoScriptError:
                await self.client.script_load(script.source)  # every primary of a cluster
                return await self._write(command) if durable else await self.client.execute_command(*command)

    async def touch(self, key: str, field: str) -> None:
        """A tiny write to `key` followed by WAIT: confirms that everything written to
        that key's node before (e.g. by another process) has reached the replicas."""
        if self.wait_replicas:
            with unavailable_on_redis_errors():
                await self._write(("HINCRBY", key, field, 1))

    async def read_many(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        """Runs read commands in one pipeline (grouped by node in a cluster)."""
        if not commands:
            return []
        with unavailable_on_redis_errors():
            pipe = self.client.pipeline(transaction=False)
            for command in commands:
                pipe.execute_command(*command)
            return list(await pipe.execute())

    async def _write(self, command: tuple[Any, ...]) -> Any:
        """Runs `command`, then WAIT on the same connection (WAIT counts the replicas
        that have this connection's writes) when replicas must confirm writes."""
        if not self.wait_replicas:
            return await self.client.execute_command(*command)
        key = str(command[3]) if command[0] == "EVALSHA" else str(command[1])
        if isinstance(self.client, RedisCluster):
            await self.client.initialize()
            node = self.client.get_node_from_key(key)
            if node is None:
                raise StoreUnavailable(f"no Redis node serves {key!r} now")
            connection = node.acquire_connection()
            try:
                return await self._write_and_wait(connection, command)
            finally:
                node.release(connection)
        pool = self.client.connection_pool
        pooled = await pool.get_connection()  # type: ignore[no-untyped-call]
        try:
            return await self._write_and_wait(pooled, command)
        finally:
            await pool.release(pooled)

    async def _write_and_wait(self, connection: Connection, command: tuple[Any, ...]) -> Any:
        wait = ("WAIT", self.wait_replicas, self.wait_timeout_ms)
        await connection.send_packed_command(connection.pack_commands([command, wait]))
        try:
            reply = await connection.read_response()
        except ResponseError:
            await connection.read_response()  # WAIT's answer, so the connection stays in step
            raise
        confirmed = int(await connection.read_response())
        if confirmed < self.wait_replicas:
            # The write stands on the primary; a retry with the same command id finds it.
            raise StoreUnavailable(
                f"only {confirmed} of {self.wait_replicas} Redis replicas confirmed the write "
                f"within {self.wait_timeout_ms} ms"
            )
        return reply

    async def ping(self) -> None:
        with unavailable_on_redis_errors():
            await self.client.ping()

    async def close(self) -> None:
        await self.client.aclose()
