"""The committed generated code matches proto/, proto/ passes buf lint, and it breaks
nothing of the committed baseline (buf breaking), which does catch a break."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from scripts import lint_proto
from tests.support.server import ROOT


def test_generated_code_is_fresh() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/genproto.py", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"stale generated code, run python scripts/genproto.py:\n{done.stderr}"


def test_protos_pass_buf_lint_and_break_nothing_of_the_baseline() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/lint_proto.py"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_buf_breaking_catches_a_renamed_field_or_a_removed_rpc(tmp_path: Path) -> None:
    lint_proto.prepare()
    for name in ("buf.yaml", "proto", ".build/googleapis"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copyfile)(source, tmp_path / name)
    service = tmp_path / "proto" / "ludotheque" / "v1" / "game_service.proto"
    text = service.read_text()
    service.write_text(text.replace("uint64 from_version = 2;", "uint64 start_version = 2;", 1))
    renamed = lint_proto.breaking(tmp_path)
    assert renamed.returncode != 0 and "from_version" in renamed.stdout
    service.write_text(text.replace("rpc ReplayGame(", "rpc ReplayGameRenamed(", 1))
    removed = lint_proto.breaking(tmp_path)
    assert removed.returncode != 0 and "ReplayGame" in removed.stdout
    service.write_text(text)
    assert lint_proto.breaking(tmp_path).returncode == 0  # the copy itself is fine
