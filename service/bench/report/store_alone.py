"""The section on the store's own cost per move: the appends GameApp made, made again
on each store alone (service/bench/store_cost.py), and what durability costs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.bench.run import Results

from service.bench.report.numbers import number
from service.bench.store_cost import CONCURRENCY

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
        redis_cpu = "–" if f.redis_us_per_append is None else number(f.redis_us_per_append)
        trips = "–" if f.round_trips_per_append is None else f"{f.round_trips_per_append:.2f}"
        lines.append(
            f"| {STORE_NAMES.get(f.store, f.store)} | {f.subscribers} | {f.appends:,} | {number(f.us_per_append)} "
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
