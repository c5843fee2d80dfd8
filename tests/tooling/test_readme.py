"""The README's tour works as written: its Python block runs against a real server,
and its grpcurl bodies parse as the requests they are sent as."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from google.protobuf import json_format
from ludotheque.v1 import game_service_pb2 as api

from tests.support.server import ROOT, running_server

README = (ROOT / "README.md").read_text()


def test_the_python_tour_runs() -> None:
    block = re.search(r"```python\n(.*?)```", README, re.S)
    assert block is not None
    with running_server() as server:
        code = block.group(1).replace("localhost:50051", server.target)
        exec(compile(code, "README.md", "exec"), {"print": lambda *a, **k: None})


def test_the_grpcurl_bodies_are_valid_requests() -> None:
    bodies = {
        "CreateGame": api.CreateGameRequest,
        "SubmitCommand": api.SubmitCommandRequest,
        "ReplayGame": api.ReplayGameRequest,
    }
    found = re.findall(r"-d '(.*?)'\s*\\?\s*\n?\s*localhost:50051 ludotheque\.v1\.GameService/(\w+)", README)
    assert {method for _, method in found} == set(bodies)
    for body, method in found:
        json_format.Parse(body.replace("'$GAME_ID'", "g1"), bodies[method]())


def test_the_curl_tour_plays_a_whole_game(tmp_path: Path) -> None:
    block = re.search(r"## REST, with curl.*?```sh\n(.*?)```", README, re.S)
    assert block is not None
    with running_server() as server:
        script = block.group(1).replace("http://localhost:8080", server.http)
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stderr
    assert '"summary":' in done.stdout and "stars to" in done.stdout


def test_the_descriptions_tour_says_it_in_french(tmp_path: Path) -> None:
    block = re.search(r"## Descriptions, languages and choices.*?```sh\n(.*?)```", README, re.S)
    assert block is not None
    with running_server() as server:
        script = block.group(1).replace("http://localhost:8080", server.http)
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stderr
    assert '"Le pique-nique de Facteur Souris"' in done.stdout and '"first_game"' in done.stdout
    assert '"say":"Piocher une carte"' in done.stdout and "Manche 1 : cinq cartes chacun" in done.stdout
