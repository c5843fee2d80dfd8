"""The in-process sections: engines and replay, ReplayGame at a late version, the
game's own work per move against GameApp's, and long games with and without snapshots."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.bench.run import Results

from service.bench.report.numbers import number


def engines_table(results: Results) -> list[str]:
    lines = [
        "| game | moves chosen by | full games per second | moves per game | replay: events per second "
        "| protobuf parse alone: events per second | replay / parse |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in results.engines:
        player = "random legal moves" if f.player == "random" else f"the {f.player} bot"
        lines.append(
            f"| {f.kind} | {player} | {number(f.games_per_second, 1)} | {number(f.moves_per_game)} "
            f"| {number(f.replay_events_per_second)} | {number(f.parse_events_per_second)} "
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


def replay_game_table(results: Results) -> list[str]:
    lines = [
        "| game | version replayed (events folded) | CPU per `ReplayGame` | events per second |",
        "|---|---|---|---|",
    ]
    for r in results.replay_game:
        lines.append(f"| {r.kind} | {r.events:,} | {r.us_per_call / 1000:,.2f} ms | {number(r.events_per_second)} |")
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
            f"| {w.kind} | {number(w.app.us_per_move)} ({w.app.calls_per_move:.2f}) | {number(w.engine_us, 1)} "
            f"| {number(w.descriptions_us, 1)} | {number(w.own_us, 1)} | {w.app_to_own:.2f}× "
            f"| {w.app.us_per_move / w.engine_us:.2f}× |"
        )
    return lines
