"""Live events for the Redis store: one reader task per process follows, with XREAD
BLOCK, every game that has a subscriber in this process, and hands each new event to
those subscribers' bounded queues.

One XREAD covers all the followed games of one hash slot: on a single Redis that is
every game, so one blocking connection serves the whole process. A cluster refuses
keys of several slots in one command, so there the reader keeps one XREAD in flight
per slot it follows. When a game starts being followed, the reads that must now cover
it are restarted (a cancelled read drops its connection; redis-py opens a new one).

When writes wait for replicas, the reader blocks on each game's confirmations stream
instead (its one entry names the last version the replicas confirmed) and then reads
the events up to that version: a subscriber never gets an event before its WAIT
confirmed it.

A deleted game's stream (and, when writes wait for replicas, its confirmations stream)
ends with an entry that holds no event: its subscribers end with GameNotFound. A
subscriber whose queue is full when an event arrives is dropped and ends with
SubscriberTooSlow: a slow client never makes the process hold an unbounded backlog.
While Redis is unreachable the reader retries with a growing pause and then resumes
from where each game stood, so subscribers see neither a gap nor a repeat. Coming back,
it first checks that each game's store still has what its subscribers were given: a
failover can promote a replica that never had the last versions, and then those
subscribers end with VersionsLost (their versions would otherwise be given again, to
other events).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from service.store.base import GameNotFound, StoredEvent, StoreUnavailable, SubscriberTooSlow, VersionsLost
from service.store.redis_client import BLOCKING_READ, RedisConnection
from service.store.redis_keys import Keys

log = logging.getLogger(__name__)

BLOCK_MS = int(BLOCKING_READ * 1000)  # what the blocking connection's timeout allows for
COUNT = 1000  # events per game per read
MAX_PAUSE = 1.0


class Subscriber:
    """One subscriber's queue of live events, filled by the reader with the versions
    after `after`, each exactly once and in order."""

    def __init__(self, game_id: str, after: int, capacity: int) -> None:
        self.game_id = game_id
        self.after = after  # the reader hands over only versions past this one
        self._capacity = capacity
        self._events: deque[StoredEvent] = deque()
        self._ready = asyncio.Event()
        self._ended: Exception | None = None

    def offer(self, event: StoredEvent) -> bool:
        """Queues `event`; False (and the subscriber ends) when the queue is full."""
        if event.version <= self.after:
            return True
        if len(self._events) >= self._capacity:
            self.end(SubscriberTooSlow(f"more than {self._capacity} events behind on game {self.game_id!r}"))
            return False
        self._events.append(event)
        self.after = event.version
        self._ready.set()
        return True

    def end(self, error: Exception) -> None:
        self._ended = error
        self._ready.set()

    async def next(self) -> StoredEvent:
        while True:
            if self._ended is not None:
                raise self._ended
            if self._events:
                return self._events.popleft()
            self._ready.clear()
            await self._ready.wait()


@dataclass(slots=True)
class _Followed:
    """A game followed by the reader: the last version handed over, and to whom."""

    version: int
    subscribers: set[Subscriber] = field(default_factory=set)


class LiveReader:
    def __init__(self, redis: RedisConnection, keys: Keys, *, queue_size: int = 1024) -> None:
        self._redis = redis
        self._keys = keys
        self._queue_size = queue_size
        self._followed: dict[str, _Followed] = {}
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._refusal: StoreUnavailable | None = None  # set: every subscriber ends with it

    def add(self, game_id: str, version: int, first: int) -> tuple[Subscriber, int]:
        """A new subscriber of `game_id`, which stands at `version` in the store, that
        wants the events from version `first` on. Returns it and the version through
        which it must read the store itself; its queue gets every later event it wants."""
        followed = self._followed.get(game_id)
        if followed is None:
            followed = self._followed[game_id] = _Followed(version)
            self._changed.set()
        through = max(followed.version, version)
        subscriber = Subscriber(game_id, max(through, first - 1), self._queue_size)
        followed.subscribers.add(subscriber)
        if self._refusal is not None:
            subscriber.end(self._refusal)
        elif self._task is None or self._task.done():
            # A context of its own: the reader serves every subscriber, not the request
            # that happened to start it (whose request id and trace it would carry forever).
            self._task = asyncio.create_task(self._run(), name="redis-live-reader", context=contextvars.Context())
        return subscriber, through

    def remove(self, subscriber: Subscriber) -> None:
        followed = self._followed.get(subscriber.game_id)
        if followed is None:
            return
        followed.subscribers.discard(subscriber)
        if not followed.subscribers:
            # No restart needed: the next read simply leaves the game out.
            del self._followed[subscriber.game_id]

    def end_game(self, game_id: str, error: Exception) -> None:
        """Ends every subscriber of one game with `error` (the game was deleted)."""
        followed = self._followed.pop(game_id, None)
        if followed is not None:
            for subscriber in followed.subscribers:
                subscriber.end(error)

    def end_all(self, refusal: StoreUnavailable) -> None:
        """Ends every subscriber, and every later one, with `refusal`."""
        self._refusal = refusal
        for followed in self._followed.values():
            for subscriber in followed.subscribers:
                subscriber.end(refusal)
        self._followed.clear()

    def close(self) -> None:
        """Ends every subscriber and stops the reader (then `wait_closed`)."""
        self._closing = True
        self.end_all(StoreUnavailable("the store is closed"))
        if self._task is not None:
            self._task.cancel()

    async def wait_closed(self) -> None:
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    # --- the reader task -------------------------------------------------------------

    def _slots(self) -> dict[int, dict[str, int]]:
        """The keys the reader blocks on (events, or confirmations when writes wait for
        replicas) and the versions the followed games stand at, by hash slot."""
        slots: dict[int, dict[str, int]] = {}
        waits = bool(self._redis.wait_replicas)
        for game_id, followed in self._followed.items():
            key = self._keys.confirmations(game_id) if waits else self._keys.events(game_id)
            slots.setdefault(self._redis.slot(key), {})[key] = followed.version
        return slots

    async def _run(self) -> None:
        reads: dict[int, tuple[asyncio.Task[tuple[list[Any], dict[str, int]]], frozenset[str]]] = {}
        pauses: dict[int, float] = {}
        try:
            while (self._followed or reads) and not self._closing:
                self._changed.clear()
                wanted = self._slots()
                for slot, (task, keys) in list(reads.items()):
                    if slot not in wanted or not set(wanted[slot]) <= keys:
                        task.cancel()  # it misses a newly followed game (or follows none)
                for slot, streams in wanted.items():
                    if slot not in reads:
                        pause = pauses.get(slot, 0.0)
                        reads[slot] = (asyncio.create_task(self._read(streams, pause)), frozenset(streams))
                if not reads:
                    break
                changed = asyncio.create_task(self._changed.wait())
                await asyncio.wait(
                    [changed, *(task for task, _ in reads.values())], return_when=asyncio.FIRST_COMPLETED
                )
                changed.cancel()
                for slot, (task, _) in list(reads.items()):
                    if not task.done():
                        continue
                    del reads[slot]
                    if task.cancelled():
                        continue
                    error = task.exception()
                    if error is None:
                        pauses.pop(slot, None)
                        reply, behind = task.result()
                        self._deliver(reply)
                        self._lost(behind)
                    elif isinstance(error, StoreUnavailable):
                        if slot not in pauses:
                            log.warning("live events: %s; retrying", error)
                        pauses[slot] = min(max(pauses.get(slot, 0.0) * 2, 0.05), MAX_PAUSE)
                    else:
                        raise error
        except Exception:
            log.exception("live events: the reader failed; ending its subscribers")
            for followed in self._followed.values():
                for subscriber in followed.subscribers:
                    subscriber.end(StoreUnavailable("live events are not available"))
            self._followed.clear()
        finally:
            # Not awaited: redis-py sends with asyncio.wait_for, which on Python 3.11 can
            # lose a cancellation; such a read ends by itself within BLOCK_MS, and the
            # callback collects its outcome.
            for task, _ in reads.values():
                task.cancel()
                task.add_done_callback(_collect)

    async def _read(self, streams: dict[str, int], pause: float) -> tuple[list[Any], dict[str, int]]:
        """New events of the games followed in one slot (as XREAD answers), and the
        games whose store is back behind the version they were followed at."""
        if pause:
            await asyncio.sleep(pause)  # Redis was unreachable: don't spin
            behind = await self._behind(streams)
            if behind:
                return [], behind
        keys = list(streams)
        ids = [f"{streams[key]}-0" for key in keys]
        reply = list(
            await self._redis.call_blocking("XREAD", "COUNT", COUNT, "BLOCK", BLOCK_MS, "STREAMS", *keys, *ids) or []
        )
        if not self._redis.wait_replicas:
            return reply, {}
        # Confirmations: read the events up to each game's confirmed version.
        reads, deleted = [], []
        for key, entries in reply:
            game_id = self._keys.game_of(key.decode())
            last_id, fields = entries[-1]
            if b"v" not in fields:  # the entry a deletion leaves: no event to read (redis_lua.DELETE)
                deleted.append((self._keys.events(game_id).encode(), [entries[-1]]))
                continue
            reads.append((game_id, streams[key.decode()], int(last_id.split(b"-", 1)[0])))
        found = await self._redis.read_many(
            [
                ("XRANGE", self._keys.events(game_id), f"{after + 1}-0", f"{confirmed}-0", "COUNT", COUNT)
                for game_id, after, confirmed in reads
            ]
        )
        confirmed_events = [
            (self._keys.events(game_id).encode(), entries)
            for (game_id, _, _), entries in zip(reads, found, strict=True)
        ]
        return confirmed_events + deleted, {}

    async def _behind(self, streams: dict[str, int]) -> dict[str, int]:
        """The games whose store shows fewer versions than they were followed at."""
        games = [self._keys.game_of(key) for key in streams]
        metas = await self._redis.read_many(
            [("HMGET", self._keys.meta(game_id), "version", "confirmed") for game_id in games]
        )
        behind = {}
        for game_id, key, (version, confirmed) in zip(games, streams, metas, strict=True):
            if version is None:
                continue  # the game is gone: nothing to compare
            shown = int(confirmed if self._redis.wait_replicas and confirmed is not None else version)
            if shown < streams[key]:
                behind[game_id] = shown
        return behind

    def _lost(self, behind: dict[str, int]) -> None:
        """Ends the subscribers of games whose store went back behind them."""
        for game_id, version in behind.items():
            followed = self._followed.pop(game_id, None)
            if followed is None:
                continue
            log.error(
                "live events: game %s is back at version %d in the store; its subscribers had been given "
                "versions up to %d (a failover lost them)",
                game_id,
                version,
                followed.version,
            )
            for subscriber in followed.subscribers:
                subscriber.end(VersionsLost(game_id, version, followed.version))

    def _deliver(self, reply: list[Any]) -> None:
        for key, entries in reply:
            game_id = self._keys.game_of(key.decode())
            followed = self._followed.get(game_id)
            if followed is None:
                continue  # nobody follows it any more
            for entry_id, fields in entries:
                if b"d" not in fields:  # the entry a deletion leaves (redis_lua.DELETE)
                    self.end_game(game_id, GameNotFound(game_id))
                    break
                version = int(entry_id.split(b"-", 1)[0])
                if version <= followed.version:
                    continue
                if version > followed.version + 1:
                    break  # a read from before the game was followed anew: the next read fills in
                event = StoredEvent(version, fields[b"d"])
                followed.version = version
                for subscriber in list(followed.subscribers):
                    if not subscriber.offer(event):
                        followed.subscribers.discard(subscriber)


def _collect(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: a late failure of an abandoned read is of no interest
