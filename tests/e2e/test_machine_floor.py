"""`python -m service.bench.machine_floor` (the machine's cost of a wake-up, of an
fsync'd write and of a move's own work once cold, which PERFORMANCE.md quotes) runs
and reports every row. No speed is asserted: CI machines vary."""

from __future__ import annotations

import subprocess
import sys

from tests.support.server import ROOT


def test_the_machine_floor_reports_each_wakeup_each_write_and_the_move_at_each_pace() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service.bench.machine_floor", "20"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and "µs" in line]
    assert [row.split("|")[1].strip() for row in rows] == [
        "back to back",
        "1 ms apart",
        "50 ms apart",
        "fsync on every write, 20 a second",
        "fsync on every write, flat out",
        "no append-only file, 20 a second",
        "no append-only file, flat out",
        "back to back",
        "50 ms asleep before each",
        "50 ms busy (spinning) before each",
    ]
