"""Presence: which seats of a game have their player connected right now.

A seat is online while its player has a Play session open (gRPC or WebSocket), or
made a call with their token a moment ago. Presence is not a game event: it lives in
the store (base.Coordination) as a lease per process and holders per game. A process
renews its one lease every third of `ttl`, for all the seats it holds; a seat's
holder ("<seat>/<process>/<what>") is written when its session opens and removed when
it closes, never renewed (a call's holder ends by itself after `call_ttl_ms`). A holder
counts while its process's lease lives: the seats of a process that died go offline
within `ttl`, and its holders are removed by whoever reads them later. So an idle seat
costs the store nothing; a process, one call per third of `ttl`.

Changes are delivered live: a process that opens or closes a session notifies the
game's topic, and in every process one watch per followed game reads the game's holders
again when notified, and, when the earliest lease of a process it depends on would end
(a process that died notifies nobody), looks again at that process's lease (this
process's renewal keeps every lease it has seen fresh, so that costs nothing unless the
process is late), then tells its subscribers (Play sessions) what changed. A watch of a
finished game also looks for its rematch (PlayAgain notifies the same topic)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from service.app.model.mailbox import Mailbox
from service.app.observe.metrics import Metrics
from service.store.base import HOLDERS_KEPT_MS, Coordination, StoreUnavailable

log = logging.getLogger(__name__)

SESSION = "session"
CALL = "call"
NOTICE_PAUSE_MAX = 1.0
STOP_GRACE = 1.0  # seconds a stopping server gives its closed sessions to release their seats
HOLD_BATCH = 64  # holders written at once (the Redis store's connections are bounded)
FORGET_PAST = 10_000  # (game, seat) pairs remembered before the old ones are forgotten
# A watch reads its game's holders again this often even unnotified (notices are best
# effort): rarely, as this is what an idle watch costs.
RECHECK_MS = 120_000
# The processes whose lease ended are remembered this long (a holder naming one the
# store forgot is removed too); a session's holder is written again this often, so the
# store keeps it (base.HOLDERS_KEPT_MS).
FORGET_PROCESSES_MS = 600_000
HOLD_AGAIN_MS = HOLDERS_KEPT_MS // 6
NEVER = 2**62  # this process's own lease, as seen by itself: it ends when the process does


def rematch_key(game_id: str) -> str:
    """The claim that names a finished game's rematch."""
    return f"rematch:{game_id}"


@dataclass(frozen=True, slots=True)
class Sighting:
    """What a watch saw: the seats online, and the finished game's rematch if any."""

    online: tuple[int, ...]
    rematch: str = ""


def holder_parts(holder: str) -> tuple[int, str]:
    """A holder's seat and process (holders are "<seat>/<process>/<what>")."""
    seat, process, _ = holder.split("/", 2)
    return int(seat), process


class _Watch:
    """One game's presence as this process last read it, and who wants to hear of it."""

    def __init__(self) -> None:
        self.subscribers: set[Mailbox[Sighting]] = set()
        self.current: Sighting | None = None
        self.holders: dict[str, int | None] = {}  # the game's holders, as last read
        self.poked = asyncio.Event()
        self.finished = False  # look for a rematch too
        self.task: asyncio.Task[None] | None = None

    def publish(self, sighting: Sighting) -> None:
        self.current = sighting
        for queue in self.subscribers:
            if queue.full():  # only the latest matters
                queue.get_nowait()
            queue.put_nowait(sighting)


class _Holdings:
    """The games' holders as this process reads them, judged by the leases of the
    processes they name (as this process's renewal last read them all)."""

    def __init__(self, coordination: Coordination, process: str, ttl_ms: int) -> None:
        self._coordination = coordination
        self._process = process
        self.ttl_ms = ttl_ms
        self.leases: dict[str, int] = {}  # process -> when its lease ends, as last read

    def lease(self, process: str) -> int:
        """When the process's lease ends, as last read (0: not known)."""
        return NEVER if process == self._process else self.leases.get(process, 0)

    def sight(self, holders: dict[str, int | None], now: int) -> tuple[tuple[int, ...], int | None]:
        """The seats the holders keep online at `now`, and when the first of them may
        go offline (when to look again): a seat stays while the last of its holders
        does, each as long as both its hold and its process's lease."""
        until: dict[int, int] = {}  # seat -> when its last holder ends
        for holder, ends in holders.items():
            seat, process = holder_parts(holder)
            end = min(self.lease(process), NEVER if ends is None else ends)
            if end > now:
                until[seat] = max(until.get(seat, 0), end)
        first_end = min((end for end in until.values() if end < NEVER), default=None)
        return tuple(sorted(until)), first_end

    def ended_alone(self, holders: dict[str, int | None], now: int) -> bool:
        """Whether a hold ended by itself on a seat that nothing else keeps online: a
        call's hold is renewed without notice, so the holders are read again then (one
        that ends beside a session's hold changes nothing, and costs no read)."""
        online = self.sight(holders, now)[0]
        return any(
            ends is not None and ends <= now and holder_parts(holder)[0] not in online
            for holder, ends in holders.items()
        )

    async def check_leases(self, holders: dict[str, int | None], now: int) -> None:
        """Reads again the leases of the holders' processes that seem to have just ended
        (or are not known here yet): this process's renewal keeps the others fresh, and
        one that ended more than a ttl ago is not renewing late but dead."""
        processes = {holder_parts(holder)[1] for holder in holders}
        doubtful = sorted(p for p in processes if (lease := self.lease(p)) == 0 or now - self.ttl_ms < lease <= now)
        if doubtful:
            self.leases.update(await self._coordination.processes(doubtful))

    async def read(self, game_id: str, now: int) -> dict[str, int | None]:
        """The game's holders, less those of processes that died a while ago (removed)."""
        holders = await self._coordination.holders(game_id, now)
        await self.check_leases(holders, now)
        long_ago = now - self.ttl_ms  # (not just ended: the process may be renewing late)
        gone = [holder for holder in holders if self.lease(holder_parts(holder)[1]) < long_ago]
        if gone:
            await self._coordination.unhold(game_id, gone)
            for holder in gone:
                del holders[holder]
        return holders


class Presence:
    def __init__(self, coordination: Coordination, now_ms: Callable[[], int], metrics: Metrics, ttl_ms: int) -> None:
        self._coordination = coordination
        self._now_ms = now_ms
        self._metrics = metrics
        self.ttl_ms = ttl_ms
        self.call_ttl_ms = ttl_ms  # a call keeps its seat online this long
        self._process = uuid.uuid4().hex[:12]
        self._holdings = _Holdings(coordination, self._process, ttl_ms)
        self._sessions: dict[tuple[str, int], int] = {}  # (game, seat) -> sessions open here
        self._calls: dict[tuple[str, int], int] = {}  # (game, seat) -> when its call was last held
        self._recent: dict[str, dict[int, int]] = {}  # game -> seat -> when it last called here
        self._pending: set[tuple[str, int]] = set()  # seats seen calling, to hold
        self._watches: dict[str, _Watch] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._writes: set[asyncio.Task[None]] = set()  # sessions' holders being written or removed
        self._chains: dict[tuple[str, int], asyncio.Task[None]] = {}  # each seat's last write
        self._stopping = asyncio.Event()

    def _holder(self, seat: int, what: str) -> str:
        return f"{seat}/{self._process}/{what}"

    # --- the process's side: sessions and calls --------------------------------------

    def seen(self, game_id: str, seat: int) -> None:
        """A call with the seat's token (Viewers.seen): online here at once, and for the
        other processes once the background task has held it."""
        key = (game_id, seat)
        now = self._now_ms()
        recent = self._recent
        if len(recent) > 2 * FORGET_PAST:  # (the background task forgets them, when it runs)
            self._forget_old_calls()
        seats = recent.get(game_id)
        if seats is None:
            seats = recent[game_id] = {}
        seats[seat] = now
        if key in self._sessions:
            return  # its session's holder keeps it online: its moves cost the store nothing more
        last = self._calls.get(key)
        if last is None or now - last > self.call_ttl_ms // 3:
            self._pending.add(key)
            self._wake.set()

    def connect(self, game_id: str, seat: int) -> None:
        """A Play session of the seat opened in this process (its holder is written in
        the background: a session starts without waiting for the store)."""
        key = (game_id, seat)
        self._sessions[key] = self._sessions.get(key, 0) + 1
        self._metrics.online_sessions.inc()
        if self._sessions[key] == 1:
            holder = self._holder(seat, SESSION)
            self._spawn(key, lambda: self._hold(game_id, holder, None))

    def disconnect(self, game_id: str, seat: int) -> None:
        """The session closed (the holder goes in the background: this may run while the
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
        holders = [self._holder(seat, SESSION), self._holder(seat, CALL)]
        self._spawn(key, lambda: self._release(game_id, holders))

    async def _hold(self, game_id: str, holder: str, ends_ms: int | None, *, always_notify: bool = False) -> None:
        """Holds the seat (until ends_ms, None: until `unhold`); a new holder may bring
        the seat online: watchers look again."""
        try:
            if await self._coordination.hold(game_id, holder, ends_ms, self._now_ms()) or always_notify:
                await self._notify(game_id)
        except StoreUnavailable as error:
            log.debug("presence of %s: %s", game_id, error)  # held again later

    async def _release(self, game_id: str, holders: list[str]) -> None:
        try:
            await self._coordination.unhold(game_id, holders)
            await self._notify(game_id)
        except StoreUnavailable as error:
            log.debug("presence of %s: %s", game_id, error)  # ends with the process's lease, at worst

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
            seats = set(self._holdings.sight(await self._holdings.read(game_id, now), now)[0])
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
        queue: Mailbox[Sighting] = Mailbox(1)  # only the latest matters
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
        """Reads the game's holders when poked (and now and then); in between, looks
        again at the leases they depend on as each would end."""
        loop = asyncio.get_running_loop()
        read_at = loop.time()  # when to read the holders again unpoked
        while True:
            read = watch.poked.is_set() or loop.time() >= read_at
            watch.poked.clear()
            now = self._now_ms()
            wait = RECHECK_MS
            try:
                # A hold that ended alone may have been renewed (a call's: unnotified): read again.
                rematch = watch.current.rematch if watch.current is not None else ""
                if read or self._holdings.ended_alone(watch.holders, now):
                    read_at = loop.time() + RECHECK_MS / 1000
                    watch.holders = await self._holdings.read(game_id, now)
                    if watch.finished:  # (game_over and PlayAgain poke the watch)
                        rematch = await self._coordination.lookup(rematch_key(game_id)) or ""
                else:
                    await self._holdings.check_leases(watch.holders, now)
                online, first_end = self._holdings.sight(watch.holders, now)
                sighting = Sighting(online, rematch)
                if sighting != watch.current:
                    watch.publish(sighting)
                if first_end is not None:  # look again then, unless renewed meanwhile
                    wait = min(wait, max(first_end - now, 0) + 50)
            except StoreUnavailable as error:
                log.debug("presence of %s: %s", game_id, error)
                wait, read_at = 1000, loop.time()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watch.poked.wait(), min(wait / 1000, max(read_at - loop.time(), 0)))

    # --- the background: renewing the process's lease, hearing notices --------------

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._renew(), name="presence-renew"),
            asyncio.create_task(self._hear(), name="presence-notices"),
        ]

    async def stop(self) -> None:
        """Stops renewing (the lease ends by itself) and watching, once the sessions that
        closed (a server stopping ends them) have had a moment to release their seats."""
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
        """Runs a seat's holder write in the background, after the seat's previous one
        (a session's holder is written, then removed, in that order)."""
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
        """Renews this process's lease every third of the ttl (reading every process's
        lease as it does), and holds the seats seen calling as they come."""
        renew_every = self.ttl_ms / 3000
        loop = asyncio.get_running_loop()
        next_renewal = loop.time()
        hold_again_at = loop.time() + HOLD_AGAIN_MS / 1000
        while True:
            if loop.time() >= next_renewal:
                next_renewal = loop.time() + renew_every
                lapsed = await self._renew_lease()
                if lapsed or loop.time() >= hold_again_at:  # the sessions' holders may be gone
                    hold_again_at = loop.time() + HOLD_AGAIN_MS / 1000
                    sessions = [(game_id, self._holder(seat, SESSION)) for game_id, seat in self._sessions]
                    # Lapsed: the other processes took these seats offline; tell them.
                    await self._holds(sessions, None, always_notify=lapsed)
                self._forget_old_calls()
            self._wake.clear()  # before taking the pending seats: a seat seen from now wakes us again
            pending, self._pending = self._pending, set()
            now = self._now_ms()
            for key in pending:
                self._calls[key] = now
            calls = [(game_id, self._holder(seat, CALL)) for game_id, seat in pending]
            await self._holds(calls, now + self.call_ttl_ms)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(next_renewal - loop.time(), 0))

    async def _renew_lease(self) -> bool:
        """Renews this process's lease; True when it had lapsed (or is the first)."""
        try:
            lapsed, leases = await self._coordination.renew_process(
                self._process, self._now_ms(), self.ttl_ms, FORGET_PROCESSES_MS
            )
        except StoreUnavailable as error:
            log.debug("presence lease: %s", error)  # renewed at the next turn
            return False
        self._holdings.leases = leases
        return lapsed

    async def _holds(self, holders: list[tuple[str, str]], ends_ms: int | None, *, always_notify: bool = False) -> None:
        """Holds these seats, a batch of them at a time."""
        for start in range(0, len(holders), HOLD_BATCH):
            batch = holders[start : start + HOLD_BATCH]
            holds = (self._hold(game_id, holder, ends_ms, always_notify=always_notify) for game_id, holder in batch)
            await asyncio.gather(*holds)

    def _forget_old_calls(self) -> None:
        """Forgets the calls older than a call's hold (memory stays bounded)."""
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
