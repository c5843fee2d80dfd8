"""The server's sections: moves per path and store, the transports' floor under them,
StreamEvents' fan-out, memory per live game, and 1 against 2 workers on Redis."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.bench.run import Results

from service.bench.report.numbers import PATH_NAMES, cores, echo_of, ms, number, per, times


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
        ratio = per(m.cpu_us, echo.cpu_us) if echo is not None and echo.count else float("nan")
        unit = "calls" if m.path.endswith("echo") else "moves"
        lines.append(
            f"| {PATH_NAMES[m.path]} | {m.store} | {m.concurrency} | {number(m.per_second)} {unit} "
            f"| {ms(m.percentile(0.5))} | {ms(m.percentile(0.9))} | {ms(m.percentile(0.99))} "
            f"| {times(m.percentile(0.99) / m.percentile(0.5))} | {number(m.cpu_us)} | {times(ratio)} "
            f"| {number(m.rpcs_per_item, 2)} | {cores(m)} | {m.errors} | {m.games_created} |"
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
        if floor is None:
            continue
        if not (floor.count and m.count):  # a window without a call: the row, its figures "–"
            lines.append(
                f"| {PATH_NAMES[m.path]} | {m.store} | {PATH_NAMES[floor.path]} | {number(floor.cpu_us)} "
                f"| – | – | {number(m.cpu_us)} | – | – |"
            )
            continue
        # Streams: rpcs counts messages both ways; a floor round trip is one each way.
        units = m.rpcs_per_item if m.path in ("unary", "unary-bot", "rest") else m.rpcs_per_item / 2
        floor_us = units * floor.cpu_us
        lines.append(
            f"| {PATH_NAMES[m.path]} | {m.store} | {PATH_NAMES[floor.path]} | {number(floor.cpu_us)} "
            f"| {units:.2f} | {number(floor_us)} | {number(m.cpu_us)} | {number(m.cpu_us - floor_us)} "
            f"| {times(per(m.cpu_us, floor_us))} |"
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
        ratio = per(m.cpu_us, echo.cpu_us) if echo is not None and echo.count else float("nan")
        lines.append(
            f"| {m.store} | {m.concurrency} × {results.settings.subscribers} | {number(m.per_second)} "
            f"| {number(m.moves / m.seconds)} | {ms(m.percentile(0.5))} | {ms(m.percentile(0.99))} "
            f"| {number(m.cpu_us)} | {times(ratio)} |"
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
            f"| {m.workers} | {number(m.per_second)} | {ms(m.percentile(0.5))} | {ms(m.percentile(0.99))} "
            f"| {number(m.cpu_us)} | {m.cpu_seconds / m.seconds:.2f} | {m.load_cpu_seconds / m.seconds:.2f} "
            f"| {m.redis_cpu_seconds / m.seconds:.2f} |"
        )
    lines.append(f"\n2 workers / 1 worker: **{times(per(two.per_second, one.per_second))}** the moves per second.")
    return lines
