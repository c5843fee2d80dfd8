"""The targets a run is judged on (met or missed), and the retired ones shown as figures."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.bench.run import Results

from service.bench.report.numbers import PATH_NAMES, echo_of

# A ratio is judged only when its divisor was measured: a window without a call, or
# without a tick of CPU (`cpu_us > 0` is False for both), gives no verdict.
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
        if m is None or echo is None or not m.count or not echo.cpu_us > 0:
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
            if ws is not None and ws.count and ws_echo is not None and ws_echo.cpu_us > 0:
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
        if memory is not None and redis is not None and memory.cpu_us > 0 and redis.count:
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
            if grpc_play is not None and grpc_play.cpu_us > 0:
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
