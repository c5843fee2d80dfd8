"""The comparison with boardgame.io (service/bench/versus.py) at its quick size: the
Node harness installs from npm, every side plays and every figure comes out well
formed. It asserts no ratio, and nothing a window of a second managed: on a busy
machine a side may make no move in it, and then its figures per move are "–"."""

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
    VersusFigures,
    VersusSettings,
    VersusWindow,
    install_harness,
    schedule,
    versus_figures,
    versus_markdown,
)


def _check_window(window: VersusWindow) -> None:
    """Each figure of a window well formed; those per move there only if it made moves."""
    assert window.moves >= 0 and window.games_created >= 0 and window.errors == 0, window  # no call failed
    for seconds in (window.cpu_seconds, window.load_cpu_seconds, window.redis_cpu_seconds):
        assert math.isfinite(seconds) and seconds >= 0, window
    assert (window.redis_cpu_seconds == 0) or window.side == OURS_REDIS, window  # Redis is ours alone
    per_move = (window.cpu_us, window.load_cpu_us, window.redis_cpu_us)
    if window.moves:
        assert all(math.isfinite(us) and us >= 0 for us in per_move), window
        assert 0 < window.p50 <= window.p99 and math.isfinite(window.p99), window
    else:
        assert all(math.isnan(us) for us in per_move), window


def _check_markdown(figures: VersusFigures) -> list[list[str]]:
    """The section's shape, whatever the windows made; its rows of figures."""
    lines = versus_markdown(figures)
    assert lines[0] == "## Per move against boardgame.io"
    assert not any("nan" in line.lower().split() for line in lines)
    width = len(next(line for line in lines if line.startswith("| Pace | Side")).split("|"))
    rows = [line.strip("|").split("|") for line in lines if line.startswith("| ") and len(line.split("|")) == width]
    # The header, then each side cold and at every pace: its CPU per move a number, or "–"
    # when none of its windows made a move.
    assert len(rows) == 1 + len(SIDES) * (1 + len(figures.settings.paces))
    for cells in rows[1:]:
        cpu = cells[4].strip()
        assert cpu == "–" or float(cpu.replace(",", "")) >= 0, cells
    verdicts = [line for line in lines if line.startswith("- Target")]
    assert len(verdicts) == 2 and all(line.endswith(("**met**.", "**not met**.")) for line in verdicts)
    return rows


@pytest.mark.slow
def test_a_quick_run_measures_every_side() -> None:
    figures = versus_figures(QUICK)
    assert figures.boardgameio_version.startswith("0.50.")
    for side in SIDES:
        for cold, think in ((True, 0.0), *((False, think) for think in QUICK.paces)):
            windows = figures.select(side, think, cold=cold)
            assert len(windows) == (1 if cold or side != BGIO else 2) * (1 if cold else QUICK.rounds), (side, cold)
            for window in windows:
                _check_window(window)
    for think in QUICK.paces:
        for side in (OURS_MEMORY, OURS_REDIS):
            ratio = figures.ratio(side, think)
            moved = all(w.moves for s in (side, BGIO) for w in figures.select(s, think))
            assert ratio >= 0 if moved and figures.median_of(BGIO, think, "cpu_us") > 0 else math.isnan(ratio)
    _check_markdown(figures)
    assert any("not measurements" in line for line in versus_markdown(figures))


def _window(side: str, moves: int, cold: bool = False) -> VersusWindow:
    latencies = (0.004, 0.009) if moves else (math.nan, math.nan)
    return VersusWindow(side, 0.0, cold, 1.0, moves, 0.5 if moves else 0.01, 0.1 * (side == OURS_REDIS), 0.2,
                        *latencies, 0, 0)  # fmt: skip


def test_a_side_that_made_no_move_in_its_window_reports_none_rather_than_failing() -> None:
    # boardgame.io made no move in its one-second windows (a busy machine), ours did.
    windows = tuple(_window(side, 0 if side == BGIO else 250, cold) for side, _, cold in schedule(QUICK))
    figures = VersusFigures(QUICK, windows, "v20", "0.50.2")
    for window in windows:
        _check_window(window)
    assert math.isnan(figures.ratio(OURS_MEMORY, 0.0)) and not figures.met(OURS_MEMORY)
    rows = _check_markdown(figures)
    bgio = [cells for cells in rows[1:] if "boardgame.io" in cells[1]]
    assert bgio and all(cells[3].strip() == "0" and cells[4].strip() == "–" for cells in bgio)
    ours = [cells for cells in rows[1:] if "ours" in cells[1]]
    assert ours and all(cells[4].strip() == "2,000" for cells in ours)


def test_without_npm_the_harness_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no node, no npm
    with pytest.raises(HarnessError, match=r"Node\.js and npm"):
        install_harness()


def test_a_window_too_short_to_measure_is_left_out_of_the_medians() -> None:
    settings = VersusSettings(games=4, duration=1.0, warmup=0.3, rounds=2, paces=(0.0,), load_processes=1)
    # boardgame.io's warm windows: two without a move, two whose server did not use a tick of CPU.
    idle = VersusWindow(BGIO, 0.0, False, 1.0, 40, 0.0, 0.0, 0.1, 0.004, 0.009, 0, 0)
    bgio = iter([_window(BGIO, 0), idle, idle, _window(BGIO, 0)])
    windows = tuple(
        next(bgio) if side == BGIO and not cold else _window(side, 250, cold) for side, _, cold in schedule(settings)
    )
    figures = VersusFigures(settings, windows, "v20", "0.50.2")
    assert figures.median_of(BGIO, 0.0, "cpu_us") == 0.0  # the windows of no move are not in it
    assert math.isnan(figures.ratio(OURS_MEMORY, 0.0)) and not figures.met(OURS_REDIS)  # nothing to divide by
    _check_markdown(figures)
