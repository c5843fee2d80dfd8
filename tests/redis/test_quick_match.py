"""Quick match (QuickMatch) on two real server processes sharing one Redis: callers of
the same kind and options share one game whichever server they call, racing callers
never leave two games waiting, bots take the empty seats when the deadline a caller
asked for passes (and never unasked), over gRPC, REST and the Python client."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from google.protobuf import json_format
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.picnic.v1 import picnic_pb2 as picnic
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from tests.redis.test_online_servers import online_env
from tests.support.games import table_changes
from tests.support.redis import RedisServer
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, watched_server
from tests.support.waiting import eventually

WAIT = 30.0


@pytest.fixture(scope="module")
def two_servers(redis_server: RedisServer) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = online_env(redis_server)
    with watched_server(env=env) as first, watched_server(env=env) as second:
        yield first, second


def waiting_games(target: str, kind: str) -> list[game_pb2.Game]:
    with Client(target, ADMIN_TOKEN) as admin:  # the admin lists unlisted games too
        return list(admin.list_games(kind=kind, status=game_pb2.GAME_STATUS_OPEN).games)


def test_two_callers_on_two_servers_share_one_game_and_a_third_gets_the_next(
    two_servers: tuple[ServerProcess, ServerProcess],
) -> None:
    first, second = two_servers
    with Client(first.target) as one, Client(second.target) as two:
        ana = one.quick_match("picnic", "Ana", age=6, players=2)
        assert ana.created and ana.seat == 0 and ana.game.status == game_pb2.GAME_STATUS_OPEN
        other = two.quick_match("picnic", "Zoé", picnic.Options(cold_dragon=True), players=2)
        assert other.created and other.game_id != ana.game_id  # other options: another game
        ben = two.quick_match("picnic", "Ben", players=2)
        assert (ben.game_id, ben.seat, ben.created) == (ana.game_id, 1, False)
        assert ben.game.status == game_pb2.GAME_STATUS_ACTIVE  # the last seat taken: dealt
        assert [s.name for s in ben.game.seats] == ["Ana", "Ben"] and ben.game.viewer.seat == 1
        assert one.with_token(ana.seat_token).get_game(ana.game_id).viewer.seat == 0  # Ana's token is hers
        cleo = Rest(first.http).post("/v1/games:quickMatch", {"kind": "picnic", "name": "Cléo", "players": 2})
        assert cleo.status == 200, cleo.body
        assert cleo.json["created"] and cleo.json["gameId"] not in (ana.game_id, other.game_id)
        assert cleo.json["seat"] == 0 and cleo.json["seatToken"]
        dan = one.quick_match("picnic", "Dan", players=2)
        assert (dan.game_id, dan.seat) == (cleo.json["gameId"], 1)
        assert table_changes(first.target, ana.game_id) == ["joined", "joined"]


def test_racing_callers_on_two_servers_never_leave_two_games_waiting(
    two_servers: tuple[ServerProcess, ServerProcess],
) -> None:
    # Pirates for four, played by no other test here: every waiting pirates game is this one's.
    callers, seats_each = 23, 4
    clients = [Client(server.target, retries=0) for server in two_servers]
    barrier = threading.Barrier(8)

    def caller(n: int) -> api.QuickMatchResponse:
        if n < 8:
            barrier.wait(timeout=WAIT)  # the first eight call at once
        return clients[n % 2].quick_match("pirates", f"Player {n}", players=seats_each)

    with ThreadPoolExecutor(8) as pool:
        seated = list(pool.map(caller, range(callers)))
    places = Counter((s.game_id, s.seat) for s in seated)
    assert len(places) == callers, "two callers were given the same seat"
    per_game = Counter(s.game_id for s in seated)
    assert sorted(per_game.values()) == [callers % seats_each] + [seats_each] * (callers // seats_each)
    # A game is created once (its creator may find it filled by others before it sits).
    assert max(Counter(s.game_id for s in seated if s.created).values()) == 1
    waiting = waiting_games(two_servers[1].target, "pirates")
    assert [game.game_id for game in waiting] == [g for g, n in per_game.items() if n < seats_each]
    with Client(two_servers[0].target, ADMIN_TOKEN) as admin:
        for game_id, count in per_game.items():
            game = admin.get_game(game_id)
            assert sum(not seat.open for seat in game.seats) == count
            assert (game.status == game_pb2.GAME_STATUS_OPEN) == (count < seats_each)
    for client in clients:
        client.close()


def test_bots_take_the_empty_seats_when_asked_and_only_then(
    two_servers: tuple[ServerProcess, ServerProcess],
) -> None:
    first, second = two_servers
    with Client(first.target) as one, Client(second.target) as two:
        unasked = one.quick_match("picnic", "Eli", players=3)
        assert unasked.game.status == game_pb2.GAME_STATUS_OPEN
        asked = two.quick_match("mooki", "Fay", age=7, bots_after_seconds=1, bot="random")
        assert asked.game.status == game_pb2.GAME_STATUS_OPEN and asked.seat == 0

        def dealt() -> game_pb2.Game | None:
            game = one.get_game(asked.game_id)
            return game if game.status != game_pb2.GAME_STATUS_OPEN else None

        game = eventually(dealt, WAIT, "the bots to take the empty seat")
        assert (game.seats[0].name, game.seats[0].bot) == ("Fay", "")
        assert game.seats[1].bot == "random" and not game.seats[1].open
        # The bots' deadline, set later than any the unasked game could have had,
        # passed: that game still waits for people.
        assert two.get_game(unasked.game_id).status == game_pb2.GAME_STATUS_OPEN
        # The next caller finds the dealt game full and gets a new one.
        after = one.quick_match("mooki", "Gus")
        assert after.created and after.game_id != asked.game_id


def test_bad_requests_are_refused_with_their_field_and_create_nothing(
    two_servers: tuple[ServerProcess, ServerProcess],
) -> None:
    first = two_servers[0]
    before = len(waiting_games(first.target, "mooki"))
    bad = [
        (api.QuickMatchRequest(kind="chess", name="Ana"), "kind"),
        (api.QuickMatchRequest(kind="mooki", name=" "), "name"),
        (api.QuickMatchRequest(kind="mooki", name="Ana", players=3), "players"),
        (api.QuickMatchRequest(kind="mooki", name="Ana", age=151), "age"),
        (api.QuickMatchRequest(kind="mooki", name="Ana", bots_after_seconds=86_401), "bots_after_seconds"),
        (api.QuickMatchRequest(kind="mooki", name="Ana", bot="genius"), "bot"),
        (
            api.QuickMatchRequest(kind="mooki", name="Ana", options=game_pb2.GameOptions(picnic=picnic.Options())),
            "options",
        ),
        (
            api.QuickMatchRequest(
                kind="mooki", name="Ana", options=game_pb2.GameOptions(mooki=mooki.Options(youngest_seat=5))
            ),
            "options",
        ),
    ]
    rest = Rest(first.http)
    for request, field in bad:
        answer = rest.post("/v1/games:quickMatch", json_format.MessageToDict(request))
        assert answer.status == 400, (field, answer.body)
        named = [v["field"] for d in answer.json["details"] for v in d.get("fieldViolations", [])]
        assert named == [field], answer.json
    with Client(first.target) as client, pytest.raises(grpc.RpcError) as refused:
        client.quick_match("mooki", "   ")  # only spaces ("" is no name: "Player 2" to every reader)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert len(waiting_games(first.target, "mooki")) == before
