"""The benchmark of bots thinking beside the moves (service/bench/bots_beside.py) at its
quick size: every window comes out, the honest player moves in each, the thinking bots
choose (once at least, whatever the window allowed) on the loop in one and in the workers
in the other, and the section is written into the report. It asserts no latency: a window
of a second on a busy machine says nothing a test may rely on."""

from __future__ import annotations

import math
from pathlib import Path

from service.bench import sections
from service.bench.bots_beside import (
    IN_WORKERS,
    INLINE,
    MIN_MOVES,
    QUICK,
    QUIET,
    bots_beside_figures,
    bots_beside_markdown,
)


def test_the_quick_run_measures_each_window_and_writes_its_section(tmp_path: Path) -> None:
    windows = bots_beside_figures(QUICK)
    assert [window.name for window in windows] == [QUIET, INLINE, IN_WORKERS]
    quiet, inline, in_workers = windows
    for window in windows:
        assert len(window.moves) >= MIN_MOVES and window.seconds >= QUICK.window, window.name
        assert 0 < window.p50 <= window.percentile(0.99) and math.isfinite(window.percentile(0.99))
    assert quiet.bot_choices == 0 and quiet.in_workers == 0
    assert inline.bot_choices >= QUICK.thinkers and inline.in_workers == 0  # thought on the loop
    assert in_workers.in_workers == in_workers.bot_choices >= QUICK.thinkers  # every choice of theirs in a worker
    lines = bots_beside_markdown(windows, QUICK, "ludotheque bench --quick --bots-beside")
    report = tmp_path / "PERFORMANCE.md"
    report.write_text("# Performance\n\n## Profile and what was removed\n")
    report.write_text(sections.splice(report.read_text(), "bots-beside", sections.marked("bots-beside", lines)))
    text = report.read_text()
    assert text.index(sections.start("bots-beside")) < text.index("## Profile and what was removed")
    assert all(f"| {window.name} | {len(window.moves)} |" in text for window in windows)
