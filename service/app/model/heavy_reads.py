"""Heavy work beside the move loop: the reads whose cost grows with a game's length rather
than with what they answer (ExportGame, a long ListEvents page, ReplayGame folding far
from a snapshot, ReplayLog, ImportGame's verification of a long log, a follower's long
catch-up), run in a bounded pool of worker processes at a lower CPU priority than the
process that serves the moves, under a budget per caller and in all.

The engines are pure, so a job is a function of bytes and plain values (a game's record
and stored events, the viewer, the request) that answers bytes or plain values, run by a
process of its own: however many run, the event loop that plays every move never folds,
redacts nor describes them, and the kernel gives the moves' process the CPU first
(`os.nice` in each worker). The pool is made at the first heavy job (`spawn`: a fresh
interpreter, nothing of the server's state inherited), `workers` processes.

What counts as heavy is said by thresholds (`HeavySettings`: events to fold, events to
read); lighter reads are answered inline, the same bytes either way. A caller (its client
address, an IPv6 client by its /64, and its token) has at most `per_client` heavy jobs in
flight; the whole process at most `workers` running and `waiting` more queued. Past
either the answer is RESOURCE_EXHAUSTED (`HEAVY_READS_PER_CLIENT` or `HEAVY_READS`,
HTTP 429 with Retry-After), never a slower game for others; a queued job (a catch-up's
chunk) waits for its caller's turn instead, and is refused past the process's budget only.
A job counts until it is over, even when its caller left. A worker that dies fails its
jobs with UNAVAILABLE and the pool is made anew for the next ones.

The bots that search (`bots`: `strong` by default) choose their moves in the same pool
(bot_choices.py): a game's work, not a caller's, so `run_for_game` holds it to no
caller's budget and never refuses it (a game would stall), but counts it in the total,
so that reads past it are refused while bots think."""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import logging
import multiprocessing
import os
import re
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from service.app.model.errors import Code, ServiceError, resource_exhausted
from service.app.observe.metrics import Metrics
from service.settings import at_least, converted, setting

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRY_MS = 1000  # a refused heavy read is told to come back after this long
BOT_NAME = re.compile(r"[a-z][a-z0-9_-]*")
# How long a thread holds the GIL while another waits for it (Python's default: 5 ms). The
# work left to threads (a large request body parsed, body_limits.py) then holds a move up
# 1 ms at each of its steps, not 5.
SWITCH_INTERVAL = 0.001


def parse_bot_names(text: str) -> frozenset[str]:
    """--heavy-bots ("strong,deep") as a set of names; ValueError says what is wrong. Any
    name is taken (a bot no game has is never asked for): a server may be configured
    before the bots it names are built."""
    names = frozenset(filter(None, (part.strip() for part in text.split(","))))
    for name in sorted(names):
        if not BOT_NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not a bot's name (lower-case letters, digits, '-' and '_')")
    return names


def show_bot_names(names: frozenset[str]) -> str:
    return ",".join(sorted(names))


def share_the_gil() -> None:
    """Sets the process's GIL switch interval (once, as the server starts)."""
    sys.setswitchinterval(SWITCH_INTERVAL)


@dataclass(frozen=True, slots=True)
class HeavySettings:
    """The pool of heavy work, its budget, and what is heavy."""

    workers: int = setting(
        1,
        "worker processes of heavy reads (exports, long ListEvents pages, replays far from a snapshot, ReplayLog, "
        "imports, long catch-ups) in each server process, made at the first one; they run at a lower CPU priority "
        "than the moves",
        name="heavy_workers",
        check=at_least(1),
    )
    niceness: int = setting(
        10, "how much lower the heavy workers' CPU priority is (os.nice)", name="heavy_niceness", check=at_least(0)
    )
    per_client: int = setting(
        2,
        "heavy reads one caller (client address, and token) may have in flight at once; one more is refused "
        "with RESOURCE_EXHAUSTED (HTTP 429, Retry-After); 0: no limit",
        name="heavy_per_client",
        check=at_least(0),
    )
    waiting: int = setting(
        16,
        "heavy reads that may wait for a worker, in all; past them and the running ones, RESOURCE_EXHAUSTED",
        name="heavy_waiting",
        check=at_least(0),
    )
    fold_events: int = setting(
        512,
        "events past the nearest snapshot that make a ReplayGame heavy (folded in a worker)",
        name="heavy_fold_events",
        check=at_least(1),
    )
    catch_up_events: int = setting(
        256,
        "events of a game's past a follower (StreamEvents, Play, server-sent events, WebSocket, Connect) has yet to "
        "be sent as it starts, past which that past is redacted and described in a worker, a chunk at a time, each "
        "chunk a heavy read of the caller's; the follower then goes on live",
        name="heavy_catch_up_events",
        check=at_least(1),
    )
    catch_up_chunk: int = setting(
        256,
        "events of a long catch-up redacted and described in one worker job",
        name="heavy_catch_up_chunk",
        check=at_least(1),
    )
    read_events: int = setting(
        256,
        "events that make an export, a ListEvents page or a ReplayLog heavy (redacted and described in a worker), "
        "and an ImportGame's log (verified and folded in a worker)",
        name="heavy_read_events",
        check=at_least(1),
    )
    json_bytes: int = setting(
        64 << 10,
        "bytes of an answer's protobuf encoding past which REST and Connect write it as JSON in a heavy worker "
        "(a heavy read of the caller's) rather than on the loop",
        name="heavy_json_bytes",
        check=at_least(1),
    )
    bots: frozenset[str] = converted(
        "strong",
        "bots whose moves are chosen in the heavy workers (names, comma-separated, of any game's bots): "
        "a search that costs milliseconds; every other bot (random, greedy: microseconds, less than a "
        "round trip to a worker) chooses on the loop",
        parse=parse_bot_names,
        show=show_bot_names,
        name="heavy_bots",
    )


@dataclass(frozen=True, slots=True)
class Caller:
    """Whom heavy reads are counted for, as known when a stream started (its client
    address, and its token; none: the admin's)."""

    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Refused:
    """A job's ServiceError, as it crosses back from the worker (the error itself does not
    pickle): made again in the server's process."""

    code: Code
    message: str
    details: list[Any]
    key: str


def _run(job: Callable[..., T], *args: Any) -> T | _Refused:
    """In a worker: `job(*args)`, or the ServiceError it raised, as a _Refused."""
    try:
        return job(*args)
    except ServiceError as error:
        return _Refused(error.code, error.message, list(error.details), error.key)


def _lower_priority(niceness: int) -> None:
    """A worker's initializer: below the moves' process, for the kernel's scheduler."""
    os.nice(niceness)


class HeavyReads:
    """The process's pool of heavy work and its budget (one per GameApp)."""

    def __init__(
        self,
        settings: HeavySettings | None = None,
        address: Callable[[], str] = lambda: "",
        is_admin: Callable[[str], bool] = lambda token: False,
        metrics: Metrics | None = None,
    ) -> None:
        """`address`: the client address of the call being served ("": unknown);
        `is_admin`: whether a token is the admin's."""
        self.settings = settings = settings or HeavySettings()
        self._address = address
        self._metrics = metrics or Metrics()
        self._is_admin = is_admin
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._in_flight = 0
        self._callers: Counter[str] = Counter()  # caller -> its jobs in flight
        self._turns: list[asyncio.Future[None]] = []  # queued jobs waiting for their caller's turn
        self.served = 0  # jobs handed to the pool so far (tests and metrics count them)
        self.refused = 0
        self.failed = 0  # jobs lost with a worker that died
        self.most_in_flight = 0

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def _pool_now(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.settings.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_lower_priority,
                initargs=(self.settings.niceness,),
            )
        return self._pool

    def _caller_keys(self, token: str) -> list[str]:
        """What a caller is counted under: its client address (when known) and its
        token (when it sent one); the admin is held to the total only."""
        if token and self._is_admin(token):
            return []
        keys = []
        address = self._address()
        if address:
            keys.append(address)
        if token:
            keys.append("token:" + hashlib.sha256(token.encode()).hexdigest()[:32])
        return keys

    def _admit(self, what: str, keys: list[str]) -> None:
        settings = self.settings
        most = settings.per_client
        if most and any(self._callers[key] >= most for key in keys):
            self._count(what, "refused_client")
            raise resource_exhausted(
                "HEAVY_READS_PER_CLIENT",
                what,
                f"You have {most} long reads (exports, replays) running already, the most one caller may: "
                "try again once one is done.",
                RETRY_MS,
            )
        if self._in_flight >= settings.workers + settings.waiting:
            self._count(what, "refused_total")
            raise resource_exhausted(
                "HEAVY_READS", what, "Many long games are being read right now: try again in a moment.", RETRY_MS
            )

    def caller(self, token: str) -> Caller:
        """The caller of `token` and of the call being served."""
        return Caller(tuple(self._caller_keys(token)))

    async def run(self, what: str, token: str | Caller, job: Callable[..., T], *args: Any, queue: bool = False) -> T:
        """`job(*args)` in a worker process, for the caller of `token` (and of the
        call's origin; or as `caller` made it), within the budget; `what`: the read, for
        its refusal. `job` is a module's function, its arguments and answer plain values
        (they are pickled). `queue`: a caller at its most waits for one of its jobs to be
        over instead of being refused (a follower's catch-up: its followers are capped
        already)."""
        keys = list(token.keys) if isinstance(token, Caller) else self._caller_keys(token)
        if queue:
            await self._callers_turn(keys)
        self._admit(what, keys)
        return await self._run(what, keys, job, *args)

    async def run_for_game(self, what: str, job: Callable[..., T], *args: Any) -> T:
        """`job(*args)` in a worker process, for a game rather than a caller (a bot's
        move): never refused, held to no caller's budget, counted in the total (the
        reads past it are refused meanwhile); it waits its turn for a worker."""
        return await self._run(what, [], job, *args)

    async def _run(self, what: str, keys: list[str], job: Callable[..., T], *args: Any) -> T:
        try:
            submitted = self._pool_now().submit(_run, job, *args)
        except BrokenProcessPool:
            self._broken()
            submitted = self._pool_now().submit(_run, job, *args)
        self._hold(keys)
        answer = asyncio.wrap_future(submitted)
        answer.add_done_callback(lambda _: self._release(keys))  # (in the event loop's thread)
        self._count(what, "served")
        try:
            # Shielded: a caller that leaves does not free its place before its job is over.
            done = await asyncio.shield(answer)
        except BrokenProcessPool as error:
            self._count(what, "failed")
            self._broken()
            raise ServiceError(
                Code.UNAVAILABLE, f"The worker reading this ({what}) stopped: try again, it is made anew."
            ) from error
        if isinstance(done, _Refused):
            raise ServiceError(done.code, done.message, done.details, key=done.key)
        return done

    def _count(self, what: str, outcome: str) -> None:
        if outcome == "served":
            self.served += 1
        elif outcome == "failed":
            self.failed += 1
        else:
            self.refused += 1
        self._metrics.heavy_reads.labels(what, outcome).inc()

    def _hold(self, keys: list[str]) -> None:
        self._in_flight += 1
        self._metrics.heavy_in_flight.set(self._in_flight)
        self.most_in_flight = max(self.most_in_flight, self._in_flight)
        for key in keys:
            self._callers[key] += 1

    async def _callers_turn(self, keys: list[str]) -> None:
        """Returns once no key of the caller's has `per_client` jobs in flight."""
        most = self.settings.per_client
        while most and any(self._callers[key] >= most for key in keys):
            turn = asyncio.get_running_loop().create_future()
            self._turns.append(turn)
            await turn

    def _release(self, keys: list[str]) -> None:
        turns, self._turns = self._turns, []
        for turn in turns:  # (each looks again: it may be another caller's turn)
            if not turn.done():
                turn.set_result(None)
        self._in_flight -= 1
        self._metrics.heavy_in_flight.set(self._in_flight)
        for key in keys:
            self._callers[key] -= 1
            if not self._callers[key]:
                del self._callers[key]

    def _broken(self) -> None:
        """A worker died: the pool cannot be used any more; the next job makes a new one."""
        pool, self._pool = self._pool, None
        if pool is not None:
            log.error("a heavy reads worker stopped; its pool is made anew")
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stops the workers (at the server's end)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
