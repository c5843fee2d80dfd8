"""The TypeScript client (clients/typescript): it compiles under `tsc --strict`, and its
Node tests (node --test) pass against a real server, which they start themselves with
this Python (a whole game of every kind over Connect, a spectator, typed errors)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

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


def test_the_package_version_follows_the_api_version() -> None:
    # One version for the server, its API and this client: a frontend pins the client
    # that matches the server it talks to.
    service = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert json.loads((PACKAGE / "package.json").read_text())["version"] == service


def test_npm_pack_yields_a_package_another_project_installs_and_type_checks(tmp_path: Path) -> None:
    packed = subprocess.run(
        ["npm", "pack", "--json", "--pack-destination", str(tmp_path)],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    [package] = json.loads(packed.stdout[packed.stdout.index("[") :])  # after the build's own output
    files = {entry["path"] for entry in package["files"]}
    for module in ("index", "ludotheque", "session"):
        assert {f"dist/src/{module}.js", f"dist/src/{module}.d.ts"} <= files  # compiled ESM and its types
    assert "README.md" in files and not any(path.startswith(("dist/test", "test/")) for path in files)
    consumer = tmp_path / "consumer"
    consumer.mkdir()
    (consumer / "package.json").write_text('{"name": "consumer", "private": true, "type": "module"}')
    subprocess.run(
        ["npm", "install", str(tmp_path / package["filename"]), "--prefer-offline", "--no-audit", "--no-fund"],
        cwd=consumer,
        capture_output=True,
        timeout=300,
        check=True,
    )
    (consumer / "main.ts").write_text(CONSUMER)
    (consumer / "tsconfig.json").write_text(json.dumps(CONSUMER_TSCONFIG))
    compiled = subprocess.run(
        [str(PACKAGE / "node_modules" / ".bin" / "tsc"), "-p", "."], cwd=consumer, capture_output=True, text=True
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    ran = subprocess.run(["node", "out/main.js"], cwd=consumer, capture_output=True, text=True, timeout=60)
    assert ran.stdout.split() == ["function", "function", "mooki", "function"], ran.stderr


# A project using the installed package: the entry point, a game's own messages, the types.
CONSUMER = """\
import { GameSession, Ludotheque, type GameSnapshot } from "@ludotheque/client";
import { CommandSchema } from "@ludotheque/client/gen/ludotheque/mooki/v1/mooki_pb";

const lobby = new Ludotheque({ baseUrl: "http://localhost:8080" });
const view = (snapshot: GameSnapshot): string | undefined => snapshot.view?.game.case;
console.log(typeof GameSession, typeof lobby.createGame, CommandSchema.typeName.split(".")[1], typeof view);
"""
CONSUMER_TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "target": "ES2022",
        "lib": ["ES2022", "DOM"],
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "types": [],
        "outDir": "out",
    },
    "files": ["main.ts"],
}
