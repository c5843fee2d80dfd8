"""The benchmark's report: docs/PERFORMANCE.md (method, commands, machine, figures,
targets) and a short summary on stdout."""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import shutil
import subprocess
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from service.bench.store_cost import CONCURRENCY

if TYPE_CHECKING:
    from service.bench.run import Measured, Results

PATH_NAMES = {
    "echo": "gRPC `Echo` (baseline)",
    "stream-echo": "gRPC `EchoStream` message (floor)",
    "connect-echo": "Connect `Echo` (floor)",
    "rest-echo": "REST `POST /v1/diagnostics:echo` (floor)",
    "unary": "gRPC `SubmitCommand`",
    "unary-bot": "gRPC `SubmitCommand`, 1 seat vs a bot",
    "play": "gRPC `Play` stream",
    "play-bot": "gRPC `Play` stream, 1 seat vs a bot",
    "ws-echo": "WebSocket echo (baseline)",
    "ws-play": "WebSocket `Play`",
    "ws-play-bot": "WebSocket `Play`, 1 seat vs a bot",
    "rest": "REST `POST …/commands`",
    "stream": "`StreamEvents` fan-out",
    "scale": "gRPC `SubmitCommand`",
}


def command_line(args: argparse.Namespace) -> str:
    parts = ["ludotheque bench"]
    if args.quick:
        parts.append("--quick")
    if getattr(args, "versus", False):
        parts.append("--versus")
    if getattr(args, "capacity", False):
        parts.append("--capacity")
        if args.crowds != "64,1000,5000":
            parts.append(f"--crowds {args.crowds}")
    if args.output is not None:
        parts.append(f"--output {args.output}")
    return " ".join(parts)


def machine() -> list[tuple[str, str]]:
    model = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    redis_version = "not installed"
    if shutil.which("redis-server"):
        done = subprocess.run(["redis-server", "--version"], capture_output=True, text=True, check=False)
        redis_version = done.stdout.split(" v=")[1].split()[0] if " v=" in done.stdout else done.stdout.strip()
    load = os.getloadavg()
    return [
        ("CPUs (nproc)", str(os.cpu_count())),
        ("CPU model", model),
        ("Python", platform.python_version()),
        ("grpcio / protobuf", f"{metadata.version('grpcio')} / {metadata.version('protobuf')}"),
        ("redis-server", redis_version),
        ("kernel", platform.release()),
        ("load average before the run", f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"),
        ("date", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")),
    ]


def _ms(seconds: float) -> str:
    return "–" if math.isnan(seconds) else f"{seconds * 1000:.2f}"


def _num(value: float, digits: int = 0) -> str:
    return "–" if math.isnan(value) else f"{value:,.{digits}f}"


def _ratio(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.2f}×"


def _cores(m: Measured) -> str:
    cores = f"{m.cpu_seconds / m.seconds:.2f} / {m.load_cpu_seconds / m.seconds:.2f}"
    return f"{cores} / {m.redis_cpu_seconds / m.seconds:.2f}" if m.store == "redis" else cores


def echo_of(results: Results, store: str) -> Measured | None:
    return results.find("echo", store)


def echo_cpu(results: Results, store: str) -> str:
    echo = echo_of(results, store)
    return f"{echo.cpu_us:,.0f} µs" if echo is not None and echo.count else "–"


def moves_table(results: Results) -> list[str]:
    lines = [
        "| path | store | concurrency | per second | p50 ms | p90 ms | p99 ms | p99/p50 "
        "| server CPU µs each | × echo | RPCs each (`Play`: messages) | cores busy: server / load (/ Redis) "
        "| errors | games created in window |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in results.measured:
        if m.path in ("stream", "scale"):
            continue
        echo = echo_of(results, m.store)
        ratio = m.cpu_us / echo.cpu_us if echo is not None and echo.count else float("nan")
        unit = "calls" if m.path.endswith("echo") else "moves"
        lines.append(
            f"| {PATH_NAMES[m.path]} | {m.store} | {m.concurrency} | {_num(m.per_second)} {unit} "
            f"| {_ms(m.percentile(0.5))} | {_ms(m.percentile(0.9))} | {_ms(m.percentile(0.99))} "
            f"| {_ratio(m.percentile(0.99) / m.percentile(0.5))} | {_num(m.cpu_us)} | {_ratio(ratio)} "
            f"| {m.rpcs_per_item:.2f} | {_cores(m)} | {m.errors} | {m.games_created} |"
        )
    return lines


# Each move path, the floor it stands on, and how many of the floor's units a move takes:
# RPCs for unary calls, round trips (a message each way) for streams and WebSockets.
FLOOR_OF = {
    "unary": "echo",
    "unary-bot": "echo",
    "rest": "rest-echo",
    "play": "stream-echo",
    "play-bot": "stream-echo",
    "ws-play": "ws-echo",
    "ws-play-bot": "ws-echo",
}


def floor_table(results: Results) -> list[str]:
    """Every move path as "the transport's floor + our work", from the same run."""
    lines = [
        "| path | store | floor (call that does nothing) | floor µs each | floor units per move "
        "| floor µs per move | move µs | our work µs per move | move / floor |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for m in results.measured:
        floor = results.find(FLOOR_OF.get(m.path, ""), m.store)
        if floor is None or not floor.count or not m.count:
            continue
        # Streams: rpcs counts messages both ways; a floor round trip is one each way.
        units = m.rpcs_per_item if m.path in ("unary", "unary-bot", "rest") else m.rpcs_per_item / 2
        floor_us = units * floor.cpu_us
        lines.append(
            f"| {PATH_NAMES[m.path]} | {m.store} | {PATH_NAMES[floor.path]} | {_num(floor.cpu_us)} "
            f"| {units:.2f} | {_num(floor_us)} | {_num(m.cpu_us)} | {_num(m.cpu_us - floor_us)} "
            f"| {_ratio(m.cpu_us / floor_us)} |"
        )
    return lines


def stream_table(results: Results) -> list[str]:
    lines = [
        "| store | games × subscribers | events delivered per second | moves per second "
        "| fan-out p50 ms | fan-out p99 ms | server CPU µs per event delivered | × echo |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in results.measured:
        if m.path != "stream":
            continue
        echo = echo_of(results, m.store)
        ratio = m.cpu_us / echo.cpu_us if echo is not None and echo.count else float("nan")
        lines.append(
            f"| {m.store} | {m.concurrency} × {results.settings.subscribers} | {_num(m.per_second)} "
            f"| {_num(m.moves / m.seconds)} | {_ms(m.percentile(0.5))} | {_ms(m.percentile(0.99))} "
            f"| {_num(m.cpu_us)} | {_ratio(ratio)} |"
        )
    return lines


def memory_table(results: Results) -> list[str]:
    lines = [
        "| store | games created | server memory per game (RSS) | Redis memory per game (used_memory) |",
        "|---|---|---|---|",
    ]
    for figure in results.memory:
        redis = "–" if figure.redis_bytes_per_game is None else f"{figure.redis_bytes_per_game / 1024:.1f} KiB"
        lines.append(f"| {figure.store} | {figure.games} | {figure.server_bytes_per_game / 1024:.1f} KiB | {redis} |")
    return lines


def scale_table(results: Results) -> list[str]:
    one, two = results.find("scale", "redis", 1), results.find("scale", "redis", 2)
    if one is None or two is None:
        return ["(not measured: --no-scale)"]
    lines = [
        "| workers | moves per second | p50 ms | p99 ms | server CPU µs per move "
        "| cores busy: server | load processes | Redis |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in (one, two):
        lines.append(
            f"| {m.workers} | {_num(m.per_second)} | {_ms(m.percentile(0.5))} | {_ms(m.percentile(0.99))} "
            f"| {_num(m.cpu_us)} | {m.cpu_seconds / m.seconds:.2f} | {m.load_cpu_seconds / m.seconds:.2f} "
            f"| {m.redis_cpu_seconds / m.seconds:.2f} |"
        )
    lines.append(f"\n2 workers / 1 worker: **{_ratio(two.per_second / one.per_second)}** the moves per second.")
    return lines


def engines_table(results: Results) -> list[str]:
    lines = [
        "| game | moves chosen by | full games per second | moves per game | replay: events per second "
        "| protobuf parse alone: events per second | replay / parse |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in results.engines:
        player = "random legal moves" if f.player == "random" else f"the {f.player} bot"
        lines.append(
            f"| {f.kind} | {player} | {_num(f.games_per_second, 1)} | {_num(f.moves_per_game)} "
            f"| {_num(f.replay_events_per_second)} | {_num(f.parse_events_per_second)} "
            f"| {f.replay_to_parse:.0%} |"
        )
    return lines


def long_games_table(results: Results) -> list[str]:
    figures = results.long_games
    if figures is None:
        return ["Not measured in this run."]
    lines = [
        f"A game of two random {figures.kind} bots, {figures.events:,} events, in GameApp alone (memory store, "
        f"no transport; wall-clock milliseconds): every event folded (`--snapshot-interval 0`, as before "
        f"snapshots) and from the nearest snapshot (every {figures.interval} events).",
        "",
        "| | every event folded | from the nearest snapshot |",
        "|---|---|---|",
    ]
    rows = (
        ("ReplayGame at a late version (median)", figures.replay),
        ("GetGame of the game, not cached (median)", figures.cold_get),
        ("another game's GetGame while 4 spectators replay it: 99th percentile", figures.other_get_p99),
        ("another game's GetGame while 4 spectators replay it: longest", figures.other_get_max),
    )
    for name, timing in rows:
        lines.append(f"| {name} | {timing.without:,.1f} ms | {timing.with_snapshots:,.1f} ms |")
    return lines


def attacks_table(results: Results) -> list[str]:
    """The victim's moves beside each attack class (service/bench/attacks.py)."""
    if not results.attacks:
        return ["Not measured in this run."]
    quiet = results.attacks[0]
    lines = [
        "One server (memory store); a victim plays Mooki against a bot over gRPC, one `SubmitCommand` at a "
        "time, first quiet, then beside each attack, each for one window. The attacker's bytes are what it "
        "wrote to its sockets; the server's CPU is its process's over the window (the victim's moves "
        "included). Refused: requests answered 429, or connections the server cut (a `GOAWAY`, a 408). "
        "Catch-ups never read are streams from version 1 of a long game, on sockets with deep receive "
        "buffers (and, over gRPC, the largest window HTTP/2 allows), never read. "
        "docs/SECURITY.md lists each attack class with its limit and its test.",
        "",
        "| attack | attacker's requests | attacker's bytes sent | refused | server CPU | victim's moves "
        "| move p50 | move p99 | quiet p50 | quiet p99 | victim's failed calls |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in results.attacks:
        failed = {code: f.victim_failures.count(code) for code in sorted(set(f.victim_failures))}
        lines.append(
            f"| {f.attack} | {f.attacker_requests:,} | {f.attacker_bytes:,} | {f.refused:,} "
            f"| {f.server_cpu:.2f} s in {f.seconds:.1f} s | {len(f.victim_moves):,} | {_ms(f.p50)} ms "
            f"| {_ms(f.percentile(0.99))} ms | {_ms(quiet.p50)} ms | {_ms(quiet.percentile(0.99))} ms "
            f"| {', '.join(f'{n} {code}' for code, n in failed.items()) or '0'} |"
        )
    return lines


def replay_game_table(results: Results) -> list[str]:
    lines = [
        "| game | version replayed (events folded) | CPU per `ReplayGame` | events per second |",
        "|---|---|---|---|",
    ]
    for r in results.replay_game:
        lines.append(f"| {r.kind} | {r.events:,} | {r.us_per_call / 1000:,.2f} ms | {_num(r.events_per_second)} |")
    return lines


def work_table(results: Results) -> list[str]:
    """GameApp's cost per move beside the engine's own work its moves and answers need."""
    lines = [
        "| game | GameApp: CPU µs per move (calls per move) | engine: decide, evolve, view, legal commands "
        "| descriptions | engine's own work | GameApp / own work | GameApp / engine alone |",
        "|---|---|---|---|---|---|---|",
    ]
    for w in results.work:
        lines.append(
            f"| {w.kind} | {_num(w.app.us_per_move)} ({w.app.calls_per_move:.2f}) | {_num(w.engine_us, 1)} "
            f"| {_num(w.descriptions_us, 1)} | {_num(w.own_us, 1)} | {w.app_to_own:.2f}× "
            f"| {w.app.us_per_move / w.engine_us:.2f}× |"
        )
    return lines


STORE_NAMES = {
    "memory": "memory",
    "redis": "Redis, `appendfsync always` (as deployed)",
    "redis, fsync every second": "Redis, `appendfsync everysec`",
}


def store_cost_table(results: Results) -> list[str]:
    """The store alone: what one append costs, with and without a live subscriber."""
    lines = [
        "| store | live subscribers per game | appends | client CPU µs per append | Redis CPU µs per append "
        "| round trips per append | p50 ms | p99 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in sorted(results.store_cost, key=lambda f: (f.subscribers, list(STORE_NAMES).index(f.store))):
        redis_cpu = "–" if f.redis_us_per_append is None else _num(f.redis_us_per_append)
        trips = "–" if f.round_trips_per_append is None else f"{f.round_trips_per_append:.2f}"
        lines.append(
            f"| {STORE_NAMES.get(f.store, f.store)} | {f.subscribers} | {f.appends:,} | {_num(f.us_per_append)} "
            f"| {redis_cpu} | {trips} | {f.p50_ms:.2f} | {f.p99_ms:.2f} |"
        )
    return lines


def store_cost_section(results: Results) -> list[str]:
    figures = {(f.store, f.subscribers): f for f in results.store_cost}
    if not figures:
        return []
    out = [
        "## The store's own cost per move",
        "",
        f"The appends GameApp made for {results.settings.store_moves:,} random {results.settings.kind} moves "
        "(each move's events, command id, fingerprint, summary and retention; two human seats), recorded once "
        "and made again on each store alone, in this benchmark's process: no engine, no transport, no server. "
        f"{CONCURRENCY} games append at once, each game's appends in order; with a live subscriber, each game is "
        "followed (`subscribe`) from its first event while it is played, as a `Play` session or `StreamEvents` "
        "follows it. Client CPU is this process's (the store's code, redis-py, the kernel's side of the "
        "socket); Redis's is redis-server's own; round trips are counted at the store's connection (a "
        "pipeline of reads is one; the live reader hears each move on its game's channel and reads just that game).",
        "",
        *store_cost_table(results),
        "",
    ]
    always, lax = figures.get(("redis", 0)), figures.get(("redis, fsync every second", 0))
    if always is not None and lax is not None:
        out += [
            f"What durability costs: with an fsync of the append-only file on every write, an append takes "
            f"{always.p50_ms:.2f} ms (median) against {lax.p50_ms:.2f} ms with one fsync a second, "
            f"{always.us_per_append:,.0f} against {lax.us_per_append:,.0f} µs of the client's CPU and "
            f"{always.redis_us_per_append or 0:,.0f} against {lax.redis_us_per_append or 0:,.0f} µs of Redis's. "
            "`appendfsync always` stays the deployed default (`deploy/redis.conf`): an acknowledged move "
            "survives Redis's crash, where once a second may lose the last second of moves.",
            "",
        ]
    return out


Target = tuple[str, str, bool | None]


def targets(results: Results) -> list[Target]:
    """(target, measured, met) for each target of the issue that this run measured."""
    return [
        *_cpu_targets(results),
        *_websocket_targets(results),
        *_latency_and_scale_targets(results),
        *_engine_and_memory_targets(results),
    ]


def retired_targets(results: Results) -> list[Target]:
    """The echo ratios of the per-move issue, which issue 30 retired (CPU per move is
    held against boardgame.io's now: `--versus`); still shown, as figures."""
    rows: list[Target] = []

    def cpu_ratio(path: str, store: str, limit: float) -> None:
        m, echo = results.find(path, store), echo_of(results, store)
        if m is None or echo is None or not m.count or not echo.count:
            return
        ratio = m.cpu_us / echo.cpu_us
        name = f"server CPU per {results.settings.kind} move, {PATH_NAMES[path]}, {store} store ≤ {limit}× echo"
        rows.append((name, f"{ratio:.2f}×", ratio <= limit))

    for two_seats, one_seat in (("unary", "unary-bot"), ("play", "play-bot")):
        for store, limit in (
            (("memory", 1.5), ("redis", 2.0)) if two_seats == "unary" else (("memory", 0.8), ("redis", 1.0))
        ):
            cpu_ratio(two_seats, store, limit)
            cpu_ratio(one_seat, store, limit)
    for store in results.settings.stores:
        for path in ("ws-play", "ws-play-bot"):
            ws, ws_echo = results.find(path, store), results.find("ws-echo", store)
            if ws is not None and ws.count and ws_echo is not None and ws_echo.count:
                ratio = ws.cpu_us / ws_echo.cpu_us
                rows.append(
                    (
                        f"server CPU per {results.settings.kind} move, {PATH_NAMES[path]}, {store} store "
                        "≤ 4× a WebSocket echo round trip",
                        f"{ratio:.2f}×",
                        ratio <= 4,
                    )
                )
    return rows


def _cpu_targets(results: Results) -> list[Target]:
    """Server CPU per move on the Redis store against the memory store."""
    rows: list[Target] = []
    for path in ("play", "play-bot"):
        memory, redis = results.find(path, "memory"), results.find(path, "redis")
        if memory is not None and redis is not None and memory.count and redis.count:
            ratio = redis.cpu_us / memory.cpu_us
            rows.append(
                (
                    f"server CPU per {results.settings.kind} move, {PATH_NAMES[path]}: redis store ≤ 1.3× memory store",
                    f"{ratio:.2f}×",
                    ratio <= 1.3,
                )
            )
    return rows


def _websocket_targets(results: Results) -> list[Target]:
    """Play over WebSocket against gRPC's Play."""
    rows: list[Target] = []
    for store in results.settings.stores:
        for path in ("ws-play", "ws-play-bot"):
            ws, grpc_play = results.find(path, store), results.find(path.removeprefix("ws-"), store)
            if ws is None or not ws.count:
                continue
            if grpc_play is not None and grpc_play.count:
                ratio = ws.cpu_us / grpc_play.cpu_us
                rows.append(
                    (
                        f"server CPU per {results.settings.kind} move, {PATH_NAMES[path]}, {store} store "
                        f"≤ 0.5× {PATH_NAMES[grpc_play.path]}",
                        f"{ratio:.2f}×",
                        ratio <= 0.5,
                    )
                )
    return rows


def _latency_and_scale_targets(results: Results) -> list[Target]:
    """The latency spread under load, and what a second worker adds."""
    rows: list[Target] = []
    for store in results.settings.stores:
        m = results.find("unary", store)
        if m is not None and m.latencies:
            spread = m.percentile(0.99) / m.percentile(0.5)
            rows.append(
                (
                    f"p99 ≤ 4× p50 at {m.concurrency} concurrent games (unary gRPC, {store})",
                    f"{spread:.2f}×",
                    spread <= 4,
                )
            )
    one, two = results.find("scale", "redis", 1), results.find("scale", "redis", 2)
    if one is not None and two is not None and one.count:
        gain = two.per_second / one.per_second
        rows.append(("2 workers ≥ 1.6× the moves per second of 1 (Redis)", f"{gain:.2f}×", gain >= 1.6))
    return rows


def _engine_and_memory_targets(results: Results) -> list[Target]:
    """GameApp against the engine's own work, replay against the parse, a game's memory."""
    rows: list[Target] = []
    for w in results.work:
        rows.append(
            (
                f"GameApp's CPU per {w.kind} move ≤ 2× the engine's own work (descriptions included)",
                f"{w.app_to_own:.2f}×",
                w.app_to_own <= 2,
            )
        )
    for f in results.engines:
        rows.append(
            (f"{f.kind} replay ≥ 30% of the protobuf parse rate", f"{f.replay_to_parse:.0%}", f.replay_to_parse >= 0.3)
        )
    for figure in results.memory:
        kib = figure.server_bytes_per_game / 1024
        rows.append(
            (
                f"a live {results.settings.kind} game < 20 KiB of server memory ({figure.store} store)",
                f"{kib:.1f} KiB",
                kib < 20,
            )
        )
    return rows


def analysis(results: Results) -> list[str]:
    """The misses and what they come from, in this run's own figures."""
    return [*_unary_analysis(results), *_stream_analysis(results), *_store_and_engine_analysis(results)]


def _unary_analysis(results: Results) -> list[str]:
    """What a unary move costs against an echo, and the game's own work in it."""
    lines: list[str] = []
    kind = results.settings.kind
    for store in results.settings.stores:
        echo, unary, bot = echo_of(results, store), results.find("unary", store), results.find("unary-bot", store)
        if echo is None or unary is None or bot is None or not (echo.count and unary.count and bot.count):
            continue
        per_rpc = unary.cpu_seconds / unary.rpcs * 1e6
        lines.append(
            f"- **Unary, {store} store.** The echo call costs the server {echo.cpu_us:,.0f} µs: that is the floor "
            f"of any gRPC call here. A two-seat {kind} move makes {unary.rpcs_per_item:.2f} RPCs "
            f"({per_rpc:,.0f} µs each, {per_rpc / echo.cpu_us:.2f}× an echo), so {unary.cpu_us / echo.cpu_us:.2f}× "
            f"per move; one seat against a bot makes {bot.rpcs_per_item:.2f} RPC per move, with the bot's reply "
            f"decided inside it: {bot.cpu_us / echo.cpu_us:.2f}×."
        )
    app = results.app
    work = next((w for w in results.work if w.kind == kind), None)
    if app is not None and work is not None:
        lines.append(
            f"- **The game's own work**: GameApp alone (no transport, memory store) spends {app.us_per_move:,.0f} µs "
            f"of CPU per {kind} move ({app.calls_per_move:.2f} calls per move, responses encoded), "
            f"{work.app_to_own:.2f}× what the engine itself does for those moves and answers "
            f"({work.engine_us:,.0f} µs, and {work.descriptions_us:,.0f} µs to describe them): the rest is the "
            "token, the lock, the envelopes, the store, the summary, the metrics and the response. With a "
            "gRPC call's floor on top, a move cannot cost 1.5 echoes unless that work is well under half an echo."
        )
    return lines


def _stream_analysis(results: Results) -> list[str]:
    """What a Play move costs, over gRPC and over WebSocket."""
    lines: list[str] = []
    for store in results.settings.stores:
        play, echo = results.find("play", store), echo_of(results, store)
        if play is None or echo is None or not play.count:
            continue
        per_message = play.cpu_seconds / play.rpcs * 1e6 if play.rpcs else float("nan")
        stream_echo = results.find("stream-echo", store)
        floor = (
            f"a message each way on an open stream (`EchoStream`) costs {stream_echo.cpu_us:,.0f} µs, so the "
            f"transport's floor under a move is {play.rpcs_per_item / 2 * stream_echo.cpu_us:,.0f} µs and the rest, "
            f"{play.cpu_us - play.rpcs_per_item / 2 * stream_echo.cpu_us:,.0f} µs, is ours (the session's tasks "
            "and queue, the move, the answers to both seats, the next turn described)"
            if stream_echo is not None and stream_echo.count
            else "the stream's floor was not measured"
        )
        lines.append(
            f"- **Play, {store} store**: {play.rpcs_per_item:.1f} stream messages per move (the command up; down, "
            "its events with its result and the next turn to the mover, its events to the other seat), "
            f"{per_message:,.0f} µs of server CPU each, the move's work included; {floor}. A unary echo call "
            f"costs {echo.cpu_us:,.0f} µs."
        )
    for store in results.settings.stores:
        ws, ws_echo, play = results.find("ws-play", store), results.find("ws-echo", store), results.find("play", store)
        if ws is None or ws_echo is None or play is None or not (ws.count and ws_echo.count and play.count):
            continue
        lines.append(
            f"- **Play over WebSocket, {store} store**: a WebSocket echo round trip costs the server "
            f"{ws_echo.cpu_us:,.0f} µs (a gRPC echo: {echo_cpu(results, store)}); a move, "
            f"{ws.rpcs_per_item:.1f} frames each way counted together, costs {ws.cpu_us:,.0f} µs "
            f"({ws.cpu_us / ws_echo.cpu_us:.2f}× the WebSocket echo), against {play.cpu_us:,.0f} µs over the "
            f"gRPC `Play` stream ({ws.cpu_us / play.cpu_us:.2f}×): the same session and the same move, so the "
            "difference is what a message costs on each transport."
        )
    return lines


def _store_and_engine_analysis(results: Results) -> list[str]:
    """What Redis adds, what a second worker adds, and what bounds replay."""
    lines: list[str] = []
    memory, redis = results.find("unary", "memory"), results.find("unary", "redis")
    if memory is not None and redis is not None and memory.count and redis.count:
        lines.append(
            f"- **Redis** adds {redis.cpu_us - memory.cpu_us:,.0f} µs of server CPU per unary move: the append "
            "(one Lua script) and, for `GetGame`, a read of the events since the cached version (another) and "
            "of who is connected (a third), each a round trip; Redis itself is in the last column. The store "
            "alone is measured below (the store's own cost per move)."
        )
    alone = next((f for f in results.store_cost if f.store == "redis" and f.subscribers == 1), None)
    memory_play, redis_play = results.find("play", "memory"), results.find("play", "redis")
    if alone is not None and memory_play is not None and redis_play is not None and memory_play.count:
        lines.append(
            f"- **Redis under `Play`** adds {redis_play.cpu_us - memory_play.cpu_us:,.0f} µs of server CPU per move "
            f"({redis_play.cpu_us / memory_play.cpu_us:.2f}× the memory store). The store alone, its appends "
            f"followed live, costs {alone.us_per_append:,.0f} µs of client CPU per append in "
            f"{alone.round_trips_per_append or 0:.2f} round trips (the store's own cost per move, below): the "
            "rest is spent in the server around the store's code, not in it."
        )
    one, two = results.find("scale", "redis", 1), results.find("scale", "redis", 2)
    if one is not None and two is not None and one.count:
        busy = (one.cpu_seconds + one.load_cpu_seconds + one.redis_cpu_seconds) / one.seconds
        lines.append(
            f"- **2 workers**: with one worker the server kept {one.cpu_seconds / one.seconds:.2f} cores busy, the "
            f"load processes {one.load_cpu_seconds / one.seconds:.2f} and Redis "
            f"{one.redis_cpu_seconds / one.seconds:.2f}: {busy:.2f} of the machine's {os.cpu_count()} cores, "
            "so a second worker could only use what was left. "
            "The gain measures the machine, not the server: on a machine with cores to spare (and the load "
            "elsewhere) the workers share nothing but Redis."
        )
    if results.engines:
        worst = min(results.engines, key=lambda f: f.replay_to_parse)
        lines.append(
            f"- **Replay** rebuilds {worst.replay_events_per_second:,.0f} {worst.kind} events per second against "
            f"{worst.parse_events_per_second:,.0f} parsed one `Event` at a time: a game's events are parsed "
            "at once (one `EventRun`, about half the cost of parsing them one by one), but the fold still "
            "takes each event's payload from the run, asks which event it holds, takes that event and reads "
            "its fields: each a crossing from Python into upb that makes a Python object (about 30 to 90 ns "
            "each on this machine, `timeit`), together about 1.3 to 1.5 times the parse of the event before "
            "any rule is applied."
        )
    return lines


def observation_section(results: Results) -> list[str]:
    """What tracing and the access log add to a move (service/bench/observation.py)."""
    figures = results.observation
    if figures is None:
        return []
    names = {
        "off": "tracing off, no access log line (the servers above)",
        "sampled 0": "tracing on, sampling 0",
        "sampled 1": "tracing on, sampling 1 (spans batched and encoded as OTLP)",
        "access log": "tracing off, the access log's JSON line written",
    }
    out = [
        "## Observability: what tracing and the access log cost",
        "",
        f"GameApp's {figures.kind} moves as in the line above, each call (a GetGame and a SubmitCommand per move) "
        "inside the request edge of every transport and, with tracing on, the gRPC instrumentation's server span; "
        "each mode in a fresh process (`service/bench/observation.py`).",
        "",
        "| mode | CPU per move | added |",
        "|---|---|---|",
    ]
    for mode, name in names.items():
        added = "" if mode == "off" else f"{figures.extra_us(mode):+,.0f} µs"
        out.append(f"| {name} | {figures.us_per_move[mode]:,.0f} µs | {added} |")
    out += ["", f"With sampling 1 a move records {figures.spans_per_move:.1f} spans.", ""]
    return out


def summary(results: Results) -> str:
    lines = [*moves_table(results), "", *stream_table(results), "", *memory_table(results), ""]
    lines += [*scale_table(results), "", *engines_table(results), "", *long_games_table(results), ""]
    lines += [*work_table(results), ""]
    for name, value, met in targets(results):
        lines.append(f"{'MET ' if met else 'MISSED'}  {name}: {value}")
    return "\n".join(lines)


def markdown(results: Results, command: str) -> str:
    return "\n".join([*_preamble(results, command), *_sections(results)])


def _preamble(results: Results, command: str) -> list[str]:
    """The title, how to run it, the method, the machine, the targets and why they were missed."""
    s = results.settings
    quick = s.duration < 2
    out = [
        "# Performance",
        "",
        "How many moves per second one server process serves, how latency behaves under load, "
        "what a game costs in memory and CPU, and how far more processes take it. Every figure "
        "below comes from **one run on one machine**, side by side, and the server's CPU is "
        "also given as a ratio to a call that does nothing (`DiagnosticsService/Echo`) measured "
        "in the same run: on a shared, noisy machine the ratios hold better than the absolute numbers.",
        "",
        "This file is written by the benchmark itself:",
        "",
        "```sh",
        "make bench                      # = .venv/bin/ludotheque bench --output docs/PERFORMANCE.md (about 6 minutes)",
        "ludotheque bench --help         # the knobs: --kind, --games, --duration, --stores, --subscribers...",
        "ludotheque bench --quick        # seconds: checks every figure is produced (CI runs it); measures nothing",
        "ludotheque bench --capacity --output docs/PERFORMANCE.md  # the crowd: its section alone (about 13 minutes)",
        "ludotheque bench --versus --output docs/PERFORMANCE.md    # against boardgame.io, its section (8 minutes)",
        "```",
        "",
    ]
    if quick:
        out += ["> **This report comes from a `--quick` run: its figures are not measurements.**", ""]
    out += [
        "## Method",
        "",
        *METHOD.format(
            kind=s.kind,
            games=s.games,
            duration=s.duration,
            warmup=s.warmup,
            processes=s.load_processes,
            memory_games=s.memory_games,
            stream_games=s.stream_games,
            subscribers=s.subscribers,
            micro=s.micro_budget,
        ).splitlines(),
        "",
    ]
    out += ["## The machine", "", "| | |", "|---|---|"]
    out += [f"| {name} | {value} |" for name, value in machine()]
    out += ["", f"Produced by `{command}`.", ""]
    out += ["## Targets", "", "| target | measured | |", "|---|---|---|"]
    out += [f"| {name} | {value} | {'met' if met else '**missed**'} |" for name, value, met in targets(results)]
    if retired := retired_targets(results):
        out += [
            "",
            "Retired by issue 30 (CPU per move is held against boardgame.io's instead: "
            "[Per move against boardgame.io](#per-move-against-boardgameio)), shown as figures:",
            "",
            "| former target | measured |",
            "|---|---|",
            *(f"| {name} | {value} |" for name, value, _ in retired),
        ]
    out += ["", "Why, figure by figure (from this run):", "", *analysis(results), ""]
    return out


def _sections(results: Results) -> list[str]:
    """Each measure's section, in the order of the method."""
    s = results.settings
    out: list[str] = []
    out += ["## Moves, per path and store", "", *moves_table(results), ""]
    out += [
        "## The transports' floor, and our work on top",
        "",
        "Each transport's floor is a call that does nothing with 16 bytes, measured on the same server just "
        "before the moves: a unary gRPC `Echo`, a message each way on an open gRPC `EchoStream`, `Echo` over "
        "Connect (binary protobuf) and over REST (`POST /v1/diagnostics:echo`, JSON), a WebSocket echo round "
        "trip (rows marked floor and baseline in the table above). A move's path costs its floor as many times "
        "as it makes calls (unary) or round trips (streams: its messages both ways, halved), and the rest is "
        "our work: the request's decoding, the game's and the store's work, the answer.",
        "",
        *floor_table(results),
        "",
    ]
    out += ["## Live events: StreamEvents fan-out", "", *stream_table(results), ""]
    out += ["## Memory per live game", "", *memory_table(results), ""]
    out += ["## Scale: 1 and 2 workers sharing Redis", "", *scale_table(results), ""]
    out += [f"## Engines and replay (one core, CPU time, {s.micro_budget:g} s each)", "", *engines_table(results), ""]
    if results.replay_game:
        out += [
            "`ReplayGame` at a late version: GameApp alone (memory store) answering a seat's `ReplayGame` at the "
            "last version but one of a long game (random bots only, played out at creation; for Mooki and the "
            "picnic, the longest of 8), snapshots off (`--snapshot-interval 0`), so the state is rebuilt from "
            "every stored event (read, parsed, folded with `evolve_all`; the long games' table below has the "
            "same replay from the nearest snapshot), then the seat's view and legal commands, the response encoded:",
            "",
            *replay_game_table(results),
            "",
        ]
    if results.work:
        out += [
            "## The game's own work, per move (one core, CPU time)",
            "",
            "GameApp alone (memory store, no transport), as the unary path drives it: random legal moves, "
            "a `SubmitCommand` each and a `GetGame` of the next seat when the turn passes, responses encoded. "
            "Beside it, what the engine itself does for the same kind of moves and answers (the same driver's "
            "choices, replayed on the engine alone): `decide`, `evolve`, `status`, the move's events redacted "
            "for the mover, and each answer's view and legal commands; and, in their own column, the "
            "descriptions those answers carry (the events' and the legal commands' phrases with their choice "
            "steps, rendered in English). The rest of GameApp's cost is the service's: the token, the lock, "
            "the envelopes, the store, the summary, the metrics, the response.",
            "",
            *work_table(results),
            "",
        ]
    out += store_cost_section(results)
    out += ["## Long games: snapshots", "", *long_games_table(results), ""]
    out += ["## Under attack", "", *attacks_table(results), ""]
    out += observation_section(results)
    out += ["## Profile and what was removed", "", *PROFILE.splitlines(), ""]
    return out


METHOD = """\
- **The server** is the real one (`ludotheque serve`, started by the benchmark on free ports),
  with the memory store, then with a Redis of the benchmark's own (`deploy/redis.conf`: the
  append-only file with `appendfsync always`, as deployed). Log level `warning`.
- **The load** runs in {processes} separate processes (`multiprocessing`, spawned once), each
  an asyncio loop of `grpc.aio` calls through the generated stubs (aiohttp for REST), so the
  load's CPU is not counted as the server's. Both share the machine's cores with the server:
  on a 2-core machine the load takes a good part of them, so throughput is a floor.
- **A move** is one command of one seat. Every seat is a human driven with its own token, as
  two frontends would be; commands are random legal ones. Over unary gRPC and REST, a move is
  one `SubmitCommand`; the seat's next legal commands come from its response when the same
  seat acts again, and from one `GetGame` of the other seat when the turn passes (a Mooki turn
  is draw then place, so that is one `GetGame` every two moves: the "RPCs each" column counts
  them, and their CPU is in the move's). Over `Play`, each seat has one session; a `turn`
  carries its legal commands, the command goes up the stream, its `result` ends the move.
  The rows marked **1 seat vs a bot** play games of one human seat against the server's
  `random` bot instead: the bot's replies are decided inside the human's call (their CPU is
  in the human's move, but they are not counted as moves), so a unary move is one RPC and
  a `Play` game has one session. Both ways are reported, and the targets are judged on both.
- **Play over WebSocket** drives the same sessions over `GET /v1/play` (aiohttp's client,
  binary protobuf frames, one WebSocket per seat, the token in the join). Its baseline is
  a **WebSocket echo**: 16 bytes sent and received back on `GET /v1/diagnostics/echo`, as
  many connections at once as games, measured right after the gRPC echo.
- **Concurrency**: {games} {kind} games at once (echo: {games} concurrent callers).
  Games come from a pool made beforehand (the memory measure below), so `CreateGame` stays out
  of the window unless the pool runs dry (then counted in "games created in window").
- **Window**: {warmup:g} s of load first, then {duration:g} s measured. Only moves that complete
  inside the window count; latency is the client's, from sending the command to its answer
  (`Play`: to its `result`).
- **Server CPU** is utime + stime of the server processes (every thread) from `/proc/<pid>/stat`,
  read at the window's start and end, divided by the moves (calls) in it. The **echo** baseline
  is a unary `DiagnosticsService/Echo` of 16 bytes, on the same server behind the same
  interceptor, measured just before the moves with the same concurrency.
- **Memory per game**: the server's RSS (`/proc/<pid>/status`) before and after creating
  {memory_games} games (freshly dealt, live, cached), divided by their number. With the memory
  store the events live in the server too; with Redis the server holds only its cache of live
  states, and Redis's own `used_memory` per game is given beside it.
- **Errors** (a failed call) would be counted in their column; none are expected.
- **StreamEvents**: {stream_games} games played over unary gRPC while {subscribers} spectators
  follow each one with `StreamEvents`; fan-out latency is the time from an event's
  `recorded_at` (stamped in milliseconds when the move was decided, before it was stored) to
  its arrival at a subscriber, so it includes the store's append; events a subscriber
  receives as history (recorded before it subscribed) count as delivered, without a delay.
- **Scale**: the same unary load (two-seat games) against `serve --workers 1` and then
  `--workers 2` on one Redis, over 8 connections per load process for both (`SO_REUSEPORT`
  spreads connections, not calls, between workers).
- **Engines** (in the benchmark's own process, CPU time, no server): full games per
  second (setup, `legal_commands`, `decide`, `evolve`), the moves chosen at random among the
  legal ones but for Pirates & Compagnie, whose games its greedy bot plays: uniformly random
  Pirates players rarely empty a hand, so their games run to thousands of moves (about 250
  with the greedy bot for two players) and games per second would not compare across kinds;
  and replay: events rebuilt per second from their stored bytes as `ReplayGame` reads
  them (`snapshots.payloads`: the events' bytes joined and parsed at once as an
  `EventRun`; then the engine's `evolve_all`) beside the protobuf parse of the same
  bytes alone, each event's `Event` on its own.
- **The store alone** (Redis store runs only): the appends of recorded games made again on
  each store in the benchmark's process, no server; its section below says how."""


PROFILE = """\
### Issue 30: the crowd

Redis calls of idle seats, 64 games of two WebSocket seats on the Redis store, one 60 s
idle window after the joins, INFO commandstats by command (2026-12-02, a script of the
session's own around the bench's crowd): 1.24 calls per seat per minute before, of which
`ZRANGEBYSCORE` 0.69. Every watch read its game's holders again when the joining players'
calls' holds ended (a player's join is a call with its token; its Play session then holds
the seat too), once or twice per game, in the first second of the window. A watch now
reads again only when a hold ends on a seat that nothing else keeps online
(`_Holdings.ended_alone`), and wakes when the last of a seat's holders may end:
`ZRANGEBYSCORE` 0.008 per seat per minute, 0.61 in all (the table above). What is left is
the sweep of the games followed (one `HMGET` per game per minute: 0.5 a seat) and the
subscription's `PING` (12 a minute per process).

Redis commands per move at 5,000 games: 10.7 in the earlier run, of which `PEXPIREAT` 3.61
(the same script by command): at 12.5–37.5 s between moves, a window that started 3 s
after the pace did held nearly every game's *first* move, and a game's first move sets its
four keys' expiry (the later ones do not, for an hour). The smaller crowds' windows held
mostly later moves, so the rows did not compare the same moves. The count now starts once
every game has moved (after the pace's longest pause): 7.7 at 5,000 games, 7.3 at 64. A
game's first move still costs four `PEXPIREAT`s and an `HSET` more than the others.

Redis commands per move, as Redis counts them (INFO commandstats: the commands a script
runs too), 32 games of two WebSocket seats flat out on the Redis store, one window each,
main before and after (2026-12-02, the machine shared with other work):

| command | before | after |
|---|---|---|
| `PEXPIREAT` | 5.28 | 0.25 |
| `XRANGE` | 2.69 | 0.28 |
| all | 19.7 | 12.2 |

- `PEXPIREAT`: the append set the expiry of four keys at every move. It now sets a time an
  hour past the one asked, and none while that covers the next (`redis_lua._EXPIRE_GAME`).
- `XRANGE`: the fork check read the last event back (its SHA-1 is kept in the meta now),
  and the process that made the move read it back for its own followers (it hands them
  over at once now: `LiveReader.appended`).
- all: flat out, games end and new ones are made inside the window; their creations count.

At a human pace (400 games, a move 2–6 s after each turn) a hold script ran at two moves
of three: a seat's move is a call with its token, and each call renewed the seat's
presence even when its Play session already held it. No longer (`Presence.seen`): 12.4
commands per move before, 9.1 after, of which 0.84 is each game's first move setting its
keys' expiry. What is left per move: the append script, with its `HMGET`, `HGET` (the
command id), one `XADD` per event, two `HSET`s and the `SPUBLISH`. Measured with a
script of the session's own (the bench's crowd, INFO commandstats around the window).

Memory per connected WebSocket seat: 47–60 KiB of RSS in the table above, 54–62 KiB
before the session's outbox, the presence watches and the read receipts stopped using
`asyncio.Queue` and `asyncio.Event` (each queue held about 3 KiB of deques and waiters
for life): `Mailbox` (`service/app/model/mailbox.py`) is a bounded FIFO for one reader
that makes a future only while its reader waits. Profiled with `tracemalloc` (a script of the
session's own: 998 seats of 500 games, the server in one process, the clients in another): 28.0 KiB of Python
objects per seat, 39.9 before. What is left: aiohttp's parsed request, held for the
socket's life (3.2 KiB), the WebSocket's reader, writer and buffers (2.7 KiB), the
protocol (1.5 KiB), the session's three tasks (1.4 KiB), its responses generator, the
game's presence follow. The RSS is about 22 KiB above those objects (memory that
`tracemalloc` does not see, likely protobuf's upb arenas and the allocator's slack: not
broken down further); `MALLOC_ARENA_MAX=1`,
`PYTHONMALLOC=malloc` or a lower `MALLOC_MMAP_THRESHOLD_` left it at 50–52 KiB.

What an idle connection costs from the floor up, side by side in one run
(`python -m service.bench.connection_floor 2000`, 2026-12-07 17:23; each server in a
process of its own, its RSS with every connection open and idle less before the first):

| an idle connection | connections | server RSS per connection |
|---|---|---|
| a bare asyncio server (a Protocol that echoes) | 2,000 | 1.7 KiB |
| a bare aiohttp WebSocket (a handler that echoes) | 2,000 | 15.2 KiB |
| boardgame.io 0.50's server (socket.io), a seat of a two-seat match | 2,000 | 12.9 KiB |
| ours: a WebSocket `Play` seat, presence and view updates | 2,000 | 50.3 KiB |

With 5,000 connections each, the same run's command gave 1.7, 15.2, 18.2 and 50.4 KiB
(Node collects its garbage when it chooses: boardgame.io's row moves with it). aiohttp's
WebSocket alone, with no middleware and no session, is 15.2 KiB: ≤ 16 KiB per seat cannot
be met on the framework the HTTP port is built on. Ours is about 35 KiB above it: the
middleware chain, the session's three tasks and their generators, the presence watch
(counted with `gc` in a script of the session's own, 1,000 seats: 20 coroutines, 7 async
generators and 6 tasks a seat, aiohttp's two included, each generator and task also
held by the loop in a weak set). Meeting the target would take a purpose-built connection
layer (a WebSocket protocol of our own after aiohttp's handshake: a bare asyncio
connection is 1.7 KiB) and a session pushed to by its game rather than a task per
concern: a redesign of `Play`'s transport and session, not done.

What a move at a human pace pays alone (`python -m service.bench.machine_floor`, on this
machine, 2026-12-03 15:48): flat out, no process sleeps and one fsync covers a loop turn's
writes; at a human pace a move wakes each process it touches from idle, Redis fsyncs
its write alone, and the move's own work comes after time passed (its caches likely cold). This machine
(a Firecracker virtual machine whose kernel command line says `nested_pvm=1`, shared with
other work) charges dearly for all three:

| a one-byte ping-pong between two processes | round trip | CPU per ping: the side that sleeps | the side that answers |
|---|---|---|---|
| back to back | 80 µs | 32 µs | 36 µs |
| 1 ms apart | 41 µs | 64 µs | 25 µs |
| 50 ms apart | 118 µs | 160 µs | 57 µs |

| one `XADD` at a time | Redis CPU per write (user) | (system) | of which Redis idle (its cron) |
|---|---|---|---|
| fsync on every write, 20 a second | 94 µs | 388 µs | 121 µs |
| fsync on every write, flat out | 31 µs | 208 µs | 0 µs |
| no append-only file, 20 a second | 170 µs | 85 µs | 125 µs |
| no append-only file, flat out | 20 µs | 51 µs | 0 µs |

| a Mooki move's own work (GameApp alone, memory store) | moves | CPU per move |
|---|---|---|
| back to back | 1,249 | 417 µs |
| 50 ms asleep before each | 116 | 1,138 µs |
| 50 ms busy (spinning) before each | 116 | 1,197 µs |

- A process woken from a sleep pays about 130 µs of CPU more than one that never slept.
  The crowd table counts the server's wake-ups (its threads' voluntary context switches
  in the window): 1.8 a move at 64 games on the memory store, 0.6–0.8 at 1,000 and 5,000
  games, 2.9 at 64 games on Redis (each Redis answer wakes the loop too); flat out, none
  to speak of (0.0). So wake-ups explain about 100–380 µs of a move at a human pace.
- The idle crowd's CPU is shared among the moves: 23.4 µs a second per seat at 64 games
  (3.0 ms a second for 128 seats, 16 moves a second: about 190 µs a move), 4.2 µs at
  5,000 games (42 ms a second, 207 moves a second: about 200 µs a move).
- The rest is the move's own work done after time passed. The same Mooki move, with no
  socket and no store but memory, costs 2.7× its back-to-back CPU once 50 ms passed
  before it, and as much when the process spun busy through those 50 ms instead of
  sleeping: it is not the sleep but the time. Likely this shared machine runs other work
  on the core meanwhile and the move's code and data leave its caches (a reading: no
  cache counter was read). Under `cProfile` every part of the move was dearer, 1.4–2.7×,
  none singled out. A move in the crowd comes 5 ms (200 moves a second) to 60 ms (16 a
  second) after the server's last one, and even 1 ms is dear: in a run of the session's
  own the same move cost 726–785 µs with 1 ms asleep before it and 1,132–1,195 µs with
  10 ms, against 325 µs back to back in the run just before.
- Together, at 64 games on the memory store: 1.8 × 130 + 190 µs ≈ 420 µs of the 1,029 µs
  between a move at the pace (1,994 µs) and one flat out (965 µs), the rest (about 600 µs)
  of the order of the cold move's 720 µs above. The ≤ 1.3× target stays missed on this
  machine; it measures the machine's cache and wake-up costs more than our code.
- Redis: with no append-only file, one `XADD` alone costs 130 µs of Redis CPU beyond
  Redis's idle (71 µs flat out); the fsync on every write brings it to 361 µs (239 µs flat
  out). ≤ 100 µs of Redis CPU per move at a human pace is below what a single fsync'd
  command costs on this machine, whatever the move does: missed here. What a move asks of
  Redis is already one script (7.2–7.9 commands at 64 to 5,000 games, one fsync); the table
  above has 427–756 µs of Redis CPU per move at a human pace.

The p99 of 1.4–2.5 s at 10,000 seats in the earlier runs was the server's garbage
collector. Timed with a `gc.callbacks` hook of the session's own during a 5,000-game run on
the memory store (`ludotheque bench --capacity --crowds 5000 --stores memory`): with
Python's default thresholds (700, 10, 10), six full collections in the pace and flat-out
windows, 1.4–1.7 s each over 2.1 million objects, and none found anything to collect.
What a seat keeps from one move to the next outlives the 7,000 allocations that promote an
object to the oldest generation, which so grows by the quarter that starts a full pass
every 6–30 s. The server now sets (50,000, 20, 100) at start (`service/cli/collector.py`):
an object must outlive about a million allocations to be promoted. The same run again, the
hook still in: no full collection until the server stopped.

| 5,000 games, memory store, one run each | p99 at the pace | CPU per move: at the pace | flat out | RSS per seat |
|---|---|---|---|---|
| Python's thresholds (700, 10, 10) | 2,062 ms | 2,264 µs | 1,601 µs | 50.0 KiB |
| the server's (50,000, 20, 100) | 59 ms | 1,816 µs | 827 µs | 49.9 KiB |

In the capacity runs before and after (2026-12-03, 11:38 and 12:32): move p99 at 5,000
games 2,375 → 186 ms on the memory store and 1,753 → 48 ms on Redis; moves refused at
5,000 games on Redis 34 and 7 (two workers) → 0, joins refused 8 → 0. Those refusals were
reads with no answer from Redis within the store's 1.0 s and all 64 of its connections
busy for 1.0 s, as a loop stopped longer than that timeout produces. Redis commands per move
at 5,000 games were 9.0 in that after run, 7.4–7.7 in the two before: the minute's
backstop read of every followed game (one `HMGET` a game) went all at once, 5,000 in one
burst, about 1.2 a move over a window's 4,200 moves, inside some 20 s windows and not
others. It now goes in twelve slices, one every 5 s, each game in one of them
(`SWEEP_SLICES` in `service/store/redis_moves.py`, on a deadline of its own: a follow no
longer puts it off, as it did when a game was followed more often than once a minute):
about 417 `HMGET`s every 5 s at 5,000 games, 0.4 a move at 200 moves a second, in every
window. 7.9 commands per move at 5,000 games in the table above.

### Issue 18: the game's own work, replay, the transports' floor

Profiled with `py-spy record` (from PyPI; GameApp alone, and the server under `Play`
load) and `cProfile` / `timeit` (the engines' replay, one upb field read at a time).
What was removed (behaviour identical: the property suites, golden logs and contract
suites pass unchanged, and `tests/engines/test_fold.py` checks that folding a game at
once gives the states of one event at a time, from the start or from any state between):

- **answers built in place**: the view, the legal commands and the redacted events are
  written into the response (one copy each, not two or three); Status and Viewer
  instances shared; the stored summary's changing tail set field by field (the same
  bytes) instead of copying a Timestamp and an Outcome made for it;
- **spans free when tracing is off** (one shared null context, not a generator per span);
  audiences (a language's words and the players' names) made once;
- **replay folded a whole game at once** (undone by issue 26): each engine's `evolve_all`
  kept the state's fields in local variables and made one state at the end; since issue 26
  `evolve` folds one event through a small rule per kind of event
  (`engines/evolving.py`), as the rulebook reads, and `evolve_all` is a plain fold of it.
  Measured side by side (3 runs each, before/after issue 26, `service/bench/micro.py`'s
  drivers): replay events per second Mooki 707k–727k / 379k–410k, picnic 816k–874k /
  402k–458k, Pirates 754k–842k / 399k–478k (about half); `ReplayGame` 0.64–0.76×; and a
  live move cheaper (GameApp alone 9–13% less CPU per move, games per second 16–34%
  more), since `evolve` of one event no longer runs a fold. Kept: state copies through
  a slotted draft class (`engines/immutable.py`), shared card and tile instances found
  by their encoding (`engines/encoded.py`), the event's kind asked of its class once;
- **a game's events parsed at once**: their stored bytes, joined, parse as one `EventRun`
  (`proto/ludotheque/v1/event_run.proto`: each repeated field gathers one field of every
  event, in order, as protobuf merges concatenated messages), so that a replay makes no
  envelope per event (`snapshots.payloads`, for `ReplayGame` and a cold read: a run
  without one version in a row and one payload, table event or loss per event is read
  event by event, as before); a deal's cards and tiles are read from the deal's encoding
  parsed as an `EncodedFields` (`engines/encoded.py`), repeated fields as slices, one
  call into upb each.

Measured side by side on this machine, alternating three times between a checkout of
the code before this issue (`bc2ee05`) and this one, with the same drivers (GameApp
alone as in the table above; replay: parse, payloads, fold, beside the parse alone, of
envelopes that carry only their version, so the parse is cheaper than in the table
above and the ratio lower):

| | before (`bc2ee05`) | after |
|---|---|---|
| GameApp alone: CPU µs per Mooki move | 186, 172, 193 | 162, 150, 151 |
| GameApp alone: CPU µs per picnic move | 462, 443, 456 | 386, 382, 377 |
| GameApp alone: CPU µs per Pirates move (greedy bot's games) | 235, 220, 223 | 195, 184, 188 |
| Mooki replay: events per second | 226,918, 217,749, 223,793 | 519,217, 487,678, 508,172 |
| picnic replay: events per second | 217,435, 226,202, 225,661 | 635,408, 627,290, 634,209 |
| Pirates replay: events per second | 193,310, 186,710, 196,661 | 556,425, 561,869, 559,164 |
| replay / parse (Mooki, picnic, Pirates; third run) | 7%, 6%, 6% | 15%, 15%, 15% |

Replay, measured again side by side after the events were parsed at once (above),
alternating six times between a checkout of `eef255d` and this one (the replay
benchmark of the table above, `service.bench.micro.replay_rates`, 3 CPU seconds each;
events rebuilt per second, and the lowest and highest replay / parse):

| run | Mooki before | Mooki after | picnic before | picnic after | Pirates before | Pirates after |
|---|---|---|---|---|---|---|
| 1 | 488,167 | 802,660 | 548,281 | 923,768 | 531,659 | 858,733 |
| 2 | 478,516 | 728,009 | 511,371 | 839,318 | 518,345 | 791,398 |
| 3 | 478,175 | 749,096 | 495,192 | 845,883 | 512,603 | 821,809 |
| 4 | 494,866 | 746,514 | 536,216 | 908,423 | 522,906 | 856,380 |
| 5 | 458,177 | 742,642 | 552,379 | 918,912 | 533,529 | 838,102 |
| 6 | 475,046 | 746,834 | 516,869 | 893,586 | 510,157 | 822,332 |
| replay / parse | 17.7–19.5% | 28.8–30.8% | 16.5–17.7% | 27.9–31.2% | 18.0–18.1% | 27.6–30.5% |

Tried and not kept, each measured side by side (two alternating runs of `ludotheque bench
--stores memory --no-scale --duration 4 --warmup 1 --memory-games 300`, server CPU µs
per call or move, memory store; the spread is the machine's noise):

| | asyncio's loop | uvloop 0.23.0 |
|---|---|---|
| gRPC `Echo` | 308, 346 | 251, 194 |
| gRPC `EchoStream` message | 57, 61 | 57, 50 |
| Connect `Echo` | 118, 132 | 133, 130 |
| REST echo | 156, 155 | 175, 173 |
| WebSocket echo | 13, 13 | 11, 10 |
| gRPC `SubmitCommand` (a move) | 986, 813 | 950, 894 |
| gRPC `Play` (a move) | 495, 433 | 478, 463 |
| WebSocket `Play` (a move) | 421, 414 | 421, 397 |
| REST (a move) | 1,113, 1,146 | 1,177, 1,151 |

uvloop (one loop for both servers: grpc.aio runs on it) made no move cheaper beyond the
noise and the REST and Connect floors dearer: not added (a new dependency must earn its
place). gRPC server options `grpc.optimization_target=throughput` and
`grpc.http2.bdp_probe=0`, against the defaults: `Echo` 278, 358 → 357, 298 µs;
`SubmitCommand` 764, 825 → 971, 977 µs; `Play` 411, 465 → 434, 468 µs: no gain, not kept.

Then, on GameApp's own path and the `Play` session's (`py-spy`, `cProfile`'s calls per
move, and instructions counted by `valgrind --tool=callgrind` over a fixed set of games,
which the machine's noise does not move), removed (behaviour identical):

- **store**: each operation timed by a context manager instead of two coroutines around
  it; the memory store's append keeps the status, version, time and summary it sets
  until someone reads the game's info, instead of a `dataclasses.replace` per move;
  `store_errors` a class, not a generator; a cached game keeps its lock (it was dropped
  and made again for every move);
- **answers**: `SubmitCommandResponse`'s, the summary tail's, `PlayResult`'s and Play's
  `SubmitCommandRequest`'s fields set one by one (a constructor's keywords cost more;
  but a `stamp`ed event's envelope made by one constructor call measured slower, 3.1
  against 2.2 µs, and was not kept); `GetGame`'s summary tail set on the parsed head,
  not encoded to be parsed again; no bot chain started when no seat is a bot's;
  presence's per-call bookkeeping without a new dict or a second sort;
- **`Play`**: a command's result waits for its events on a future woken when they are
  sent, not a `Condition` that every event of the session locked and notified; a
  delivery span is free when tracing is off; a command's request record copied field by
  field instead of by `dataclasses.replace`.

Instructions per move (fixed games, memory store, creations included): GameApp's Mooki
moves 1,070k → 979k, Pirates' 1,239k → 1,147k; a Mooki move of two in-process `Play`
sessions (no transport) 1,657k → 1,526k. In CPU time, alternating with the code before
(`eef255d`), GameApp alone per Mooki move 169, 191, 170 → 150, 161, 148 µs; per Pirates
move 190, 199, 211 → 204, 195, 178 µs; the in-process `Play` move 281, 277, 275 → 245,
239, 259 µs.

Left as they are, with the reason:

- **GameApp ≤ 2× the engine's own work** is missed for Mooki and Pirates & Compagnie
  (about 3× and 2.6×; the picnic's is near 2×: the targets above say this run's). What
  stands out is gone (above); what is left is spread over the whole path, about 490
  calls (Python's and C's) a move: the metrics' histograms and counters (4% of a move), `GetGame`'s
  presence (3%: a store read of the leases), the summary the store keeps (2%), the
  token, the lock, the request's facts for the logs, the envelopes, each 1% or less.
  Reaching 2× would take well over half of the service's work away, not one cost.
- **Replay ≥ 30% of the parse rate** is at the edge (27.6% to 31.2% over the six runs
  above, about 29.5% on average; the machine's noise moves it by two points; the targets
  above say this run's): a
  game's events are parsed at once, but each event still costs the crossings into upb
  that make its Python objects: its payload taken from the parsed run (about 90 ns),
  the kind of event asked (60 ns), that event taken (85 ns) and two or three fields
  read (30 ns each), with the run's parse and checks (about 170 ns) about 1.3 to 1.5
  times the parse of the event on its own before any rule applies, of a budget of 3.3
  times at 30%. The rest is the rules' own Python and each game's deal and scoring (a
  Mooki game's deal and scoring cost about what 15 of its moves do). Not taken: decoding
  small events through a table found by their encoding, as the cards are: it would skip
  those crossings, but this benchmark, replaying the same games, would flatter it; the
  kind and the event taken in one `ListFields` call (about 20 ns less, `timeit`, within
  the noise of the table).
- **`Play` ≤ 0.8× a unary echo** is missed: the stream's floor under a move is small (a
  round trip on an open stream costs a fifth of a unary call), so nearly all of a `Play`
  move is ours: the session's two tasks and queue, the move, its events to both seats,
  the next turn described. In-process (no transport) a `Play` move costs more than
  GameApp's unary one (about 250 against 150 µs): the other seat's events described,
  and about 9 event-loop callbacks a move (the queue, the store's wake-ups, the
  batching turn of the loop) that only a session of one task would remove.
- **WebSocket `Play` ≤ 4× a WebSocket echo** is out of reach by design of the measure: a
  WebSocket echo round trip costs aiohttp's server about 11 µs (its frame reader is in
  C and many frames are read per wake-up), less than `decide` and `evolve` of one move.
- **Redis (item 2 of the issue)**: see the next section.

### Issue 18, item 2: the Redis store's cost per move

A move costs Redis one round trip: the append (one Lua script: the version check, the
events, the command id, the summary, the index's labels). Counted under `Play` load
(`MONITOR` on the benchmark's Redis): per append, 0.07 blocking `XREAD` (the live
reader's, shared by every followed game), 0.06 reads of events (a session starting),
and a few presence leases and notices; a `GetGame` on the unary path reads the events
since the cached version and who is connected (two more). What was removed:

- **the append's client path**: a script on a single Redis runs on a connection of the
  store's own (as many as the pool's, made as they are needed, waited for when all are
  busy), packed by hiredis in C (redis-py's asyncio client packs in Python), sent and
  answered under one `asyncio.timeout` (redis-py's send wraps each write in `wait_for`,
  a task per send), without the blocking pool's condition and connection check;
  failures are mapped by a class-based context manager instead of a generator's;
- **a read-back per move under `Play`**: a session that got its own process's move
  from the live reader before the move's append was answered read the store to catch
  up; it now waits for the move, which holds the game (`GameApp.catch_up`).

Measured side by side, alternating three times with a checkout of main before this
work (`eef255d`): the store alone (the section above, 6,000 recorded Mooki moves, 16
games at once, Redis as deployed), client CPU µs per append: 93, 97, 92 → 67, 64, 65;
followed live: 129, 126, 120 → 110, 100, 109. The server under `Play` load (64 games,
6 s windows; "after" is all of this issue's work, GameApp's and replay's included), µs
of server CPU per move: with Redis 830, 852, 811 → 702, 746, 668; with memory 456, 516,
526 → 451, 494, 443; Redis ÷ memory 1.82×, 1.65×, 1.54× → 1.56×, 1.51×, 1.51×.
Redis's own CPU per move rose from 100, 95, 96 to 115, 119, 119 µs (it serves more
connections). The store's own code accounts for well under half of what Redis adds
to a `Play` move (the table above); the rest is spread over the server's event loop,
the session's tasks and gRPC's polling thread (py-spy), with no single cost to take
away.

Tried and not kept: handing a process's own appended events to its live subscribers at
once, instead of when the live reader's `XREAD` brings them back (three alternations,
`Play` with Redis: 735, 711, 720 → 715, 777, 753 µs per move: no gain).

### Earlier work

Profiled with `py-spy record` (attached to the server under load) and `cProfile`
(GameApp alone, and the engines' replay). Under unary load most of the server's samples
are gRPC itself (the `grpc.aio` call machinery in Cython, its poller thread, epoll): what
the echo call also pays. Removed then (behaviour identical):

- **metrics**: `labels(...)` looked up on every RPC, command and store operation (it
  validates and takes a lock each time): each labelled child is now looked up once
  (`Metrics.labelled`), and the gRPC interceptor wraps each method's handler once instead
  of building a new handler and closures on every call;
- **a store round trip per move**: a cached game was read again (`read` from its version)
  and the command id looked up (`find_command`) before every move. The append's
  compare-and-set already catches a game another process moved (we then catch up and
  decide again) and the append already answers a known command id with its first result;
  the lookup is now made only when a move is refused (a retried command the game has
  moved past still gets its first result) and the read only when the append conflicts, a
  move is refused or an `expected_version` is ahead of the cache;
- **the HMAC of the seat token** on every call: a checked token is remembered per game;
- **the summary** (the game without a view, stored for `ListGames` at each append): its
  fields that never change are encoded once per cached game;
- **seeding a random generator per decision** (SHA-512 of the seed text, then Mersenne
  Twister's key schedule): generators now seed themselves on their first draw
  (`service/app/model/lazy_random.py`), and most decisions draw nothing;
- **`dataclasses.replace`** in the engines' `evolve`: `engines/immutable.py` writes a
  plain copy function once per state class;
- **Mooki views** built from throwaway messages: fields are set in place; Mooki's 72
  faces and 72 pile cards are shared instances;
- **two Redis round trips for one read**: one Lua script reads the events since a
  cached version and whether the game exists;
- **a `Play` message per part**: what a session has ready at once (events, result, turn)
  goes in one message, about 3 per move.

Left then, with the reason: redis-py's asyncio client spends a good part of each round
trip in Python (the blocking pool's condition and timeout, the connection check,
packing), and a loopback `send` took about 175 µs in cProfile on this virtual machine."""
