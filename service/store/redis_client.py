"""The Redis store's connection: redis-py asyncio clients (single Redis or Redis
Cluster), the Lua scripts run by SHA, writes that WAIT for replicas, and every failure
turned into StoreUnavailable (redis_errors.py).

Timeouts are short (`timeout`, 1 s by default): a Redis that stops answering (a frozen
or partitioned node) must turn into UNAVAILABLE, and into a failing readiness probe,
within about two seconds, not hold calls. A timed-out command is not sent again: its
fate is unknown, and the client's retry with the same command id settles it exactly
once. Blocking reads of live events use a second client, whose timeout covers their
block.

Writes that must reach replicas send the command and WAIT on one connection (WAIT
counts the replicas that have that connection's writes). On a cluster they follow the
topology as redis-py's own commands do: MOVED redirects them, a node that
cannot be reached makes the slot map be read again, so after a failover they go to the
promoted master at once.

Nothing connects until the first command, so a server starts while Redis is down;
redis-py reconnects by itself on the next command once Redis is back.

Every connection is a `GuardedConnection`: redis-py's cluster client closes all the
connections of a node (those in use by other commands too) when it reads the topology
anew after a failure, and a command caught half way then failed with an AttributeError
from redis-py's own code (`'NoneType' object has no attribute 'writelines'`: redis-py
issues #3546 and #4287, fixed upstream by PR #4288). Here such a command fails with a
ConnectionError, which redis-py retries on the topology read anew.

On a single Redis, scripts (a move's append among them) run on connections of their
own beside the pool's, packed and answered without redis-py's per-command machinery:
the round trip a move makes is the cheapest the client allows.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import hiredis
from redis.asyncio import BlockingConnectionPool, Redis, RedisCluster
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.connection import AbstractConnection, Connection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot
from redis.exceptions import (
    ClusterDownError,
    ConnectionError,
    MaxConnectionsError,
    MovedError,
    NoScriptError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.base import StoreUnavailable
from service.store.redis_errors import unavailable_on_redis_errors
from service.store.redis_lua import Script

CLUSTER_SCHEME = "redis+cluster"
DEFAULT_TIMEOUT = 1.0  # seconds a Redis node has to answer a command
# A pooled connection may have died with a restarted Redis: one retry on a fresh one.
# Only refused or broken connections are retried, never a timeout (see above).
RETRIES = 1
MAX_CONNECTIONS = 64  # per Redis node
WRITE_ATTEMPTS = 3  # a write that waits for replicas, across redirections and a failover
TOPOLOGY_PAUSE = 0.05  # seconds before trying a cluster that is mid-failover again
# Connections of their own for scripts on a single Redis (RedisConnection.run), beside
# the pool's (which serves the other commands): as many, made as they are needed.
SCRIPT_CONNECTIONS = MAX_CONNECTIONS
CLOSED_WHILE_SENDING = "the connection was closed by another task before the command was sent"
CLOSED_WHILE_READING = "the connection was closed by another task while the reply was awaited"


class GuardedConnection(Connection):
    """redis-py's connection, failing with a ConnectionError (the exact class: redis-py
    retries by exact type) instead of an AttributeError or TypeError from its innards
    when another task closed it mid-command. A command not sent yet is safe to send
    again; one whose reply was awaited may have run, as after any connection lost (a
    retry of the same command id settles it, as ever)."""

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        try:
            await super().send_packed_command(command, check_health)
        except (AttributeError, TypeError) as error:
            writer = self._writer
            if writer is None or writer.transport.is_closing():
                raise ConnectionError(CLOSED_WHILE_SENDING) from error
            raise

    async def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().read_response(*args, **kwargs)
        except (AttributeError, TypeError) as error:
            if not self.is_connected:
                raise ConnectionError(CLOSED_WHILE_READING) from error
            raise


class Cluster(RedisCluster):
    """redis-py's cluster client, but one that does not close every connection to every
    node when it meets CLUSTERDOWN (or a run of MOVED answers): there it calls
    `aclose`, which here only has the slot map read again before the next command. A
    shard with no master answers CLUSTERDOWN for its own slots; closing the connections
    of the shards that serve would fail their commands in flight too. `close_for_good`
    closes the client for good."""

    async def aclose(self) -> None:
        self._initialize = True

    async def close_for_good(self) -> None:
        await super().aclose()


def guard_cluster(client: RedisCluster) -> RedisCluster:
    """Makes every connection `client` opens a GuardedConnection (RedisCluster takes no
    connection class: its nodes are made from the keyword arguments kept here)."""
    client.nodes_manager.connection_kwargs["connection_class"] = GuardedConnection
    for node in [*client.nodes_manager.startup_nodes.values(), *client.nodes_manager.nodes_cache.values()]:
        node.connection_class = GuardedConnection
    return client


class RedisConnection:
    """What the store needs from Redis, the same for a single Redis and a cluster."""

    def __init__(
        self,
        client: Redis | RedisCluster,
        *,
        wait_replicas: int = 0,
        wait_timeout: float = 1.0,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        if wait_replicas < 0 or wait_timeout <= 0 or timeout <= 0:
            raise ValueError("the replicas to wait for must be 0 or more, the times positive")
        self.client = client
        self.wait_replicas = wait_replicas
        self.wait_timeout = wait_timeout
        self.wait_timeout_ms = max(int(wait_timeout * 1000), 1)
        self.timeout = timeout
        self._single = (
            client if isinstance(client, Redis) else None
        )  # None: a cluster (`_direct` serves a single Redis)
        self._kept: deque[AbstractConnection] = deque()  # single Redis: idle connections of `run`
        self._free = asyncio.Semaphore(SCRIPT_CONNECTIONS)  # `run`'s connections not in use, made or not
        self.in_use = 0  # `run`'s connections in use now (single Redis)
        self.most_in_use = 0  # ... and the most at once so far (a test, the bench, read them)

    @classmethod
    def from_url(
        cls, url: str, *, wait_replicas: int = 0, wait_timeout: float = 1.0, timeout: float = DEFAULT_TIMEOUT
    ) -> RedisConnection:
        """`redis://host:port/db`, `rediss://...`, `unix://...`, or `redis+cluster://host:port`."""

        def client(socket_timeout: float, retries: int) -> Redis | RedisCluster:
            options: dict[str, Any] = {
                "socket_timeout": socket_timeout,
                "socket_connect_timeout": timeout,
                "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), retries, supported_errors=(ConnectionError,)),
            }
            parts = urlsplit(url)
            if parts.scheme == CLUSTER_SCHEME:
                # A shard with no master (mid-failover, or none left to promote) leaves
                # its slots out of the slot map: only its games fail, not every game.
                return guard_cluster(
                    Cluster.from_url(
                        urlunsplit(parts._replace(scheme="redis")),
                        max_connections=MAX_CONNECTIONS,
                        require_full_coverage=False,
                        **options,
                    )
                )
            # Bounded: a burst of calls waits for a connection instead of opening hundreds.
            if parts.scheme == "redis":
                options["connection_class"] = GuardedConnection
            pool = BlockingConnectionPool.from_url(url, max_connections=MAX_CONNECTIONS, timeout=timeout, **options)
            return Redis(connection_pool=pool)

        return cls(
            client(timeout, RETRIES),
            wait_replicas=wait_replicas,
            wait_timeout=wait_timeout,
            timeout=timeout,
        )

    @property
    def is_cluster(self) -> bool:
        return self._single is None

    def slot(self, key: str) -> int:
        """The key's cluster slot (0 for a single Redis: everything reads together)."""
        return key_slot(key.encode()) if self.is_cluster else 0

    def _on_shard(self, key: Any) -> Any:
        """Errors naming the shard of `key` (on a cluster)."""
        if self._single is not None:
            return unavailable_on_redis_errors()
        return unavailable_on_redis_errors(lambda: shard_of(self.client, str(key)))

    async def call(self, *command: Any) -> Any:
        with self._on_shard(command[1]) if len(command) > 1 else unavailable_on_redis_errors():
            return await self.client.execute_command(*command)

    async def write(self, *command: Any) -> Any:
        """A write of one key (named by the command's first argument) that must reach the
        configured number of replicas before it counts, as `run(durable=True)`."""
        with self._on_shard(command[1]):
            return await self._write(command)

    async def run(self, script: Script, keys: Sequence[str], args: Sequence[Any], *, durable: bool = False) -> Any:
        """Runs `script` by its SHA, loading it when Redis does not know it (first use,
        a restarted or failed-over Redis). `durable`: a write that must reach the
        configured number of replicas before it counts."""
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        with self._on_shard(keys[0]):
            try:
                return await self._run(command, durable)
            except NoScriptError:
                await self._load(script, keys[0])
                return await self._run(command, durable)

    async def _run(self, command: tuple[Any, ...], durable: bool) -> Any:
        if durable and self.wait_replicas:
            return await self._write(command)
        if self._single is None:
            return await self.client.execute_command(*command)
        return await self._direct(self._single, command)

    async def _direct(self, client: Redis, command: tuple[Any, ...]) -> Any:
        """`command` (a script: its reply needs no parsing) on a connection of our own,
        kept between calls: packed by hiredis in C, sent and answered under one timeout,
        without redis-py's per-command machinery (the blocking pool's condition and
        timeout, the connection check, a task per send for its timeout): a move's
        append is a round trip of this. While all of them are busy, the command waits
        for one, as long as a command may take. The same retry as the client's own (a
        dead connection is reconnected once); a connection that failed or was
        interrupted mid-command is dropped (its reply never read by anyone) and
        reconnects on its next use."""
        packed = hiredis.pack_command(command)  # before taking a connection: a bad argument takes none
        if self._free.locked():
            try:
                async with asyncio.timeout(self.timeout):
                    await self._free.acquire()
            except TimeoutError:
                raise MaxConnectionsError(f"all {SCRIPT_CONNECTIONS} connections busy for {self.timeout} s") from None
        else:
            await self._free.acquire()  # at once
        try:
            connection = self._kept.pop() if self._kept else _script_connection(client)
        except BaseException:
            self._free.release()
            raise
        self.in_use += 1
        self.most_in_use = max(self.most_in_use, self.in_use)

        async def attempt() -> Any:
            async with asyncio.timeout(self.timeout):
                await connection.send_packed_command(packed, check_health=False)
                return await connection.read_response()

        try:
            return await connection.retry.call_with_retry(attempt, lambda _: connection.disconnect(nowait=True))
        except ResponseError:
            raise  # answered in full (a script's error, NOSCRIPT): the connection is in step
        except TimeoutError:
            await connection.disconnect(nowait=True)
            raise RedisTimeoutError(f"no answer from Redis within {self.timeout} s") from None
        except BaseException:
            await connection.disconnect(nowait=True)
            raise
        finally:
            self.in_use -= 1
            self._kept.append(connection)
            self._free.release()

    async def _load(self, script: Script, key: str) -> None:
        """Loads `script` on the node serving `key` (only there: another may be down)."""
        if isinstance(self.client, RedisCluster):
            node = self.client.get_node_from_key(key)
            await self.client.execute_command("SCRIPT", "LOAD", script.source, target_nodes=node)
        else:
            await self.client.script_load(script.source)

    async def read_many(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        """Runs read commands in one pipeline (grouped by node in a cluster)."""
        if not commands:
            return []
        with unavailable_on_redis_errors():
            pipe = self.client.pipeline(transaction=False)
            for command in commands:
                pipe.execute_command(*command)
            return list(await pipe.execute())

    # --- writes that wait for replicas --------------------------------------------------

    async def _write(self, command: tuple[Any, ...]) -> Any:
        """Runs `command`, then WAIT on the same connection, when replicas must confirm writes."""
        if not self.wait_replicas:
            return await self.client.execute_command(*command)
        key = str(command[3]) if command[0] == "EVALSHA" else str(command[1])
        for attempt in range(WRITE_ATTEMPTS):
            try:
                return await self._write_once(key, command)
            except (ConnectionError, ClusterDownError, TryAgainError):
                # Not sent, or refused before it ran: safe to send again, once the
                # topology has been read anew (a failover may have moved the slot).
                if attempt == WRITE_ATTEMPTS - 1:
                    raise
                await self.refresh_topology()
                await asyncio.sleep(TOPOLOGY_PAUSE * (attempt + 1))
            except MovedError as moved:
                if attempt == WRITE_ATTEMPTS - 1:
                    raise
                await self._moved(moved)
        raise AssertionError("unreachable")

    async def _write_once(self, key: str, command: tuple[Any, ...]) -> Any:
        node = None
        if isinstance(self.client, RedisCluster):
            await self.client.initialize()
            node = self.client.get_node_from_key(key)
            if node is None:
                raise StoreUnavailable(f"no Redis node serves {key!r} now", "cluster_down")
        async with self.node_connection(node) as connection:
            return await self.write_and_wait(connection, command)

    @asynccontextmanager
    async def node_connection(self, node: ClusterNode | None) -> AsyncIterator[Connection]:
        """A connection of `node` (None: the single Redis), for commands that must share one."""
        if node is not None:
            connection = node.acquire_connection()
            try:
                yield connection
            finally:
                node.release(connection)
            return
        assert isinstance(self.client, Redis)
        pool = self.client.connection_pool
        pooled = await pool.get_connection()  # type: ignore[no-untyped-call]
        try:
            yield pooled
        finally:
            await pool.release(pooled)

    async def write_and_wait(self, connection: Connection, command: tuple[Any, ...]) -> Any:
        """`command` then WAIT, pipelined on `connection`; StoreUnavailable when fewer
        replicas than required confirmed it in time (the write stands on the primary:
        a retry with the same command id finds it)."""
        wait = ("WAIT", self.wait_replicas, self.wait_timeout_ms)
        await connection.send_packed_command(connection.pack_commands([command, wait]))
        try:
            reply = await connection.read_response()
        except ResponseError:
            # WAIT's answer too, so the connection stays in step (on a node that is
            # now a replica, WAIT itself is refused: the first error is the one to tell).
            with contextlib.suppress(ResponseError):
                await self._read_wait(connection)
            raise
        confirmed = await self._read_wait(connection)
        if confirmed < self.wait_replicas:
            raise StoreUnavailable(
                f"only {confirmed} of {self.wait_replicas} Redis replicas confirmed the write "
                f"within {self.wait_timeout_ms} ms",
                "replicas",
            )
        return reply

    async def _read_wait(self, connection: Connection) -> int:
        answer = await connection.read_response(timeout=self.wait_timeout + self.timeout)
        if answer is None:  # redis-py answers None to a read that timed out
            await connection.disconnect(nowait=True)
            raise RedisTimeoutError("no answer to WAIT")
        return int(answer)

    async def _moved(self, moved: MovedError) -> None:
        if isinstance(self.client, RedisCluster):
            await self.client.nodes_manager.move_slot(moved)

    async def refresh_topology(self) -> None:
        """Reads the cluster's slot map anew (after a node failed to answer)."""
        if isinstance(self.client, RedisCluster):
            await self.client.nodes_manager.initialize()

    # --- the nodes ----------------------------------------------------------------------

    async def primaries(self) -> list[tuple[str, ClusterNode | None, int]]:
        """Each primary: its name, its node (None: the single Redis) and one slot it serves."""
        if not isinstance(self.client, RedisCluster):
            return [("redis", None, 0)]
        await self.client.initialize()
        slots: dict[str, int] = {}
        for slot, nodes in self.client.nodes_manager.slots_cache.items():
            if nodes:
                slots.setdefault(nodes[0].name, slot)
        return [(node.name, node, slots[node.name]) for node in self.client.get_primaries() if node.name in slots]

    async def ping(self) -> None:
        with unavailable_on_redis_errors():
            await self.client.ping()

    async def close(self) -> None:
        while self._kept:
            await self._kept.pop().disconnect()
        client = self.client
        await (client.close_for_good() if isinstance(client, Cluster) else client.aclose())


def shard_of(client: Redis | RedisCluster, key: str) -> str:
    """The name of the master serving `key` now, as the slot map has it ("" on a single
    Redis: there is one)."""
    if not isinstance(client, RedisCluster):
        return ""
    slot = key_slot(key.encode())
    nodes = client.nodes_manager.slots_cache.get(slot)
    return nodes[0].name if nodes else f"slot {slot}"


def uncovered(client: Redis | RedisCluster) -> list[tuple[int, int]]:
    """The ranges of slots no master serves, as the slot map last read says (a shard
    whose master died with no replica promoted yet)."""
    if not isinstance(client, RedisCluster):
        return []
    served = client.nodes_manager.slots_cache
    ranges: list[tuple[int, int]] = []
    for slot in range(REDIS_CLUSTER_HASH_SLOTS):
        if served.get(slot):
            continue
        if ranges and ranges[-1][1] == slot - 1:
            ranges[-1] = (ranges[-1][0], slot)
        else:
            ranges.append((slot, slot))
    return ranges


def _script_connection(client: Redis) -> AbstractConnection:
    """A connection like the pool's, with no socket timeout of its own (`_direct`'s one
    timeout covers its whole round trip)."""
    pool = client.connection_pool
    return pool.connection_class(**{**pool.connection_kwargs, "socket_timeout": None})
