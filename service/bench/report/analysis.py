"""Why, figure by figure: the misses and what they come from, in a run's own figures."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.bench.run import Results

from service.bench.report.numbers import echo_cpu, echo_of, per


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
            f"({per_rpc:,.0f} µs each, {per(per_rpc, echo.cpu_us):.2f}× an echo), "
            f"so {per(unary.cpu_us, echo.cpu_us):.2f}× "
            f"per move; one seat against a bot makes {bot.rpcs_per_item:.2f} RPC per move, with the bot's reply "
            f"decided inside it: {per(bot.cpu_us, echo.cpu_us):.2f}×."
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
            f"({per(ws.cpu_us, ws_echo.cpu_us):.2f}× the WebSocket echo), against {play.cpu_us:,.0f} µs over the "
            f"gRPC `Play` stream ({per(ws.cpu_us, play.cpu_us):.2f}×): the same session and the same move, so the "
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
            f"({per(redis_play.cpu_us, memory_play.cpu_us):.2f}× the memory store). The store alone, its appends "
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
