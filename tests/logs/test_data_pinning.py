"""A golden log replays only with the game data it was dealt with: with a data file
changed (in a copy of seeds/, through LUDOTHEQUE_SEEDS, as an installed server reads
it), `ludotheque verify` refuses it, naming the rules version, instead of replaying
another game."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engines.registry import ENGINES
from tests.support.server import ROOT


def _edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2))


def _move_a_friend(boards: dict[str, Any]) -> None:
    starts = boards["boards"]["easy"]["friend_starts"]
    starts["Lapin"] = "F1"


def _turn_a_card_over(cards: dict[str, Any]) -> None:
    card = cards["cards"][0]
    card["faces"] = list(reversed(card["faces"]))


def _move_the_island(lanes: dict[str, Any]) -> None:
    lanes["spaces_to_island"] = 6


CHANGES = {
    "mooki": ("cards.json", _turn_a_card_over),
    "pirates": ("sea_lanes.json", _move_the_island),
    "picnic": ("boards.json", _move_a_friend),
}


def verify(log: Path, seeds: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service", "verify", str(log)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LUDOTHEQUE_SEEDS": str(seeds)},
    )


@pytest.mark.parametrize("kind", sorted(CHANGES))
def test_a_golden_log_is_refused_once_its_game_data_changed(kind: str, tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    shutil.copytree(ROOT / "seeds", seeds, ignore=shutil.ignore_patterns("replays"))
    log = ROOT / "seeds" / "replays" / kind / "game-1.jsonl"
    assert verify(log, seeds).returncode == 0, "an unchanged copy of the data replays the log"

    name, change = CHANGES[kind]
    _edit(seeds / kind / name, change)
    refused = verify(log, seeds)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    version = ENGINES[kind].rules_version
    assert f"INVALID at the header: this {kind} game was played under rules {version}" in refused.stdout
    assert "which this build no longer has" in refused.stdout
