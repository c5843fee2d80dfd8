"""Stream tickets: a seat trades its token for a single-use ticket to its own event
stream, so that a client that cannot send headers (a browser's EventSource) gets the
seat's private events; a ticket reused, expired or for another game gets 401."""

from __future__ import annotations

from itertools import islice
from typing import Any

import grpc
import pytest
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_service_pb2 as api

from tests.support.rest import Rest
from tests.support.server import ServerProcess, running_server


def drawn_game(server: ServerProcess) -> tuple[str, list[str]]:
    """A Mooki game where Cléo (seat 0) has drawn a card: its hidden face is hers alone."""
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        lobby.with_token(created.seat_tokens[0]).submit(created.game_id, mooki.Command(draw=mooki.Draw(pile=0)))
        return created.game_id, list(created.seat_tokens)


def ticket_for(server: ServerProcess, game_id: str, token: str) -> str:
    reply = Rest(server.http, token).post(f"/v1/games/{game_id}:ticket", {})
    assert reply.status == 200, reply.body
    assert reply.json["expiresAt"].endswith("Z")
    return str(reply.json["ticket"])


def first_events(server: ServerProcess, path: str, count: int) -> list[Any]:
    """The first `count` events of a server-sent event stream, with no token."""
    return [data["event"] for _, _, data in islice(Rest(server.http).events(path), count)]


def test_a_ticket_streams_the_seats_own_events_once(server: ServerProcess) -> None:
    game_id, tokens = drawn_game(server)
    ticket = ticket_for(server, game_id, tokens[0])
    path = f"/v1/games/{game_id}/events:stream?ticket={ticket}"
    as_cleo = first_events(server, path, 2)
    assert "hidden" in as_cleo[1]["mooki"]["cardDrawn"]  # what only Cléo may see
    as_spectator = first_events(server, f"/v1/games/{game_id}/events:stream", 2)
    assert "hidden" not in as_spectator[1]["mooki"]["cardDrawn"]
    reused = Rest(server.http).get(path)
    assert reused.status == 401 and "used already" in reused.json["message"]


def test_tickets_for_another_game_forged_or_without_a_seat_are_refused(server: ServerProcess) -> None:
    game_id, tokens = drawn_game(server)
    other_id, other_tokens = drawn_game(server)
    ticket = ticket_for(server, other_id, other_tokens[0])
    rest = Rest(server.http)
    for bad in (
        ticket,
        ticket[:-2] + ("AA" if not ticket.endswith("AA") else "BB"),
        "not-a-ticket",
        "%C3%A9" * 300,
        "a.b.c.d.e",
    ):
        reply = rest.get(f"/v1/games/{game_id}/events:stream?ticket={bad}")
        assert reply.status == 401, (bad, reply.body)
    # The ticket for the other game was not spent by those attempts.
    assert first_events(server, f"/v1/games/{other_id}/events:stream?ticket={ticket}", 1)
    assert rest.post(f"/v1/games/{game_id}:ticket", {}).status == 401  # a spectator needs none
    assert rest.with_token(tokens[1] + "x").post(f"/v1/games/{game_id}:ticket", {}).status == 401
    both = rest.with_token(tokens[0]).get(
        f"/v1/games/{game_id}/events:stream?ticket={ticket_for(server, game_id, tokens[0])}"
    )
    assert both.status == 400  # a ticket or a token, not both


def test_a_ticket_over_grpc_too(server: ServerProcess) -> None:
    game_id, tokens = drawn_game(server)
    with Client(server.target, token=tokens[0]) as cleo, Client(server.target) as anyone:
        ticket = cleo.issue_stream_ticket(game_id).ticket
        request = api.StreamEventsRequest(game_id=game_id, ticket=ticket)
        events = [message.event for message in islice(anyone.stub.StreamEvents(request), 2)]
        assert events[1].mooki.card_drawn.HasField("hidden")
        with pytest.raises(grpc.RpcError) as refused:
            next(iter(anyone.stub.StreamEvents(request)))
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_an_expired_ticket_is_refused() -> None:
    with running_server(env={"LUDOTHEQUE_STREAM_TICKET_TTL": "0.001"}) as brief:
        game_id, tokens = drawn_game(brief)
        ticket = ticket_for(brief, game_id, tokens[0])
        reply = Rest(brief.http).get(f"/v1/games/{game_id}/events:stream?ticket={ticket}")
        assert reply.status == 401 and "expired" in reply.json["message"]


def test_a_ticket_over_connect_too(server: ServerProcess) -> None:
    game_id, tokens = drawn_game(server)
    reply = Rest(server.http, tokens[0]).post(
        "/ludotheque.v1.GameService/IssueStreamTicket", {"gameId": game_id}, headers={"Connect-Protocol-Version": "1"}
    )
    assert reply.status == 200, reply.body
    as_cleo = first_events(server, f"/v1/games/{game_id}/events:stream?ticket={reply.json['ticket']}", 2)
    assert "hidden" in as_cleo[1]["mooki"]["cardDrawn"]
