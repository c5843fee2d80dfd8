"""Two real server processes on one Redis, serving the same games at once."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_service_pb2

from service.store.redis_keys import Keys
from tests.support.games import assert_replays_cleanly, history, next_move, play_move, played_command_ids, seats
from tests.support.redis import RedisServer
from tests.support.server import ServerProcess, watched_server
from tests.support.stores import PATIENT_REDIS


@pytest.fixture(scope="module")
def two_servers(redis_server: RedisServer) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = {"LUDOTHEQUE_STORE": redis_server.url, **PATIENT_REDIS}
    with watched_server(env=env) as first, watched_server(env=env) as second:
        yield first, second


def test_two_servers_playing_the_same_games_at_once_write_one_linear_history(
    two_servers: tuple[ServerProcess, ServerProcess],
) -> None:
    clients = [Client(server.target, retries=0) for server in two_servers]
    games = [clients[0].create_game("mooki", seats("mooki", humans=2)) for _ in range(4)]
    tokens = {game.game_id: list(game.seat_tokens) for game in games}
    acknowledged: list[tuple[str, str]] = []
    outcomes: dict[str, int] = {}
    lock = threading.Lock()

    def player(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(40):
            game_id = rng.choice(list(tokens))
            client = rng.choice(clients)  # whichever server: they race on the same games
            move = next_move(client, game_id, tokens[game_id], rng)
            if move is None:
                continue
            expected = move.version if rng.random() < 0.5 else None
            try:
                client.with_token(tokens[game_id][move.seat]).submit(
                    game_id, move.command, command_id=move.command_id, expected_version=expected
                )
                outcome = "ok"
                with lock:
                    acknowledged.append((game_id, move.command_id))
            except grpc.RpcError as error:
                # ABORTED: another player moved first; FAILED_PRECONDITION: after
                # catching up, the move was no longer legal. Both changed nothing.
                assert error.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION), error
                outcome = error.code().name
            with lock:
                outcomes[outcome] = outcomes.get(outcome, 0) + 1

    with ThreadPoolExecutor(6) as pool:
        for done in [pool.submit(player, seed) for seed in range(6)]:
            done.result(timeout=120)  # a player's failure fails the test
    assert outcomes.get("ok", 0) > 20, outcomes
    for game_id in tokens:
        events = assert_replays_cleanly(two_servers[1].target, game_id)
        played = played_command_ids(events, {0, 1})
        assert len(played) == len(set(played))
        assert {c for g, c in acknowledged if g == game_id} == set(played)
    for client in clients:
        client.close()


def test_a_move_retried_on_the_same_or_the_other_server_is_played_once(
    two_servers: tuple[ServerProcess, ServerProcess],
) -> None:
    first, second = (Client(server.target, retries=0) for server in two_servers)
    created = first.create_game("mooki", seats("mooki", humans=2))
    game_id, tokens = created.game_id, list(created.seat_tokens)
    move = next_move(first, game_id, tokens, random.Random(7))
    assert move is not None
    version = play_move(first, move, tokens)
    for client in (first, second, first, second):
        again = client.with_token(tokens[move.seat]).submit(game_id, move.command, command_id=move.command_id)
        assert again.replayed and again.version == version
    other = mooki.Command(draw=mooki.Draw(pile=99))
    with pytest.raises(grpc.RpcError) as reused:
        second.with_token(tokens[move.seat]).submit(game_id, other, command_id=move.command_id)
    assert reused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    events = assert_replays_cleanly(second.target, game_id)
    assert played_command_ids(events, {0, 1}) == [move.command_id]
    assert len(history(first.target, game_id)) == version
    first.close()
    second.close()


def test_a_stream_ticket_is_spent_on_every_server_at_once(two_servers: tuple[ServerProcess, ServerProcess]) -> None:
    first, second = two_servers
    with Client(first.target) as lobby:
        created = lobby.create_game("mooki", seats("mooki", humans=2))
        ticket = lobby.with_token(created.seat_tokens[0]).issue_stream_ticket(created.game_id).ticket
    request = game_service_pb2.StreamEventsRequest(game_id=created.game_id, ticket=ticket)
    with Client(second.target) as on_second, Client(first.target) as on_first:
        assert next(iter(on_second.stub.StreamEvents(request))).event.version == 1  # issued on one, used on the other
        with pytest.raises(grpc.RpcError) as refused:
            next(iter(on_first.stub.StreamEvents(request)))
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_player_moving_to_a_server_that_never_saw_the_lost_versions_has_them_recorded(
    own_redis: RedisServer,
) -> None:
    """The Python client remembers the highest version it was given and sends it
    (`known_version`): the store loses versions a server acknowledged (here its keys put
    back as they were, as a lagging failover leaves them), the player goes on with
    another server, which never saw them, and that server records the loss instead of
    giving the lost numbers to the player's next move. A client that says nothing
    would have its next move numbered over a version it was shown."""
    keys = Keys("ludo")
    env = {"LUDOTHEQUE_STORE": own_redis.url, **PATIENT_REDIS}
    with watched_server(env=env) as first, watched_server(env=env) as second:
        player = Client(first.target, retries=0)
        created = player.create_game("mooki", seats("mooki", humans=2))
        game_id, tokens = created.game_id, list(created.seat_tokens)
        rng = random.Random(7)
        for _ in range(2):
            move = next_move(player, game_id, tokens, rng)
            assert move is not None
            play_move(player, move, tokens)
        kept = player.known[game_id]
        saved = {name: own_redis.command("DUMP", name) for name in keys.of_game(game_id)}
        for _ in range(3):
            move = next_move(player, game_id, tokens, rng)
            assert move is not None
            play_move(player, move, tokens)
        known = player.known[game_id]
        assert known == kept + 3
        for name, dump in saved.items():  # the store loses the last three moves
            own_redis.command("DEL", name)
            if dump is not None:
                own_redis.command("RESTORE", name, 0, dump)
        unaware = Client(second.target, retries=0)  # says nothing: the store looks fine to it
        assert unaware.get_game(game_id).version == kept
        moved = Client(second.target, retries=0, known=player.known)  # the same player, on another server
        game = moved.with_token(tokens[0]).get_game(game_id)
        (loss,) = game.history_losses
        assert (loss.first, loss.last, loss.reused) == (kept + 1, known, False)
        move = next_move(moved, game_id, tokens, rng)
        assert move is not None and play_move(moved, move, tokens) > known + 1
