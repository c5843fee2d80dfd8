"""Golden logs change only on purpose (scripts/golden.py): regenerating them today gives
the very files committed; a log that would differ under the rules version it was
written with is kept, and the difference shown; with a new rules version it is rewritten."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engines.registry import ENGINES
from scripts.golden import REPLAYS, refresh, render


@pytest.mark.parametrize("kind", sorted(ENGINES))
def test_regenerating_the_golden_logs_changes_nothing(kind: str) -> None:
    committed = {path.name: path.read_text() for path in (REPLAYS / kind).glob("*")}
    assert render(kind) == committed, f"the engine now plays the golden {kind} games differently"


def _copy(kind: str, tmp_path: Path) -> Path:
    folder = tmp_path / kind
    shutil.copytree(REPLAYS / kind, folder)
    return folder


def test_a_log_that_would_change_under_the_same_rules_version_is_kept_and_the_diff_shown(tmp_path: Path) -> None:
    folder = _copy("mooki", tmp_path)
    log = folder / "game-2.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace('"version":"3"', '"version":"3","commandId":"what the engine no longer does"')
    log.write_text("".join(lines))  # as if the engine had written it so, and now wrote otherwise
    before = {path.name: path.read_text() for path in folder.glob("*")}

    outcome = refresh("mooki", folder)
    assert outcome.written == ["game-2.jsonl"] and len(outcome.refused) == 1
    diff = outcome.refused[0]
    assert "game-2.jsonl (written)" in diff and "what the engine no longer does" in diff
    assert {path.name: path.read_text() for path in folder.glob("*")} == before  # nothing written


def test_a_new_rules_version_rewrites_the_logs(tmp_path: Path) -> None:
    folder = _copy("mooki", tmp_path)
    for log in folder.glob("*.jsonl"):
        header, rest = log.read_text().split("\n", 1)
        old = json.loads(header)
        old["rulesVersion"] = "mooki/0"
        log.write_text(json.dumps(old) + "\n" + rest.replace(ENGINES["mooki"].rules_version, "mooki/0"))
    (folder / "game-9.jsonl").write_text("a log the engine no longer writes\n")

    outcome = refresh("mooki", folder)
    assert outcome.refused == [] and "game-9.jsonl" in outcome.written
    assert {path.name: path.read_text() for path in folder.glob("*")} == render("mooki")
    assert refresh("mooki", folder, check=True).written == []
