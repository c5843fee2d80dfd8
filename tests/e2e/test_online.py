"""Playing online through a real server: joining by code over gRPC, REST and Connect,
leaving and starting, presence in Play sessions, rematches handed to sessions, turn
clocks that play for a seat that does not move, and `ludotheque play --join`."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from ludotheque import Client
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app.logs.verify import Replayed, verify
from tests.support.connect import Connect, Failure
from tests.support.games import next_message, presence_until, table_changes
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ROOT, ServerProcess, watched_server
from tests.support.waiting import eventually

WAIT = 20.0  # seconds before a test gives up waiting for what must come


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    # Short presence and a quick look at the clocks, so that the tests wait little.
    env = {"LUDOTHEQUE_PRESENCE_TTL": "1.5", "LUDOTHEQUE_CLOCK_INTERVAL": "0.1"}
    with watched_server(env=env) as process:
        yield process


def test_players_join_by_its_code_over_grpc_rest_and_connect(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("pirates", [{"name": "Ana"}, {"open": True}, {"open": True}])
        code = created.game.join_code
        assert created.game.status == game_pb2.GAME_STATUS_OPEN and code
        rest = Rest(server.http).post(f"/v1/games/{code}:join", {"name": "Ben", "age": 7})
        assert rest.status == 200, rest.body
        assert rest.json["seat"] == 1 and rest.json["gameId"] == created.game_id
        assert rest.json["game"]["status"] == "GAME_STATUS_OPEN"
        connect = Connect(server.http).unary("JoinGame", api.JoinGameRequest(game_id=code.lower(), name="Chloé"))
        assert isinstance(connect, api.JoinGameResponse) and connect.seat == 2
        assert connect.game.status == game_pb2.GAME_STATUS_ACTIVE  # the last seat taken: dealt
        full = Rest(server.http).post(f"/v1/games/{code}:join", {"name": "Dan"})
        assert full.status == 404  # by its code, a started game is no game (tests/hostile/test_join_codes.py)
        by_id = Rest(server.http).post(f"/v1/games/{created.game_id}:join", {"name": "Dan"})
        assert by_id.status == 400  # by its id, it says why
        assert any(d.get("reason") == "GAME_FULL" for d in by_id.json["details"]), by_id.json
        ben = lobby.with_token(rest.json["seatToken"]).get_game(created.game_id)
        assert ben.viewer.seat == 1 and [s.name for s in ben.seats] == ["Ana", "Ben", "Chloé"]
        with pytest.raises(grpc.RpcError) as twice:
            lobby.with_token(connect.seat_token).join_game(created.game_id, "Chloé again")
        assert twice.value.code() == grpc.StatusCode.ALREADY_EXISTS
        unknown = Connect(server.http).unary("JoinGame", api.JoinGameRequest(game_id="ZZZZZ-ZZZZZ", name="Eve"))
        assert isinstance(unknown, Failure) and unknown.code == "not_found"


def test_leaving_and_starting_with_bots_over_rest(server: ServerProcess) -> None:
    rest = Rest(server.http)
    created = rest.post("/v1/games", {"kind": "picnic", "seats": [{"open": True}, {"open": True}]}).json
    game_id, host = created["gameId"], created["hostToken"]
    assert created["seatTokens"] == ["", ""]
    joined = rest.post(f"/v1/games/{game_id}:join", {"name": "Léa", "age": 5}).json
    assert rest.post(f"/v1/games/{game_id}:leave", {}).status == 401
    left = rest.with_token(joined["seatToken"]).post(f"/v1/games/{game_id}:leave", {})
    assert left.status == 200 and left.json["game"]["seats"][0]["open"]
    assert rest.with_token(joined["seatToken"]).get(f"/v1/games/{game_id}").status == 401  # its token died
    assert rest.post(f"/v1/games/{game_id}:start", {}).status == 401
    started = rest.with_token(host).post(f"/v1/games/{game_id}:start", {"bot": "random"})
    assert started.status == 200, started.body
    assert [s["bot"] for s in started.json["game"]["seats"]] == ["random", "random"]
    assert table_changes(server.target, game_id) == ["joined", "left", "joined", "joined"]


def test_a_play_session_shows_who_is_connected_live(server: ServerProcess) -> None:
    with Client(server.target) as lobby, ThreadPoolExecutor(1) as reader:
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        cleo, robin = (lobby.with_token(token) for token in created.seat_tokens)
        with cleo.play(created.game_id, presence=True) as watching:
            presence_until(watching, reader, [0], WAIT)
            robin_session = robin.play(created.game_id)  # Robin's session asks for no presence: still online
            presence_until(watching, reader, [0, 1], WAIT)
            assert list(lobby.get_game(created.game_id).presence.online_seats) == [0, 1]
            robin_session.close()
            presence_until(watching, reader, [0], WAIT)  # gone, at once
        assert table_changes(server.target, created.game_id) == []  # presence is not a game event


def test_a_rematch_reaches_the_play_sessions_of_the_finished_game(server: ServerProcess) -> None:
    with Client(server.target) as lobby, ThreadPoolExecutor(1) as reader:
        created = lobby.create_game("mooki", [{"name": "Cléo"}, {"name": "Bot", "bot": "random"}])
        cleo = lobby.with_token(created.seat_tokens[0])
        cleo.take_over(created.game_id, bot="random")  # the bots play it out
        assert cleo.get_game(created.game_id).status == game_pb2.GAME_STATUS_FINISHED
        with cleo.play(created.game_id, presence=True) as session:
            presence_until(session, reader, [0], WAIT)
            asked = cleo.play_again(created.game_id)
            while not (message := next_message(session, reader, WAIT)).HasField("rematch"):
                pass
            assert message.rematch.game_id == asked.game_id and message.rematch.seat_token == asked.seat_token
        rematch = lobby.with_token(asked.seat_token).get_game(asked.game_id)
        assert rematch.viewer.seat == 0 and [s.name for s in rematch.seats] == ["Cléo", "Bot"]


def test_a_turn_clock_plays_for_a_seat_that_does_not_move_then_hands_it_to_a_bot(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game(
            "mooki",
            [{"name": "Cléo", "age": 5, "stand_in": "random"}, {"name": "Bot", "bot": "greedy", "age": 9}],
            clock={"turn_seconds": 1, "take_over_after": 2},
        )
        game = lobby.get_game(created.game_id)
        assert game.clock.turn_seconds == 1 and game.seats[0].clock.HasField("deadline")

        def taken_over() -> list[str] | None:
            changes = table_changes(server.target, created.game_id)
            return changes if "taken_over" in changes else None

        assert eventually(taken_over, WAIT, "the clock to play twice, then a bot to take the seat") == [
            "timed_out",
            "timed_out",
            "taken_over",
        ]
        game = lobby.get_game(created.game_id)
        assert game.seats[0].taken_over_by == "random" and game.seats[0].clock.missed_turns == 2
        with Client(server.target, ADMIN_TOKEN) as admin:
            log = admin.export_game(created.game_id)
        assert isinstance(verify(log), Replayed)  # replayed exactly: the timeouts included


def test_joining_from_the_terminal_by_code(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Bot", "bot": "greedy", "age": 40}, {"open": True}])
    join = [sys.executable, "-m", "service", "play", "--join", created.game.join_code, "--server", server.target]
    done = subprocess.run(
        [*join, "--name", "Robin:4"],
        cwd=ROOT,
        input="1\n" * 200,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    # The table event is told in the words every client gets (its description).
    assert "You sit at seat 2" in done.stdout and "Robin joins the game." in done.stdout
    assert "Your move, Robin" in done.stdout and "Game over." in done.stdout
    refused = subprocess.run(
        join,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 1 and "Cannot join the game" in refused.stdout
