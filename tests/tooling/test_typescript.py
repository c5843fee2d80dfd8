"""The TypeScript client (clients/typescript): it compiles under `tsc --strict`, and its
Node tests (node --test) pass against a real server, which they start themselves with
this Python (a whole game of every kind over Connect, a spectator, typed errors). It is
publishable: `npm publish --dry-run` publishes the compiled package with its license, and
the packed package installs into a fresh project with other versions of its peers than
its own, type-checks there and plays a whole game; each of its entry points resolves
under every module resolution (node10, node16, bundler), a CommonJS project importing
it dynamically (it is ES modules only)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from ludotheque import Client

from tests.support.server import ROOT, running_server

# The package's build is rebuilt here: held for the module (tests/support/typescript_package.py).
pytestmark = pytest.mark.usefixtures("typescript_package")

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


def test_the_package_is_publishable() -> None:
    package = json.loads((PACKAGE / "package.json").read_text())
    assert "private" not in package and package["license"] == "Apache-2.0"
    assert package["repository"]["directory"] == "clients/typescript" and package["repository"]["url"]
    assert package["sideEffects"] is False and package["publishConfig"] == {"access": "public"}
    assert set(package["exports"]) == {".", "./react", "./gen/*", "./package.json"}
    # An app shares one copy of what it uses too: ranges over the 2.x lines, as peers.
    peers = package["peerDependencies"]
    assert peers == {
        "@bufbuild/protobuf": "^2.7.0",
        "@connectrpc/connect": "^2.0.0",
        "@connectrpc/connect-web": "^2.0.0",
        "react": ">=18",
    }
    assert package["peerDependenciesMeta"] == {"react": {"optional": True}}
    assert "dependencies" not in package


def test_npm_publish_dry_run_publishes_the_compiled_package_and_its_license() -> None:
    done = subprocess.run(
        ["npm", "publish", "--dry-run", "--json"], cwd=PACKAGE, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-5000:]
    report = json.loads(done.stdout[done.stdout.index("{") :])  # after the build's own output
    published = report.get("@ludotheque/client", report)
    assert (
        published["name"] == "@ludotheque/client"
        and published["version"] == json.loads((PACKAGE / "package.json").read_text())["version"]
    )
    files = {entry["path"] for entry in published["files"]}
    for module in ("index", "ludotheque", "session", "seats", "trace", "react"):
        assert {f"dist/src/{module}.js", f"dist/src/{module}.d.ts"} <= files  # compiled ESM and its types
    assert {"LICENSE", "README.md", "package.json"} <= files
    assert not any(path.startswith(("dist/test", "test/", "dist/examples", "examples/")) for path in files)


@pytest.fixture(scope="module")
def tarball(tmp_path_factory: pytest.TempPathFactory) -> Path:
    destination = tmp_path_factory.mktemp("packed")
    packed = subprocess.run(
        ["npm", "pack", "--json", "--pack-destination", str(destination)],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    [package] = json.loads(packed.stdout[packed.stdout.index("[") :])  # after the build's own output
    return destination / str(package["filename"])


# Other versions of the peers than the package's own (protobuf-es 2.13.0, Connect 2.3.0):
# the lowest its ranges allow, with React 18, and others again, without React at all.
PEER_SETS = {
    "lowest": [
        "@bufbuild/protobuf@2.7.0",
        "@connectrpc/connect@2.0.0",
        "@connectrpc/connect-web@2.0.0",
        "react@18.3.1",
        "@types/react@18.3.12",
    ],
    "others": ["@bufbuild/protobuf@2.14.1", "@connectrpc/connect@2.1.2", "@connectrpc/connect-web@2.1.2"],
}


@pytest.mark.parametrize("peers", sorted(PEER_SETS))
def test_another_project_installs_the_package_with_its_own_versions_and_plays_a_game(
    peers: str, tarball: Path, tmp_path: Path
) -> None:
    consumer = tmp_path / "consumer"
    consumer.mkdir()
    (consumer / "package.json").write_text('{"name": "consumer", "private": true, "type": "module"}')
    installed = subprocess.run(
        ["npm", "install", str(tarball), *PEER_SETS[peers], "--no-audit", "--no-fund"],
        cwd=consumer,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stderr[-5000:]
    # One copy of each: the package uses the app's (nothing nested under it).
    assert not (consumer / "node_modules" / "@ludotheque" / "client" / "node_modules").exists()
    listed = subprocess.run(["npm", "ls", "--all", "--json"], cwd=consumer, capture_output=True, text=True)
    versions = json.loads(listed.stdout)["dependencies"]
    wanted = dict(spec.rsplit("@", 1) for spec in PEER_SETS[peers])
    assert {name: versions[name]["version"] for name in wanted} == wanted
    (consumer / "main.ts").write_text(CONSUMER)
    files = ["main.ts"]
    if "react@18.3.1" in PEER_SETS[peers]:
        (consumer / "hook.ts").write_text(CONSUMER_HOOK)  # the binding type-checks against React 18
        files.append("hook.ts")
    (consumer / "tsconfig.json").write_text(json.dumps({**CONSUMER_TSCONFIG, "files": files}))
    compiled = subprocess.run(
        [str(PACKAGE / "node_modules" / ".bin" / "tsc"), "-p", "."], cwd=consumer, capture_output=True, text=True
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    with running_server() as server:
        ran = subprocess.run(
            ["node", "--experimental-websocket", "out/main.js", server.http],
            cwd=consumer,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert ran.returncode == 0, ran.stderr
        with Client(server.target) as lobby:
            [game_id, summary] = ran.stdout.strip().split("\n")
            assert summary == lobby.get_game(game_id).outcome.summary != ""


# A project using the installed package: the entry point, a game's own messages, the
# types, and a whole game over Connect and the WebSocket at the versions it installed.
CONSUMER = """\
import { GameSession, Ludotheque, type GameSnapshot } from "@ludotheque/client";
import { CommandSchema } from "@ludotheque/client/gen/ludotheque/mooki/v1/mooki_pb";

declare const process: { argv: string[] }; // (no @types/node in this project)
const baseUrl = process.argv[2]!;
const lobby = new Ludotheque({ baseUrl });
const seats = [{ name: "Cléo" }, { name: CommandSchema.typeName.split(".")[1]!, bot: "greedy" }];
const { gameId, seatTokens } = await lobby.createGame("mooki", seats);
const session = new GameSession({ baseUrl, gameId, token: seatTokens[0] });
const end = await new Promise<GameSnapshot>((resolve) => {
  session.subscribe(() => {
    const game = session.getSnapshot();
    if (game.status === "closed") resolve(game);
    else if (game.legalCommands.length > 0 && game.pending.length === 0) void session.play(game.legalCommands[0]!);
  });
});
console.log(gameId);
console.log(end.outcome?.summary ?? end.error?.message);
"""
CONSUMER_HOOK = """\
import { useGameSession } from "@ludotheque/client/react";

export function useCleo(gameId: string): string {
  const [game] = useGameSession({ baseUrl: "http://localhost:8080", gameId });
  return game.status;
}
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
        "skipLibCheck": False,
    },
}


# Every module resolution TypeScript has, as @arethetypeswrong/cli checks them (node10,
# node16 from ESM, bundler), each with its module setting; the package type of the
# project that resolves it.
RESOLUTIONS = {
    "node10": ({"module": "CommonJS", "moduleResolution": "Node10"}, "commonjs"),
    "node16-esm": ({"module": "Node16", "moduleResolution": "Node16"}, "module"),
    "bundler": ({"module": "ESNext", "moduleResolution": "Bundler"}, "module"),
}
# Every entry point, types only: what resolution finds (or not).
TYPED_IMPORTS = """\
import type { GameSession, Ludotheque } from "@ludotheque/client";
import type { useGameSession } from "@ludotheque/client/react";
import type { Command } from "@ludotheque/client/gen/ludotheque/mooki/v1/mooki_pb";

export type Everything = [GameSession, Ludotheque, typeof useGameSession, Command];
"""
# A CommonJS project under node16: the package is ES modules only (clients/typescript's
# README says why), so it is imported dynamically there, and a static import is refused.
DYNAMIC_IMPORT = """\
export async function lobby(): Promise<unknown> {
  const { Ludotheque } = await import("@ludotheque/client");
  return new Ludotheque({ baseUrl: "http://localhost:8080" });
}
"""


@pytest.fixture(scope="module")
def installed(tarball: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project's node_modules with the packed package and its peers (React's types too)."""
    project = tmp_path_factory.mktemp("resolving")
    (project / "package.json").write_text('{"name": "resolving", "private": true}')
    done = subprocess.run(
        ["npm", "install", str(tarball), *PEER_SETS["lowest"], "--no-audit", "--no-fund"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    return project / "node_modules"


def type_check(node_modules: Path, project: Path, package_type: str, options: dict[str, str], source: str) -> str:
    """tsc's findings on `source` in a project of `package_type` with `options` (empty: none)."""
    project.mkdir()
    (project / "node_modules").symlink_to(node_modules)
    (project / "package.json").write_text(json.dumps({"name": "p", "private": True, "type": package_type}))
    (project / "main.ts").write_text(source)
    config = {"strict": True, "target": "ES2022", "lib": ["ES2022", "DOM"], "types": [], "noEmit": True, **options}
    (project / "tsconfig.json").write_text(json.dumps({"compilerOptions": config, "files": ["main.ts"]}))
    tsc = str(PACKAGE / "node_modules" / ".bin" / "tsc")
    done = subprocess.run([tsc, "-p", "."], cwd=project, capture_output=True, text=True, timeout=120)
    return done.stdout + done.stderr


@pytest.mark.parametrize("resolution", sorted(RESOLUTIONS))
def test_every_entry_point_resolves_under_every_module_resolution(
    resolution: str, installed: Path, tmp_path: Path
) -> None:
    options, package_type = RESOLUTIONS[resolution]
    assert type_check(installed, tmp_path / "project", package_type, options, TYPED_IMPORTS) == ""


def test_a_commonjs_project_imports_the_esm_only_package_dynamically(installed: Path, tmp_path: Path) -> None:
    node16 = {"module": "Node16", "moduleResolution": "Node16"}
    assert type_check(installed, tmp_path / "dynamic", "commonjs", node16, DYNAMIC_IMPORT) == ""
    static = "import { Ludotheque } from '@ludotheque/client';\nexport const made = Ludotheque;\n"
    refused = type_check(installed, tmp_path / "static", "commonjs", node16, static)
    assert "TS1479" in refused, refused  # "...whose imports will produce 'require' calls...ECMAScript module"


def test_what_building_and_packing_write_is_ignored_by_git() -> None:
    """`npm pack`'s tarball, the builds, and node_modules even as a symlink (a worktree's)."""
    outputs = [
        "clients/typescript/ludotheque-client-0.1.0.tgz",
        "clients/typescript/dist/src/index.js",
        "clients/web/dist/index.html",
        "clients/typescript/node_modules",
        "clients/web/node_modules",
    ]
    checked = subprocess.run(["git", "check-ignore", "--no-index", *outputs], cwd=ROOT, capture_output=True, text=True)
    assert checked.stdout.split() == outputs, checked.stderr
