"""docs/PERFORMANCE.md in order (title, how to run it, method, machine, targets, why,
then each measure's section, then the profile), and the short summary on stdout."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.bench.report.analysis import analysis
from service.bench.report.in_process import engines_table, long_games_table, replay_game_table, work_table
from service.bench.report.machine import machine
from service.bench.report.method import METHOD
from service.bench.report.observability import observation_section
from service.bench.report.profile_notes import PROFILE
from service.bench.report.store_alone import store_cost_section
from service.bench.report.targets import retired_targets, targets
from service.bench.report.transports import floor_table, memory_table, moves_table, scale_table, stream_table

if TYPE_CHECKING:
    from service.bench.run import Results

# The attack bench writes its figures into docs/SECURITY.md (attacks_report.py).
UNDER_ATTACK = (
    "Measured by a run of its own since issue 42 (`ludotheque bench --attacks`): an honest player's calls"
    " beside each attack class, on one server on the Redis store, each class's promise, figures and target"
    " in [SECURITY.md](SECURITY.md#measured-the-attack-bench)."
)


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
        "ludotheque bench --attacks --output docs/SECURITY.md       # the attack bench: its section of SECURITY.md",
        "ludotheque bench --bots-beside --output docs/PERFORMANCE.md  # bots thinking beside the moves (40 s)",
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
    out += ["## Under attack", "", UNDER_ATTACK, ""]
    out += observation_section(results)
    out += ["## Profile and what was removed", "", *PROFILE.splitlines(), ""]
    return out
