"""Which followed games moved, heard on sharded pub/sub: each game's channel (Keys.moves,
hashed to the game's own slot) carries the last version shown after each append, or
each confirmation when writes wait for replicas, and 'x' once the game is deleted
(redis_lua: APPEND, CONFIRM, DELETE).

One connection per shard (a single Redis: one) subscribes (SSUBSCRIBE) to the channels
of the games this process follows, so what a process pays for an event is one message
of the game that moved, whatever the number of games it follows, and a Redis node
sends each message to the processes that follow that game only.

Pub/sub delivers at most once; the store is the truth. So whenever a channel may have
been deaf (its subscription just acknowledged, a connection lost and made again, a slot
moved to another node), its game is handed to `resync`: the reader reads it from the
store once. And every SWEEP_SECONDS every followed game is, as a backstop: a message
lost without any sign costs at most that long a wait, never an event. The backstop goes
in SWEEP_SLICES slices, one every SWEEP_SECONDS / SWEEP_SLICES, each game in one slice:
5,000 games followed cost Redis about 417 reads every 5 s, not 5,000 at once each
minute, and the sweep keeps its pace while games come and go."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Callable, Collection, Iterator
from typing import Any

from redis.asyncio.cluster import ClusterNode
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import RedisError, ResponseError

from service.store.base import StoreUnavailable
from service.store.redis_client import RedisConnection
from service.store.redis_errors import unavailable_on_redis_errors
from service.store.redis_keys import Keys

log = logging.getLogger(__name__)

PING_SECONDS = 5.0  # an idle subscription is checked this often (a PING it must answer)
SWEEP_SECONDS = 60.0  # every followed game is read from the store this often, whatever was heard
SWEEP_SLICES = 12  # ... in this many slices, evenly spread over SWEEP_SECONDS
MAX_PAUSE = 1.0  # between two attempts to reach a node that failed

Heard = Callable[[str, bytes], None]  # (game id, what its channel said: a version, or b"x")
Resync = Callable[[Collection[str]], None]  # games to read from the store once


class _Shard:
    """One node's subscription connection, and the channels it is to hold."""

    def __init__(self, name: str, node: ClusterNode | None) -> None:
        self.name = name
        self.node = node
        self.channels: set[str] = set()  # wanted here
        self.subscribed: set[str] = set()  # asked of the node (acknowledged or not)
        self.leaving: dict[str, int] = {}  # SUNSUBSCRIBEs asked whose answer is still to come
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None


class MoveSubscriptions:
    def __init__(
        self, redis: RedisConnection, keys: Keys, heard: Heard, resync: Resync, *, sweep_seconds: float = SWEEP_SECONDS
    ) -> None:
        self._redis = redis
        self._keys = keys
        self._heard = heard
        self._resync = resync
        self._games: dict[str, set[str]] = {}  # game -> the sweep's slice it is in
        self._slices: list[set[str]] = [set() for _ in range(SWEEP_SLICES)]
        self._next_slice = 0
        self._tick = sweep_seconds / SWEEP_SLICES
        self._shards: dict[str, _Shard] = {}
        self._placed: dict[str, str] = {}  # channel -> the shard it is placed on
        self._unplaced: set[str] = set()  # channels whose node is not known yet
        self._placing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False

    def follow(self, game_id: str) -> None:
        """Hears `game_id` from now on (its first `resync` says when)."""
        if game_id in self._games:
            return
        # The emptiest slice: the sweep's reads stay even as games come.
        in_slice = self._games[game_id] = min(self._slices, key=len)
        in_slice.add(game_id)
        self._unplaced.add(self._keys.moves(game_id))
        self._placing.set()
        if self._task is None or self._task.done():
            # A context of its own: it serves every follower, not the request that started it.
            self._task = asyncio.create_task(self._place_loop(), name="redis-moves", context=contextvars.Context())

    def unfollow(self, game_id: str) -> None:
        in_slice = self._games.pop(game_id, None)
        if in_slice is None:
            return
        in_slice.discard(game_id)
        channel = self._keys.moves(game_id)
        self._unplaced.discard(channel)
        shard = self._shards.get(self._placed.pop(channel, ""))
        if shard is not None:
            shard.channels.discard(channel)
            shard.changed.set()

    @property
    def followed(self) -> frozenset[str]:
        return frozenset(self._games)

    async def close(self) -> None:
        self._closing = True
        tasks = [t for t in [self._task, *(s.task for s in self._shards.values())] if t is not None]
        for task in tasks:
            task.cancel()  # and told by `_closing`, should redis-py lose the cancel
        if tasks:
            await asyncio.wait(tasks)  # not `await task`: a cancel of close() itself must stop it
        for task in tasks:
            if not task.cancelled():
                task.exception()  # retrieved: a failure as it stopped says nothing more

    # --- placing channels on their nodes ---------------------------------------------

    def _sweep(self) -> None:
        """The backstop: the next slice of followed games, handed to `resync`."""
        games = frozenset(self._slices[self._next_slice])
        self._next_slice = (self._next_slice + 1) % SWEEP_SLICES
        if games:
            self._resync(games)

    async def _place_loop(self) -> None:
        pause = 0.0
        loop = asyncio.get_running_loop()
        sweep_at = loop.time() + self._tick  # a deadline of its own: placing never puts it off
        while not self._closing:
            if loop.time() >= sweep_at:
                self._sweep()
                sweep_at += self._tick
                if sweep_at <= loop.time():  # the loop was held up: no burst of slices to catch up
                    sweep_at = loop.time() + self._tick
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(sweep_at):
                    await self._placing.wait()
            if not self._placing.is_set():
                continue  # the sweep's time
            if pause:
                await asyncio.sleep(pause)
            self._placing.clear()
            try:
                await self._place(set(self._unplaced))
                pause = 0.0
            except StoreUnavailable as error:
                if not pause:
                    log.warning("live events: cannot place the games' channels: %s; retrying", error)
                pause = min(max(pause * 2, 0.05), MAX_PAUSE)
                self._placing.set()

    async def _place(self, channels: set[str]) -> None:
        """Puts each channel on the shard of its node (as the slot map has it now)."""
        if not channels:
            return
        with unavailable_on_redis_errors():
            nodes = await self._nodes_of(channels)
        for channel, (name, node) in nodes.items():
            if channel not in self._unplaced:
                continue  # unfollowed meanwhile
            shard = self._shards.get(name)
            if shard is None:
                shard = self._shards[name] = _Shard(name, node)
            shard.node = node
            self._unplaced.discard(channel)
            self._placed[channel] = name
            shard.channels.add(channel)
            shard.changed.set()
            if shard.task is None or shard.task.done():
                shard.task = asyncio.create_task(self._hold(shard), name=f"redis-moves-{name}")

    async def _nodes_of(self, channels: set[str]) -> dict[str, tuple[str, ClusterNode | None]]:
        if not self._redis.is_cluster:
            return {channel: ("redis", None) for channel in channels}
        client: Any = self._redis.client
        await client.initialize()
        found = {}
        for channel in channels:
            node = client.get_node_from_key(channel)
            if node is None:
                raise StoreUnavailable(f"no Redis node serves {channel!r} now", "cluster_down")
            found[channel] = (node.name, node)
        return found

    def _replace(self, shard: _Shard, channels: Collection[str]) -> None:
        """`channels` left `shard` (its node failed, or no longer serves their slot):
        placed anew, and their games read from the store once they are heard again."""
        for channel in channels:
            shard.channels.discard(channel)
            if self._placed.get(channel) == shard.name:
                del self._placed[channel]
                self._unplaced.add(channel)
        if channels:
            self._placing.set()

    # --- one node's connection --------------------------------------------------------

    async def _hold(self, shard: _Shard) -> None:
        """Keeps `shard`'s subscriptions while it has channels: connects, subscribes,
        hears; a connection that fails is made again and its channels placed anew."""
        pause = 0.0
        while shard.channels and not self._closing:
            if pause:
                await asyncio.sleep(pause)
            connection = self._connection(shard)
            try:
                await connection.connect()  # type: ignore[no-untyped-call]
                shard.subscribed, shard.leaving = set(), {}
                await self._listen(shard, connection)
                pause = 0.0
            except (RedisError, OSError) as error:
                if shard.channels:
                    log.warning("live events: the subscription to %s failed (%s); subscribing again", shard.name, error)
                pause = min(max(pause * 2, 0.05), MAX_PAUSE)
                with contextlib.suppress(RedisError):
                    await self._redis.refresh_topology()
                self._replace(shard, set(shard.channels))  # their node may have changed
            finally:
                with contextlib.suppress(Exception):
                    await connection.disconnect(nowait=True)
        if self._shards.get(shard.name) is shard and not shard.channels:
            del self._shards[shard.name]

    def _connection(self, shard: _Shard) -> AbstractConnection:
        if shard.node is not None:
            return shard.node.connection_class(**shard.node.connection_kwargs)
        client: Any = self._redis.client
        pool = client.connection_pool
        made: AbstractConnection = pool.connection_class(**pool.connection_kwargs)
        return made

    async def _listen(self, shard: _Shard, connection: AbstractConnection) -> None:
        """Hears the node until the shard holds nothing; asks for its channels meanwhile."""
        shard.changed.set()  # a new connection holds nothing yet
        over = asyncio.Event()  # this connection is done with: `_ask` ends at its next step
        asking = asyncio.create_task(self._ask(shard, connection, over))
        try:
            pinged = False
            while shard.channels or shard.subscribed or shard.leaving:
                if asking.done():
                    asking.result()  # a failed send fails the connection
                message = await connection.read_response(
                    timeout=PING_SECONDS, disconnect_on_error=False, push_request=True
                )
                if message is None:  # nothing for a while: is the node still there?
                    if pinged:
                        raise ConnectionError(f"{shard.name} did not answer a PING")
                    await connection.send_command("PING", check_health=False)
                    pinged = True
                    continue
                pinged = False
                self._receive(shard, message)
        finally:
            # Waited for: a task left pending is "destroyed but pending" when the loop
            # closes. Told by `over` as well as cancelled, since Python 3.11's wait_for
            # (redis-py's send) loses a cancel that comes just as the send ends.
            over.set()
            shard.changed.set()  # wakes it (a spurious wake is harmless: it only re-asks)
            asking.cancel()
            await asyncio.wait({asking})
            if not asking.cancelled():
                asking.exception()  # already raised above if it failed while listened to

    async def _ask(self, shard: _Shard, connection: AbstractConnection, over: asyncio.Event) -> None:
        """Asks the node for the channels the shard is to hold, and to let go of the
        others, whenever they change (the answers come to `_listen`), until `over`."""
        while True:
            await shard.changed.wait()
            if over.is_set():
                return
            shard.changed.clear()
            for command, channel in _asks(shard):
                await connection.send_command(command, channel, check_health=False)
                if over.is_set():
                    return

    def _receive(self, shard: _Shard, message: Any) -> None:
        if isinstance(message, ResponseError) or not isinstance(message, list) or not message:
            if isinstance(message, ResponseError) and "MOVED" in str(message):
                raise ConnectionError(f"{shard.name}: {message}")  # the slot map changed
            return
        kind = bytes(message[0])
        channel = bytes(message[1]).decode() if len(message) > 1 else ""
        if kind == b"smessage":
            self._heard(self._keys.game_of(channel), bytes(message[2]))
        elif kind == b"ssubscribe":
            if channel in shard.channels:
                self._resync([self._keys.game_of(channel)])  # heard from now on: read what came before
        elif kind == b"sunsubscribe":
            asked = shard.leaving.get(channel, 0)
            if asked > 1:
                shard.leaving[channel] = asked - 1
            elif asked == 1:
                del shard.leaving[channel]
            else:  # not asked: the node no longer serves the channel's slot
                shard.subscribed.discard(channel)
                if channel in shard.channels:
                    self._replace(shard, [channel])


def _asks(shard: _Shard) -> Iterator[tuple[str, str]]:
    """The commands that bring the node to the channels the shard is to hold, each
    noted in the shard as it is asked."""
    wanted = set(shard.channels)
    for channel in sorted(shard.subscribed - wanted):
        shard.subscribed.discard(channel)
        shard.leaving[channel] = shard.leaving.get(channel, 0) + 1
        yield "SUNSUBSCRIBE", channel
    for channel in sorted(wanted - shard.subscribed):
        shard.subscribed.add(channel)
        yield "SSUBSCRIBE", channel
