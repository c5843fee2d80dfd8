"""End to end over REST: the real server, plain HTTP calls (as curl would make them)."""

from __future__ import annotations

import http.client
import random
import threading
import uuid
from typing import Any

import pytest
from google.protobuf import json_format
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.registry import ENGINES
from service.api.http_rules import http_bindings
from service.api.rpcs import SERVICE
from tests.support.games import create_over_rest
from tests.support.rest import Reply, Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server


def all_events(rest: Rest, game_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    start = 1
    while start:
        page = rest.get(f"/v1/games/{game_id}/events?fromVersion={start}&pageSize=50").json
        events += page["events"]
        start = int(page["nextFromVersion"])
    return events


def play_to_the_end(player: Rest, game_id: str, rng: random.Random) -> dict[str, Any]:
    while True:
        game = player.get(f"/v1/games/{game_id}").json
        if game["status"] == "GAME_STATUS_FINISHED":
            return game  # type: ignore[no-any-return]
        if not game["legalCommands"]:
            raise AssertionError(f"the human must be to act in a game of one human and bots: {game['toAct']}")
        body = {"command": rng.choice(game["legalCommands"]), "commandId": uuid.uuid4().hex}
        reply = player.post(f"/v1/games/{game_id}/commands", body)
        assert reply.status == 200, reply.body
        assert int(reply.json["version"]) > int(game["version"])


@pytest.mark.parametrize("kind", sorted(ENGINES))
def test_a_full_game_over_rest_while_a_spectator_follows_the_event_stream(server: ServerProcess, kind: str) -> None:
    rest = Rest(server.http)
    engine = ENGINES[kind]
    seats = [{"name": "Human"}] + [{"name": f"Bot {i}", "bot": "random"} for i in range(1, max(engine.min_seats, 2))]
    created = create_over_rest(rest, kind, seats[: engine.max_seats])
    game_id = created["gameId"]
    player = rest.with_token(created["seatTokens"][0])

    received: list[tuple[str, dict[str, Any]]] = []
    path = f"/v1/games/{game_id}/events:stream"

    def spectate() -> None:
        stream = rest.events(path)
        for event_id, kind_, data in stream:
            assert kind_ == "message"
            received.append((event_id, data["event"]))
            if len(received) == 1:
                break  # the connection drops...
        stream.close()
        for event_id, _, data in rest.events(path, last_event_id=received[-1][0]):  # ...and resumes
            received.append((event_id, data["event"]))

    spectator = threading.Thread(target=spectate, daemon=True)
    spectator.start()
    final = play_to_the_end(player, game_id, random.Random(11))
    spectator.join(timeout=60)
    assert not spectator.is_alive(), "the stream must end with the game"
    listed = all_events(rest, game_id)
    # Nothing missed, nothing repeated. (The same events, not always the same words: the
    # game over, its history is open, where the stream's catch-up kept the memory rule,
    # e.g. where a Rain tile went back under the picnic's lid.)
    assert [_what(event) for _, event in received] == [_what(event) for event in listed]
    assert [event_id for event_id, _ in received] == [event["version"] for event in listed]
    assert listed[-1]["gameOver"] is True
    assert final["outcome"]["summary"]
    # past the end of a finished game there is nothing: 204, so an EventSource stops
    assert rest.get(path, headers={"Last-Event-ID": listed[-1]["version"]}).status == 204


def test_an_event_stream_says_how_long_an_eventsource_waits_after_a_drop_and_after_its_end(
    server: ServerProcess,
) -> None:
    """Each stream starts with a retry of a few seconds (a crowd dropped at once comes back
    spread out) and, once it ended by itself, says half a second (the next page, or the 204)."""
    rest = Rest(server.http)
    created = create_over_rest(rest, "mooki", [{"name": "Human"}, {"name": "Bot", "bot": "random"}])
    game_id = created["gameId"]
    play_to_the_end(rest.with_token(created["seatTokens"][0]), game_id, random.Random(5))
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
    try:
        connection.request("GET", f"/v1/games/{game_id}/events:stream", headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        assert response.status == 200
        blocks = response.read().decode().split("\n\n")
    finally:
        connection.close()
    said = [block for block in blocks if block]
    assert said[0].startswith("retry: ") and 2_000 <= int(said[0].removeprefix("retry: ")) <= 4_000, said[0]
    assert said[-1] == "retry: 500"
    events = [block for block in said if "\ndata: " in block]
    assert len(events) == len(all_events(rest, game_id)) == len(said) - 2


def test_rest_and_grpc_agree(server: ServerProcess) -> None:
    rest = Rest(server.http)
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "bot": "greedy"}])
        game_id = created.game_id
        cleo = lobby.with_token(created.seat_tokens[0])
        for _ in range(4):
            cleo.submit(game_id, cleo.get_game(game_id).legal_commands[0])
        for token in (created.seat_tokens[0], created.seat_tokens[1], None, ADMIN_TOKEN):
            over_grpc = lobby.with_token(token)
            over_rest = rest.with_token(token)
            game = json_format.ParseDict(over_rest.get(f"/v1/games/{game_id}").json, game_pb2.Game())
            assert game == over_grpc.get_game(game_id)
            events = json_format.ParseDict(over_rest.get(f"/v1/games/{game_id}/events").json, api.ListEventsResponse())
            assert events == over_grpc.list_events(game_id)
            replay = json_format.ParseDict(
                over_rest.get(f"/v1/games/{game_id}/replay?atVersion=3").json, api.ReplayGameResponse()
            )
            assert replay == over_grpc.replay(game_id, at_version=3)
        listed = json_format.ParseDict(rest.get("/v1/games?kind=mooki&pageSize=5").json, api.ListGamesResponse())
        assert listed == lobby.list_games(kind="mooki", page_size=5)


def expect(reply: Reply, status: int, code: int) -> dict[str, Any]:
    assert reply.status == status, reply.body
    error = reply.json
    assert error["code"] == code and error["message"], error
    return error  # type: ignore[no-any-return]


def test_every_error_has_its_http_status_and_a_google_rpc_status(server: ServerProcess) -> None:
    rest = Rest(server.http)
    created = create_over_rest(rest, "mooki", [{"name": "Cléo"}, {"name": "Robin"}])
    game_id = created["gameId"]
    cleo, robin = (rest.with_token(t) for t in created["seatTokens"])
    commands = f"/v1/games/{game_id}/commands"
    draw = {"command": {"mooki": {"draw": {"pile": 0}}}}

    expect(cleo.post(commands, b"{not json"), 400, 3)
    expect(cleo.post(commands, {**draw, "bogus": 1}), 400, 3)
    expect(cleo.post(commands, {"command": {"mooki": {"draw": {"pile": "left"}}}}), 400, 3)
    expect(cleo.post(commands, {"command": {}}), 400, 3)
    expect(cleo.post(commands, b'{"commandId": "' + b"x" * (2 << 20) + b'"}'), 413, 8)  # a move: 16 KiB at most
    expect(rest.get("/v1/games?pageSize=many"), 400, 3)
    expect(rest.get("/v1/games?colour=red"), 400, 3)
    expect(rest.get("/v1/games?pageSize=1&pageSize=2"), 400, 3)  # which one? (the REST fuzz found it)
    expect(rest.post("/v1/games", {"kind": "chess", "seats": [{"name": "a"}, {"name": "b"}]}), 400, 3)
    error = expect(robin.post(commands, draw), 400, 9)  # FAILED_PRECONDITION: not Robin's turn
    violations = next(d for d in error["details"] if d["@type"].endswith("PreconditionFailure"))["violations"]
    assert violations[0]["subject"] == "not_your_turn"
    expect(rest.post(commands, draw), 401, 16)  # no token: a spectator cannot play
    expect(rest.with_token("0.forged").post(commands, draw), 401, 16)
    expect(rest.post(commands, draw, headers={"Authorization": "Basic abc"}), 401, 16)
    expect(robin.post(commands, {**draw, "seat": 0}), 403, 7)
    expect(rest.get("/v1/games/no-such-game"), 404, 5)
    expect(rest.get("/v1/nowhere"), 404, 5)
    assert cleo.post(commands, {**draw, "commandId": "c1"}).status == 200
    replayed = cleo.post(commands, {**draw, "commandId": "c1"})
    assert replayed.status == 200 and replayed.json["replayed"] is True
    expect(cleo.post(commands, {"command": {"mooki": {"place": {"side": "SIDE_SHOWN"}}}, "commandId": "c1"}), 409, 6)
    place = {"command": {"mooki": {"place": {"side": "SIDE_SHOWN"}}}, "expectedVersion": "1"}
    error = expect(cleo.post(commands, place), 409, 10)  # ABORTED: the game is at version 2
    info = next(d for d in error["details"] if d["@type"].endswith("ErrorInfo"))
    assert info["metadata"]["current_version"] == "2"
    assert rest.get(f"/v1/games/{game_id}").json["version"] == "2"  # none of it changed the game


def test_cors_lets_configured_origins_in() -> None:
    with running_server(env={"LUDOTHEQUE_CORS_ORIGINS": "https://play.example"}) as server:
        rest = Rest(server.http)
        preflight = rest.call(
            "OPTIONS",
            "/v1/games",
            headers={"Origin": "https://play.example", "Access-Control-Request-Method": "POST"},
        )
        assert preflight.status == 204
        assert "authorization" in preflight.headers["access-control-allow-headers"]
        assert preflight.headers["access-control-allow-origin"] == "https://play.example"
        allowed = rest.get("/v1/games", headers={"Origin": "https://play.example"})
        assert allowed.headers["access-control-allow-origin"] == "https://play.example"
        other = rest.get("/v1/games", headers={"Origin": "https://elsewhere.example"})
        assert "access-control-allow-origin" not in other.headers
        refused = rest.call(
            "OPTIONS",
            "/v1/games",
            headers={"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"},
        )
        assert refused.status == 403


def test_health_endpoints_and_the_openapi_document(server: ServerProcess) -> None:
    rest = Rest(server.http)
    assert rest.get("/healthz").json == {"status": "alive"}
    assert rest.get("/readyz").json == {"status": "ready"}
    document = rest.get("/openapi.json").json
    assert document["openapi"].startswith("3.")
    operations = {op["operationId"] for path in document["paths"].values() for op in path.values()}
    assert operations == {binding.method.name for binding in http_bindings(SERVICE)}
    assert {
        "CreateGame",
        "GetGame",
        "ListGames",
        "SubmitCommand",
        "StreamEvents",
        "ListEvents",
        "ReplayGame",
    } <= operations


def test_a_stream_of_an_unknown_game_is_a_404_not_an_empty_stream(server: ServerProcess) -> None:
    expect(Rest(server.http).get("/v1/games/nope/events:stream"), 404, 5)
    expect(Rest(server.http).get("/v1/games/nope/events:stream", headers={"Last-Event-ID": "x"}), 400, 3)


def test_a_move_posted_to_a_game_of_another_kind_is_refused(server: ServerProcess) -> None:
    rest = Rest(server.http)
    created = create_over_rest(rest, "mooki", [{"name": "Cléo"}, {"name": "Robin"}])
    reply = rest.with_token(created["seatTokens"][0]).post(
        f"/v1/games/{created['gameId']}/commands", {"command": {"mooki": json_format.MessageToDict(mooki.Command())}}
    )
    expect(reply, 400, 3)


def _what(event: dict[str, Any]) -> tuple[Any, ...]:
    """An event as the memory rule leaves it: which one, by whom, of what kind."""
    payload = next(value for key, value in event.items() if key in ENGINES)
    return event["version"], event.get("seat"), event.get("commandId"), event.get("gameOver"), tuple(payload)
