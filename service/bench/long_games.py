"""Long games in GameApp alone (memory store, no transport): what snapshots save.

A game of two random Pirates bots (thousands of events) is read with snapshots (every
`interval` events) and without (interval 0: every event folded, as before snapshots):
ReplayGame at late versions, a cold GetGame (a process that has not cached the game),
and the wait of another game's GetGame while spectators replay the long game without
pause (each replay holds the event loop while it folds)."""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Awaitable
from dataclasses import dataclass

from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.bench import seam

ADMIN = "bench-admin-token-0123456789abcdef-0123"
SPECTATORS = 4


@dataclass(frozen=True, slots=True)
class Timing:
    without: float  # milliseconds, every event folded
    with_snapshots: float  # milliseconds, from the nearest snapshot


@dataclass(frozen=True, slots=True)
class LongGameFigures:
    kind: str
    events: int
    interval: int
    replay: Timing  # ReplayGame at a late version: median
    cold_get: Timing  # GetGame of the game, not cached: median
    other_get_p99: Timing  # another game's GetGame while spectators replay: 99th percentile wait
    other_get_max: Timing


def long_game_figures(seconds: float, event_limit: int = 20_000, seed: int = 11) -> LongGameFigures:
    return asyncio.run(_measure(seconds, event_limit, seed))


def _app(store: seam.BenchStore, interval: int, event_limit: int, seed: int) -> seam.GameApp:
    return seam.in_process_app(
        store, admin=ADMIN, snapshot_interval=interval, event_limits={"pirates": event_limit}, seed=seed
    )


async def _measure(seconds: float, event_limit: int, seed: int) -> LongGameFigures:
    store = seam.memory_store()
    writer = _app(store, seam.DEFAULT_SNAPSHOT_INTERVAL, event_limit, seed)
    bots = [game_pb2.SeatSpec(name=f"bot {i}", bot="random") for i in range(2)]
    game = (await writer.games.create_game(api.CreateGameRequest(kind="pirates", seats=bots), ADMIN)).game
    humans = [game_pb2.SeatSpec(name="Cléo"), game_pb2.SeatSpec(name="Robin")]
    other = (await writer.games.create_game(api.CreateGameRequest(kind="mooki", seats=humans), "")).game
    await writer.drain()
    late = [game.version - offset for offset in (1, 17, 38, 61, 96) if offset < game.version]
    timings = {}
    for interval in (0, seam.DEFAULT_SNAPSHOT_INTERVAL):
        reader = _app(store, interval, event_limit, seed)
        replay = [
            await _timed(reader.history.replay(api.ReplayGameRequest(game_id=game.game_id, at_version=v), ADMIN))
            for v in late
        ]
        cold = [
            await _timed(
                _app(store, interval, event_limit, seed).games.get_game(api.GetGameRequest(game_id=game.game_id), "")
            )
            for _ in range(3)
        ]
        waits = await _waits_while_replaying(reader, game.game_id, other.game_id, late, seconds / 2)
        timings[interval] = (statistics.median(replay), statistics.median(cold), _p99(waits), max(waits))
    before, after = timings[0], timings[seam.DEFAULT_SNAPSHOT_INTERVAL]
    return LongGameFigures(
        "pirates",
        game.version,
        seam.DEFAULT_SNAPSHOT_INTERVAL,
        *(Timing(b * 1000, a * 1000) for b, a in zip(before, after, strict=True)),
    )


async def _timed(call: Awaitable[object]) -> float:
    start = time.perf_counter()
    await call
    return time.perf_counter() - start


async def _waits_while_replaying(
    app: seam.GameApp, long_game: str, other_game: str, versions: list[int], seconds: float
) -> list[float]:
    """Another game's GetGame, over and over, while spectators replay the long game."""
    stop = time.perf_counter() + seconds
    rng = random.Random(5)

    async def spectate() -> None:
        while time.perf_counter() < stop:
            request = api.ReplayGameRequest(game_id=long_game, at_version=rng.choice(versions))
            await app.history.replay(request, "")
            await asyncio.sleep(0)

    spectators = [asyncio.create_task(spectate()) for _ in range(SPECTATORS)]
    waits: list[float] = []
    while time.perf_counter() < stop or not waits:
        asked = time.perf_counter()
        await asyncio.sleep(0.001)  # a request arriving: served once the loop is free
        await app.games.get_game(api.GetGameRequest(game_id=other_game), "")
        waits.append(time.perf_counter() - asked - 0.001)
    await asyncio.gather(*spectators)
    return waits


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
