"""Game logs end to end: ludotheque export / verify / import / replay against a real
server, and ImportGame's refusals."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2

from engines.mooki import ENGINE as MOOKI
from service.app.model import gamelog
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ROOT, ServerProcess


def cli(*args: str, stdin: str = "", admin_token: str = ADMIN_TOKEN) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "LUDOTHEQUE_ADMIN_TOKEN": admin_token},
    )


def played_game(server: ServerProcess, moves: int | None = None) -> tuple[str, list[str]]:
    """A game of two humans playing random legal moves (to the end by default)."""
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "age": 38}])
        seats = [lobby.with_token(t) for t in created.seat_tokens]
        rng = random.Random(3)
        played = 0
        while moves is None or played < moves:
            game = lobby.get_game(created.game_id)
            if game.status == game_pb2.GAME_STATUS_FINISHED:
                break
            seat = seats[game.to_act[0]]
            seat.submit(created.game_id, rng.choice(list(seat.get_game(created.game_id).legal_commands)))
            played += 1
        return created.game_id, list(created.seat_tokens)


def without_ids(log: game_pb2.GameLog) -> game_pb2.GameLog:
    copy = game_pb2.GameLog()
    copy.CopyFrom(log)
    copy.header.ClearField("game_id")
    copy.header.ClearField("created_at")
    return copy


def test_export_verify_import_export_gives_the_same_log(server: ServerProcess, tmp_path: Path) -> None:
    game_id, _ = played_game(server)
    first = tmp_path / "first.jsonl"
    done = cli("export", game_id, "-o", str(first), "--server", server.target)
    assert done.returncode == 0, done.stdout + done.stderr
    checked = cli("verify", str(first))
    assert checked.returncode == 0 and checked.stdout.startswith("valid:"), checked.stdout
    loaded = cli("import", str(first), "--server", server.target)
    assert loaded.returncode == 0, loaded.stdout
    new_id = loaded.stdout.split("game_id: ")[1].split()[0]
    assert new_id != game_id and "seat 0 (Cléo): 0." in loaded.stdout
    second = tmp_path / "second.jsonl"
    assert cli("export", new_id, "-o", str(second), "--server", server.target).returncode == 0
    assert without_ids(gamelog.parse(second.read_bytes())) == without_ids(gamelog.parse(first.read_bytes()))
    binary = tmp_path / "game.pb"
    assert cli("export", new_id, "-o", str(binary), "--binary", "--server", server.target).returncode == 0
    assert gamelog.parse(binary.read_bytes()) == gamelog.parse(second.read_bytes())
    assert cli("verify", str(binary)).returncode == 0


def test_a_corrupted_log_is_refused_with_its_position_and_reason(server: ServerProcess, tmp_path: Path) -> None:
    game_id, tokens = played_game(server, moves=12)
    with Client(server.target, ADMIN_TOKEN) as admin:
        log = admin.export_game(game_id)
        index = next(i for i, e in enumerate(log.events) if e.mooki.HasField("card_drawn"))
        log.events[index].mooki.card_drawn.shown.family = mooki.FAMILY_LEAF
        log.events[index].mooki.card_drawn.hidden.family = mooki.FAMILY_LEAF
        with pytest.raises(grpc.RpcError) as refused:
            admin.import_game(log)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert f"event {index + 1}" in refused.value.details()
        path = tmp_path / "bad.jsonl"
        path.write_bytes(gamelog.to_jsonl(log).encode())
        checked = cli("verify", str(path))
        assert checked.returncode == 1
        assert f"INVALID at event {index + 1}" in checked.stdout and "The game just before it" in checked.stdout
        assert cli("import", str(path), "--server", server.target).returncode == 1

        old = admin.export_game(game_id)
        old.header.rules_version = "mooki/0"
        with pytest.raises(grpc.RpcError) as refused:
            admin.import_game(old)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "mooki/0" in refused.value.details() and MOOKI.rules_version in refused.value.details()

        lines = gamelog.to_jsonl(admin.export_game(game_id)).splitlines()
        path.write_text("\n".join([*lines[:5], "garbage", *lines[5:]]) + "\n")
        checked = cli("verify", str(path))
        assert checked.returncode == 1 and "line 6" in checked.stdout
        path.write_text("\n".join(lines)[:-30])
        checked = cli("verify", str(path))
        assert checked.returncode == 1 and f"line {len(lines)}" in checked.stdout

        with Client(server.target, tokens[0]) as seat:
            with pytest.raises(grpc.RpcError) as refused:
                seat.import_game(admin.export_game(game_id))
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with Client(server.target) as nobody, pytest.raises(grpc.RpcError) as refused:
            nobody.import_game(admin.export_game(game_id))
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_log_cut_at_a_version_forks_a_game_that_goes_on(server: ServerProcess) -> None:
    game_id, _ = played_game(server, moves=20)
    with Client(server.target, ADMIN_TOKEN) as admin:
        log = admin.export_game(game_id)
        forked = admin.import_game(log, truncate_at=9)  # versions 2, 3... each start a move
        assert forked.game.version == 9 and forked.game.status == game_pb2.GAME_STATUS_ACTIVE
        fork_log = admin.export_game(forked.game_id)
        assert list(fork_log.events) == list(log.events[:9])
        player = admin.with_token(forked.seat_tokens[forked.game.to_act[0]])
        moved = player.submit(forked.game_id, player.get_game(forked.game_id).legal_commands[0])
        assert moved.version == 10
        with pytest.raises(grpc.RpcError) as refused:
            admin.import_game(log, truncate_at=0)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_exports_as_each_viewer_saw_the_game(server: ServerProcess) -> None:
    game_id, tokens = played_game(server, moves=10)
    with Client(server.target, ADMIN_TOKEN) as admin:
        full = admin.export_game(game_id)
        assert full.header.HasField("seed") and full.events[0].mooki.game_started.piles[0].cards
        as_seat = admin.export_game(game_id, as_seat=1)
        assert as_seat.header.viewer.seat == 1 and not as_seat.header.HasField("seed")
        assert not as_seat.events[0].mooki.game_started.piles[0].cards
        drawn_by_0 = [e for e in as_seat.events if e.mooki.HasField("card_drawn") and e.seat == 0]
        assert drawn_by_0 and not any(e.mooki.card_drawn.HasField("hidden") for e in drawn_by_0)
        with Client(server.target, tokens[1]) as robin:
            assert robin.export_game(game_id) == as_seat
            with pytest.raises(grpc.RpcError) as refused:
                robin.export_game(game_id, as_seat=0)
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        spectator = admin.export_game(game_id, as_spectator=True)
        assert spectator.header.viewer.role == game_pb2.VIEWER_ROLE_SPECTATOR


def test_export_says_which_log_it_wrote_and_full_needs_the_admin(server: ServerProcess, tmp_path: Path) -> None:
    game_id, tokens = played_game(server, moves=4)
    path = tmp_path / "game.jsonl"
    complete = cli("export", game_id, "--full", "-o", str(path), "--server", server.target)
    assert complete.returncode == 0 and "wrote the complete log (admin)" in complete.stderr
    assert gamelog.parse(path.read_bytes()).header.viewer.role == game_pb2.VIEWER_ROLE_ADMIN
    anonymous = cli("export", game_id, "-o", str(path), "--server", server.target, admin_token="")
    assert anonymous.returncode == 0 and "wrote a spectator's log" in anonymous.stderr
    as_robin = cli("export", game_id, "-o", str(path), "--server", server.target, "--token", tokens[1])
    assert as_robin.returncode == 0 and "wrote seat 1's log" in as_robin.stderr
    path.unlink()
    for token in ([], ["--token", tokens[1]]):  # no token at all; a seat's token
        refused = cli("export", game_id, "--full", "-o", str(path), "--server", server.target, *token, admin_token="")
        assert refused.returncode != 0 and "admin token" in refused.stderr and not path.exists(), refused.stderr


def test_replay_shows_any_version_for_any_viewer(server: ServerProcess, tmp_path: Path) -> None:
    game_id, tokens = played_game(server, moves=10)
    path = tmp_path / "game.jsonl"
    assert cli("export", game_id, "-o", str(path), "--server", server.target).returncode == 0

    at_5 = cli("replay", str(path), "--at", "5", "--as-seat", "1")
    assert at_5.returncode == 0 and at_5.stdout.startswith("Version 5 of 11") and "Robin (you)" in at_5.stdout
    as_json = json.loads(cli("replay", str(path), "--at", "4", "--json").stdout)
    assert as_json["phase"] in ("PHASE_DRAW", "PHASE_PLACE")
    diff = cli("replay", str(path), "--diff", "3..5")
    assert diff.returncode == 0 and "v4:" in diff.stdout and "v5:" in diff.stdout and "+++" in diff.stdout
    diff_json = json.loads(cli("replay", str(path), "--diff", "3..5", "--json").stdout)
    assert [e["version"] for e in diff_json["events"]] == ["4", "5"]
    stepping = cli("replay", str(path), "--interactive", stdin="n\nn\np\ng 9\nq\n")
    versions = [line for line in stepping.stdout.splitlines() if line.startswith("=== version")]
    assert [v.split()[2] for v in versions] == ["0", "1", "2", "1", "9"]

    remote = cli("replay", game_id, "--server", server.target, "--at", "3")  # the admin token: rebuilt here
    assert remote.returncode == 0 and remote.stdout == cli("replay", str(path), "--at", "3").stdout
    as_robin = cli("replay", game_id, "--server", server.target, "--token", tokens[1], "--at", "5")
    # The server shows Robin his own view, as he may look at it again now (the memory rule,
    # seeds/mooki/RULES.md decision 7: a face covered since is a card); the admin's log,
    # replayed here, shows it as it was.
    assert (
        as_robin.returncode == 0 and as_robin.stdout.startswith("Version 5 of 11") and "Robin (you)" in as_robin.stdout
    )
    assert as_robin.stdout.count("a card") >= at_5.stdout.count("a card")
    refused = cli("replay", game_id, "--server", server.target, "--token", tokens[1], "--as-seat", "0")
    assert refused.returncode != 0 and "admin token" in refused.stderr
    assert cli("replay", str(path), "--at", "99").returncode == 2


def test_a_log_file_is_replayed_by_the_server_without_storing_it(server: ServerProcess, tmp_path: Path) -> None:
    """ReplayLog over REST (as the web app's debug panel sends a dropped file), the
    Python client and `ludotheque verify|replay --on-server`."""
    game_id, _ = played_game(server, moves=10)
    path = tmp_path / "game.jsonl"
    assert cli("export", game_id, "-o", str(path), "--server", server.target).returncode == 0
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    events = [json.loads(line) for line in lines[1:]]
    rest = Rest(server.http)
    with Client(server.target, ADMIN_TOKEN) as admin:
        before = len(admin.list_games().games)
        replied = rest.post("/v1/logs:replay", {"log": {"header": header, "events": events}, "asSeat": 1})
        assert replied.status == 200, replied.body
        assert replied.json["valid"] is True and replied.json["replayed"] == str(len(events))
        assert [s["atVersion"] for s in replied.json["steps"]] == [str(v) for v in range(len(events) + 1)]
        at_5 = admin.replay_log(gamelog.parse(path.read_bytes()), from_version=5, page_size=1, as_seat=1)
        assert at_5.valid and [s.at_version for s in at_5.steps] == [5]
        assert len(admin.list_games().games) == before  # nothing stored

    with Client(server.target) as nobody:  # anyone may: the log is the caller's own
        broken = gamelog.parse(path.read_bytes())
        broken.events[6].seat = 1 - broken.events[6].seat
        answer = nobody.replay_log(broken)
        assert not answer.valid and answer.problem.event == 7 and answer.replayed == 6
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(gamelog.to_jsonl(broken).encode())

    on_server = cli("verify", str(path), "--on-server", "--server", server.target)
    assert on_server.returncode == 0 and on_server.stdout == cli("verify", str(path)).stdout
    refused = cli("verify", str(bad), "--on-server", "--server", server.target)
    assert refused.returncode == 1 and refused.stdout.startswith("INVALID at event 7 (line 8 of a .jsonl)")
    remote = cli("replay", str(path), "--on-server", "--server", server.target, "--at", "5", "--as-seat", "1")
    assert remote.returncode == 0 and remote.stdout == cli("replay", str(path), "--at", "5", "--as-seat", "1").stdout
    assert "event 7" in cli("replay", str(bad), "--on-server", "--server", server.target).stderr

    too_big = rest.post("/v1/logs:replay", b"{" + b" " * (1 << 20) + b"}")
    assert too_big.status == 413  # RESOURCE_EXHAUSTED, naming the limit (service/api/body_limits.py)
