"""docs/NEW_GAME.md cannot go stale: every block of it that names a file quotes that
file of the example games (Higher or Lower, `highlow`; Tic-tac-toe, `tictactoe`, the
game that hides nothing) as it is, every file of each is named in the guide with the
true count of files and lines, and the examples are served only when asked, then played
end to end on a real server (gRPC, REST, descriptions in two languages, the CLI's
replay with the generic renderer). The property suite plays it with every other
registered game (tests/engines/test_properties.py): nothing here opts it in."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path
from random import Random
from typing import Any

import grpc
import pytest
from ludotheque import Client
from ludotheque.tictactoe.v1 import tictactoe_pb2
from ludotheque.v1 import game_pb2

from engines.contract import SeatInfo, Viewer, fold
from engines.registry import ENGINES, EXAMPLES_ENV, GAMES
from service.app.model import envelopes
from service.cli.render import GENERIC, renderer
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ROOT, running_server

GUIDE = ROOT / "docs" / "NEW_GAME.md"
KIND = "highlow"
EXAMPLES = ("highlow", "tictactoe")  # in the order the guide introduces them


def example_files(kind: str) -> list[Path]:
    folders = (f"proto/ludotheque/{kind}/v1", f"engines/{kind}", f"seeds/{kind}")
    return sorted(
        path
        for folder in folders
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    )


# A fenced block whose info string names a file: ```python engines/highlow/rules.py
BLOCK = re.compile(r"^```\w+ (\S+)\n(.*?)^```$", re.M | re.S)
CUT = re.compile(r"^\s*(#|//) \.\.\.$")


def quoted_blocks() -> list[tuple[str, str]]:
    return BLOCK.findall(GUIDE.read_text())


def test_every_block_that_names_a_file_quotes_it_as_it_is() -> None:
    """Each block's pieces (between `# ...` cuts) are in the file, in that order."""
    blocks = quoted_blocks()
    assert len(blocks) >= 10, "the guide quotes the example's files"
    for path, block in blocks:
        text = (ROOT / path).read_text()
        pieces: list[list[str]] = []
        piece: list[str] = []
        for line in block.splitlines():
            if CUT.match(line):
                pieces.append(piece)
                piece = []
            else:
                piece.append(line)
        start = 0
        for lines in [*pieces, piece]:
            quoted = "\n".join(lines)
            found = text.find(quoted, start)
            assert found >= 0, f"docs/NEW_GAME.md quotes {path} as it no longer is:\n{quoted}"
            start = found + len(quoted)


@pytest.mark.parametrize("kind", EXAMPLES)
def test_the_guide_names_every_file_of_the_example(kind: str) -> None:
    guide = GUIDE.read_text()
    files = [str(path.relative_to(ROOT)) for path in example_files(kind)]
    assert len(files) >= 8
    shown = {path for path, _ in quoted_blocks()}
    missing = [path for path in files if path not in shown and path not in guide]
    assert not missing, f"docs/NEW_GAME.md does not show {missing}"


def test_the_guide_gives_each_example_its_true_size() -> None:
    """ "10 files, about 700 lines": the files exactly, the lines within a tenth."""
    sizes = re.findall(r"(\d+) files,? (?:and )?about (\d+) lines", GUIDE.read_text())
    assert len(sizes) == len(EXAMPLES), "the guide gives each example's size, in order"
    for kind, (files, lines) in zip(EXAMPLES, sizes, strict=True):
        paths = example_files(kind)
        counted = sum(len(path.read_text().splitlines()) for path in paths)
        assert int(files) == len(paths), f"{kind} has {len(paths)} files, not {files}"
        assert abs(int(lines) - counted) <= counted / 10, f"{kind} has {counted} lines, not about {lines}"


@pytest.mark.parametrize("kind", EXAMPLES)
def test_the_example_is_registered_but_served_only_when_asked(kind: str) -> None:
    game = GAMES[kind]
    assert game.example and game.kind == kind
    asked = EXAMPLES_ENV in os.environ
    assert (kind in ENGINES) == asked, "served only with --example-games (LUDOTHEQUE_EXAMPLE_GAMES)"
    assert all(not GAMES[kind].example for kind in ENGINES) or asked


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PATH": "/usr/bin:/bin",
            "LUDOTHEQUE_ADMIN_TOKEN": ADMIN_TOKEN,
            EXAMPLES_ENV: "1",  # the CLI reads the example's logs only when asked too
            **{name: os.environ[name] for name in ("PYTHONPATH",) if name in os.environ},
        },
    )


def play_to_the_end(lobby: Client, created: Any, rng: random.Random) -> Any:
    """Seat 0's random legal moves against the greedy bot, to the end (None: no end)."""
    game_id = created.game_id
    me = lobby.with_token(created.seat_tokens[0])
    for _ in range(40):
        game = me.get_game(game_id)
        if game.status == game_pb2.GAME_STATUS_FINISHED:
            return game
        assert list(game.to_act) == [0], "the greedy bot plays inside my moves"
        me.submit(game_id, rng.choice(list(game.legal_commands)))
    return None


def test_the_example_is_played_end_to_end_on_a_server_that_asks_for_it(tmp_path: Path) -> None:
    with running_server(["--example-games"]) as server:
        with Client(server.target) as lobby:
            kinds = {kind.kind: kind for kind in lobby.list_game_kinds()}
            assert KIND in kinds and kinds[KIND].name.text == "Higher or Lower"
            assert {bot.name for bot in kinds[KIND].bots} == {"greedy", "random"}
            created = lobby.create_game(KIND, [{"name": "Cléo"}, {"name": "Bot", "bot": "greedy"}])
            game = play_to_the_end(lobby, created, random.Random(5))
            assert game is not None and game.version == 21, "the deal, 19 calls, the end"
            events = lobby.with_token(ADMIN_TOKEN).history(created.game_id)
        engine = GAMES[KIND].engine
        state = fold(engine, [envelopes.event_payload(event) for event in events])
        assert engine.status(state).finished and list(engine.status(state).winners) == list(
            game.view.highlow.result.winners
        )
        rest = Rest(server.http)
        assert rest.get(f"/v1/kinds/{KIND}?locale=fr").json["name"]["text"] == "Plus ou moins"
        told = rest.get(f"/v1/games/{created.game_id}/events?locale=fr&from_version=21").json["events"]
        assert told[-1]["gameOver"] and told[-1]["description"]["text"].startswith("Le paquet est vide : ")
        log = tmp_path / "game.jsonl"
        exported = cli("export", created.game_id, "--full", "-o", str(log), "--server", server.target)
        assert exported.returncode == 0, exported.stderr
    replayed = cli("replay", str(log), "--at", "3")  # no renderer of its own: the generic one
    assert replayed.returncode == 0 and replayed.stdout.startswith("Version 3 of 21"), replayed.stderr
    assert "face_up" in replayed.stdout.replace(" ", "_").lower(), replayed.stdout
    assert cli("verify", str(log)).returncode == 0


def test_a_server_not_asked_refuses_the_example() -> None:
    if KIND in ENGINES:
        pytest.skip(f"{EXAMPLES_ENV} is set for the whole suite")
    with running_server() as server, Client(server.target) as lobby:
        assert KIND not in {kind.kind for kind in lobby.list_game_kinds()}
        with pytest.raises(grpc.RpcError) as refused:
            lobby.create_game(KIND, [{"name": "Cléo"}, {"name": "Bot", "bot": "greedy"}])
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_tic_tac_toe_reads_as_rows_in_the_terminal_without_a_renderer_of_its_own() -> None:
    """The generic text renderer (`ludotheque play`, `replay`) lays out a field marked
    `grid_columns` as rows too, an empty square as a dot."""
    engine = GAMES["tictactoe"].engine
    assert GAMES["tictactoe"].render_view is None and renderer("tictactoe") is GENERIC
    seated = [SeatInfo()] * 2
    state = fold(engine, engine.setup(engine.resolve_options(engine.options_type(), seated), seated, Random(0)))
    for square in (0, 4):
        state = fold(engine, engine.decide(state, engine.status(state).to_act[0], place(square), Random(0)), state)
    seats = [game_pb2.Seat(index=0, name="Cléo"), game_pb2.Seat(index=1, name="Robin")]
    text = GENERIC.render_view(engine.view(state, Viewer.spectator()), seats, None)
    assert "Grid:\n  x · ·\n  · o ·\n  · · ·" in text and "Active seat: Cléo" in text


def place(square: int) -> tictactoe_pb2.Command:
    return tictactoe_pb2.Command(place=tictactoe_pb2.Place(square=square))
