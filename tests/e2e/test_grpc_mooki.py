"""End to end: the real server on random ports, driven by the generated Python client."""

from __future__ import annotations

import http.client
import itertools
import random
import signal
import threading
from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from ludotheque import Client, error_status, rule_code
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from tests.support.games import follow
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server


def code_of(call: object) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as raised:
        call()  # type: ignore[operator]
    return raised.value.code()


def test_two_players_play_a_full_game_while_a_spectator_follows(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "age": 38}])
        game_id = created.game_id
        seats = [lobby.with_token(token) for token in created.seat_tokens]
        streamed: list[game_pb2.Event] = []
        spectator = follow(lobby, game_id, streamed)
        rng = random.Random(5)
        moves = 0
        while True:
            public = lobby.get_game(game_id)
            if public.status == game_pb2.GAME_STATUS_FINISHED:
                break
            seat = public.to_act[0]
            mine = seats[seat].get_game(game_id)
            assert mine.viewer.seat == seat and mine.legal_commands
            other = seats[1 - seat].get_game(game_id)
            assert list(other.legal_commands) == []
            result = seats[seat].submit(game_id, rng.choice(list(mine.legal_commands)), expected_version=mine.version)
            assert result.version > mine.version
            moves += 1
        spectator.join(timeout=60)
        assert not spectator.is_alive(), "the stream must end with the game"
        listed = lobby.list_events(game_id).events
        assert streamed == list(listed)
        assert streamed[-1].game_over and moves > 30
        assert not any(e.mooki.card_drawn.HasField("hidden") for e in streamed)  # a spectator never sees them
        assert all(not e.HasField("command") for e in streamed)
        assert public.outcome.summary and len(public.outcome.winners) == 1
        assert lobby.with_token(ADMIN_TOKEN).list_events(game_id).events[0].mooki.game_started.piles[0].cards


def test_bad_requests_get_clear_errors_and_change_nothing(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        game_id = created.game_id
        cleo, robin = (lobby.with_token(t) for t in created.seat_tokens)
        draw = mooki.Command(draw=mooki.Draw(pile=0))

        assert code_of(lambda: robin.submit(game_id, draw, seat=0)) == grpc.StatusCode.PERMISSION_DENIED
        assert code_of(lambda: lobby.with_token("0.forged").submit(game_id, draw)) == grpc.StatusCode.UNAUTHENTICATED
        assert code_of(lambda: lobby.submit(game_id, draw)) == grpc.StatusCode.UNAUTHENTICATED
        assert code_of(lambda: cleo.get_game("no-such-game")) == grpc.StatusCode.NOT_FOUND
        assert code_of(lambda: cleo.submit(game_id, mooki.Command())) == grpc.StatusCode.INVALID_ARGUMENT
        assert code_of(lambda: lobby.create_game("chess", ["a", "b"])) == grpc.StatusCode.INVALID_ARGUMENT

        with pytest.raises(grpc.RpcError) as illegal:
            robin.submit(game_id, draw)
        assert illegal.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert rule_code(illegal.value) == "not_your_turn"
        status = error_status(illegal.value)
        assert status is not None and status.details

        first = cleo.submit(game_id, draw, command_id="cleo-1")
        again = cleo.submit(game_id, draw, command_id="cleo-1")
        assert again.replayed and again.version == first.version == 2
        assert (
            code_of(
                lambda: cleo.submit(
                    game_id, mooki.Command(place=mooki.Place(side=mooki.SIDE_SHOWN)), expected_version=1
                )
            )
            == grpc.StatusCode.ABORTED
        )

        raw = lobby.channel.unary_unary(
            "/ludotheque.v1.GameService/SubmitCommand",
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b,
        )
        assert code_of(lambda: raw(b"\xff\xff\xff\x01not protobuf")) == grpc.StatusCode.INVALID_ARGUMENT
        assert code_of(lambda: raw(b"\x0a\x80\x80\x80\x01" + b"x" * (2 << 20))) == grpc.StatusCode.RESOURCE_EXHAUSTED

        assert lobby.get_game(game_id).version == 2  # only the one accepted move
        events = lobby.list_events(game_id).events
        assert [e.version for e in events] == [1, 2]
        assert list(itertools.islice(lobby.stream(game_id), 2)) == list(events)  # the stream replays cleanly
        # the game goes on after all of that
        assert cleo.submit(game_id, mooki.Command(place=mooki.Place(side=mooki.SIDE_SHOWN))).version == 3


def test_health_and_reflection(server: ServerProcess) -> None:
    with grpc.insecure_channel(server.target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "ludotheque.v1.GameService"):
            answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        answer = next(iter(reflection.ServerReflectionInfo(iter([request]), timeout=10)))
        names = {s.name for s in answer.list_services_response.service}
        assert {"ludotheque.v1.GameService", "grpc.health.v1.Health"} <= names


def test_sigterm_stops_the_server_gracefully() -> None:
    with running_server() as server:
        with Client(server.target) as client:
            client.create_game("mooki", ["a", "b"])
        assert server.stop(signal.SIGTERM) == 0
        assert "stopped" in server.log()


def test_sigterm_ends_live_streams_at_once_with_unavailable() -> None:
    # A grace far longer than the deadlines below: streams left to run to the grace's
    # end (then cut without a status) would fail this test with DEADLINE_EXCEEDED.
    with running_server(env={"LUDOTHEQUE_SHUTDOWN_GRACE": "300"}) as server:
        with Client(server.target) as lobby:
            created = lobby.create_game("mooki", ["Cléo", "Robin"])
            follow = api.StreamEventsRequest(game_id=created.game_id)
            spectator = lobby.stub.StreamEvents(follow, timeout=60)
            assert next(spectator).event.version == 1
            done = threading.Event()

            def requests() -> Iterator[api.PlayRequest]:
                yield api.PlayRequest(join=api.PlayJoin(game_id=created.game_id))
                done.wait(60)  # the session stays open (a half-close would end it)

            cleo = (("authorization", f"Bearer {created.seat_tokens[0]}"),)
            session = lobby.stub.Play(requests(), metadata=cleo, timeout=60)
            assert [event.version for event in next(session).events] == [1]
            sse = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=60)
            sse.request("GET", f"/v1/games/{created.game_id}/events:stream")
            sse_body = sse.getresponse()
            assert sse_body.status == 200 and sse_body.readline().startswith(b"retry: ")  # its wait after a drop
            assert sse_body.readline() == b"\n" and sse_body.readline().startswith(b"id: 1")
            server.process.send_signal(signal.SIGTERM)
            for stream in (spectator, session):
                with pytest.raises(grpc.RpcError) as ended:
                    for _ in stream:
                        pass
                assert ended.value.code() == grpc.StatusCode.UNAVAILABLE, ended.value
                assert "shutting down" in (ended.value.details() or "")
            done.set()
            rest = sse_body.read()  # the SSE stream ends with an error event, then closes
            assert b"event: error" in rest and b"shutting down" in rest
        assert server.process.wait(30) == 0  # nothing left to wait for: no grace spent
        log = server.log()
        assert "stopped" in log and "ERROR" not in log and "Traceback" not in log
