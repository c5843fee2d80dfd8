"""`ludotheque bench --quick` runs the whole benchmark in seconds and reports every
figure, so the benchmark never rots. It asserts no speed: CI machines vary."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from engines.registry import ENGINES
from service.bench import sections
from service.bench.attacks import ATTACKS
from service.bench.report import PATH_NAMES
from tests.support.server import ROOT


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

    moves = _rows(report, "Moves, per path and store")
    assert {(row[0], row[1]) for row in moves} == {
        (PATH_NAMES[path], store)
        for path in (
            *("echo", "stream-echo", "connect-echo", "rest-echo", "ws-echo"),
            *("unary", "unary-bot", "play", "play-bot", "ws-play", "ws-play-bot", "rest"),
        )
        for store in ("memory", "redis")
    }
    floors = _rows(report, "The transports' floor, and our work on top")
    assert {(row[0], row[1]) for row in floors} == {
        (PATH_NAMES[path], store)
        for path in ("unary", "unary-bot", "play", "play-bot", "ws-play", "ws-play-bot", "rest")
        for store in ("memory", "redis")
    }
    stream = _rows(report, "Live events: StreamEvents fan-out")
    assert [row[0] for row in stream] == ["memory", "redis"]
    memory = _rows(report, "Memory per live game")
    assert [row[0] for row in memory] == ["memory", "redis"] and memory[1][3].endswith("KiB")
    scale = _rows(report, "Scale: 1 and 2 workers sharing Redis")
    assert [row[0] for row in scale] == ["1", "2"]
    # Two tables in that section: the engines', then ReplayGame's (its header a row here).
    engine_rows = [row for row in _rows(report, "Engines and replay") if row[0] != "game"]
    engines = [row for row in engine_rows if not row[2].endswith(" ms")]
    assert [row[0] for row in engines] == sorted(ENGINES)
    long_games = _rows(report, "Long games: snapshots")
    assert len(long_games) == 4 and all(row[1].endswith(" ms") and row[2].endswith(" ms") for row in long_games)
    attacked = _rows(report, "Under attack")
    assert [row[0] for row in attacked] == list(ATTACKS)  # the quiet baseline, then each attack class
    assert all(int(row[5].replace(",", "")) > 0 and row[6].endswith(" ms") for row in attacked)  # the victim moved
    replayed = [row for row in engine_rows if row[2].endswith(" ms")]
    assert [row[0] for row in replayed] == sorted(ENGINES)  # ReplayGame at a late version
    work = _rows(report, "The game's own work, per move")
    assert [row[0] for row in work] == sorted(ENGINES)
    assert all(row[5].endswith("×") for row in work)  # GameApp against the engine's own work
    for row in moves + floors + stream + scale + engines + work:
        assert "–" not in row, row  # every figure measured (– stands for none)
    for row in memory:
        assert "–" not in row[:3], row

    observation = _rows(report, "Observability: what tracing and the access log cost")
    assert len(observation) == 4 and all(row[1].endswith("µs") for row in observation)
    assert [row[2].endswith("µs") for row in observation] == [False, True, True, True]  # added to the first

    targets = _rows(report, "Targets")  # then the retired ones, without met or missed
    live = [row for row in targets if len(row) == 3]
    assert len(live) >= 8 and all(row[2] in ("met", "**missed**") for row in live)
    retired = [row for row in targets if len(row) == 2 and row[0] != "former target"]
    # Issue 30 retired the echo ratios: shown as figures, never as targets met or missed.
    assert retired and all("echo" in row[0] for row in retired)
    assert not [row for row in live if "echo" in row[0]]
    assert re.search(r"\| CPU model \| .+ \|", report) and "| Python |" in report


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
        assert row[4].endswith("KiB") and row[7].endswith("µs"), row  # memory per seat, CPU per move
        assert int(row[10].split(" ")[0].replace(",", "")) > 0, row  # moves were made
        assert row[12] == "0", row  # no move failed
        woken = float(row[15].replace(",", ""))  # wake-ups per move: flat out, the server may never sleep
        assert woken > 0 if row[3] != "flat out" else woken >= 0, row
    assert all(row[8] != "–" and row[9].endswith("µs") for row in crowd if row[1] == "redis")
    assert "Capacity on paper" in report and "Checked against two workers" in report
    chart = (tmp_path / "capacity.svg").read_text()
    assert chart.startswith("<svg") and chart.count("<polyline") == 5  # 2 stores' server, Redis, 2 memory


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
