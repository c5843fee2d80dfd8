"""Live events for the Redis store: one reader task per process follows, with XREAD
BLOCK, every game that has a subscriber in this process, and hands each new event to
those subscribers' bounded queues.

One XREAD covers all the followed games of one hash slot: on a single Redis that is
every game, so one blocking connection serves the whole process. A cluster refuses
keys of several slots in one command, so there the reader keeps one XREAD in flight
per slot it follows. When a game starts being followed, the reads that must now cover
it are restarted (a cancelled read drops its connection; redis-py opens a new one).

A subscriber whose queue is full when an event arrives is dropped and ends with
SubscriberTooSlow: a slow client never makes the process hold an unbounded backlog.
While Redis is unreachable the reader retries with a growing pause and then resumes
from where each game stood, so subscribers see neither a gap nor a repeat.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from service.store.base import StoredEvent, StoreUnavailable, SubscriberTooSlow
from service.store.redis_client import RedisConnection
from service.store.redis_keys import Keys

log = logging.getLogger(__name__)

BLOCK_MS = 2000  # below the connection's socket timeout
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
        """The followed games' events keys and versions, by hash slot."""
        slots: dict[int, dict[str, int]] = {}
        for game_id, followed in self._followed.items():
            key = self._keys.events(game_id)
            slots.setdefault(self._redis.slot(key), {})[key] = followed.version
        return slots

    async def _run(self) -> None:
        reads: dict[int, tuple[asyncio.Task[list[Any]], frozenset[str]]] = {}
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
                        self._deliver(task.result())
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

    async def _read(self, streams: dict[str, int], pause: float) -> list[Any]:
        if pause:
            await asyncio.sleep(pause)  # Redis was unreachable: don't spin
        keys = list(streams)
        ids = [f"{streams[key]}-0" for key in keys]
        reply = await self._redis.call("XREAD", "COUNT", COUNT, "BLOCK", BLOCK_MS, "STREAMS", *keys, *ids)
        return list(reply or [])

    def _deliver(self, reply: list[Any]) -> None:
        for key, entries in reply:
            game_id = self._keys.game_of_events(key.decode())
            followed = self._followed.get(game_id)
            if followed is None:
                continue  # nobody follows it any more
            for entry_id, fields in entries:
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
