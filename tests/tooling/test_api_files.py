"""The committed generated code matches proto/, and proto/ passes buf lint."""

from __future__ import annotations

import subprocess
import sys

from tests.support.server import ROOT


def test_generated_code_is_fresh() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/genproto.py", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"stale generated code, run python scripts/genproto.py:\n{done.stderr}"


def test_protos_pass_buf_lint() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/lint_proto.py"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
