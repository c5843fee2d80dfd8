"""`ludotheque bench --capacity`: what the crowd costs.

For each store and each crowd size (live two-seat games), a fresh server; load
processes of their own (service/bench/crowd.py, not counted) make the games, then join
every seat on its own WebSocket `Play` session with presence and view updates, as the
web app does. Measured, from /proc and Redis's INFO:
- the server's memory per connected seat (RSS after joining less RSS before, games
  already made), its idle CPU per seat and Redis's calls per idle seat per minute, over
  an idle window;
- then every game moving at a human pace (a seat plays 2–6 s after its turn comes):
  server CPU, Redis calls and Redis CPU per move, moves per second reached against
  asked, and a move's latency;
- on the smallest crowd, the same games flat out (a seat plays as soon as its turn
  comes), to compare a move at human pace with a move under full load;
- and the largest crowd with Redis again with two worker processes, against what the
  one-process figures predict."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from service.bench.crowd import Games, Join, Joined, Leave, Pace, Paced, serve_crowd
from service.bench.percentiles import percentile
from service.bench.processes import Processes, sleep_until, split
from service.bench.target import Redis, Server, cpu_seconds, rss_bytes, wakeups

HUMAN_PACE = (2.0, 6.0)  # seconds from a seat's turn to its move
FLAT_OUT = (0.0, 0.0)
# The crowd's own limits would refuse it: every seat comes from 127.0.0.1.
CROWD_ENV = {"LUDOTHEQUE_MAX_CONNECTIONS_PER_CLIENT": "0"}


@dataclass(frozen=True, slots=True)
class CapacitySettings:
    crowds: tuple[int, ...] = (64, 1000, 5000)  # live games
    stores: tuple[str, ...] = ("memory", "redis")
    kind: str = "mooki"
    processes: int = 2  # crowd (load) processes
    idle_seconds: float = 60.0  # a minute: what runs once a minute (sweeps, rechecks) is in it
    pace_seconds: float = 20.0
    # Of moves before the pace window counts, and at least the pace's longest pause: every
    # game has made its first move by then (which also sets its keys' expiry, once), so a
    # crowd's window holds the same kind of moves whatever its size and pace.
    warmup: float = 3.0
    workers_check: bool = True  # the largest crowd on Redis with two workers
    empty_seconds: float = 20.0  # the server watched with its games made, before any seat joins
    pace: tuple[float, float] = HUMAN_PACE
    # The moves per second a crowd may ask for in all: past it, its games' pauses grow
    # in proportion (5,000 games at 2–6 s would ask 1,250 a second of a 2-core machine
    # that also runs the crowd: the row would measure the crowd's own processes).
    max_rate: float = 200.0

    def pace_of(self, games: int) -> tuple[float, float]:
        """The pause range from a turn to its move for a crowd of `games`."""
        stretch = max(1.0, games / statistics.fmean(self.pace) / self.max_rate)
        return (self.pace[0] * stretch, self.pace[1] * stretch)


@dataclass(slots=True)
class CrowdFigures:
    """One crowd on one store and one pace."""

    store: str
    games: int
    seats: int
    workers: int
    pace: tuple[float, float]
    join_seconds: float
    refused_joins: int  # seats whose join failed (their games were left out)
    rss_per_seat: float  # bytes
    idle_cpu_per_seat: float  # server CPU seconds per second per seat
    # Redis calls per minute while every seat sits idle, and before any joined (the
    # process's own: leases, notices, probes)
    idle_redis_calls_per_minute: float | None
    empty_redis_calls_per_minute: float | None
    empty_cpu: float  # server CPU seconds per second, its games made and nobody connected
    seconds: float  # the pace window
    moves: int
    errors: int
    cpu_seconds: float  # the server's, in the pace window
    wakeups: int  # the server's threads' voluntary context switches, in the pace window
    load_cpu_seconds: float  # the crowd processes'
    redis_calls: int | None
    redis_cpu_seconds: float | None
    latencies: list[float] = field(default_factory=list)

    @property
    def human(self) -> bool:
        return self.pace != FLAT_OUT

    @property
    def asked_per_second(self) -> float | None:
        """Moves per second the crowd asked for (None: flat out, as many as served)."""
        return self.games / statistics.fmean(self.pace) if self.human else None

    @property
    def per_second(self) -> float:
        return self.moves / self.seconds

    @property
    def idle_redis_calls_per_seat_minute(self) -> float | None:
        """Redis calls a minute each idle seat adds to what the process calls by itself."""
        if self.idle_redis_calls_per_minute is None or self.empty_redis_calls_per_minute is None:
            return None
        return (self.idle_redis_calls_per_minute - self.empty_redis_calls_per_minute) / max(self.seats, 1)

    @property
    def load_cpu_per_move(self) -> float:
        return self.load_cpu_seconds / self.moves if self.moves else math.nan

    @property
    def cpu_per_move(self) -> float:
        return self.cpu_seconds / self.moves if self.moves else math.nan

    @property
    def wakeups_per_move(self) -> float:
        return self.wakeups / self.moves if self.moves else math.nan

    @property
    def redis_calls_per_move(self) -> float | None:
        if self.redis_calls is None:
            return None
        return self.redis_calls / self.moves if self.moves else math.nan

    @property
    def redis_cpu_per_move(self) -> float | None:
        if self.redis_cpu_seconds is None:
            return None
        return self.redis_cpu_seconds / self.moves if self.moves else math.nan

    def percentile(self, q: float) -> float:
        return percentile(self.latencies, q)


class CrowdPool(Processes):
    """The crowd processes (crowd.py), kept for the whole run."""

    def __init__(self, processes: int) -> None:
        super().__init__(serve_crowd, processes)

    def order(self, orders: Sequence[object]) -> list[Any]:
        """One order to each process; their answers."""
        self.send(orders)
        return self.answers()

    def send(self, orders: Sequence[object]) -> None:
        for connection, order in zip(self.connections, orders, strict=True):
            connection.send(order)

    def answers(self) -> list[Any]:
        """Each process's answer to its last order (a failed order: RuntimeError)."""
        answers = [connection.recv() for connection in self.connections]
        for answer in answers:
            if isinstance(answer, Exception):
                raise RuntimeError(f"a crowd process failed: {answer}")
        return answers


@dataclass(slots=True)
class _Idle:
    joined: list[Joined]
    rss_per_seat: float
    cpu_per_seat: float
    redis_calls_per_minute: float | None  # with every seat joined, idle
    empty_cpu: float  # the server's CPU per second with its games made and no seat connected
    empty_redis_calls_per_minute: float | None  # and its Redis calls


SETTLED_SHARE = 0.05  # of a core: the server is done with the joins
SETTLE_SECONDS = 30.0


def _settle(pids: list[int]) -> None:
    """Waits (up to SETTLE_SECONDS) until the server uses under 5% of a core over half a
    second: the joins' own work (first views, presence notices) must not count as idle."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        cpu = cpu_seconds(pids)
        time.sleep(0.5)
        if cpu_seconds(pids) - cpu < SETTLED_SHARE * 0.5:
            return


def _gather(pool: CrowdPool, settings: CapacitySettings, server: Server, redis: Redis | None, games: int) -> _Idle:
    """Makes the games, joins their seats, and watches them idle."""
    shares = split(games, len(pool.connections))
    pool.order([Games(server.http, settings.kind, share, seed) for seed, share in enumerate(shares)])
    _settle(server.pids)
    cpu, calls, start = cpu_seconds(server.pids), redis.calls() if redis else 0, time.monotonic()
    time.sleep(settings.empty_seconds)
    seconds = time.monotonic() - start
    empty = (cpu_seconds(server.pids) - cpu) / seconds
    empty_calls = (redis.calls() - calls) / seconds * 60 if redis else None
    before = rss_bytes(server.pids)
    joined: list[Joined] = pool.order([Join() for _ in shares])
    seats = sum(j.seats for j in joined)
    rss = (rss_bytes(server.pids) - before) / max(seats, 1)
    _settle(server.pids)
    cpu, calls = cpu_seconds(server.pids), redis.calls() if redis else 0
    start = time.monotonic()
    time.sleep(settings.idle_seconds)
    seconds = time.monotonic() - start
    idle_cpu = (cpu_seconds(server.pids) - cpu) / seconds / max(seats, 1)
    idle_calls = (redis.calls() - calls) / seconds * 60 if redis else None
    return _Idle(joined, rss, idle_cpu, idle_calls, empty, empty_calls)


def _pace(
    pool: CrowdPool, settings: CapacitySettings, server: Server, redis: Redis | None, pace: tuple[float, float]
) -> tuple[list[Paced], float, int, float, int | None, float | None]:
    warm = time.time() + 0.2
    start = warm + max(settings.warmup, pace[1])
    end = start + settings.pace_seconds
    pool.send([Pace(warm, start, end, *pace)] * len(pool.connections))
    sleep_until(start)
    cpu, woken, load = cpu_seconds(server.pids), wakeups(server.pids), cpu_seconds(pool.pids)
    calls, redis_cpu = (redis.calls(), redis.cpu_seconds()) if redis else (0, 0.0)
    sleep_until(end)
    cpu, woken, load = cpu_seconds(server.pids) - cpu, wakeups(server.pids) - woken, cpu_seconds(pool.pids) - load
    if redis:
        calls, redis_cpu = redis.calls() - calls, redis.cpu_seconds() - redis_cpu
    return pool.answers(), cpu, woken, load, (calls if redis else None), (redis_cpu if redis else None)


def measure_crowd(
    pool: CrowdPool,
    settings: CapacitySettings,
    store: str,
    redis: Redis | None,
    games: int,
    paces: Sequence[tuple[float, float]],
    workers: int = 1,
) -> list[CrowdFigures]:
    """One crowd on a fresh server: its idle cost, then a pace window for each pace."""
    if redis is not None:
        redis.flush()
    server = Server.start(redis.url if redis else "memory", workers, env=CROWD_ENV)
    try:
        idle = _gather(pool, settings, server, redis, games)
        figures = []
        for pace in paces:
            answers, cpu, woken, load, calls, redis_cpu = _pace(pool, settings, server, redis, pace)
            figures.append(
                CrowdFigures(
                    store=store,
                    games=games,
                    seats=sum(j.seats for j in idle.joined),
                    workers=workers,
                    pace=pace,
                    join_seconds=max(j.seconds for j in idle.joined),
                    refused_joins=sum(j.refused for j in idle.joined),
                    rss_per_seat=idle.rss_per_seat,
                    idle_cpu_per_seat=idle.cpu_per_seat,
                    idle_redis_calls_per_minute=idle.redis_calls_per_minute,
                    empty_redis_calls_per_minute=idle.empty_redis_calls_per_minute,
                    empty_cpu=idle.empty_cpu,
                    seconds=settings.pace_seconds,
                    moves=sum(a.moves for a in answers),
                    errors=sum(a.errors for a in answers),
                    cpu_seconds=cpu,
                    wakeups=woken,
                    load_cpu_seconds=load,
                    redis_calls=calls,
                    redis_cpu_seconds=redis_cpu,
                    latencies=[latency for a in answers for latency in a.latencies],
                )
            )
        pool.order([Leave() for _ in pool.connections])
        return figures
    finally:
        server.stop()


def capacity_figures(settings: CapacitySettings, progress: Any = print) -> list[CrowdFigures]:
    pool = CrowdPool(settings.processes)
    redis = Redis.start() if "redis" in settings.stores else None
    figures: list[CrowdFigures] = []
    try:
        for store in settings.stores:
            for games in settings.crowds:
                pace = settings.pace_of(games)
                paces = [pace, FLAT_OUT] if games == settings.crowds[0] else [pace]
                progress(f"capacity: {games} live games ({2 * games} seats) on the {store} store")
                figures += measure_crowd(pool, settings, store, redis if store == "redis" else None, games, paces)
        if settings.workers_check and redis is not None:
            games = settings.crowds[-1]
            progress(f"capacity: {games} live games on the Redis store, two workers")
            figures += measure_crowd(pool, settings, "redis", redis, games, [settings.pace_of(games)], workers=2)
    finally:
        try:
            pool.close()
        finally:
            if redis is not None:
                redis.stop()
    return figures
