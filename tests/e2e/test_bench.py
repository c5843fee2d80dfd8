"""`ludotheque bench --quick` runs the whole benchmark in seconds and reports every
figure, so the benchmark never rots. It asserts no speed, and nothing a wall-clock
window managed: on a busy machine a quick window may make no move. Each figure must
be there and well formed (a number with its unit); a figure of a window that made no
call is "–", never a crash or a "nan"."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

from engines.registry import ENGINES
from service.bench import capacity_report, sections
from service.bench.capacity import CapacitySettings, CrowdFigures
from service.bench.report import PATH_NAMES, markdown, summary
from service.bench.report.transports import FLOOR_OF
from service.bench.run import BOT_PATHS, FLOORS, GAME_PATHS, Measured, MemoryFigure, Results, Settings
from tests.support.server import ROOT

NUMBER = r"[-+]?\d[\d,]*(?:\.\d+)?"
NAMES = {name: path for path, name in PATH_NAMES.items() if path != "scale"}
STORES = ("memory", "redis")


def figure(cell: str, unit: str = "") -> float:
    """The number a well-formed cell holds (digits, then its unit); fails otherwise."""
    assert re.fullmatch(NUMBER + re.escape(unit), cell), f"{cell!r} is not a figure in {unit or 'no unit'}"
    value = float(cell.removesuffix(unit).replace(",", ""))
    assert math.isfinite(value), cell
    return value


def measured(cell: str, unit: str, made_calls: bool) -> None:
    """A figure of one window: well formed when the window made calls, "–" when none."""
    if made_calls:
        figure(cell, unit)
    else:
        assert cell == "–", cell


def derived(cell: str, unit: str) -> None:
    """A figure from other rows' (a ratio): well formed, or "–" when one of them is missing."""
    if cell != "–":
        figure(cell, unit)


def no_nan(text: str) -> bool:
    return re.search(r"\bnan\b", text, re.IGNORECASE) is None


def _rows(report: str, heading: str) -> list[list[str]]:
    section = report.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("|---")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]  # without the header


def bench(output: Path, *options: str) -> str:
    """`ludotheque bench --quick` with `options`, writing `output`: the report it wrote."""
    done = subprocess.run(
        [sys.executable, "-m", "service", "bench", "--quick", *options, "--output", str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return output.read_text()


def test_a_quick_run_reports_every_figure(tmp_path: Path) -> None:
    report = bench(tmp_path / "PERFORMANCE.md")
    assert "not measurements" in report  # a quick run says it is not a measure
    assert no_nan(report)
    calls = _check_moves(_rows(report, "Moves, per path and store"))
    _check_floors(_rows(report, "The transports' floor, and our work on top"), calls)
    _check_windows(report)
    _check_in_process(report)
    _check_targets(report, calls)
    assert re.search(r"\| CPU model \| .+ \|", report) and "| Python |" in report


def _check_moves(moves: list[list[str]]) -> dict[tuple[str, str], bool]:
    """Every path on both stores, each figure well formed; whether each window made calls."""
    paths = [path for path in (*FLOORS, *GAME_PATHS, *BOT_PATHS) if path != "stream"]
    assert [(NAMES[row[0]], row[1]) for row in moves] == [(path, store) for store in STORES for path in paths]
    calls = {}
    for row in moves:
        path, store = NAMES[row[0]], row[1]
        rate, unit = row[3].split(" ")
        assert unit == ("calls" if path.endswith("echo") else "moves"), row
        # A quick window lasts 0.5 s: one call in it makes 2 a second, so "0" means none.
        made = calls[(path, store)] = figure(rate) > 0
        for cell in (*row[4:7], row[8], row[10]):  # p50, p90, p99 ms, server CPU µs, RPCs each
            measured(cell, "", made)
        derived(row[7], "×")  # p99 / p50
        derived(row[9], "×")  # against the echo: "–" when the echo's window made none
        busy = row[11].split(" / ")
        assert len(busy) == (3 if store == "redis" else 2) and all(figure(cores) >= 0 for cores in busy), row
        assert figure(row[12]) >= 0 and figure(row[13]) >= 0, row  # errors, games created in the window
    return calls


def _check_floors(floors: list[list[str]], calls: dict[tuple[str, str], bool]) -> None:
    """Every move path over its transport's floor, on both stores, each figure well formed."""
    paths = [path for path in (*GAME_PATHS, *BOT_PATHS) if path in FLOOR_OF]
    assert [(NAMES[row[0]], row[1]) for row in floors] == [(path, store) for store in STORES for path in paths]
    for row in floors:
        path, store = NAMES[row[0]], row[1]
        move, floor = calls[(path, store)], calls[(FLOOR_OF[path], store)]
        assert NAMES[row[2]] == FLOOR_OF[path], row
        measured(row[3], "", floor)  # the floor's µs each
        for cell in (row[4], row[5], row[7]):  # units per move, floor µs per move, our work
            measured(cell, "", floor and move)
        measured(row[6], "", move)  # the move's µs
        derived(row[8], "×")


def _check_windows(report: str) -> None:
    """StreamEvents, memory per game and 1 against 2 workers."""
    stream = _rows(report, "Live events: StreamEvents fan-out")
    assert [row[0] for row in stream] == list(STORES)
    for row in stream:
        delivered = figure(row[2]) > 0
        assert figure(row[3]) >= 0, row  # moves a second
        derived(row[4], "")  # fan-out p50 and p99: events delivered as history have no delay
        derived(row[5], "")
        measured(row[6], "", delivered)
        derived(row[7], "×")
    memory = _rows(report, "Memory per live game")  # games made before any window: always measured
    assert [(row[0], figure(row[1])) for row in memory] == [("memory", 16), ("redis", 16)]
    assert all(figure(row[2], " KiB") is not None for row in memory)
    assert memory[0][3] == "–" and figure(memory[1][3], " KiB") is not None
    scale = _rows(report, "Scale: 1 and 2 workers sharing Redis")
    assert [row[0] for row in scale] == ["1", "2"]
    for row in scale:
        made = figure(row[1]) > 0
        for cell in row[2:5]:  # p50, p99 ms, server CPU µs per move
            measured(cell, "", made)
        assert all(figure(cell) >= 0 for cell in row[5:8]), row  # cores busy


def _check_in_process(report: str) -> None:
    """The figures measured over CPU budgets, or over a number of moves: always produced."""
    # Two tables in that section: the engines', then ReplayGame's (its header a row here).
    engine_rows = [row for row in _rows(report, "Engines and replay") if row[0] != "game"]
    engines = [row for row in engine_rows if not row[2].endswith(" ms")]
    assert [row[0] for row in engines] == sorted(ENGINES)
    assert all(figure(row[2]) > 0 and figure(row[3]) > 0 and figure(row[6], "%") >= 0 for row in engines)
    replayed = [row for row in engine_rows if row[2].endswith(" ms")]
    assert [row[0] for row in replayed] == sorted(ENGINES)  # ReplayGame at a late version
    assert all(figure(row[1]) > 0 and figure(row[2], " ms") >= 0 for row in replayed)
    work = _rows(report, "The game's own work, per move")
    assert [row[0] for row in work] == sorted(ENGINES)
    assert all(figure(row[5], "×") >= 0 and figure(row[6], "×") >= 0 for row in work)  # GameApp / the engine's
    long_games = _rows(report, "Long games: snapshots")
    assert len(long_games) == 4
    assert all(figure(row[1], " ms") >= 0 and figure(row[2], " ms") >= 0 for row in long_games)
    assert "`ludotheque bench --attacks`" in report.split("## Under attack", 1)[1]  # a run of its own
    observation = _rows(report, "Observability: what tracing and the access log cost")
    assert len(observation) == 4 and all(figure(row[1], " µs") >= 0 for row in observation)
    assert observation[0][2] == "" and all(figure(row[2], " µs") is not None for row in observation[1:])


def _check_targets(report: str, calls: dict[tuple[str, str], bool]) -> None:
    targets = _rows(report, "Targets")  # then the retired ones, without met or missed
    live = [row for row in targets if len(row) == 3]
    # Replay against the parse, GameApp's own work and memory per game are judged in every
    # run (3 + 3 + 2); a target of a window that made no move is left out.
    assert len(live) >= 8 and all(row[2] in ("met", "**missed**") for row in live)
    assert all(re.fullmatch(NUMBER + r"(×|%| KiB)", row[1]) for row in live), live
    retired = [row for row in targets if len(row) == 2 and row[0] != "former target"]
    # Issue 30 retired the echo ratios: shown as figures, never as targets met or missed.
    assert all("echo" in row[0] and figure(row[1], "×") >= 0 for row in retired)
    assert retired or not (calls[("unary", "memory")] and calls[("echo", "memory")])
    assert not [row for row in live if "echo" in row[0]]


def silent_run() -> Results:
    """A run whose every window made no call (a machine too busy to serve one in time),
    on both stores and both scales; memory per game measured, nothing else."""
    settings = Settings("mooki", 4, 0.5, 0.3, 2, STORES, 2, 2, 16, True, 0.05)
    results = Results(settings)
    for store in STORES:
        for path in (*FLOORS, *GAME_PATHS, *BOT_PATHS):
            results.measured.append(Measured(path, store, 1, 4, 0.5, 0, 0, 0.0, [], 0, 0))
    for workers in (1, 2):
        results.measured.append(Measured("scale", "redis", workers, 4, 0.5, 0, 0, 0.0, [], 0, 0))
    results.memory = [MemoryFigure("memory", 16, 45_000.0), MemoryFigure("redis", 16, 85_000.0, 51_000.0)]
    return results


def test_a_run_whose_windows_made_no_move_reports_none_rather_than_failing() -> None:
    results = silent_run()
    report = markdown(results, "ludotheque bench --quick")
    assert no_nan(report) and no_nan(summary(results))
    moves = _rows(report, "Moves, per path and store")
    calls = _check_moves(moves)
    assert not any(calls.values()) and all(row[3] in ("0 calls", "0 moves") for row in moves)
    _check_floors(_rows(report, "The transports' floor, and our work on top"), calls)
    _check_windows(report)
    live = [row for row in _rows(report, "Targets") if len(row) == 3]
    assert [row[1] for row in live] == ["43.9 KiB", "83.0 KiB"]  # memory per game alone: no ratio of none
    assert "2 workers / 1 worker: **–**" in report


def _check_crowd(row: list[str]) -> None:
    moved = figure(row[10].split(" ")[0]) > 0  # moves a second (a pace window of 1.5 s: "0" is none)
    assert figure(row[4], " KiB") is not None, row  # memory per seat, measured after the joins
    measured(row[7], " µs", moved)  # CPU per move
    measured(row[15], "", moved)  # server wake-ups per move
    if row[1] == "redis":
        measured(row[8], "", moved)  # Redis commands per move
        measured(row[9], " µs", moved)  # Redis CPU per move
    assert row[12] == "0", row  # no move failed


def test_a_quick_capacity_run_rewrites_its_section_alone_and_draws_its_chart(tmp_path: Path) -> None:
    output = tmp_path / "PERFORMANCE.md"
    output.write_text("# Performance\n\n## Moves\n\nkept as it was\n\n## Profile and what was removed\n\nkept too\n")
    report = bench(output, "--capacity")
    assert "kept as it was" in report and report.index("## Capacity: the crowd") < report.index("kept too")
    crowd = [row for row in _rows(report, "Capacity: the crowd") if "/" in row[0] and row[1] in ("memory", "redis")]
    # Both stores, both crowds, the smallest flat out too, then two workers on Redis.
    assert [(row[0], row[1], row[2], row[3]) for row in crowd] == [
        ("2 / 4", "memory", "1", "0.05–0.2 s"),
        ("2 / 4", "memory", "1", "flat out"),
        ("8 / 16", "memory", "1", "0.05–0.2 s"),
        ("2 / 4", "redis", "1", "0.05–0.2 s"),
        ("2 / 4", "redis", "1", "flat out"),
        ("8 / 16", "redis", "1", "0.05–0.2 s"),
        ("8 / 16", "redis", "2", "0.05–0.2 s"),
    ]
    for row in crowd:
        _check_crowd(row)
    assert "### Capacity on paper" in report
    # The two workers' check needs both of its crowds to have moved (and their server's CPU ticked).
    both_moved = all(figure(row[10].split(" ")[0]) > 0 for row in crowd if row[0] == "8 / 16" and row[1] == "redis")
    assert "Checked against two workers" in report or not both_moved
    chart = (tmp_path / "capacity.svg").read_text()
    assert chart.startswith("<svg") and chart.count("<polyline") == 5  # 2 stores' server, Redis, 2 memory


def _still_crowd(store: str, games: int, workers: int = 1, pace: tuple[float, float] = (0.05, 0.2)) -> CrowdFigures:
    """A crowd that joined and sat idle, then made no move in its pace window."""
    on_redis = store == "redis"
    return CrowdFigures(
        store=store,
        games=games,
        seats=2 * games,
        workers=workers,
        pace=pace,
        join_seconds=0.4,
        refused_joins=0,
        rss_per_seat=60_000.0,
        idle_cpu_per_seat=2e-6,
        idle_redis_calls_per_minute=60.0 if on_redis else None,
        empty_redis_calls_per_minute=30.0 if on_redis else None,
        empty_cpu=0.002,
        seconds=1.5,
        moves=0,
        errors=0,
        cpu_seconds=0.0,
        wakeups=0,
        load_cpu_seconds=0.0,
        redis_calls=0 if on_redis else None,
        redis_cpu_seconds=0.0 if on_redis else None,
    )


def test_a_crowd_that_made_no_move_reports_none_rather_than_failing(tmp_path: Path) -> None:
    from service.bench.capacity import FLAT_OUT

    figures = [
        *(_still_crowd(store, games) for store in STORES for games in (2, 8)),
        _still_crowd("memory", 2, pace=FLAT_OUT),
        _still_crowd("redis", 8, workers=2),
    ]
    capacity_report.write(tmp_path / "PERFORMANCE.md", figures, CapacitySettings(), "ludotheque bench --capacity")
    report = (tmp_path / "PERFORMANCE.md").read_text()
    assert no_nan(report)
    crowd = [row for row in _rows(report, "Capacity: the crowd") if "/" in row[0] and row[1] in STORES]
    assert len(crowd) == len(figures)
    for row in crowd:
        _check_crowd(row)
        assert row[10].startswith("0 "), row
    assert "### Capacity on paper" in report and "Checked against two workers" not in report
    chart = (tmp_path / capacity_report.CHART).read_text()
    assert chart.startswith("<svg") and "nan" not in chart


def test_the_main_report_keeps_the_sections_its_other_runs_wrote() -> None:
    old = "\n".join(
        [
            "# Performance",
            "old figures",
            *sections.marked("capacity", ["## Capacity: the crowd", "crowd figures"]),
            *sections.marked("versus", ["## Per move against boardgame.io", "versus figures"]),
            "## Profile and what was removed",
        ]
    )
    new = "# Performance\n\nnew figures\n\n## Profile and what was removed\n\nprofile\n"
    kept = sections.keep(old, new)
    assert "new figures" in kept and "old figures" not in kept
    assert kept.index("new figures") < kept.index("crowd figures") < kept.index("versus figures")
    assert kept.index("versus figures") < kept.index("## Profile and what was removed")
    # Written again, a section replaces itself, once.
    again = sections.splice(kept, "versus", sections.marked("versus", ["## Per move against boardgame.io", "v2"]))
    assert "v2" in again and "versus figures" not in again and again.count(sections.start("versus")) == 1
