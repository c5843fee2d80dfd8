"""The comparison with boardgame.io (service/bench/versus.py) at its quick size: the
Node harness installs from npm, every side plays and every figure comes out. It
asserts no ratio: CI machines vary, and the quick windows last a second."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from service.bench.versus import (
    BGIO,
    OURS_MEMORY,
    OURS_REDIS,
    QUICK,
    SIDES,
    HarnessError,
    install_harness,
    versus_figures,
    versus_markdown,
)


@pytest.mark.slow
def test_a_quick_run_measures_every_side() -> None:
    figures = versus_figures(QUICK)
    assert figures.boardgameio_version.startswith("0.50.")
    for side in SIDES:
        for cold, think in ((True, 0.0), *((False, think) for think in QUICK.paces)):
            windows = figures.select(side, think, cold=cold)
            assert len(windows) == (1 if cold or side != BGIO else 2) * (1 if cold else QUICK.rounds), (side, cold)
            for window in windows:
                assert window.moves > 0, window
                assert window.cpu_us > 0, window
                assert 0 < window.p50 <= window.p99 < 10, window
                assert window.errors == 0, window
                assert (window.redis_cpu_seconds > 0) == (side == OURS_REDIS), window
    for think in QUICK.paces:
        for side in (OURS_MEMORY, OURS_REDIS):
            assert math.isfinite(figures.ratio(side, think)) and figures.ratio(side, think) > 0

    lines = versus_markdown(figures)
    assert lines[0] == "## Per move against boardgame.io"
    width = len(next(line for line in lines if line.startswith("| Pace | Side")).split("|"))
    rows = [line.strip("|").split("|") for line in lines if line.startswith("| ") and len(line.split("|")) == width]
    # The header, then each side cold and at every pace: its CPU per move a number.
    assert len(rows) == 1 + len(SIDES) * (1 + len(QUICK.paces))
    assert all(float(cells[4].replace(",", "")) > 0 for cells in rows[1:])
    verdicts = [line for line in lines if line.startswith("- Target")]
    assert len(verdicts) == 2 and all(line.endswith(("**met**.", "**not met**.")) for line in verdicts)
    assert any("not measurements" in line for line in lines)


def test_without_npm_the_harness_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no node, no npm
    with pytest.raises(HarnessError, match=r"Node\.js and npm"):
        install_harness()
