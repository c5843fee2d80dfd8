"""Per move against boardgame.io: our best browser path (WebSocket `Play`) beside
boardgame.io 0.50's own server, measured side by side in one run.

The sides, each a server process of its own, all started at the beginning and kept
for the run:
- boardgame.io: `node service/bench/boardgameio/server.js`, its `Server` with the
  default in-memory store and socket.io transport, playing a Mooki-like game
  (service/bench/boardgameio/mooki.js: the same kind of move on a state of about the
  same size; it is the framework's cost per move that is compared, not the games);
- ours with the memory store and ours with Redis (target.py: a redis-server of the
  benchmark's own, append-only, fsync on every write), real Mooki Island.

The load: games of two seats, every seat its own WebSocket as two browsers would,
played at a fixed pace (each seat thinks `think` seconds at its turn) or flat out.
boardgame.io's is Node processes running boardgame.io's own client (load.js); ours is
load.py's "ws-play" in Python processes. Neither is counted: the CPU per move is the
server process's alone (/proc), beside redis-server's for the Redis store. A move's
latency: from the seat sending it to the seat seeing its outcome.

The windows alternate (ours on memory, boardgame.io, ours on Redis, boardgame.io, for
a few rounds) so that a neighbour's load on the machine falls on every side alike;
the figures are the medians of each side's windows. Before them, each server's first
window, with no warm-up (cold): reported apart, not in the medians (Node compiles its
hot code while it runs).

The Node harness's packages (boardgame.io pinned by its package-lock.json) are
installed by the benchmark itself into a cache folder outside the tree, named by the
lock's hash (`npm ci`, once)."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from statistics import median
from typing import IO, Any

from service.bench.load import Job, LoadFailed, NewGame, Outcome, serve_jobs
from service.bench.percentiles import percentile
from service.bench.processes import Processes, sleep_until, split
from service.bench.target import Redis, Server, cpu_seconds

HARNESS = Path(__file__).resolve().parent / "boardgameio"
KIND = "mooki"
BGIO = "boardgame.io"
OURS_MEMORY = "ours, memory"
OURS_REDIS = "ours, Redis"
SIDES = (BGIO, OURS_MEMORY, OURS_REDIS)
TARGETS = {OURS_MEMORY: 1.0, OURS_REDIS: 1.5}  # ours / boardgame.io (warm, memory store), server CPU per move
MOVES_PER_GAME = 50  # a Mooki game makes 40–70 moves: the pools are sized on the low side
DEFAULT_RATE = 3000.0  # moves/s a pool is sized for flat out before a side's first window
NPM_TIMEOUT = 600
READY_TIMEOUT = 120


class HarnessError(RuntimeError):
    """The Node harness cannot run (no Node or npm, the registry unreachable, a load failed)."""


@dataclass(frozen=True, slots=True)
class VersusSettings:
    games: int = 64  # games played at once, on every side
    duration: float = 10.0  # seconds of each measured window
    warmup: float = 2.0  # seconds of load before each window (not before the cold ones)
    rounds: int = 3  # of ours-memory, boardgame.io, ours-Redis, boardgame.io
    # Each seat's think time per move, on average (±50%; 0: flat out). The middle pace
    # loads both sides alike, well under either's limit: flat out, each side goes as fast
    # as its own load generator lets it.
    paces: tuple[float, ...] = (1.0, 0.2, 0.0)
    load_processes: int = 2  # per side (Node for boardgame.io, Python for ours)


FULL = VersusSettings()
QUICK = VersusSettings(games=4, duration=1.0, warmup=0.3, rounds=1, paces=(0.0,), load_processes=1)


@dataclass(frozen=True, slots=True)
class VersusWindow:
    """One side measured over one window."""

    side: str  # BGIO, OURS_MEMORY, OURS_REDIS
    think: float
    cold: bool  # the server's first window (no warm-up)
    seconds: float
    moves: int
    cpu_seconds: float  # the server process's
    redis_cpu_seconds: float  # redis-server's (ours, Redis)
    load_cpu_seconds: float  # the load processes' (not counted: shown apart)
    p50: float  # seconds
    p99: float
    errors: int
    games_created: int  # inside the window (its pool ran dry)

    @property
    def per_second(self) -> float:
        return self.moves / self.seconds

    @property
    def cpu_us(self) -> float:
        return self.cpu_seconds / self.moves * 1e6 if self.moves else math.nan

    @property
    def redis_cpu_us(self) -> float:
        return self.redis_cpu_seconds / self.moves * 1e6 if self.moves else math.nan

    @property
    def load_cpu_us(self) -> float:
        return self.load_cpu_seconds / self.moves * 1e6 if self.moves else math.nan


@dataclass(frozen=True, slots=True)
class VersusFigures:
    settings: VersusSettings
    windows: tuple[VersusWindow, ...]
    node_version: str
    boardgameio_version: str
    command: str = ""

    def select(self, side: str, think: float, *, cold: bool = False) -> list[VersusWindow]:
        return [w for w in self.windows if w.side == side and w.think == think and w.cold == cold]

    def median_of(self, side: str, think: float, figure: str, *, cold: bool = False) -> float:
        """The median over the side's windows that have the figure (a window that made no
        move has no figure per move); NaN when none has it."""
        values = [value for w in self.select(side, think, cold=cold) if not math.isnan(value := getattr(w, figure))]
        return median(values) if values else math.nan

    def ratio(self, side: str, think: float) -> float:
        """Ours / boardgame.io warm: the medians of the server's CPU per move (NaN when
        either side made no move, or its server no CPU tick, in every window)."""
        theirs = self.median_of(BGIO, think, "cpu_us")
        return self.median_of(side, think, "cpu_us") / theirs if theirs else math.nan

    def met(self, side: str) -> bool:
        """The side's target, at every pace measured."""
        return all(self.ratio(side, think) <= TARGETS[side] for think in self.settings.paces)


# --- the Node harness --------------------------------------------------------------


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ludotheque"


def install_harness() -> Path:
    """The harness's node_modules, installed (`npm ci`) into the cache on first use:
    one folder per package-lock.json, so a new pin installs afresh."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise HarnessError(f"the boardgame.io comparison needs Node.js and npm on the PATH ({tool} is missing)")
    manifests = [HARNESS / "package.json", HARNESS / "package-lock.json"]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in manifests)).hexdigest()[:16]
    target = cache_root() / f"boardgameio-{digest}"
    modules = target / "node_modules"
    if (modules / "boardgame.io" / "package.json").exists():
        return modules
    target.parent.mkdir(parents=True, exist_ok=True)
    # Installed beside, then renamed: two runs at once (the parallel tests) never see half a tree.
    scratch = Path(tempfile.mkdtemp(prefix="boardgameio-install-", dir=target.parent))
    try:
        for path in manifests:
            shutil.copy(path, scratch / path.name)
        try:
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
                cwd=scratch,
                capture_output=True,
                text=True,
                timeout=NPM_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired as error:
            raise HarnessError(f"npm ci took over {NPM_TIMEOUT} s: is the npm registry reachable?") from error
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
            raise HarnessError(f"npm ci failed in {scratch} (is the npm registry reachable?):\n{tail}")
        with contextlib.suppress(OSError):  # another run installed it meanwhile: theirs is as good
            scratch.rename(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return modules


def node_env(modules: Path) -> dict[str, str]:
    # NODE_PATH: the harness's require() finds the cached packages; production: no dev logging.
    return {**os.environ, "NODE_PATH": str(modules), "NODE_ENV": "production"}


def json_line(stream: IO[str], what: str, log: Path | None = None) -> dict[str, Any]:
    """The next line of a Node process that is a JSON object (others are its logging)."""
    while line := stream.readline():
        if line.startswith("{"):
            answer: dict[str, Any] = json.loads(line)
            return answer
    detail = log.read_text().strip()[-2000:] if log is not None and log.exists() else ""
    raise HarnessError(f"{what} ended without answering" + (f":\n{detail}" if detail else ""))


@dataclass
class BoardgameioServer:
    """boardgame.io's server (server.js) on a free port."""

    process: subprocess.Popen[str]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @staticmethod
    def start(modules: Path) -> BoardgameioServer:
        process = subprocess.Popen(
            ["node", str(HARNESS / "server.js"), "0"],
            env=node_env(modules),
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        ready = json_line(process.stdout, "the boardgame.io server")
        return BoardgameioServer(process, int(ready["port"]))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _version(modules: Path) -> str:
    return str(json.loads((modules / "boardgame.io" / "package.json").read_text())["version"])


def _node_version() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()


# --- the loads ---------------------------------------------------------------------


class OurLoads(Processes):
    """load.py's processes for our side, kept for the run."""

    def __init__(self, processes: int) -> None:
        super().__init__(serve_jobs, processes)

    def create(self, server: Server, count: int) -> list[NewGame]:
        for connection, share in zip(self.connections, split(count, len(self.connections)), strict=True):
            connection.send(Job("create", server.target, server.http, KIND, 0, count=share))
        return [game for connection in self.connections for game in _outcome(connection).created]

    def start(self, server: Server, games: int, think: float, pool: list[NewGame]) -> None:
        """Sends each process its share of the games; returns once every one is ready."""
        processes = len(self.connections)
        for index, (connection, share) in enumerate(zip(self.connections, split(games, processes), strict=True)):
            job = Job("ws-play", server.target, server.http, KIND, share, seed=index + 1, think=think)
            job.pool = pool[index::processes]
            connection.send(job)
        for connection in self.connections:
            if (answer := connection.recv()) != "ready":
                raise HarnessError(f"a load process failed to start: {answer}")

    def window(self, start: float, end: float) -> None:
        for connection in self.connections:
            connection.send((start, end))

    def outcomes(self) -> list[Outcome]:
        return [_outcome(connection) for connection in self.connections]


def _outcome(connection: Connection) -> Outcome:
    answer = connection.recv()
    if isinstance(answer, LoadFailed) or not isinstance(answer, Outcome):
        raise HarnessError(f"a load process answered {answer!r}")
    return answer


@dataclass
class NodeLoads:
    """load.js processes for one window against boardgame.io's server."""

    processes: list[subprocess.Popen[str]] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    @staticmethod
    def start(modules: Path, server: BoardgameioServer, games: int, think: float, pool: int, count: int) -> NodeLoads:
        loads = NodeLoads()
        for index, (share, pool_share) in enumerate(zip(split(games, count), split(pool, count), strict=True)):
            log = Path(tempfile.mkstemp(prefix="ludotheque-bgio-load-", suffix=".log")[1])
            options = ["--server", server.url, "--games", share, "--pool", pool_share, "--think", think]
            with log.open("w") as errors:
                loads.processes.append(
                    subprocess.Popen(
                        ["node", str(HARNESS / "load.js"), *map(str, options), "--seed", str(index + 1)],
                        env=node_env(modules),
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=errors,
                        text=True,
                    )
                )
            loads.logs.append(log)
        for process, log in zip(loads.processes, loads.logs, strict=True):
            assert process.stdout is not None
            json_line(process.stdout, "a boardgame.io load", log)  # {"ready": true}: its pool is made
        return loads

    def window(self, start: float, end: float) -> None:
        for process in self.processes:
            assert process.stdin is not None
            process.stdin.write(json.dumps([start, end]) + "\n")
            process.stdin.flush()

    def outcomes(self) -> list[dict[str, Any]]:
        answers = []
        for process, log in zip(self.processes, self.logs, strict=True):
            assert process.stdout is not None
            answers.append(json_line(process.stdout, "a boardgame.io load", log))
            process.wait(30)
        return answers

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        for log in self.logs:
            log.unlink(missing_ok=True)


# --- the run -----------------------------------------------------------------------


def progress(text: str) -> None:
    print(f"[versus {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


@dataclass
class _Sides:
    """The three servers and the loads, for the whole run."""

    settings: VersusSettings
    modules: Path
    bgio: BoardgameioServer
    redis: Redis
    ours: dict[str, Server]
    loads: OurLoads
    rates: dict[tuple[str, float], float] = field(default_factory=dict)  # moves/s last seen

    def pool_size(self, side: str, think: float) -> int:
        """Games made before a window: enough that none is made inside it, usually."""
        s = self.settings
        rate = self.rates.get((side, think)) or (s.games / think if think > 0 else DEFAULT_RATE)
        # Twice the fastest rate seen: a neighbour's load leaving the machine can double it.
        return s.games + math.ceil(2 * rate * (s.warmup + s.duration) / MOVES_PER_GAME)

    def measure(self, side: str, think: float, cold: bool) -> VersusWindow:
        s = self.settings
        progress(f"{side}, {pace_name(think)}{' (cold)' if cold else ''}: {s.games} games")
        pool = self.pool_size(side, think)
        node: NodeLoads | None = None
        if side == BGIO:
            node = NodeLoads.start(self.modules, self.bgio, s.games, think, pool, s.load_processes)
            pids, redis_pids = [self.bgio.process.pid], []
            load_pids = [process.pid for process in node.processes]
        else:
            server = self.ours[side]
            self.loads.start(server, s.games, think, self.loads.create(server, pool))
            pids, redis_pids = server.pids, [self.redis.process.pid] if side == OURS_REDIS else []
            load_pids = [process.pid for process in self.loads.processes if process.pid is not None]
        try:
            start = time.time() + (0.05 if cold else s.warmup)
            end = start + s.duration
            (node or self.loads).window(start, end)
            sleep_until(start)
            before = cpu_seconds(pids), cpu_seconds(redis_pids), cpu_seconds(load_pids)
            sleep_until(end)
            after = cpu_seconds(pids), cpu_seconds(redis_pids), cpu_seconds(load_pids)
            if node is not None:
                answers = node.outcomes()
                moves, errors = sum(a["moves"] for a in answers), sum(a["errors"] for a in answers)
                created = sum(a["games_created"] for a in answers)
                latencies = sorted(latency for a in answers for latency in a["latencies"])
            else:
                outcomes = self.loads.outcomes()
                moves, errors = sum(o.count for o in outcomes), sum(o.errors for o in outcomes)
                created = sum(o.games_created for o in outcomes)
                latencies = [latency for o in outcomes for latency in o.latencies]
        finally:
            if node is not None:
                node.close()
        window = VersusWindow(
            side, think, cold, s.duration, moves, after[0] - before[0], after[1] - before[1], after[2] - before[2],
            percentile(latencies, 0.5), percentile(latencies, 0.99), errors, created,
        )  # fmt: skip
        if not cold:  # a cold boardgame.io goes at a sixth of its warm pace: no guide to the next pools
            self.rates[(side, think)] = max(window.per_second, self.rates.get((side, think), 0.0))
        return window


def schedule(settings: VersusSettings) -> list[tuple[str, float, bool]]:
    """(side, think, cold) in the order measured: each server's first window flat out
    with no warm-up, then rounds that alternate the sides, pace after pace."""
    order = [(side, 0.0, True) for side in SIDES]
    for think in settings.paces:
        for _ in range(settings.rounds):
            order += [
                (OURS_MEMORY, think, False),
                (BGIO, think, False),
                (OURS_REDIS, think, False),
                (BGIO, think, False),
            ]
    return order


def versus_figures(settings: VersusSettings = FULL, command: str = "") -> VersusFigures:
    """Runs the comparison (installs the Node harness first if need be)."""
    modules = install_harness()
    started: list[Server | BoardgameioServer | Redis] = []
    loads = OurLoads(settings.load_processes)
    try:
        redis = Redis.start()
        started.append(redis)
        ours = {OURS_MEMORY: Server.start("memory"), OURS_REDIS: Server.start(redis.url)}
        started += ours.values()
        bgio = BoardgameioServer.start(modules)
        started.append(bgio)
        sides = _Sides(settings, modules, bgio, redis, ours, loads)
        windows = tuple(sides.measure(side, think, cold) for side, think, cold in schedule(settings))
    finally:
        loads.close()
        for thing in reversed(started):
            thing.stop()
    return VersusFigures(settings, windows, _node_version(), _version(modules), command)


# --- the report --------------------------------------------------------------------


def pace_name(think: float) -> str:
    if think == 0:
        return "flat out"
    return f"{'human' if think >= 0.5 else 'fast'} pace (~{think:g} s per move)"


SIDE_NAMES = {
    BGIO: "boardgame.io {version}, memory store, socket.io",
    OURS_MEMORY: "ours, WebSocket `Play`, memory store",
    OURS_REDIS: "ours, WebSocket `Play`, Redis (fsync always)",
}


def _number(value: float, digits: int = 0) -> str:
    return "–" if math.isnan(value) else f"{value:,.{digits}f}"


def _row(figures: VersusFigures, side: str, think: float, cold: bool) -> str:
    windows = figures.select(side, think, cold=cold)
    name = SIDE_NAMES[side].format(version=figures.boardgameio_version) + (", cold (first window)" if cold else "")

    def mid(figure: str) -> float:
        return figures.median_of(side, think, figure, cold=cold)

    cpus = [w.cpu_us for w in windows if w.moves]
    spread = f"{_number(min(cpus))}–{_number(max(cpus))}" if len(cpus) > 1 else "–"
    redis = _number(mid("redis_cpu_us")) if side == OURS_REDIS else "–"
    load = _number(mid("load_cpu_us"))
    created, errors = sum(w.games_created for w in windows), sum(w.errors for w in windows)
    return (
        f"| {pace_name(think)} | {name} | {len(windows)} | {_number(mid('per_second'))} | "
        f"{_number(mid('cpu_us'))} | {spread} | {redis} | {load} | {_number(mid('p50') * 1000, 1)} | "
        f"{_number(mid('p99') * 1000, 1)} | {created} | {errors} |"
    )


def versus_markdown(figures: VersusFigures) -> list[str]:
    """The report's section "## Per move against boardgame.io", as lines."""
    s = figures.settings
    lines = [
        "## Per move against boardgame.io",
        "",
        f"Our best browser path (WebSocket `Play`) beside boardgame.io {figures.boardgameio_version}'s own server "
        f"(Node {figures.node_version}, `Server` with its in-memory store, installed from npm by the benchmark), "
        f"measured side by side in one run: {s.games} games of two seats at once on every side, every seat its own "
        "WebSocket (boardgame.io's own client over socket.io, in Node processes; ours from load.py), windows of "
        f"{s.duration:g} s after {s.warmup:g} s of load, alternated (ours on memory, boardgame.io, ours on Redis, "
        f"boardgame.io) for {s.rounds} round{'s' if s.rounds > 1 else ''} at each pace; the medians of each side's "
        "windows. CPU per move: the server process's alone (/proc); redis-server's and the load processes' are "
        "shown apart, not in the ratios. Paced, each seat thinks about that long before each move (±50%, so the "
        "games do not move in step). Latency: from a seat sending its move to that seat seeing the move's outcome. "
        "The cold rows are each server's first window, flat out with no warm-up, not in the medians.",
        "",
        "boardgame.io plays a Mooki-like game (service/bench/boardgameio/mooki.js: draw a card from one of two "
        "piles of 18 double-sided cards, place it, trophies at the end; moves on the server only, a per-seat view "
        "hiding the piles; about 63 moves a game), ours real Mooki Island (about 64): the same kind of move on a "
        "state of about the same size, so what is compared is the framework's cost per move.",
        "",
        "| Pace | Side | Windows | Moves/s | Server CPU per move (µs) | Windows' range (µs) | "
        "redis-server CPU per move (µs) | Load CPU per move (µs) | p50 (ms) | p99 (ms) | "
        "Games made in the windows | Errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [_row(figures, side, 0.0, True) for side in SIDES]
    for think in s.paces:
        lines += [_row(figures, side, think, False) for side in SIDES]
    lines += ["", "| Pace | Ours (memory) / boardgame.io | Ours (Redis) / boardgame.io |", "|---|---:|---:|"]
    for think in s.paces:
        memory, redis = figures.ratio(OURS_MEMORY, think), figures.ratio(OURS_REDIS, think)
        lines.append(f"| {pace_name(think)} | {_number(memory, 2)}× | {_number(redis, 2)}× |")
    lines.append("")
    for side, store in ((OURS_MEMORY, "the memory store"), (OURS_REDIS, "durable Redis")):
        verdict = "**met**" if figures.met(side) else "**not met**"
        lines.append(
            f"- Target, server CPU per move with {store} at most {TARGETS[side]:g}× warmed boardgame.io's "
            f"(memory store), at every pace: {verdict}."
        )
    if s == QUICK:
        lines += [
            "",
            "A quick run (windows of a second): it checks every figure is produced; these are not measurements.",
        ]
    if figures.command:
        lines += ["", f"Measured with `{figures.command}`."]
    return lines


def figures_json(figures: VersusFigures) -> dict[str, Any]:
    """Every window's figures, for a closer look than the medians."""
    windows = [
        {**asdict(w), "cpu_us": w.cpu_us, "redis_cpu_us": w.redis_cpu_us, "load_cpu_us": w.load_cpu_us}
        for w in figures.windows
    ]
    return {**asdict(figures), "windows": windows}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.bench.versus", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds: checks every figure is produced")
    parser.add_argument("--games", type=int, default=FULL.games, help="games at once on every side (default 64)")
    parser.add_argument("--duration", type=float, default=FULL.duration, help="seconds per window (default 10)")
    parser.add_argument("--warmup", type=float, default=FULL.warmup, help="seconds of load before each (default 2)")
    parser.add_argument("--rounds", type=int, default=FULL.rounds, help="rounds of windows per pace (default 3)")
    parser.add_argument(
        "--paces", default="1,0.2,0", help="think seconds per move, comma-separated; 0 flat out (default 1,0.2,0)"
    )
    parser.add_argument("--json", type=Path, help="also write every window's figures there (JSON)")
    parser.add_argument("--load-processes", type=int, default=FULL.load_processes, help="per side (default 2)")
    args = parser.parse_args(argv)
    paces = tuple(float(p) for p in args.paces.split(",") if p.strip())
    settings = (
        QUICK
        if args.quick
        else VersusSettings(args.games, args.duration, args.warmup, args.rounds, paces, args.load_processes)
    )
    command = " ".join(["python -m service.bench.versus", *(argv if argv is not None else sys.argv[1:])])
    figures = versus_figures(settings, command)
    if args.json is not None:
        args.json.write_text(json.dumps(figures_json(figures), indent=1) + "\n")
    print("\n".join(versus_markdown(figures)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
