"""The server's logs, read from the real server's stderr: JSON lines, an access line per
request of every transport carrying its request id and what the move path learnt (game,
kind, seat, command id, outcome), the request id sent back to the caller, and never a
secret — not the signing secret, not the admin token, not a seat token."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2
from ludotheque import Client, request_info
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2, game_service_pb2_grpc
from ludotheque.v1 import game_service_pb2 as api

from tests.support.connect import Connect
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, SECRET, ServerProcess, running_server

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
JSON_LOGS = {"LUDOTHEQUE_LOG_FORMAT": "json"}


def log_lines(server: ServerProcess) -> list[dict[str, Any]]:
    lines = [line for line in server.log().splitlines() if line.strip()]
    parsed = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in parsed)
    return parsed


def access_lines(server: ServerProcess) -> list[dict[str, Any]]:
    return [line for line in log_lines(server) if line["logger"] == "ludotheque.access"]


Mover = Callable[[int, game_pb2.Command, str], None]


def movers(server: ServerProcess, game_id: str, tokens: list[str]) -> list[Mover]:
    """One way to play a move per transport: gRPC, REST, Connect, a Play session, and
    the admin acting for the seat."""
    clients = [Client(server.target).with_token(token) for token in tokens]
    admin = Client(server.target).with_token(ADMIN_TOKEN)

    def over_grpc(seat: int, command: game_pb2.Command, command_id: str) -> None:
        clients[seat].submit(game_id, command, command_id=command_id)

    def over_rest(seat: int, command: game_pb2.Command, command_id: str) -> None:
        body = {"command": json_format.MessageToDict(command), "commandId": command_id}
        reply = Rest(server.http, tokens[seat]).post(f"/v1/games/{game_id}/commands", body)
        assert reply.status == 200, reply.body

    def over_connect(seat: int, command: game_pb2.Command, command_id: str) -> None:
        request = api.SubmitCommandRequest(game_id=game_id, command=command, command_id=command_id)
        assert isinstance(Connect(server.http, tokens[seat]).unary("SubmitCommand", request), api.SubmitCommandResponse)

    def over_play(seat: int, command: game_pb2.Command, command_id: str) -> None:
        version = clients[seat].get_game(game_id).version
        with clients[seat].play(game_id, from_version=version + 1) as session:
            session.send(command, command_id=command_id)
            for message in session:
                if message.HasField("result"):
                    assert not message.result.HasField("error"), message.result
                    return

    def as_admin(seat: int, command: game_pb2.Command, command_id: str) -> None:
        admin.submit(game_id, command, command_id=command_id, seat=seat)

    return [over_grpc, over_rest, over_connect, over_play, as_admin]


def test_a_whole_game_over_every_transport_is_logged_with_its_facts_and_no_secret() -> None:
    with running_server(env={**JSON_LOGS, "LUDOTHEQUE_LOG_LEVEL": "debug"}) as server:
        lobby = Client(server.target)
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        game_id, tokens = created.game_id, list(created.seat_tokens)
        seats = [lobby.with_token(token) for token in tokens]
        ways = itertools.cycle(movers(server, game_id, tokens))
        played: dict[str, int] = {}
        for number in itertools.count():
            game = lobby.get_game(game_id)
            if game.status != game_pb2.GAME_STATUS_ACTIVE:
                break
            seat = game.to_act[0]
            command = seats[seat].get_game(game_id).legal_commands[0]
            played[f"move-{number}"] = seat
            next(ways)(seat, command, f"move-{number}")
        # Followed and read back over every transport, the refusals too.
        assert len(list(lobby.stream(game_id))) == game.version
        assert len(list(Rest(server.http).events(f"/v1/games/{game_id}/events:stream"))) == game.version
        connect_events = Connect(server.http).stream("StreamEvents", api.StreamEventsRequest(game_id=game_id))
        assert isinstance(connect_events, list) and len(connect_events) == game.version
        assert Rest(server.http, ADMIN_TOKEN).get(f"/v1/games/{game_id}:export").status == 200
        foreign = lobby.create_game("mooki", ["A", "B"]).seat_tokens[0]  # a real token, of another game
        assert Rest(server.http, foreign).get(f"/v1/games/{game_id}").status == 401
        assert Rest(server.http, tokens[0]).post(f"/v1/games/{game_id}/commands", {"command": {}}).status == 400
        server.stop()
        text = server.log()
        lines = access_lines(server)

    secrets = {SECRET, ADMIN_TOKEN, foreign, *tokens}
    secrets |= {token.partition(".")[2] for token in (foreign, *tokens)}  # a token's signature alone
    assert [secret for secret in secrets if secret in text] == []
    assert all(line["request_id"] for line in lines)
    assert len({line["request_id"] for line in lines}) > 20
    assert {"grpc", "http", "connect"} <= {line["transport"] for line in lines}
    moves = {line["command_id"]: line for line in lines if line.get("outcome") == "accepted"}
    assert moves.keys() == played.keys(), "every move has its line"
    for command_id, line in moves.items():
        assert line["game_id"] == game_id and line["kind"] == "mooki", line
        assert line["seat"] == played[command_id] and line["status"] in ("OK", "200"), line
        assert line["duration_ms"] >= 0
    assert {line["method"] for line in moves.values()} == {
        "ludotheque.v1.GameService/SubmitCommand",
        "POST /v1/games/{game_id}/commands",
        "POST /ludotheque.v1.GameService/SubmitCommand",
        "ludotheque.v1.GameService/Play command",
    }
    refused = [line for line in lines if line["status"] in ("400", "401")]
    assert len(refused) == 2 and all(line["level"] == "info" and line["game_id"] == game_id for line in refused)
    streams = [line for line in lines if "StreamEvents" in line["method"] or "events:stream" in line["method"]]
    assert len(streams) == 3 and all(line["status"] in ("OK", "200") for line in streams)


def test_the_request_id_comes_back_and_names_the_request_in_its_error_and_logs() -> None:
    with running_server(env=JSON_LOGS) as server, grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        created, call = stub.CreateGame.with_call(
            api.CreateGameRequest(kind="mooki", seats=[game_pb2.SeatSpec(name="A"), game_pb2.SeatSpec(name="B")]),
            metadata=[("x-request-id", "frontend-42")],
        )
        assert ("x-request-id", "frontend-42") in call.trailing_metadata()
        try:
            stub.SubmitCommand(
                api.SubmitCommandRequest(
                    game_id=created.game_id, command=game_pb2.Command(mooki=mooki.Command(place=mooki.Place()))
                ),
                metadata=[("authorization", f"Bearer {created.seat_tokens[0]}"), ("traceparent", TRACEPARENT)],
            )
            raise AssertionError("placing before drawing is illegal")
        except grpc.RpcError as error:
            trailing = dict(error.trailing_metadata())
            read_by_the_client = request_info(error)
        status = status_pb2.Status.FromString(trailing["grpc-status-details-bin"])
        info = error_details_pb2.RequestInfo()
        assert [d for d in status.details if d.Unpack(info)], "a RequestInfo detail"
        assert read_by_the_client == info
        assert info.request_id == trailing["x-request-id"] and info.serving_data == f"trace_id={TRACE_ID}"

        rest = Rest(server.http).get("/v1/games/nope", headers={"X-Request-Id": "bad id with spaces"})
        assert rest.status == 404 and rest.headers["x-request-id"] != "bad id with spaces"
        [rest_info] = [d for d in rest.json["details"] if d["@type"].endswith("google.rpc.RequestInfo")]
        assert rest_info["requestId"] == rest.headers["x-request-id"] and not rest_info.get("servingData")
        # A gRPC error reaches its client before the call's access line is written: a
        # stop waits for every call to end.
        assert server.stop() == 0
        lines = {line["request_id"]: line for line in access_lines(server)}
    assert lines["frontend-42"]["method"] == "ludotheque.v1.GameService/CreateGame"
    assert lines["frontend-42"]["game_id"] == created.game_id
    refused = lines[info.request_id]
    assert (
        refused["trace_id"] == TRACE_ID
        and refused["outcome"] == "illegal"
        and refused["status"] == "FAILED_PRECONDITION"
    )
    assert lines[rest.headers["x-request-id"]]["status"] == "404"


def test_each_command_of_a_grpc_play_session_is_a_request_of_its_own() -> None:
    # As over the WebSocket (tests/e2e/test_websocket.py): the session's request id with
    # the command's number, in the command's access line and in the error it is refused with.
    with running_server(env=JSON_LOGS) as server:
        created = Client(server.target).create_game("mooki", ["Cléo", "Robin"])
        seat = Client(server.target).with_token(created.seat_tokens[0])
        drawn = seat.get_game(created.game_id).legal_commands[0]
        results: dict[str, api.PlayResult] = {}
        with seat.play(created.game_id) as session:
            session.send(game_pb2.Command(mooki=mooki.Command(place=mooki.Place())), command_id="too-soon")
            session.send(drawn, command_id="drawn")
            for message in session:
                if message.HasField("result"):
                    results[message.result.command_id] = message.result
                if len(results) == 2:
                    break
        assert server.stop() == 0
        lines = access_lines(server)
    assert results["too-soon"].HasField("error") and not results["drawn"].HasField("error")
    info = error_details_pb2.RequestInfo()
    assert [detail for detail in results["too-soon"].error.details if detail.Unpack(info)], "a RequestInfo"
    [opened] = [line for line in lines if line["method"] == "ludotheque.v1.GameService/Play"]
    commands = {
        line["command_id"]: line for line in lines if line["method"] == "ludotheque.v1.GameService/Play command"
    }
    assert commands["too-soon"]["request_id"] == info.request_id == f"{opened['request_id']}.1"
    assert commands["drawn"]["request_id"] == f"{opened['request_id']}.2"
    assert commands["too-soon"]["outcome"] == "illegal" and commands["drawn"]["outcome"] == "accepted"


def test_a_sampled_access_log_keeps_every_error() -> None:
    with running_server(env={**JSON_LOGS, "LUDOTHEQUE_ACCESS_LOG_SAMPLE": "0"}) as server:
        rest = Rest(server.http)
        for _ in range(5):
            assert rest.get("/v1/games").status == 200
        assert rest.get("/v1/games/nope").status == 404
        assert server.stop() == 0
        lines = access_lines(server)
    assert [line["status"] for line in lines] == ["404"]
