"""The store's own cost per move: the appends GameApp makes for real games (each move's
events, command id, summary, index labels), recorded once and made again on a store
alone (no engine, no transport), with and without a live subscriber per game; and the
round trips each makes to Redis. Measured on the memory store, on Redis as deployed
(append-only file, fsync on every write) and on Redis fsyncing once a second: the
difference between the last two is what durability costs."""

from __future__ import annotations

import asyncio
import gc
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from service.bench import seam
from service.bench.load import seats_for
from service.bench.seam import BenchStore, CountingConnection, RecordedGame


async def record_games(kind: str, moves: int, seed: int = 5) -> list[RecordedGame]:
    """Games of random legal moves played through GameApp (two human seats), as the
    store saw them: at least `moves` appends in all."""
    from ludotheque.v1 import game_pb2
    from ludotheque.v1 import game_service_pb2 as api

    store = seam.RecordingStore()
    app = seam.in_process_app(store)
    rng = random.Random(seed)
    played = 0
    while played < moves:
        created = await app.games.create_game(api.CreateGameRequest(kind=kind, seats=seats_for(kind)), "")
        game_id, tokens = created.game_id, created.seat_tokens
        status: Any = created.game  # a Game, then each move's SubmitCommandResponse
        while status.status != game_pb2.GAME_STATUS_FINISHED and status.to_act:
            seat = status.to_act[0]
            game = await app.games.get_game(api.GetGameRequest(game_id=game_id), tokens[seat])
            request = api.SubmitCommandRequest(
                game_id=game_id, command=rng.choice(game.legal_commands), command_id=f"m{played}"
            )
            status = await app.moves.submit(request, tokens[seat])
            played += 1
    return [game for game in store.games.values() if game.creation is not None and game.appends]


@dataclass(frozen=True, slots=True)
class StoreCostFigures:
    """One store's appends, made `concurrency` games at a time."""

    store: str  # memory, redis (as deployed), redis-everysec
    subscribers: int  # live subscribers per game (0 or 1)
    appends: int
    us_per_append: float  # this process's CPU (the store's client side), per append
    redis_us_per_append: float | None  # redis-server's CPU per append
    round_trips_per_append: float | None
    p50_ms: float  # wall-clock time of one append
    p99_ms: float


async def _make_appends(
    store: BenchStore, games: Sequence[RecordedGame], concurrency: int, prefix: str, subscribers: int
) -> tuple[int, list[float]]:
    """Creates the games (not measured), then makes their appends, `concurrency` games at
    a time, each game's in order; with `subscribers`, one live subscriber per game
    reading every event. Returns (appends, latencies)."""
    names = [f"{prefix}{index}" for index in range(len(games))]
    for name, game in zip(names, games, strict=True):
        await seam.create_again(store, name, game)
    latencies: list[float] = []

    async def play(name: str, game: RecordedGame) -> None:
        for call in game.appends:
            start = time.perf_counter()
            await seam.append_again(store, name, call)
            latencies.append(time.perf_counter() - start)

    queue = list(zip(names, games, strict=True))

    async def worker() -> None:
        while queue:
            name, game = queue.pop()
            # Each follower reads from version 1: what was appended before it subscribed, it
            # reads from the store, the rest comes live.
            followers = [asyncio.create_task(seam.follow(store, name, game.version)) for _ in range(subscribers)]
            await play(name, game)
            await asyncio.gather(*followers)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return sum(len(game.appends) for game in games), latencies


def store_cost(
    store: BenchStore,
    label: str,
    games: Sequence[RecordedGame],
    concurrency: int,
    subscribers: int,
    redis_pid: int | None,
    connection: CountingConnection | None,
    prefix: str,
) -> StoreCostFigures:
    """Measures `_make_appends` on `store`, in an event loop of its own, then closes
    the store."""
    from service.bench.target import cpu_seconds

    async def measured() -> tuple[int, list[float], float, float, int]:
        await _make_appends(store, games[:2], 2, prefix + "w", subscribers)  # warm up: scripts loaded
        gc.collect()  # each store measured from the same start, not paying for the garbage of the one before
        trips = connection.round_trips if connection is not None else 0
        redis_before = cpu_seconds([redis_pid]) if redis_pid is not None else 0.0
        cpu_before = time.process_time()
        appends, latencies = await _make_appends(store, games, concurrency, prefix, subscribers)
        cpu = time.process_time() - cpu_before
        redis_cpu = cpu_seconds([redis_pid]) - redis_before if redis_pid is not None else 0.0
        trips = (connection.round_trips if connection is not None else 0) - trips
        return appends, latencies, cpu, redis_cpu, trips

    appends, latencies, cpu, redis_cpu, trips = asyncio.run(_closing(store, measured()))
    ordered = sorted(latencies)
    return StoreCostFigures(
        store=label,
        subscribers=subscribers,
        appends=appends,
        us_per_append=cpu / appends * 1e6,
        redis_us_per_append=redis_cpu / appends * 1e6 if redis_pid is not None else None,
        round_trips_per_append=trips / appends if connection is not None else None,
        p50_ms=ordered[len(ordered) // 2] * 1e3,
        p99_ms=ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1e3,
    )


async def _closing(store: BenchStore, work: Any) -> Any:
    try:
        return await work
    finally:
        await seam.close_store(store)


CONCURRENCY = 16  # games whose appends are in flight at once


def store_cost_figures(kind: str, moves: int, redis_urls: dict[str, tuple[str, int]]) -> list[StoreCostFigures]:
    """Each store's cost per append, alone and with a live subscriber per game.
    `redis_urls`: label -> (url, redis-server's pid)."""
    games = asyncio.run(record_games(kind, moves))
    figures = []
    for subscribers in (0, 1):
        figures.append(
            store_cost(seam.memory_store(), "memory", games, CONCURRENCY, subscribers, None, None, f"m{subscribers}-")
        )
        for label, (url, pid) in redis_urls.items():
            store, connection = seam.redis_store(url)
            figures.append(
                store_cost(store, label, games, CONCURRENCY, subscribers, pid, connection, f"r{subscribers}-")
            )
    return figures
