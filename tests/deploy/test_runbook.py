"""OPERATIONS.md's "Finding a reported game", step 2, followed as written against a real
server configured from the chart's rendered default values: the admin token read back
from the chart's Secret, the game's log lines, its complete log exported, verified and
replayed; step 4's fork of a game of bots, whose bots play on at once. `kubectl` is a
small stand-in on PATH that answers from the rendered chart (the Secret) and the
server's own log (the pods' logs); everything else runs for real."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from ludotheque import Client
from ludotheque.v1 import game_pb2

from tests.deploy.chart import RELEASE, container_environment, render, server_container
from tests.support.server import ADMIN_TOKEN, ROOT, running_server

DOC = (ROOT / "docs" / "OPERATIONS.md").read_text()
DOC_GAME = "k3Jd8sL2pQ0aZx7B"

KUBECTL = """#!{python}
import base64, json, sys
args = sys.argv[1:]
secrets = json.loads({secrets!r})
if "logs" in args:
    sys.stdout.write(open({log!r}).read())
elif "port-forward" in args:
    pass  # the server already listens where the commands below are pointed
elif "get" in args and "secret" in args:
    name = args[args.index("secret") + 1]
    path = args[args.index("-o") + 1].removeprefix("jsonpath={{.data.").removesuffix("}}")
    sys.stdout.write(base64.b64encode(secrets[name][path].encode()).decode())
else:
    sys.exit("kubectl stand-in: not a command of the runbook: " + " ".join(args))
"""


def step_two() -> str:
    section = DOC.split("## Finding a reported game", 1)[1]
    step = section.split("2. **From the game id", 1)[1]
    block = re.search(r"```sh\n(.*?)```", step, re.S)
    assert block is not None
    return "\n".join(line.strip() for line in block.group(1).splitlines())


def test_finding_a_reported_game_works_on_the_charts_defaults(tmp_path: Path) -> None:
    chart = render()
    environment = container_environment(chart, server_container(chart))
    secret = chart.one("Secret", f"{RELEASE}-ludotheque")
    secrets = {secret["metadata"]["name"]: {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}}
    # The pod's own settings, but the memory store and free ports on this machine.
    pod = {k: v for k, v in environment.items() if k.startswith("LUDOTHEQUE_") and "PORT" not in k and "HOST" not in k}
    pod["LUDOTHEQUE_STORE"] = "memory"
    with running_server(env=pod) as server:
        with Client(server.target) as lobby:
            created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "age": 38}])
            seats = [lobby.with_token(token) for token in created.seat_tokens]
            while lobby.get_game(created.game_id).version < 20:  # the runbook replays version 17
                player = seats[lobby.get_game(created.game_id).to_act[0]]
                player.submit(created.game_id, player.get_game(created.game_id).legal_commands[0])
        tools = tmp_path / "bin"
        tools.mkdir()
        kubectl = tools / "kubectl"
        secrets_json = json.dumps(secrets)
        kubectl.write_text(KUBECTL.format(python=sys.executable, secrets=secrets_json, log=str(server.log_path)))
        kubectl.chmod(0o755)
        ludotheque = tools / "ludotheque"
        ludotheque.write_text(f'#!/bin/sh\ncd {ROOT} && exec {sys.executable} -m service "$@"\n')
        ludotheque.chmod(0o755)
        script = step_two().replace(DOC_GAME, created.game_id).replace("localhost:50051", server.target)
        script = script.replace("-o game.jsonl", f"-o {tmp_path}/game.jsonl").replace(
            " game.jsonl", f" {tmp_path}/game.jsonl"
        )
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env={
                "PATH": f"{tools}:/usr/bin:/bin",
                "HOME": str(tmp_path),
                "LANG": os.environ.get("LANG", "C.UTF-8"),
                **{name: os.environ[name] for name in ("PYTHONPATH",) if name in os.environ},
            },
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote the complete log (admin)" in done.stderr
    assert "valid:" in done.stdout  # verify: the complete log replays from its seed
    assert '"method":"ludotheque.v1.GameService/SubmitCommand"' in done.stdout  # its log lines, through jq
    assert '"outcome":"accepted"' in done.stdout and "Version 17 of 20" in done.stdout


def step_four() -> str:
    section = DOC.split("## Finding a reported game", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section.split("4. **Fork it", 1)[1], re.S)
    assert block is not None
    return block.group(1).strip()


def test_a_fork_of_a_game_of_bots_plays_on_at_once_as_step_four_says(tmp_path: Path) -> None:
    """`import --truncate-at 17` of an all-bot game prints the version its bots reached,
    the game's end, not 17; the runbook says so."""
    assert "plays at once" in DOC and "not 17" in DOC
    with running_server() as server, Client(server.target, ADMIN_TOKEN) as admin:
        created = admin.create_game("mooki", [{"name": "Cléo", "bot": "greedy"}, {"name": "Robin", "bot": "random"}])
        ended = admin.get_game(created.game_id).version
        assert ended > 20
        log = tmp_path / "game.jsonl"
        command = ["export", created.game_id, "--full", "--server", server.target, "-o", str(log)]
        environment = {"PATH": "/usr/bin:/bin", "LUDOTHEQUE_ADMIN_TOKEN": ADMIN_TOKEN}
        environment |= {name: os.environ[name] for name in ("PYTHONPATH",) if name in os.environ}
        exported = subprocess.run([sys.executable, "-m", "service", *command], cwd=ROOT, env=environment, timeout=60)
        assert exported.returncode == 0
        script = step_four().replace("localhost:50051", server.target).replace("game.jsonl", str(log))
        script = script.replace("ludotheque ", f"{sys.executable} -m service ", 1)
        forked = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert forked.returncode == 0, forked.stderr
        version = int(re.search(r"^version: (\d+)$", forked.stdout, re.M).group(1))  # type: ignore[union-attr]
        fork = re.search(r"^game_id: (\S+)$", forked.stdout, re.M).group(1)  # type: ignore[union-attr]
        assert version > 17 and admin.get_game(fork).status == game_pb2.GAME_STATUS_FINISHED
