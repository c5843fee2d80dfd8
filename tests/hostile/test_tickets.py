"""Stream tickets that outlive the token they came from.

Before: a player minted a ticket (`POST /v1/games/{id}:ticket`), left the seat; another
player joined that seat and the game dealt; the old ticket still opened the event
stream, which showed the seat's *current* hidden hand (a Pirates `roundDealt` with the
new player's cards). The same after `RotateSeatToken`: the old ticket still streamed
`cardDrawn.hidden`. Now a ticket carries the seat's token generation: once the seat
changes hands (a leave, a join, a rotation) it is refused (401) on every transport, and
a stream a ticket opened ends as a token's does (`UNAUTHENTICATED` at its next event)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from itertools import islice

import grpc
import pytest
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_service_pb2 as api

from tests.support.connect import envelope, envelopes
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess

CONNECT_STREAM = "/ludotheque.v1.GameService/StreamEvents"


def ticket_for(server: ServerProcess, game_id: str, token: str) -> str:
    reply = Rest(server.http, token).post(f"/v1/games/{game_id}:ticket", {})
    assert reply.status == 200, reply.body
    return str(reply.json["ticket"])


def sse_status(server: ServerProcess, game_id: str, ticket: str) -> int:
    return Rest(server.http).get(f"/v1/games/{game_id}/events:stream?ticket={ticket}").status


def grpc_code(server: ServerProcess, game_id: str, ticket: str) -> grpc.StatusCode:
    with Client(server.target) as anyone:
        try:
            next(iter(anyone.stub.StreamEvents(api.StreamEventsRequest(game_id=game_id, ticket=ticket), timeout=10)))
        except grpc.RpcError as error:
            code: grpc.StatusCode = error.code()
            return code
    return grpc.StatusCode.OK


def connect_code(server: ServerProcess, game_id: str, ticket: str) -> str:
    body = envelope(json.dumps({"gameId": game_id, "ticket": ticket}).encode())
    reply = Rest(server.http).post(CONNECT_STREAM, body, headers={"Content-Type": "application/connect+json"})
    *_, (_, end) = envelopes(reply.body)
    return str(json.loads(end).get("error", {}).get("code", "ok"))


def refused_everywhere(server: ServerProcess, game_id: str, tickets: Iterator[str]) -> None:
    assert sse_status(server, game_id, next(tickets)) == 401
    assert grpc_code(server, game_id, next(tickets)) == grpc.StatusCode.UNAUTHENTICATED
    assert connect_code(server, game_id, next(tickets)) == "unauthenticated"


def test_a_ticket_of_a_seat_its_player_left_shows_nothing_of_the_next_players_hand(server: ServerProcess) -> None:
    rest = Rest(server.http)
    created = rest.post("/v1/games", {"kind": "pirates", "seats": [{"name": "Ana"}, {"open": True}, {"open": True}]})
    game_id = created.json["gameId"]
    cleo = rest.post(f"/v1/games/{game_id}:join", {"name": "Cléo"}).json
    assert cleo["seat"] == 1
    tickets = iter([ticket_for(server, game_id, cleo["seatToken"]) for _ in range(3)])
    assert rest.with_token(cleo["seatToken"]).post(f"/v1/games/{game_id}:leave", {}).status == 200
    assert rest.post(f"/v1/games/{game_id}:join", {"name": "Dan"}).json["seat"] == 1  # Dan sits where Cléo sat
    dealt = rest.post(f"/v1/games/{game_id}:join", {"name": "Eve"}).json
    assert dealt["game"]["status"] == "GAME_STATUS_ACTIVE"  # the last seat taken: Dan holds cards
    refused_everywhere(server, game_id, tickets)


def test_a_ticket_of_a_rotated_token_is_refused(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        game_id = created.game_id
        lobby.with_token(created.seat_tokens[0]).submit(game_id, mooki.Command(draw=mooki.Draw(pile=0)))
    tickets = iter([ticket_for(server, game_id, created.seat_tokens[0]) for _ in range(3)])
    rotated = Rest(server.http, ADMIN_TOKEN).post(f"/v1/games/{game_id}/seats/0:rotateToken", {})
    assert rotated.status == 200, rotated.body
    refused_everywhere(server, game_id, tickets)
    fresh = ticket_for(server, game_id, rotated.json["seatToken"])  # the new token's tickets work
    events = [data["event"] for _, _, data in islice(Rest(server.http).events(_stream(game_id, fresh)), 2)]
    assert "hidden" in events[1]["mooki"]["cardDrawn"]


@pytest.mark.parametrize("transport", ["sse", "grpc", "connect"])
def test_a_stream_a_ticket_opened_ends_when_its_token_is_replaced(server: ServerProcess, transport: str) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
    game_id, tokens = created.game_id, list(created.seat_tokens)
    ticket = ticket_for(server, game_id, tokens[0])
    stream = _open(server, transport, game_id, ticket)
    assert next(stream)[0] == "event"  # the game's first event: the stream is open
    rotated = Rest(server.http, ADMIN_TOKEN).post(f"/v1/games/{game_id}/seats/0:rotateToken", {})
    assert rotated.status == 200
    with Client(server.target, token=rotated.json["seatToken"]) as cleo:
        cleo.submit(game_id, mooki.Command(draw=mooki.Draw(pile=0)))  # an event Cléo's old ticket must not see
    rest = list(stream)
    assert rest == [("error", "unauthenticated")], rest


def _stream(game_id: str, ticket: str) -> str:
    return f"/v1/games/{game_id}/events:stream?ticket={ticket}"


def _open(server: ServerProcess, transport: str, game_id: str, ticket: str) -> Iterator[tuple[str, str]]:
    """A ticket's stream, as ("event", its kind) for each event and ("error", the code) at its end."""
    if transport == "sse":
        for _, kind, data in Rest(server.http).events(_stream(game_id, ticket)):
            yield ("error", _connect_name(data["code"])) if kind == "error" else ("event", _kind(data["event"]))
    elif transport == "grpc":
        with Client(server.target) as anyone:
            try:
                for response in anyone.stub.StreamEvents(api.StreamEventsRequest(game_id=game_id, ticket=ticket)):
                    yield "event", response.event.WhichOneof("game") or ""
            except grpc.RpcError as error:
                yield "error", error.code().name.lower()
    else:
        yield from _connect_stream(server, game_id, ticket)


def _connect_stream(server: ServerProcess, game_id: str, ticket: str) -> Iterator[tuple[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
    body = envelope(json.dumps({"gameId": game_id, "ticket": ticket}).encode())
    connection.request("POST", CONNECT_STREAM, body, {"Content-Type": "application/connect+json"})
    response = connection.getresponse()
    try:
        while head := response.read(5):
            flags, length = int(head[0]), int.from_bytes(head[1:5], "big")
            data = json.loads(response.read(length))
            if flags & 0b10:
                if "error" in data:
                    yield "error", data["error"]["code"]
                return
            yield "event", _kind(data["event"])
    finally:
        connection.close()


def _kind(event: dict[str, object]) -> str:
    return next((key for key in ("mooki", "pirates", "table") if key in event), "")


def _connect_name(code: int) -> str:
    names: dict[int, str] = {status.value[0]: status.name.lower() for status in grpc.StatusCode}
    return names[code]
