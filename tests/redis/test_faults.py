"""Faults under load: a server killed with SIGKILL, Redis crashing and coming back, Redis
frozen. Whatever happens, every move a client was told about is stored exactly once."""

from __future__ import annotations

import random
import signal
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ludotheque import Client

from service.store.redis_client import DEFAULT_TIMEOUT
from tests.support.games import (
    RETRYABLE,
    history,
    next_move,
    play_move,
    seats,
)
from tests.support.load import Load
from tests.support.redis import RedisServer, running_redis
from tests.support.rest import Rest
from tests.support.server import ServerProcess, running_server
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def health(server: ServerProcess) -> int:
    with grpc.insecure_channel(server.target) as channel:
        answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        return int(answer.status)


def test_a_server_killed_mid_load_loses_and_repeats_no_acknowledged_move(redis_server: RedisServer) -> None:
    env = {"LUDOTHEQUE_STORE": redis_server.url}
    with running_server(env=env) as doomed, running_server(env=env) as survivor:
        clients = [Client(doomed.target, retries=0, timeout=5), Client(survivor.target, retries=0, timeout=5)]
        load = Load(clients[1], games=8)
        failovers: list[str] = []  # the moves being submitted when the server died
        switched: list[str] = []  # the games whose player moved over to the survivor
        in_flight = [0, 0]  # submits on their way to each server

        def play_game(game_id: str, moves: int) -> None:
            rng = random.Random(game_id)
            tokens = load.tokens[game_id]
            current = 0  # the doomed server first
            for _ in range(moves):
                move = None
                while move is None:
                    try:
                        move = next_move(clients[current], game_id, tokens, rng)
                        if move is None:
                            return  # the game is over
                    except grpc.RpcError as error:
                        assert error.code() in RETRYABLE and current == 0, error
                        current = 1
                        switched.append(game_id)
                while True:  # the same command id, whichever server answers
                    try:
                        with load.changed:
                            in_flight[current] += 1
                            load.changed.notify_all()
                        try:
                            play_move(clients[current], move, tokens)
                        finally:
                            with load.changed:
                                in_flight[current] -= 1
                        break
                    except grpc.RpcError as error:
                        assert error.code() in RETRYABLE and current == 0, error
                        current = 1
                        switched.append(game_id)
                        failovers.append(move.command_id)
                load.acknowledge(game_id, move.command_id)

        players = load.run(30, play_game)
        load.wait_for(40)
        with load.changed:  # kill it while moves are on their way to it
            assert load.changed.wait_for(lambda: in_flight[0] >= 3, 60)
            doomed.stop(signal.SIGKILL)
        players.join(180)
        assert not players.is_alive()
        assert load.count > 100 and sorted(switched) == sorted(load.tokens), (load.count, switched)
        assert failovers  # moves that may or may not have been played when it died, sent again
        load.check(survivor.target)
        for client in clients:
            client.close()


def test_redis_crashing_under_load_loses_no_acknowledged_move() -> None:
    with running_redis() as redis, running_server(env={"LUDOTHEQUE_STORE": redis.url}) as server:
        client = Client(server.target, retries=0, timeout=10)
        load = Load(client, games=6)
        redis_back = threading.Event()
        refused: list[str] = []

        def play_game(game_id: str, moves: int) -> None:
            rng = random.Random(game_id)
            tokens = load.tokens[game_id]
            for _ in range(moves):
                move = None
                while move is None:
                    try:
                        move = next_move(client, game_id, tokens, rng)
                        if move is None:
                            return
                    except grpc.RpcError as error:
                        assert error.code() == grpc.StatusCode.UNAVAILABLE, error
                        refused.append("read")
                        assert redis_back.wait(60)
                while True:
                    try:
                        play_move(client, move, tokens)
                        break
                    except grpc.RpcError as error:
                        assert error.code() == grpc.StatusCode.UNAVAILABLE, error  # never INTERNAL
                        refused.append(move.command_id)
                        assert redis_back.wait(60)  # then retry with the same command id
                load.acknowledge(game_id, move.command_id)

        players = load.run(25, play_game)
        load.wait_for(30)
        wait_until(lambda: health(server) == SERVING, 30, "the server to serve")  # before: not by chance
        redis.stop(signal.SIGKILL)  # a crash: only the AOF (appendfsync always) remains
        wait_until(lambda: len(refused) >= 3, 30, "clients to be refused while Redis is down")
        wait_until(lambda: health(server) == NOT_SERVING, 30, "the server to report not serving")
        redis.start()
        redis_back.set()
        wait_until(lambda: health(server) == SERVING, 30, "the server to serve again")
        players.join(180)
        assert not players.is_alive()
        assert load.count > 100, load.count
        load.check(server.target)
        client.close()


def test_a_server_starts_not_ready_while_redis_is_down_and_serves_once_it_is_up(own_redis: RedisServer) -> None:
    own_redis.stop()
    with running_server(env={"LUDOTHEQUE_STORE": own_redis.url}) as server:
        assert health(server) == NOT_SERVING
        with Client(server.target, retries=0) as client:
            with pytest.raises(grpc.RpcError) as refused:
                client.create_game("mooki", seats("mooki", humans=2))
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
            own_redis.start()
            wait_until(lambda: health(server) == SERVING, 30, "the server to become ready")
            assert client.create_game("mooki", seats("mooki", humans=2)).game.version >= 1


@pytest.mark.alone  # its two seconds need the machine to themselves
def test_a_frozen_redis_is_noticed_within_two_seconds_and_a_move_of_unknown_fate_counts_once(
    own_redis: RedisServer,
) -> None:
    with running_server(env={"LUDOTHEQUE_STORE": own_redis.url}) as server:
        client = Client(server.target, retries=0, timeout=10)
        created = client.create_game("mooki", seats("mooki", humans=2))
        game_id, tokens = created.game_id, list(created.seat_tokens)
        move = next_move(client, game_id, tokens, random.Random(3))
        assert move is not None and own_redis.process is not None
        # Serving first: a server whose first probe of the store took longer than readiness
        # may wait (a busy machine) starts NOT_SERVING, until its watcher looks again.
        wait_until(lambda: health(server) == SERVING, 30, "the server to serve")
        own_redis.process.send_signal(signal.SIGSTOP)  # Redis hangs: it neither answers nor closes
        try:
            frozen = time.monotonic()
            with pytest.raises(grpc.RpcError) as unknown:
                play_move(client, move, tokens)  # sent to Redis, which may or may not play it later
            answered = time.monotonic() - frozen
            assert unknown.value.code() == grpc.StatusCode.UNAVAILABLE
            wait_until(lambda: health(server) == NOT_SERVING, 5, "the server to report not serving")
            noticed = time.monotonic() - frozen
            asked = time.monotonic()  # answered from the last probe, not by waiting for a frozen Redis
            assert Rest(server.http).get("/readyz").status == 503
            readyz = time.monotonic() - asked
            assert readyz < DEFAULT_TIMEOUT, readyz  # waiting for the frozen Redis would take its timeout
        finally:
            own_redis.process.send_signal(signal.SIGCONT)
        wait_until(lambda: health(server) == SERVING, 10, "the server to serve again")
        assert Rest(server.http).get("/readyz").status == 200
        play_move(client, move, tokens)  # the retry, with the same command id
        events = history(server.target, game_id)
        assert [e.command_id for e in events if e.HasField("command")].count(move.command_id) == 1
        timeouts = [
            line
            for line in Rest(server.http).get("/metrics").body.decode().splitlines()
            if line.startswith('ludotheque_redis_errors_total{reason="timeout"}')
        ]
        assert timeouts and float(timeouts[0].split()[-1]) >= 1
        assert "Redis failure, possibly a failover (timeout)" in server.log()
        assert answered < 2.0 and noticed < 2.5, (answered, noticed)
        print(
            f"\nfrozen Redis: the move answered UNAVAILABLE after {answered:.2f} s, NOT_SERVING after {noticed:.2f} s"
            f" (/readyz answered in {readyz * 1000:.0f} ms)"
        )
