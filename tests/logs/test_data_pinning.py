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
from pathlib import Path

import pytest

from engines.registry import ENGINES, GAMES
from tests.support.server import ROOT


def _edit(path: Path) -> None:
    """The data file changed as an edit of the rules would: one more entry in it (its
    parsed content differs, so does its digest)."""
    document = json.loads(path.read_text())
    document["changed_by_a_test"] = True
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2))


# Each game a server plays by default with the data it registers (engines/<kind>/__init__.py),
# and a golden log of it (seeds/replays/<kind>/).
DATA_FILES = {kind: sorted(data.documents) for kind in ENGINES if (data := GAMES[kind].data) is not None}


def verify(log: Path, seeds: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service", "verify", str(log)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LUDOTHEQUE_SEEDS": str(seeds)},
    )


@pytest.mark.parametrize("kind", sorted(DATA_FILES))
def test_a_golden_log_is_refused_once_its_game_data_changed(kind: str, tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    shutil.copytree(ROOT / "seeds", seeds, ignore=shutil.ignore_patterns("replays"))
    log = ROOT / "seeds" / "replays" / kind / "game-1.jsonl"
    assert verify(log, seeds).returncode == 0, "an unchanged copy of the data replays the log"

    _edit(seeds / kind / DATA_FILES[kind][0])
    refused = verify(log, seeds)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    version = ENGINES[kind].rules_version
    assert f"INVALID at the header: this {kind} game was played under rules {version}" in refused.stdout
    assert "which this build no longer has" in refused.stdout
