"""Presence: which seats of a game have their player connected right now.

A seat is online while its player has a Play session open (gRPC or WebSocket), or
made a call with their token a moment ago. Presence is not a game event: it lives in
the store's leases (base.Coordination), one per seat and process, which the process
renews while it holds the session (every third of `ttl`); a lease that is not renewed
ends by itself, so the seats of a process that died go offline within `ttl`.

Changes are delivered live: a process that opens or closes a session notifies the
game's topic, and in every process one watch per followed game reads the game's leases
again when notified, and when the next lease ends (a process that died notifies
nobody), then tells its subscribers (Play sessions) what changed. A watch of a finished
game also looks for its rematch (PlayAgain notifies the same topic)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from service.app.observe.metrics import Metrics
from service.store.base import Coordination, StoreUnavailable

log = logging.getLogger(__name__)

SESSION = "session"
CALL = "call"
NOTICE_PAUSE_MAX = 1.0
STOP_GRACE = 1.0  # seconds a stopping server gives its closed sessions to drop their leases
LEASE_BATCH = 64  # leases renewed at once (the Redis store's connections are bounded)
FORGET_PAST = 10_000  # (game, seat) pairs remembered before the old ones are forgotten


def rematch_key(game_id: str) -> str:
    """The claim that names a finished game's rematch."""
    return f"rematch:{game_id}"


@dataclass(frozen=True, slots=True)
class Sighting:
    """What a watch saw: the seats online, and the finished game's rematch if any."""

    online: tuple[int, ...]
    rematch: str = ""


def online_seats(leases: dict[str, int]) -> tuple[int, ...]:
    """The seats that hold a lease (holders are "<seat>/<process>/<what>")."""
    return tuple(sorted(lease_seats(leases)))


def lease_seats(leases: dict[str, int]) -> set[int]:
    """online_seats(leases), as a set."""
    return {int(holder.split("/", 1)[0]) for holder in leases}


class _Watch:
    """One game's presence as this process last read it, and who wants to hear of it."""

    def __init__(self) -> None:
        self.subscribers: set[asyncio.Queue[Sighting]] = set()
        self.current: Sighting | None = None
        self.poked = asyncio.Event()
        self.finished = False  # look for a rematch too
        self.task: asyncio.Task[None] | None = None

    def publish(self, sighting: Sighting) -> None:
        self.current = sighting
        for queue in self.subscribers:
            if queue.full():  # only the latest matters
                queue.get_nowait()
            queue.put_nowait(sighting)


class Presence:
    def __init__(self, coordination: Coordination, now_ms: Callable[[], int], metrics: Metrics, ttl_ms: int) -> None:
        self._coordination = coordination
        self._now_ms = now_ms
        self._metrics = metrics
        self.ttl_ms = ttl_ms
        self.call_ttl_ms = ttl_ms  # a call keeps its seat online this long
        self._process = uuid.uuid4().hex[:12]
        self._sessions: dict[tuple[str, int], int] = {}  # (game, seat) -> sessions open here
        self._calls: dict[tuple[str, int], int] = {}  # (game, seat) -> when its call lease was last put
        self._recent: dict[str, dict[int, int]] = {}  # game -> seat -> when it last called here
        self._pending: set[tuple[str, int]] = set()  # seats seen calling, to lease
        self._watches: dict[str, _Watch] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._writes: set[asyncio.Task[None]] = set()  # sessions' leases being put or dropped
        self._chains: dict[tuple[str, int], asyncio.Task[None]] = {}  # each seat's last write
        self._stopping = asyncio.Event()

    def _holder(self, seat: int, what: str) -> str:
        return f"{seat}/{self._process}/{what}"

    # --- the process's side: sessions and calls --------------------------------------

    def seen(self, game_id: str, seat: int) -> None:
        """A call with the seat's token (Viewers.seen): online here at once, and for the
        other processes once the background task has leased it."""
        key = (game_id, seat)
        now = self._now_ms()
        recent = self._recent
        if len(recent) > 2 * FORGET_PAST:  # (the background task forgets them, when it runs)
            self._forget_old_calls()
        seats = recent.get(game_id)
        if seats is None:
            seats = recent[game_id] = {}
        seats[seat] = now
        last = self._calls.get(key)
        if last is None or now - last > self.ttl_ms // 3:
            self._pending.add(key)
            self._wake.set()

    def connect(self, game_id: str, seat: int) -> None:
        """A Play session of the seat opened in this process (its lease is put in the
        background: a session starts without waiting for the store)."""
        key = (game_id, seat)
        self._sessions[key] = self._sessions.get(key, 0) + 1
        self._metrics.online_sessions.inc()
        if self._sessions[key] == 1:
            holder = self._holder(seat, SESSION)
            self._spawn(key, lambda: self._lease(game_id, holder, self.ttl_ms))

    def disconnect(self, game_id: str, seat: int) -> None:
        """The session closed (the lease goes in the background: this may run while the
        session's task is being cancelled)."""
        key = (game_id, seat)
        left = self._sessions.get(key, 0) - 1
        self._metrics.online_sessions.dec()
        if left > 0:
            self._sessions[key] = left
            return
        self._sessions.pop(key, None)
        # The player left: the calls the session made do not keep the seat online either.
        self._calls.pop(key, None)
        self._recent.get(game_id, {}).pop(seat, None)
        holders = (self._holder(seat, SESSION), self._holder(seat, CALL))
        self._spawn(key, lambda: self._drop(game_id, *holders))

    async def _lease(self, game_id: str, holder: str, ttl_ms: int) -> None:
        """Puts or renews a lease; a new one may bring the seat online: watchers look again."""
        try:
            if await self._coordination.put_lease(game_id, holder, self._now_ms(), ttl_ms):
                await self._notify(game_id)
        except StoreUnavailable as error:
            log.debug("presence of %s: %s", game_id, error)  # renewed later

    async def _drop(self, game_id: str, *holders: str) -> None:
        try:
            for holder in holders:
                await self._coordination.drop_lease(game_id, holder)
            await self._notify(game_id)
        except StoreUnavailable as error:
            log.debug("presence of %s: %s", game_id, error)  # the lease ends by itself

    async def _notify(self, game_id: str) -> None:
        watch = self._watches.get(game_id)
        if watch is not None:
            watch.poked.set()  # this process's watch need not wait for the notice's round trip
        await self._coordination.notify(game_id)

    async def notify(self, game_id: str) -> None:
        """Tells every process watching the game to look again (e.g. a rematch exists)."""
        await self._notify(game_id)

    # --- reading ---------------------------------------------------------------------

    async def online(self, game_id: str) -> tuple[int, ...]:
        """The seats online now (as this process's watch last saw them, if it has one),
        with those that called this process a moment ago (the caller asking, at least)."""
        watch = self._watches.get(game_id)
        now = self._now_ms()
        if watch is not None and watch.current is not None:
            seats = set(watch.current.online)
        else:
            seats = lease_seats(await self._coordination.leases(game_id, now))
        called = self._recent.get(game_id)
        if called:
            recent = now - self.call_ttl_ms
            seats.update([seat for seat, at in called.items() if at > recent])
        return tuple(sorted(seats))

    async def watch(self, game_id: str) -> AsyncIterator[Sighting]:
        """The game's presence now, then each change, while the caller iterates."""
        watch = self._watches.get(game_id)
        if watch is None:
            watch = self._watches[game_id] = _Watch()
            watch.task = asyncio.create_task(self._follow(game_id, watch), name=f"presence-{game_id}")
        queue: asyncio.Queue[Sighting] = asyncio.Queue(1)
        watch.subscribers.add(queue)
        if watch.current is not None:
            queue.put_nowait(watch.current)
        try:
            while True:
                yield await queue.get()
        finally:
            watch.subscribers.discard(queue)
            if not watch.subscribers and self._watches.get(game_id) is watch:
                del self._watches[game_id]
                if watch.task is not None:
                    watch.task.cancel()

    def game_over(self, game_id: str) -> None:
        """The game is over: its watch looks for a rematch from now on."""
        watch = self._watches.get(game_id)
        if watch is not None and not watch.finished:
            watch.finished = True
            watch.poked.set()

    async def _follow(self, game_id: str, watch: _Watch) -> None:
        coordination = self._coordination
        while True:
            watch.poked.clear()
            now = self._now_ms()
            wait = self.ttl_ms
            try:
                leases = await coordination.leases(game_id, now)
                rematch = ""
                if watch.finished:
                    rematch = await coordination.lookup(rematch_key(game_id)) or ""
                sighting = Sighting(online_seats(leases), rematch)
                if sighting != watch.current:
                    watch.publish(sighting)
                if leases:  # read again when the next lease ends, unless renewed meanwhile
                    wait = min(wait, max(min(leases.values()) - now, 0) + 50)
            except StoreUnavailable as error:
                log.debug("presence of %s: %s", game_id, error)
                wait = 1000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watch.poked.wait(), wait / 1000)

    # --- the background: renewing leases, hearing notices -----------------------------

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._renew(), name="presence-renew"),
            asyncio.create_task(self._hear(), name="presence-notices"),
        ]

    async def stop(self) -> None:
        """Stops renewing (the leases end by themselves) and watching, once the sessions
        that closed (a server stopping ends them) have had a moment to drop theirs."""
        if self._writes:
            await asyncio.wait(set(self._writes), timeout=STOP_GRACE)
        self._stopping.set()
        for watch in list(self._watches.values()):
            if watch.task is not None:
                watch.task.cancel()
        tasks = [*self._tasks, *self._writes]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()

    def _spawn(self, key: tuple[str, int], work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Runs a seat's lease write in the background, after the seat's previous one (a
        session's lease is put, then dropped, in that order)."""
        previous = self._chains.get(key)

        async def in_turn() -> None:
            if previous is not None:
                await asyncio.wait([previous])
            await work()

        task = asyncio.create_task(in_turn())
        self._chains[key] = task
        self._writes.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            self._writes.discard(finished)
            if self._chains.get(key) is finished:
                del self._chains[key]

        task.add_done_callback(done)

    async def _renew(self) -> None:
        """Renews this process's session leases every third of the ttl, and leases the
        seats seen calling as they come."""
        renew_every = self.ttl_ms / 3000
        loop = asyncio.get_running_loop()
        next_renewal = loop.time()
        while True:
            if loop.time() >= next_renewal:
                next_renewal = loop.time() + renew_every
                sessions = [(game_id, self._holder(seat, SESSION)) for game_id, seat in self._sessions]
                await self._leases(sessions, self.ttl_ms)
                self._forget_old_calls()
            self._wake.clear()  # before taking the pending seats: a seat seen from now wakes us again
            pending, self._pending = self._pending, set()
            now = self._now_ms()
            for key in pending:
                self._calls[key] = now
            await self._leases([(game_id, self._holder(seat, CALL)) for game_id, seat in pending], self.call_ttl_ms)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(next_renewal - loop.time(), 0))

    async def _leases(self, holders: list[tuple[str, str]], ttl_ms: int) -> None:
        """Puts or renews these leases, a batch of them at a time."""
        for start in range(0, len(holders), LEASE_BATCH):
            batch = holders[start : start + LEASE_BATCH]
            await asyncio.gather(*(self._lease(game_id, holder, ttl_ms) for game_id, holder in batch))

    def _forget_old_calls(self) -> None:
        """Forgets the calls older than a call's lease (memory stays bounded)."""
        if len(self._calls) > FORGET_PAST or len(self._recent) > FORGET_PAST:
            oldest = self._now_ms() - self.call_ttl_ms
            self._calls = {key: at for key, at in self._calls.items() if at > oldest}
            recent = {game: {s: at for s, at in seats.items() if at > oldest} for game, seats in self._recent.items()}
            self._recent = {game: seats for game, seats in recent.items() if seats}

    async def _hear(self) -> None:
        """Pokes the watches of the games other processes notify."""
        pause = 0.0
        while not self._stopping.is_set():
            try:
                async for topic in self._coordination.notices():
                    pause = 0.0
                    watch = self._watches.get(topic)
                    if watch is not None:
                        watch.poked.set()
            except StoreUnavailable as error:
                log.debug("presence notices: %s", error)
            pause = min(max(pause * 2, 0.05), NOTICE_PAUSE_MAX)
            await asyncio.sleep(pause)
