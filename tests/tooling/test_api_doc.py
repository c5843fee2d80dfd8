"""docs/API.md works as written: its grpcurl bodies parse as the requests they are sent as,
its curl tour plays a whole game and its descriptions tour says it in French, each against
a real server. (Its WebSocket example is played by clients/typescript/test/readme.test.ts.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from google.protobuf import json_format
from ludotheque.v1 import game_service_pb2 as api

from tests.support.server import ROOT, running_server

DOC = (ROOT / "docs" / "API.md").read_text()


def sh_block_after(heading: str) -> str:
    """The first sh block of the section `heading` (a level-2 heading of the page)."""
    section = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", DOC, re.S | re.M)
    assert section is not None, f"docs/API.md has no section {heading!r}"
    block = re.search(r"```sh\n(.*?)```", section.group(1), re.S)
    assert block is not None, f"docs/API.md, {heading!r}: no sh block"
    return block.group(1)


def run_against_a_server(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    with running_server() as server:
        return subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script.replace("http://localhost:8080", server.http)],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=120,
        )


def test_the_grpcurl_bodies_are_valid_requests() -> None:
    bodies = {
        "CreateGame": api.CreateGameRequest,
        "SubmitCommand": api.SubmitCommandRequest,
        "ReplayGame": api.ReplayGameRequest,
    }
    found = re.findall(r"-d '(.*?)'\s*\\?\s*\n?\s*localhost:50051 ludotheque\.v1\.GameService/(\w+)", DOC)
    assert {method for _, method in found} == set(bodies)
    for body, method in found:
        json_format.Parse(body.replace("'$GAME_ID'", "g1"), bodies[method]())


def test_the_curl_tour_plays_a_whole_game(tmp_path: Path) -> None:
    done = run_against_a_server(sh_block_after("REST, with curl"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"summary":' in done.stdout and "stars to" in done.stdout


def test_the_descriptions_tour_says_it_in_french(tmp_path: Path) -> None:
    done = run_against_a_server(sh_block_after("Descriptions, languages and choices"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"Le pique-nique de Facteur Souris"' in done.stdout and '"first_game"' in done.stdout
    assert '"say":"Piocher une carte"' in done.stdout and "Manche 1 : cinq cartes par personne" in done.stdout
