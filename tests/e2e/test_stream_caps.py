"""Live streams are capped: spectators per game on a server (429 / RESOURCE_EXHAUSTED
on every transport, the game's seats always let in) and streams per gRPC connection."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import grpc
import pytest
from ludotheque.v1 import game_service_pb2 as api
from ludotheque.v1 import game_service_pb2_grpc

from tests.support.connect import envelope, envelopes
from tests.support.games import create_over_rest
from tests.support.rest import Rest
from tests.support.server import ServerProcess, running_server

FOLLOWERS = 2
STREAMS = 3
SEATS = [{"name": "a"}, {"name": "b"}]


@pytest.fixture(scope="module")
def capped() -> Iterator[ServerProcess]:
    settings = {
        "LUDOTHEQUE_MAX_FOLLOWERS_PER_GAME": str(FOLLOWERS),
        "LUDOTHEQUE_MAX_STREAMS_PER_CONNECTION": str(STREAMS),
    }
    with running_server(env=settings) as server:
        yield server


def channel(server: ServerProcess) -> grpc.Channel:
    # A connection of its own (channels to one target may otherwise share one).
    return grpc.insecure_channel(server.target, options=[("grpc.use_local_subchannel_pool", 1)])


def follow(stub: game_service_pb2_grpc.GameServiceStub, game_id: str, token: str = "") -> Iterator[object]:
    """A StreamEvents call, its first event read (so the server holds it open)."""
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    call = stub.StreamEvents(api.StreamEventsRequest(game_id=game_id), metadata=metadata, timeout=30)
    next(call)
    return call  # type: ignore[no-any-return]


def test_a_game_takes_so_many_spectators_on_every_transport_and_its_seats_always(capped: ServerProcess) -> None:
    created = create_over_rest(Rest(capped.http), "mooki", SEATS)
    game_id, seats = created["gameId"], created["seatTokens"]
    with channel(capped) as one, channel(capped) as other:
        following = [follow(game_service_pb2_grpc.GameServiceStub(c), game_id) for c in (one, other)]
        with pytest.raises(grpc.RpcError) as refused:
            follow(game_service_pb2_grpc.GameServiceStub(other), game_id)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        rest = Rest(capped.http)
        sse = rest.get(f"/v1/games/{game_id}/events:stream")
        assert sse.status == 429 and sse.json["code"] == 8
        body = envelope(json.dumps({"gameId": game_id}).encode())
        connect = rest.post(
            "/ludotheque.v1.GameService/StreamEvents", body, headers={"Content-Type": "application/connect+json"}
        )
        ((_, end),) = envelopes(connect.body)
        assert json.loads(end)["error"]["code"] == "resource_exhausted"
        seat = follow(game_service_pb2_grpc.GameServiceStub(other), game_id, seats[0])  # a player is let in
        for call in [*following, seat]:
            call.cancel()  # type: ignore[attr-defined]


def test_a_grpc_connection_holds_so_many_streams(capped: ServerProcess) -> None:
    games = [create_over_rest(Rest(capped.http), "mooki", SEATS)["gameId"] for _ in range(STREAMS + 1)]
    with channel(capped) as one, channel(capped) as other:
        stub = game_service_pb2_grpc.GameServiceStub(one)
        following = [follow(stub, game_id) for game_id in games[:STREAMS]]
        with pytest.raises(grpc.RpcError) as refused:
            follow(stub, games[STREAMS])
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "connection" in (refused.value.details() or "")
        elsewhere = follow(game_service_pb2_grpc.GameServiceStub(other), games[STREAMS])  # another connection
        following[0].cancel()  # type: ignore[attr-defined]
        again = _eventually_followed(stub, games[STREAMS])
        for call in [*following[1:], elsewhere, again]:
            call.cancel()  # type: ignore[attr-defined]


def _eventually_followed(stub: game_service_pb2_grpc.GameServiceStub, game_id: str) -> Iterator[object]:
    """A stream opened once the server has seen a cancelled one close (it learns it a moment later)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            return follow(stub, game_id)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
