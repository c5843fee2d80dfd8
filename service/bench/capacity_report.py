"""The capacity benchmark's part of docs/PERFORMANCE.md: the crowd table, its chart
(an SVG beside the report), its targets, and capacity on paper from the figures (a
section of its own: service/bench/sections.py)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from service.bench import sections
from service.bench.capacity import CapacitySettings, CrowdFigures
from service.bench.chart import Panel, Series, svg

CHART = "capacity.svg"
SEATS_PER_GAME = 2
POD_MEMORY = 512 * 1024 * 1024  # the Helm chart's memory limit for a server pod
# The targets (issue 30): per idle seat, and each figure within a factor of the
# smallest crowd's.
SEAT_MEMORY_TARGET = 16 * 1024
IDLE_CALLS_TARGET = 1.0  # Redis calls per idle seat per minute
CALLS_PER_MOVE_TARGET = 8.0
REDIS_CPU_TARGET = 100e-6
SAME_COST = 1.5  # any crowd within this factor of the smallest
HUMAN_PACE_TARGET = 1.3  # a move at human pace against a move under full load


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else math.inf


def _us(seconds: float | None) -> str:
    return "–" if seconds is None or math.isnan(seconds) else f"{seconds * 1e6:,.0f} µs"


def _ms(seconds: float) -> str:
    return "–" if math.isnan(seconds) else f"{seconds * 1e3:,.1f}"


def _number(value: float | None, digits: int = 1) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:,.{digits}f}"


def table(figures: Sequence[CrowdFigures]) -> list[str]:
    out = [
        "| live games / seats | store | workers | pace | server RSS per seat | idle CPU per seat "
        "| Redis calls per idle seat per minute (beyond the process's own) | CPU per move "
        "| Redis commands per move | Redis CPU per move "
        "| moves/s reached (asked) | move p50 / p99 (ms) | errors | joins refused | the crowd's CPU per move "
        "| server wake-ups per move |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in figures:
        asked = f"{f.asked_per_second:,.0f}" if f.asked_per_second is not None else "flat out"
        pace = f"{f.pace[0]:g}–{f.pace[1]:g} s" if f.human else "flat out"
        out.append(
            f"| {f.games:,} / {f.seats:,} | {f.store} | {f.workers} | {pace} | {f.rss_per_seat / 1024:,.1f} KiB "
            f"| {f.idle_cpu_per_seat * 1e6:,.1f} µs/s | {_number(f.idle_redis_calls_per_seat_minute, 2)} "
            f"| {_us(f.cpu_per_move)} | {_number(f.redis_calls_per_move)} | {_us(f.redis_cpu_per_move)} "
            f"| {f.per_second:,.0f} ({asked}) | {_ms(f.percentile(0.5))} / {_ms(f.percentile(0.99))} | {f.errors} "
            f"| {f.refused_joins} | {_us(f.load_cpu_per_move)} | {_number(f.wakeups_per_move)} |"
        )
    return out


def _empty(figures: Sequence[CrowdFigures]) -> list[str]:
    """What the server spends with nobody connected, per store (its smallest crowd's games made)."""
    parts = []
    for store in sorted({f.store for f in figures}):
        first = next(f for f in figures if f.store == store)
        calls = first.empty_redis_calls_per_minute
        redis = f" and {calls:,.0f} Redis calls a minute" if calls is not None else ""
        parts.append(f"{first.empty_cpu * 1e3:,.1f} ms of CPU a second{redis} on the {store} store")
    return [
        "With its games made and no seat connected, the server alone spends "
        + " and ".join(parts)
        + " (gRPC's poller, health probes, the presence lease and notices, a minute's sweep of the games "
        "followed): at a human pace that is part of each move's cost above, the more so the fewer the "
        "moves; a seat's Redis calls are counted beyond the process's own.",
        "",
    ]


def _human(figures: Sequence[CrowdFigures], store: str) -> list[CrowdFigures]:
    return [f for f in figures if f.store == store and f.human and f.workers == 1]


def chart(figures: Sequence[CrowdFigures]) -> str:
    stores = sorted({f.store for f in figures})
    cost = [
        Series(f"{store}: server", [(f.games, f.cpu_per_move * 1e6) for f in _human(figures, store)])
        for store in stores
    ]
    cost += [
        Series("redis: Redis", [(f.games, (f.redis_cpu_per_move or 0) * 1e6) for f in _human(figures, "redis")])
    ] * ("redis" in stores)
    seats = [Series(f"{store}", [(f.games, f.rss_per_seat / 1024) for f in _human(figures, store)]) for store in stores]
    return svg(
        [
            Panel("CPU per move at human pace", "live games", "µs per move", cost),
            Panel("Server memory per connected seat", "live games", "KiB per seat", seats),
        ]
    )


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    value: str
    met: bool


def targets(figures: Sequence[CrowdFigures]) -> list[Target]:
    out: list[Target] = []
    for store in sorted({f.store for f in figures}):
        human = _human(figures, store)
        if not human:
            continue
        base, worst_seat = human[0], max(human, key=lambda f: f.rss_per_seat)
        out.append(
            Target(
                f"{store}: server memory per idle WebSocket seat ≤ 16 KiB",
                f"{worst_seat.rss_per_seat / 1024:,.1f} KiB at {worst_seat.games:,} games",
                worst_seat.rss_per_seat <= SEAT_MEMORY_TARGET,
            )
        )
        # Per move, a crowd is judged against another only if both made moves.
        for f in human[1:] if base.moves else []:
            if not f.moves:
                continue
            ratio = _ratio(f.cpu_per_move, base.cpu_per_move)
            out.append(
                Target(
                    f"{store}: CPU per move at {f.games:,} games within 1.5× of {base.games:,}",
                    f"{ratio:.2f}× ({_us(f.cpu_per_move)} vs {_us(base.cpu_per_move)})",
                    ratio <= SAME_COST,
                )
            )
        full = next((f for f in figures if f.store == store and not f.human and f.games == base.games), None)
        for f in human if full is not None and full.moves else []:
            assert full is not None
            if not f.moves:
                continue
            ratio = _ratio(f.cpu_per_move, full.cpu_per_move)
            out.append(
                Target(
                    f"{store}: a move at human pace, {f.games:,} games, ≤ 1.3× a move under full load "
                    f"({full.games:,} games flat out)",
                    f"{ratio:.2f}× ({_us(f.cpu_per_move)} vs {_us(full.cpu_per_move)})",
                    ratio <= HUMAN_PACE_TARGET,
                )
            )
        if store == "redis":
            out += _redis_targets(human)
    return out


def _redis_targets(human: Sequence[CrowdFigures]) -> list[Target]:
    out = []
    base = human[0]
    worst_idle = max(human, key=lambda f: f.idle_redis_calls_per_seat_minute or 0)
    out.append(
        Target(
            "redis: ≤ 1 Redis call per idle seat per minute",
            f"{_number(worst_idle.idle_redis_calls_per_seat_minute, 2)} at {worst_idle.games:,} games",
            (worst_idle.idle_redis_calls_per_seat_minute or 0) <= IDLE_CALLS_TARGET,
        )
    )
    for f in human if base.moves else []:
        if not f.moves:
            continue
        calls, cpu = f.redis_calls_per_move or 0.0, f.redis_cpu_per_move or 0.0
        base_calls, base_cpu = base.redis_calls_per_move or 0.0, base.redis_cpu_per_move or 0.0
        out.append(
            Target(
                f"redis: ≤ 8 Redis commands per move at {f.games:,} games, within 1.5× of {base.games:,}",
                f"{calls:.1f} ({_ratio(calls, base_calls):.2f}×)",
                calls <= CALLS_PER_MOVE_TARGET and _ratio(calls, base_calls) <= SAME_COST,
            )
        )
        out.append(
            Target(
                f"redis: ≤ 100 µs of Redis CPU per move at {f.games:,} games, within 1.5× of {base.games:,}",
                f"{_us(cpu)} ({_ratio(cpu, base_cpu):.2f}×)",
                cpu <= REDIS_CPU_TARGET and _ratio(cpu, base_cpu) <= SAME_COST,
            )
        )
    return out


def _served(figures: Sequence[CrowdFigures]) -> CrowdFigures | None:
    """The largest crowd whose moves were all served (≥ 95% of those asked)."""
    served = [f for f in figures if f.asked_per_second and f.per_second >= 0.95 * f.asked_per_second]
    return max(served, key=lambda f: f.games, default=None)


def on_paper(figures: Sequence[CrowdFigures]) -> list[str]:
    """What one process, one core, one Redis primary and a Cluster carry, from the
    figures of the largest crowd fully served; then the two-worker check."""
    out = [
        "What the figures above predict beyond this machine, from the largest crowd each store served "
        "whole (every move asked made), for seats at the human pace (a move 2–6 s after each turn: "
        "half of a game that moves every 4 s on average, 1/8 move per second per seat).",
        "",
        "| store | from | moves/s per core | seats per core (CPU) | seats per 512 MiB pod (memory) "
        "| moves/s per Redis primary | runs out first |",
        "|---|---|---|---|---|---|---|",
    ]
    for store in sorted({f.store for f in figures}):
        f = _served(_human(figures, store))
        if f is None or not f.cpu_per_move > 0:  # no crowd served whole, or too short a window to tell
            continue
        per_core = 1 / f.cpu_per_move
        seat_cpu = f.idle_cpu_per_seat + f.cpu_per_move / (SEATS_PER_GAME * 4)
        seats_cpu = 1 / seat_cpu
        seats_memory = POD_MEMORY / max(f.rss_per_seat, 1)
        primary = 1 / f.redis_cpu_per_move if f.redis_cpu_per_move else None
        limits = {"the process's core": seats_cpu, "the pod's memory": seats_memory}
        if primary is not None:
            limits["the Redis primary"] = primary * SEATS_PER_GAME * 4
        first = min(limits, key=lambda name: limits[name])
        out.append(
            f"| {store} | {f.games:,} games | {per_core:,.0f} | {seats_cpu:,.0f} | {seats_memory:,.0f} "
            f"| {_number(primary, 0)} | {first} ({limits[first]:,.0f} seats) |"
        )
    out += [
        "",
        "A Cluster of *k* shards spreads games over its primaries by slot: *k* times one primary's "
        "moves per second, with as many server processes as the cores that takes (each process holds "
        "its seats' sockets; a game's followers on other processes hear of its moves by the shard's "
        "pub/sub, one message per process).",
        "",
    ]
    out += _workers_check(figures)
    return out


def _workers_check(figures: Sequence[CrowdFigures]) -> list[str]:
    """The two-worker run against what the one-worker run predicts: the same cost per
    move on each core (so twice the moves a second, until Redis runs out)."""
    two = next((f for f in figures if f.workers == 2), None)
    one = next(
        (f for f in figures if two and f.workers == 1 and f.human and f.store == two.store and f.games == two.games),
        None,
    )
    if two is None or one is None or not (one.cpu_per_move > 0 and two.cpu_per_move > 0):
        return []
    predicted, measured = 1 / one.cpu_per_move, 1 / two.cpu_per_move
    calls = f"{_number(two.redis_calls_per_move)} Redis commands a move against {_number(one.redis_calls_per_move)}"
    return [
        f"**Checked against two workers** ({two.games:,} games on {two.store}, the same pace, every move asked made: "
        f"{two.per_second:,.0f} a second): one worker's {_us(one.cpu_per_move)} a move predict {predicted:,.0f} moves "
        f"a second per core; two measured {_us(two.cpu_per_move)} a move, {measured:,.0f} per core "
        f"({measured / predicted:.2f}× the prediction; {calls}: a game whose two seats sit on different workers "
        "is read and told on both).",
        "",
    ]


def section(figures: Sequence[CrowdFigures], settings: CapacitySettings, command: str) -> list[str]:
    out = [
        "## Capacity: the crowd",
        "",
        f"`{command}`: a fresh server for each crowd of live two-seat {settings.kind} games, every seat on its "
        "own WebSocket `Play` session with presence and view updates (as the web app joins), held by "
        f"{settings.processes} crowd processes of their own (not counted). Memory per seat is the server's "
        f"RSS after the joins less before (the games already made); then {settings.idle_seconds:g} s idle; "
        f"then {settings.pace_seconds:g} s where a seat plays a "
        f"random legal move {settings.pace[0]:g}–{settings.pace[1]:g} s after its turn comes (longer in a "
        f"crowd that would ask more than {settings.max_rate:g} moves a second in all: the pauses grow in "
        "proportion, so that the machine serves the crowd rather than drives it), counted after a warm-up "
        f"of {settings.warmup:g} s or the longest pause if longer (every game has made its first move, "
        "which also sets its keys' expiry, before the count starts); "
        "the smallest crowd also flat out. Redis figures "
        "are Redis's own (INFO commandstats, counting the commands a script runs; INFO cpu), on a Redis "
        "as deployed (append-only file, fsync on every write). A wake-up is a voluntary context "
        "switch of any of the server's threads (/proc): a thread that slept and was woken again.",
        "",
        *table(figures),
        "",
        *_empty(figures),
        f"![server CPU per move and memory per seat against live games]({CHART})",
        "",
        "| target | measured | |",
        "|---|---|---|",
        *(f"| {t.name} | {t.value} | {'met' if t.met else '**missed**'} |" for t in targets(figures)),
        "",
        "### Capacity on paper",
        "",
        *on_paper(figures),
    ]
    return sections.marked("capacity", out)


def write(output: Path, figures: Sequence[CrowdFigures], settings: CapacitySettings, command: str) -> None:
    existing = output.read_text() if output.exists() else "# Performance\n"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(sections.splice(existing, "capacity", section(figures, settings, command)))
    (output.parent / CHART).write_text(chart(figures))
