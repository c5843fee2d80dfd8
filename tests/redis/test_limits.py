"""Creation limits and seat token rotation hold across server processes that share one
Redis: the limits are counted in Redis (EventStore.admit), and a seat's token
generation lives with the game there."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import grpc
import pytest
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki

from tests.support.redis import RedisServer
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server
from tests.support.stores import PATIENT_REDIS

BODY = {"kind": "mooki", "seats": [{"name": "Cléo"}, {"name": "Robin"}]}


@contextmanager
def two_servers(redis: RedisServer, **limits: str) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = {
        "LUDOTHEQUE_STORE": redis.url,
        **PATIENT_REDIS,
        "LUDOTHEQUE_TRUSTED_PROXIES": "127.0.0.1",  # each test is a client of its own
        **{f"LUDOTHEQUE_{name.upper()}": value for name, value in limits.items()},
    }
    with running_server(env=env) as first, running_server(env=env) as second:
        yield first, second


@pytest.fixture(scope="module")
def two_limited_servers(redis_server: RedisServer) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with two_servers(redis_server, create_rate="3", live_games="0") as servers:
        yield servers


def test_a_rate_is_one_for_all_processes(two_limited_servers: tuple[ServerProcess, ServerProcess]) -> None:
    first, second = (Rest(server.http) for server in two_limited_servers)
    client = {"X-Forwarded-For": "198.51.100.10"}
    statuses = [
        server.post("/v1/games", {**BODY, "seats": [{"name": "A"}, {"name": "B", "bot": "random"}]}, headers=client)
        for server in (first, second, first, second, first)
    ]
    # Three creations a minute, wherever they land (one process each would allow six).
    assert [reply.status for reply in statuses] == [200, 200, 200, 429, 429]
    infos = [d for d in statuses[-1].json["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
    assert [info["reason"] for info in infos] == ["CREATE_RATE"]


def test_the_games_quick_match_creates_are_its_callers_and_count_against_the_rate(
    two_limited_servers: tuple[ServerProcess, ServerProcess],
) -> None:
    """QuickMatch creates a game when none of these waits: that creation is its caller's,
    counted like CreateGame's, wherever it lands; joining a waiting game creates nothing."""
    first, second = (Rest(server.http) for server in two_limited_servers)
    client = {"X-Forwarded-For": "198.51.100.12"}
    body = {"kind": "mooki", "players": 2, "options": {"mooki": {"youngestSeat": 1}}}  # options nobody else asks
    created = []
    for number, server in enumerate((first, second) * 3):
        answer = server.post("/v1/games:quickMatch", {**body, "name": f"Player {number}"}, headers=client)
        assert answer.status == 200, answer.body
        created.append(answer.json["created"])
    assert created == [True, False] * 3  # three games created, each filled by the next call
    refused = second.post("/v1/games:quickMatch", {**body, "name": "One too many"}, headers=client)
    infos = [d for d in refused.json["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
    assert refused.status == 429 and [info["reason"] for info in infos] == ["CREATE_RATE"], refused.body
    other = first.post(
        "/v1/games:quickMatch", {**body, "name": "Someone else"}, headers={"X-Forwarded-For": "198.51.100.13"}
    )
    assert other.status == 200 and other.json["created"], other.body  # another caller: their own rate


def test_a_live_game_quota_is_one_for_all_processes_and_a_game_ending_anywhere_frees_it(
    redis_server: RedisServer,
) -> None:
    with two_servers(redis_server, create_rate="0", live_games="2") as servers:
        play_to_a_quota(servers)


def play_to_a_quota(servers: tuple[ServerProcess, ServerProcess]) -> None:
    first, second = (Rest(server.http) for server in servers)
    client = {"X-Forwarded-For": "198.51.100.11"}
    games = [first.post("/v1/games", BODY, headers=client).json, second.post("/v1/games", BODY, headers=client).json]
    refused = first.post("/v1/games", BODY, headers=client)
    infos = [d for d in refused.json["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
    assert refused.status == 429 and [info["reason"] for info in infos] == ["LIVE_GAMES_QUOTA"]
    # The first game ends on the second server: Cléo and Robin play it out there.
    game_id, tokens = games[0]["gameId"], games[0]["seatTokens"]
    with Client(servers[1].target) as lobby:
        while (game := lobby.get_game(game_id)).to_act:
            seat = game.to_act[0]
            mine = lobby.with_token(tokens[seat]).get_game(game_id)
            lobby.with_token(tokens[seat]).submit(game_id, mine.legal_commands[0])
    assert first.post("/v1/games", BODY, headers=client).status == 200


def test_a_token_rotated_on_one_process_stops_at_once_on_the_other(
    two_limited_servers: tuple[ServerProcess, ServerProcess],
) -> None:
    first, second = (Client(server.target, ADMIN_TOKEN) for server in two_limited_servers)
    created = first.create_game("mooki", ["Cléo", "Robin"])
    game_id, cleo = created.game_id, created.seat_tokens[0]
    assert second.with_token(cleo).get_game(game_id).viewer.seat == 0  # cached there, token checked
    new = first.rotate_seat_token(game_id, 0)
    for call in (
        lambda: second.with_token(cleo).get_game(game_id),
        lambda: second.with_token(cleo).submit(game_id, mooki.Command(draw=mooki.Draw(pile=0))),
    ):
        with pytest.raises(grpc.RpcError) as refused:
            call()
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert second.get_game(game_id).version == 1  # nothing played with the old token
    assert second.with_token(new).submit(game_id, mooki.Command(draw=mooki.Draw(pile=0))).version == 2
    first.close()
    second.close()
