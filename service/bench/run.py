"""`ludotheque bench`: the benchmark, from start to report.

For each store (memory, then Redis) it starts a real server, measures the echo
baselines (the transports' floors: unary gRPC, a gRPC stream message, Connect, REST,
WebSocket), the memory a game takes, then moves over unary gRPC,
Play, Play over WebSocket, REST, and the events StreamEvents delivers; then the same unary load against 1 and 2 workers
sharing Redis; then the engine micro-benchmarks. Every figure comes from one run on
one machine, so the ratios compare things measured side by side."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path

from engines.registry import ENGINES
from service.bench import attacks, attacks_report, bots_beside, capacity_report, report, sections, versus
from service.bench.capacity import CapacitySettings, capacity_figures
from service.bench.load import Job, LoadFailed, NewGame, Outcome, serve_jobs
from service.bench.long_games import LongGameFigures, long_game_figures
from service.bench.micro import (
    AppFigures,
    EngineFigures,
    ReplayGameFigures,
    WorkFigures,
    engine_figures,
    replay_game_figures,
    work_figures,
)
from service.bench.observation import ObservationFigures, observation_figures
from service.bench.percentiles import percentile
from service.bench.processes import Processes, sleep_until, split
from service.bench.store_cost import StoreCostFigures, store_cost_figures
from service.bench.target import Redis, Server, cpu_seconds, rss_bytes

# Each store's paths, in order: games of two human seats (a pool made beforehand, shared
# among them), then games of one human seat against a bot (a pool of their own).
GAME_PATHS = ("unary", "play", "ws-play", "rest", "stream")
BOT_PATHS = ("unary-bot", "play-bot", "ws-play-bot")
# The transports' floors, measured first on each store's server: a unary gRPC call, a
# message each way on a gRPC stream, a Connect call, a REST call, a WebSocket round trip.
FLOORS = ("echo", "stream-echo", "connect-echo", "rest-echo", "ws-echo")
SCALE_CONNECTIONS = 8  # per load process, for 1 and 2 workers alike


@dataclass(frozen=True, slots=True)
class Settings:
    kind: str
    games: int  # concurrent games (echo: concurrent callers)
    duration: float  # seconds of each measured window
    warmup: float
    load_processes: int
    stores: tuple[str, ...]
    stream_games: int
    subscribers: int
    memory_games: int
    scale: bool  # 1 and 2 workers on Redis
    micro_budget: float  # CPU seconds per engine micro-benchmark
    store_moves: int = 6000  # appends recorded for the store's own cost


@dataclass(slots=True)
class Measured:
    """One path measured over one window."""

    path: str  # echo, ws-echo, unary, play, ws-play, rest, stream, scale (and the -bot ones)
    store: str
    workers: int
    concurrency: int
    seconds: float
    count: int  # moves (echo: calls; stream: events delivered)
    rpcs: int
    cpu_seconds: float
    latencies: list[float]
    errors: int
    games_created: int
    moves: int = 0  # stream: the moves played meanwhile
    load_cpu_seconds: float = 0.0  # the load processes' CPU in the window
    redis_cpu_seconds: float = 0.0  # redis-server's CPU in the window (Redis store)

    @property
    def per_second(self) -> float:
        return self.count / self.seconds

    @property
    def cpu_us(self) -> float:
        return self.cpu_seconds / self.count * 1e6 if self.count else float("nan")

    @property
    def rpcs_per_item(self) -> float:
        return self.rpcs / self.count if self.count else float("nan")

    def percentile(self, q: float) -> float:
        return percentile(self.latencies, q)


@dataclass(slots=True)
class MemoryFigure:
    store: str
    games: int
    server_bytes_per_game: float
    redis_bytes_per_game: float | None = None


@dataclass(slots=True)
class Results:
    settings: Settings
    measured: list[Measured] = field(default_factory=list)
    memory: list[MemoryFigure] = field(default_factory=list)
    engines: list[EngineFigures] = field(default_factory=list)
    app: AppFigures | None = None  # GameApp alone, for the run's kind (one of `work`)
    work: list[WorkFigures] = field(default_factory=list)  # GameApp and the engine's own work, per kind
    replay_game: list[ReplayGameFigures] = field(default_factory=list)  # ReplayGame at a late version
    long_games: LongGameFigures | None = None
    observation: ObservationFigures | None = None
    store_cost: list[StoreCostFigures] = field(default_factory=list)  # the store alone, per append

    def find(self, path: str, store: str, workers: int = 1) -> Measured | None:
        return next((m for m in self.measured if m.path == path and m.store == store and m.workers == workers), None)


class LoadPool(Processes):
    """The load processes (load.py), kept for the whole run."""

    def __init__(self, processes: int) -> None:
        super().__init__(serve_jobs, processes)

    def create(self, target: str, http: str, kind: str, count: int, *, bots: bool = False) -> list[NewGame]:
        """`count` new games, made outside any window (`bots`: one human seat, bots the others)."""
        shares = split(count, len(self.connections))
        for connection, share in zip(self.connections, shares, strict=True):
            connection.send(Job("create", target, http, kind, 0, count=share, bots=bots))
        games: list[NewGame] = []
        for connection in self.connections:
            games.extend(_answer(connection).created)
        return games

    def measure(
        self, jobs: list[Job], groups: list[list[int]], warmup: float, duration: float
    ) -> tuple[list[Outcome], list[float]]:
        """Runs one job per process; the outcomes, and the CPU seconds each group of
        processes (the server's, ...) used in the window."""
        for connection, job in zip(self.connections, jobs, strict=True):
            connection.send(job)
        for connection in self.connections:
            answer = connection.recv()
            if answer != "ready":
                raise RuntimeError(f"a load process failed to start: {answer}")
        start = time.time() + warmup
        end = start + duration
        for connection in self.connections:
            connection.send((start, end))
        sleep_until(start)
        before = [cpu_seconds(pids) for pids in groups]
        sleep_until(end)
        after = [cpu_seconds(pids) for pids in groups]
        outcomes = [_answer(connection) for connection in self.connections]
        return outcomes, [b - a for a, b in zip(before, after, strict=True)]


def _answer(connection: Connection) -> Outcome:
    answer = connection.recv()
    if isinstance(answer, LoadFailed):
        raise RuntimeError(str(answer))
    if not isinstance(answer, Outcome):
        raise RuntimeError(f"a load process answered {answer!r}")
    return answer


def progress(text: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def _measure(
    pool: LoadPool,
    settings: Settings,
    server: Server,
    path: str,
    store: str,
    workers: int,
    concurrency: int,
    games: list[NewGame],
    redis: Redis | None = None,
) -> Measured:
    progress(f"{path} on the {store} store ({workers} worker{'s' if workers > 1 else ''}, {concurrency} at once)")
    processes = len(pool.connections)
    per_process = split(concurrency, processes)
    mode = "unary" if path == "scale" else path
    jobs = []
    for index, share in enumerate(per_process):
        job = Job(mode, server.target, server.http, settings.kind, share, seed=index + 1)
        job.pool = games[index::processes]
        job.subscribers = settings.subscribers
        if path == "scale":  # several connections, for the kernel to spread over the workers
            job.channels = SCALE_CONNECTIONS
        jobs.append(job)
    groups = [server.pids, pool.pids, [redis.process.pid] if redis is not None else []]
    outcomes, (cpu, load_cpu, redis_cpu) = pool.measure(jobs, groups, settings.warmup, settings.duration)
    return Measured(
        path=path,
        store=store,
        workers=workers,
        concurrency=concurrency,
        seconds=settings.duration,
        count=sum(o.count for o in outcomes),
        rpcs=sum(o.rpcs for o in outcomes),
        cpu_seconds=cpu,
        latencies=[latency for o in outcomes for latency in o.latencies],
        errors=sum(o.errors for o in outcomes),
        games_created=sum(o.games_created for o in outcomes),
        moves=sum(o.moves for o in outcomes),
        load_cpu_seconds=load_cpu,
        redis_cpu_seconds=redis_cpu,
    )


def _store_run(pool: LoadPool, settings: Settings, store: str, redis: Redis | None, results: Results) -> None:
    url = redis.url if redis is not None else "memory"
    server = Server.start(url)
    try:
        for echo in FLOORS:  # the baselines: calls that do nothing, on every transport
            results.measured.append(_measure(pool, settings, server, echo, store, 1, settings.games, [], redis))
        rss_before = rss_bytes(server.pids)
        redis_before = redis.used_memory() if redis is not None else 0
        progress(f"creating {settings.memory_games} games on the {store} store (memory per game)")
        games = pool.create(server.target, server.http, settings.kind, settings.memory_games)
        rss_after = rss_bytes(server.pids)
        redis_after = redis.used_memory() if redis is not None else 0
        results.memory.append(
            MemoryFigure(
                store,
                len(games),
                (rss_after - rss_before) / len(games),
                (redis_after - redis_before) / len(games) if redis is not None else None,
            )
        )
        bot_games = pool.create(server.target, server.http, settings.kind, settings.memory_games // 2, bots=True)
        for paths, pool_games in ((GAME_PATHS, games), (BOT_PATHS, bot_games)):
            shares = split(len(pool_games), len(paths))
            for path, share in zip(paths, shares, strict=True):
                mine, pool_games = pool_games[:share], pool_games[share:]
                concurrency = settings.stream_games if path == "stream" else settings.games
                measured = _measure(pool, settings, server, path, store, 1, concurrency, mine, redis)
                results.measured.append(measured)
    finally:
        server.stop()


def _store_cost(settings: Settings, redis: Redis) -> list[StoreCostFigures]:
    """The store alone: on the memory store, on Redis as deployed, and on a Redis that
    fsyncs once a second (what durability costs)."""
    progress(f"the store's own cost per append ({settings.store_moves} recorded moves)")
    lax = Redis.start("--appendfsync", "everysec")
    try:
        urls = {"redis": (redis.url, redis.process.pid), "redis, fsync every second": (lax.url, lax.process.pid)}
        return store_cost_figures(settings.kind, settings.store_moves, urls)
    finally:
        lax.stop()


def run(settings: Settings) -> Results:
    results = Results(settings)
    pool = LoadPool(settings.load_processes)
    redis: Redis | None = None
    try:
        if "redis" in settings.stores or settings.scale:
            redis = Redis.start()
        for store in settings.stores:
            _store_run(pool, settings, store, redis if store == "redis" else None, results)
        if redis is not None and "redis" in settings.stores:
            results.store_cost = _store_cost(settings, redis)
        if settings.scale:
            assert redis is not None
            for workers in (1, 2):
                redis.flush()
                server = Server.start(redis.url, workers)
                try:
                    results.measured.append(
                        _measure(pool, settings, server, "scale", "redis", workers, settings.games, [], redis)
                    )
                finally:
                    server.stop()
    finally:
        try:
            pool.close()
        finally:
            if redis is not None:
                redis.stop()
    progress("engine and replay micro-benchmarks")
    results.engines = engine_figures(settings.micro_budget)
    results.replay_game = replay_game_figures(settings.micro_budget)
    progress("the game's own work per move, and GameApp's")
    results.work = work_figures(settings.micro_budget)
    results.app = next(figures.app for figures in results.work if figures.kind == settings.kind)
    progress("long games, with and without snapshots")
    results.long_games = long_game_figures(max(settings.micro_budget, 0.2))
    progress("what tracing and the access log cost per move")
    results.observation = observation_figures(settings.kind, settings.micro_budget)
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", default="mooki", choices=sorted(ENGINES), help="the game to play (default mooki)")
    parser.add_argument("--games", type=int, default=64, help="concurrent games (echo: callers); default 64")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each measured window (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of load before each window (default 2)")
    parser.add_argument("--load-processes", type=int, default=2, help="processes driving the load (default 2)")
    parser.add_argument(
        "--stores", default="memory,redis", help="stores to measure, comma-separated (default memory,redis)"
    )
    parser.add_argument("--stream-games", type=int, default=16, help="games followed live (default 16)")
    parser.add_argument("--subscribers", type=int, default=4, help="StreamEvents subscribers per game (default 4)")
    parser.add_argument(
        "--memory-games", type=int, default=2000, help="games created to measure memory (then played; default 2000)"
    )
    parser.add_argument("--no-scale", action="store_true", help="skip the 1 vs 2 workers comparison")
    parser.add_argument("--micro-seconds", type=float, default=3.0, help="CPU seconds per micro-benchmark (default 3)")
    parser.add_argument(
        "--quick", action="store_true", help="a tiny run (seconds) that checks every figure is produced: not a measure"
    )
    parser.add_argument("--output", type=Path, help="write the report (Markdown) there, e.g. docs/PERFORMANCE.md")
    parser.add_argument(
        "--capacity",
        action="store_true",
        help="the crowd instead: live games idle then at a human pace, each seat on its own WebSocket "
        "(--crowds, both stores); with --output, rewrites only its section of the report and its chart",
    )
    parser.add_argument(
        "--versus",
        action="store_true",
        help="per move against boardgame.io 0.50 instead (installed from npm by the benchmark): WebSocket Play "
        "on both stores beside its server, side by side; with --output, rewrites only its section of the report",
    )
    parser.add_argument(
        "--attacks",
        action="store_true",
        help="the attack bench instead: an honest player's calls quiet and beside each attack class, on the "
        "Redis store, --duration seconds a window; with --output (docs/SECURITY.md), rewrites only its section",
    )
    parser.add_argument(
        "--bots-beside",
        action="store_true",
        help="an honest player's move latency while other games' bots think, on the loop then in the heavy "
        "workers, side by side; with --output, rewrites only its section of the report",
    )
    parser.add_argument(
        "--crowds",
        default="64,1000,5000",
        help="--capacity: live games per crowd, comma-separated (default 64,1000,5000)",
    )


def settings_from(args: argparse.Namespace) -> Settings:
    stores = tuple(s.strip() for s in args.stores.split(",") if s.strip())
    for store in stores:
        if store not in ("memory", "redis"):
            raise SystemExit(f"--stores: unknown store {store!r} (memory, redis)")
    if args.quick:
        return Settings(args.kind, 4, 0.5, 0.3, 2, stores, 2, 2, 16, not args.no_scale, 0.05, 100)
    return Settings(
        args.kind,
        args.games,
        args.duration,
        args.warmup,
        args.load_processes,
        stores,
        args.stream_games,
        args.subscribers,
        args.memory_games,
        not args.no_scale,
        args.micro_seconds,
    )


def capacity_settings_from(args: argparse.Namespace) -> CapacitySettings:
    stores = tuple(s.strip() for s in args.stores.split(",") if s.strip())
    try:
        crowds = tuple(sorted({int(n) for n in args.crowds.split(",") if n.strip()}))
    except ValueError:
        raise SystemExit(f"--crowds: {args.crowds!r} is not a list of numbers of games") from None
    if not crowds or crowds[0] < 1:
        raise SystemExit("--crowds: at least one crowd of one game or more")
    if args.quick:
        return CapacitySettings((2, 8), stores, args.kind, 2, 0.5, 1.5, 0.3, pace=(0.05, 0.2), empty_seconds=0.5)
    return CapacitySettings(crowds, stores, args.kind, args.load_processes)


def main(args: argparse.Namespace) -> int:
    if args.capacity:
        return _capacity(args)
    if args.versus:
        return _versus(args)
    if args.attacks:
        return _attacks(args)
    if args.bots_beside:
        return _bots_beside(args)
    settings = settings_from(args)
    results = run(settings)
    text = report.markdown(results, command=report.command_line(args))
    print(report.summary(results))
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(sections.keep(args.output.read_text(), text) if args.output.exists() else text)
        print(f"wrote {args.output}")
    return 0


def _capacity(args: argparse.Namespace) -> int:
    settings = capacity_settings_from(args)
    figures = capacity_figures(settings, progress)
    print("\n".join(capacity_report.table(figures)))
    for target in capacity_report.targets(figures):
        print(f"{'MET ' if target.met else 'MISSED'}  {target.name}: {target.value}")
    if args.output is not None:
        capacity_report.write(args.output, figures, settings, report.command_line(args))
        print(f"wrote {args.output} (its capacity section) and {args.output.parent / capacity_report.CHART}")
    return 0


def _versus(args: argparse.Namespace) -> int:
    settings = versus.QUICK if args.quick else versus.VersusSettings(load_processes=args.load_processes)
    try:
        figures = versus.versus_figures(settings, report.command_line(args))
    except versus.HarnessError as error:
        raise SystemExit(f"ludotheque bench --versus: {error}") from None
    lines = versus.versus_markdown(figures)
    print("\n".join(lines))
    if args.output is not None:
        existing = args.output.read_text() if args.output.exists() else "# Performance\n"
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(sections.splice(existing, "versus", sections.marked("versus", lines)))
        print(f"wrote {args.output} (its section against boardgame.io)")
    return 0


def _attacks(args: argparse.Namespace) -> int:
    profile = attacks.QUICK if args.quick else attacks.AttackProfile(window=args.duration)
    figures = attacks.attack_figures(profile, progress)
    print("\n".join(attacks_report.table(figures)))
    missed = [f.attack for f in figures if not f.met]
    print(f"{len(figures) - len(missed)} of {len(figures)} classes met the target", file=sys.stderr)
    if args.output is not None:
        attacks_report.write(args.output, figures, profile, report.command_line(args))
        print(f"wrote {args.output} (its section of the attack bench)")
    return 0


def _bots_beside(args: argparse.Namespace) -> int:
    settings = bots_beside.QUICK if args.quick else bots_beside.BotsBesideSettings()
    windows = bots_beside.bots_beside_figures(settings, progress)
    lines = bots_beside.bots_beside_markdown(windows, settings, report.command_line(args))
    print("\n".join(lines))
    if args.output is not None:
        existing = args.output.read_text() if args.output.exists() else "# Performance\n"
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(sections.splice(existing, "bots-beside", sections.marked("bots-beside", lines)))
        print(f"wrote {args.output} (its section of bots thinking beside the moves)")
    return 0
