"""How the report writes a figure: the paths' names, numbers, milliseconds, ratios,
the cores busy, and a store's echo (the floor every CPU figure is held against)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

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


def per(value: float, by: float) -> float:
    """`value` / `by`, NaN when `by` is zero: a window too short to measure (no moves, or
    no CPU tick) leaves its ratios out ("–") instead of failing the report."""
    return value / by if by else math.nan


def ms(seconds: float) -> str:
    return "–" if math.isnan(seconds) else f"{seconds * 1000:.2f}"


def number(value: float, digits: int = 0) -> str:
    return "–" if math.isnan(value) else f"{value:,.{digits}f}"


def times(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.2f}×"


def cores(m: Measured) -> str:
    cores = f"{m.cpu_seconds / m.seconds:.2f} / {m.load_cpu_seconds / m.seconds:.2f}"
    return f"{cores} / {m.redis_cpu_seconds / m.seconds:.2f}" if m.store == "redis" else cores


def echo_of(results: Results, store: str) -> Measured | None:
    return results.find("echo", store)


def echo_cpu(results: Results, store: str) -> str:
    echo = echo_of(results, store)
    return f"{echo.cpu_us:,.0f} µs" if echo is not None and echo.count else "–"
