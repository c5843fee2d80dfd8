"""The TypeScript client (clients/typescript): it compiles under `tsc --strict`, and its
Node tests (node --test) pass against a real server, which they start themselves with
this Python (a whole game of every kind over Connect, a spectator, typed errors)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from tests.support.server import ROOT

PACKAGE = ROOT / "clients" / "typescript"


def test_the_typescript_client_is_strict() -> None:
    config = json.loads((PACKAGE / "tsconfig.json").read_text())
    assert config["compilerOptions"]["strict"] is True


def test_the_typescript_client_compiles_and_passes_its_node_tests() -> None:
    assert (PACKAGE / "node_modules").is_dir(), "run scripts/bootstrap.sh (npm ci in clients/typescript)"
    done = subprocess.run(
        ["npm", "test", "--silent"],
        cwd=PACKAGE,
        env={**os.environ, "LUDOTHEQUE_PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"npm test failed:\n{done.stdout[-20000:]}\n{done.stderr[-5000:]}"
    passed = re.search(r"^# pass (\d+)$", done.stdout, re.M)
    assert passed is not None and int(passed.group(1)) > 0, done.stdout[-2000:]
    assert re.search(r"^# fail 0$", done.stdout, re.M) and re.search(r"^# cancelled 0$", done.stdout, re.M)
