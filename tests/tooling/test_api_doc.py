"""docs/API.md works as written: its grpcurl bodies parse as the requests they are sent as
(the suite has no grpcurl), and its shell blocks, run in order in one shell as a reader
follows the page, play a move with buf curl, a whole game over REST and list it, follow it live, read it over
Connect, say it in French, and play a game online from its join code to its rematch,
against a real server. (Its WebSocket example is played by
clients/typescript/test/readme.test.ts, its EventSource one in a browser by
tests/tooling/test_typescript_pages.py.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from google.protobuf import json_format
from ludotheque.v1 import game_service_pb2 as api

from tests.support.server import ROOT, running_server

DOC = (ROOT / "docs" / "API.md").read_text()


def run_against_a_server(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    with running_server() as server:
        script = script.replace("http://localhost:8080", server.http)
        script = script.replace("http://localhost:50051", f"http://{server.target}")
        script = script.replace("tools/node_modules/.bin/buf", str(ROOT / "tools" / "node_modules" / ".bin" / "buf"))
        return subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
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
    assert len(found) == len(bodies), "grpcurl's bodies"
    for body, method in found:
        json_format.Parse(body.replace("'$GAME_ID'", "g1"), bodies[method]())


def sh_blocks() -> list[tuple[str, str]]:
    """Every sh block of the page but the grpcurl ones, in order, with its section."""
    found = []
    for section in re.finditer(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", DOC, re.S | re.M):
        for block in re.findall(r"```sh\n(.*?)```", section.group(2), re.S):
            if "grpcurl" not in block:
                found.append((section.group(1), block))
    return found


def test_its_shell_blocks_run_in_order(tmp_path: Path) -> None:
    sections = [section for section, _ in sh_blocks()]
    assert sections == [
        "gRPC, with grpcurl or buf curl",
        "REST, with curl",
        "REST, with curl",
        "Connect",
        "Descriptions, languages and choices",
        "Playing online",
    ]
    blocks = [block for _, block in sh_blocks()]
    blocks.insert(2, 'echo "tour game: $GAME"\n')  # what the tour's listing must have listed
    script = "\n".join(blocks)
    done = run_against_a_server(script, tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # buf curl: CreateGame listed, then a move played (version 2) and replayed at version 2.
    assert out.startswith("ludotheque.v1.GameService/CreateGame\n2\n2\n"), out[:200]
    # REST: a whole game, its outcome, and the finished games listed, this one among them.
    # (a game of random moves may end in a tie: "… wins: 4 stars each, and a tie goes to …")
    assert '"summary":' in out and ("stars to" in out or "stars each" in out)
    tour_game = re.search(r"^tour game: (\S+)$", out, re.M)
    assert tour_game is not None and re.search(rf"^{tour_game.group(1)}$", out, re.M), "the listing lists it"
    # Live events (SSE, the whole game then its end) and the Connect call.
    assert "event: error" not in out and re.search(r"^id: 12$", out, re.M) and re.search(r"^id: 13$", out, re.M)
    assert f'"gameId":"{tour_game.group(1)}"' in out.replace(" ", "")
    # Descriptions, in French.
    assert '"Le pique-nique de Facteur Souris"' in out and '"first_game"' in out
    assert '"say":"Piocher une carte"' in out and "Manche 1 : cinq cartes par personne" in out
    # Playing online: joined by the code, dealt, played out by Cléo and Robin's bot, its rematch.
    *_, presence, rematch = out.rstrip().splitlines()
    assert presence == '["GAME_STATUS_ACTIVE",[1]]'  # dealt once Robin joined; his call: online
    assert re.fullmatch(r"[A-Za-z0-9_-]{8,}", rematch), "the rematch's id"
