"""Live events for the Redis store: each process hears which of the games it follows
moved (redis_moves.py: sharded pub/sub on each game's own slot), reads just those games'
new events from their streams (XRANGE from the last version it handed over), and hands
each new event to their subscribers' bounded queues.

What a process pays per event is one message and one read of the game that moved,
whatever the number of games it follows: a delivery's cost does not grow with the
crowd. The process that appended the events hands them to its own followers at once
(`appended`) and reads nothing back: its seats' moves cost no read at all. The
channel only wakes the reader; the stream is the truth, so delivery stays
gap-free, in order and resumable: a version is handed over once the versions before it
were, and a game whose channel may have been deaf (just followed, a connection made
again, a slot moved) is read from the store once (`resync`).

When writes wait for replicas, a game's channel says the version its replicas confirmed
(redis_lua.CONFIRM), and the reader reads up to it: a subscriber never gets an event
before its WAIT confirmed it.

A subscriber catching up reads the store itself, its reads taking turns with the other
subscribers' (`follow`: FOLLOWER_READS at once), each over before its events are
handed on: however many subscribers there are, read by their clients or not, they hold
at most so many of the connections the moves' appends need (redis_client.py), and
those waiting hold none.

A deleted game's channel says so: its subscribers end with GameNotFound. A subscriber
whose queue is full when an event arrives is dropped and ends with SubscriberTooSlow: a
slow client never makes the process hold an unbounded backlog. While Redis is
unreachable the reader retries with a growing pause and then resumes from where each
game stood, so subscribers see neither a gap nor a repeat. Reading a game again from the
store, it first checks that the store still has what its subscribers were given: a
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
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.store.base import GameNotFound, StoredEvent, StoreUnavailable, SubscriberTooSlow, VersionsLost
from service.store.redis_client import RedisConnection
from service.store.redis_keys import Keys
from service.store.redis_moves import SWEEP_SECONDS, MoveSubscriptions

log = logging.getLogger(__name__)

COUNT = 1000  # events per game per read
READ_PAGE = 1000  # events per read while a subscriber catches up
FOLLOWER_READS = 4  # subscribers' reads of the past in flight at once (`follow`)
MAX_PAUSE = 1.0
LOOK = None  # a game to look at in the store (its channel may have been deaf), not a version heard


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
    def __init__(
        self,
        redis: RedisConnection,
        keys: Keys,
        queue_size: int = 1024,
        sweep_seconds: float = SWEEP_SECONDS,
        reads: int = FOLLOWER_READS,
    ) -> None:
        if reads < 1:
            raise ValueError("subscribers need at least one read of the store at a time")
        self._redis = redis
        self._turns = asyncio.Semaphore(reads)
        self._keys = keys
        self._queue_size = queue_size
        self._followed: dict[str, _Followed] = {}
        # Games to read: the version their channel said (LOOK: look at the store first).
        self._due: dict[str, int | None] = {}
        self._woken = asyncio.Event()
        self._moves = MoveSubscriptions(redis, keys, self._heard, self._look, sweep_seconds=sweep_seconds)
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
            self._moves.follow(game_id)  # its first resync reads what came before it was heard
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

    async def follow(
        self,
        game_id: str,
        from_version: int,
        version_of: Callable[[str], Awaitable[int]],
        read: Callable[[str, int, int], Awaitable[list[StoredEvent]]],
    ) -> AsyncGenerator[StoredEvent]:
        """A subscription's events (RedisStore.subscribe): the game's past read from the
        store (`version_of` its version, `read` a range of its events), a page at a
        time, in its turn, then the live ones as the reader queues them."""
        async with self._turns:
            version = await version_of(game_id)
        next_version = max(from_version, 1)
        subscriber, through = self.add(game_id, version, next_version)
        try:
            # Catch up from the store to `through`; the queue holds what comes after.
            while next_version <= through:
                async with self._turns:  # over before its events are handed on
                    page = await read(game_id, next_version, min(through, next_version + READ_PAGE - 1))
                for event in page:
                    yield event
                next_version = page[-1].version + 1 if page else through + 1
            while True:  # the reader queues the later versions, each once and in order
                yield await subscriber.next()
        finally:
            self.remove(subscriber)

    def remove(self, subscriber: Subscriber) -> None:
        followed = self._followed.get(subscriber.game_id)
        if followed is None:
            return
        followed.subscribers.discard(subscriber)
        if not followed.subscribers:
            self._unfollow(subscriber.game_id)

    def _unfollow(self, game_id: str) -> None:
        self._followed.pop(game_id, None)
        self._due.pop(game_id, None)
        self._moves.unfollow(game_id)

    def end_game(self, game_id: str, error: Exception) -> None:
        """Ends every subscriber of one game with `error` (the game was deleted)."""
        followed = self._followed.get(game_id)
        self._unfollow(game_id)
        if followed is not None:
            for subscriber in followed.subscribers:
                subscriber.end(error)

    def end_all(self, refusal: StoreUnavailable) -> None:
        """Ends every subscriber, and every later one, with `refusal`."""
        self._refusal = refusal
        for game_id in list(self._followed):
            self.end_game(game_id, refusal)

    def close(self) -> None:
        """Ends every subscriber and stops the reader (then `wait_closed`)."""
        self._closing = True
        self.end_all(StoreUnavailable("the store is closed"))
        if self._task is not None:
            self._task.cancel()

    async def wait_closed(self) -> None:
        await self._moves.close()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def appended(self, game_id: str, first: int, events: Sequence[bytes]) -> None:
        """This process appended `events` from version `first` on, and the store shows
        them: its followers of the game get them now, without reading back what was
        just written (the game's channel then says nothing new). Only right after what
        they were given: anything else waits for the channel and the stream."""
        followed = self._followed.get(game_id)
        if followed is None or followed.version != first - 1 or self._refusal is not None:
            return
        for version, data in enumerate(events, start=first):
            _hand_over(followed, StoredEvent(version, data))

    # --- what the channels say --------------------------------------------------------

    def _heard(self, game_id: str, said: bytes) -> None:
        followed = self._followed.get(game_id)
        if followed is None:
            return  # nobody follows it any more
        if said == b"x":  # deleted (redis_lua.DELETE)
            self.end_game(game_id, GameNotFound(game_id))
            return
        version = int(said)
        if version > followed.version and self._due.get(game_id, 0) is not LOOK:
            self._due[game_id] = max(version, self._due.get(game_id) or 0)
            self._woken.set()

    def _look(self, game_ids: Collection[str]) -> None:
        for game_id in game_ids:
            if game_id in self._followed:
                self._due[game_id] = LOOK
        if self._due:
            self._woken.set()

    # --- the reader task -------------------------------------------------------------

    async def _run(self) -> None:
        pause = 0.0
        try:
            while not self._closing and (self._followed or self._due):
                if not self._due:
                    self._woken.clear()
                    await self._woken.wait()
                    continue
                due, self._due = self._due, {}
                try:
                    await self._read(due)
                    pause = 0.0
                except StoreUnavailable as error:
                    if not pause:
                        log.warning("live events: %s; retrying", error)
                    pause = min(max(pause * 2, 0.05), MAX_PAUSE)
                    self._look(due)  # what was due is read again, from the store's state then
                    await asyncio.sleep(pause)
        except Exception:
            log.exception("live events: the reader failed; ending its subscribers")
            for game_id in list(self._followed):
                self.end_game(game_id, StoreUnavailable("live events are not available"))

    async def _read(self, due: dict[str, int | None]) -> None:
        """Reads the new events of the games due, up to the version each was heard at
        (a game to look at: up to the version the store shows, once sure it still has
        what its subscribers were given), and hands them over."""
        looked = [game_id for game_id, version in due.items() if version is LOOK and game_id in self._followed]
        # What each had been given as the read went out: the store's answer holds at least
        # that. (This process's own appends may hand later versions over meanwhile.)
        given = {game_id: self._followed[game_id].version for game_id in looked}
        shown = await self._shown(looked)
        upto: dict[str, int] = {game_id: version for game_id, version in due.items() if version is not LOOK}
        for game_id, version in shown.items():
            followed = self._followed.get(game_id)
            if followed is None:
                continue
            if version is None:
                self.end_game(game_id, GameNotFound(game_id))
            elif version < given[game_id]:
                self._lost(game_id, version)
            elif version > followed.version:
                upto[game_id] = version
        reads = [(g, self._followed[g].version, v) for g, v in upto.items() if g in self._followed]
        reads = [(g, after, v) for g, after, v in reads if v > after]
        if not reads:
            return
        found = await self._redis.read_many(
            [
                ("XRANGE", self._keys.events(game_id), f"{after + 1}-0", f"{version}-0", "COUNT", COUNT)
                for game_id, after, version in reads
            ]
        )
        for (game_id, _, version), entries in zip(reads, found, strict=True):
            self._deliver(game_id, entries or [])
            followed = self._followed.get(game_id)
            if followed is not None and followed.version < version:  # more than COUNT: the next read
                self._due[game_id] = max(version, self._due.get(game_id) or 0)

    async def _shown(self, games: list[str]) -> dict[str, int | None]:
        """The version each game's store shows (None: the game is gone)."""
        if not games:
            return {}
        metas = await self._redis.read_many(
            [("HMGET", self._keys.meta(game_id), "version", "confirmed") for game_id in games]
        )
        shown: dict[str, int | None] = {}
        for game_id, (version, confirmed) in zip(games, metas, strict=True):
            if version is None:
                shown[game_id] = None
            else:
                shown[game_id] = int(confirmed if self._redis.wait_replicas and confirmed is not None else version)
        return shown

    def _lost(self, game_id: str, version: int) -> None:
        """Ends the subscribers of a game whose store went back behind them."""
        followed = self._followed.get(game_id)
        if followed is None:
            return
        log.error(
            "live events: game %s is back at version %d in the store; its subscribers had been given "
            "versions up to %d (a failover lost them)",
            game_id,
            version,
            followed.version,
        )
        self.end_game(game_id, VersionsLost(game_id, version, followed.version))

    def _deliver(self, game_id: str, entries: list[Any]) -> None:
        followed = self._followed.get(game_id)
        if followed is None:
            return  # nobody follows it any more
        for entry_id, fields in entries:
            if b"d" not in fields:  # the entry a deletion leaves (redis_lua.DELETE)
                self.end_game(game_id, GameNotFound(game_id))
                return
            version = int(entry_id.split(b"-", 1)[0])
            if version <= followed.version:
                continue
            if version > followed.version + 1:
                break  # never skip a version: what is missing is read again
            _hand_over(followed, StoredEvent(version, fields[b"d"]))


def _hand_over(followed: _Followed, event: StoredEvent) -> None:
    """The next version of a followed game, to each of its subscribers (one whose queue
    is full is dropped: it ended)."""
    followed.version = event.version
    for subscriber in list(followed.subscribers):
        if not subscriber.offer(event):
            followed.subscribers.discard(subscriber)
