"""Hints through a real server and the generated clients (GetHint, gRPC and REST): a seat
on its turn gets one of its legal moves, exactly as `legal_commands` tells it, with a
reason in its language, the same each time it asks at one version, worked out by the
heavy work's worker processes; it may play it as it came. Anybody else is refused with a
clear error (not its turn, the game over, no token, a bad token, the admin), and a seat
or a client asking too often gets RESOURCE_EXHAUSTED (HTTP 429 with Retry-After)."""

from __future__ import annotations

import re
import urllib.request

import grpc
import pytest
from google.rpc import error_details_pb2
from ludotheque import Client, error_status, localized_message, retry_delay
from ludotheque.v1 import game_pb2

from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server

SERVED = 'ludotheque_heavy_reads_total{outcome="served",read="GetHint"}'


def metric(server: ServerProcess, sample: str) -> float:
    with urllib.request.urlopen(f"{server.http}/metrics", timeout=10) as response:
        found = re.search(rf"^{re.escape(sample)} (\S+)$", response.read().decode(), re.M)
    return float(found.group(1)) if found else 0.0


def mooki_game(server: ServerProcess) -> tuple[str, list[str]]:
    """A Mooki game of two players: Cléo (seat 0) plays first."""
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "age": 9}])
        return created.game_id, list(created.seat_tokens)


def refusal(call: grpc.RpcError) -> tuple[grpc.StatusCode, str]:
    """The status code and the ErrorInfo reason of a refused call."""
    status = error_status(call)
    reason = ""
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = reason or info.reason
    return call.code(), reason


def test_a_seat_on_its_turn_is_hinted_one_of_its_moves_and_may_play_it(server: ServerProcess) -> None:
    game_id, tokens = mooki_game(server)
    served = metric(server, SERVED)
    with Client(server.target, token=tokens[0], locale="fr") as cleo:
        hinted = cleo.get_hint(game_id)
        game = cleo.get_game(game_id)
        assert hinted.version == game.version
        assert hinted.bot in ("strong", "greedy")
        assert hinted.command in list(game.legal_commands), "as legal_commands tells it, words and choices"
        assert hinted.reason.key.startswith("mooki.hint.") and hinted.reason.text
        assert "Prends" in hinted.reason.text or "Garde" in hinted.reason.text  # in French
        assert cleo.get_hint(game_id) == hinted, "asked again at one version: the same hint"
        played = cleo.submit(game_id, hinted.command)  # sent back as it came
        assert played.version > hinted.version
        after = cleo.get_hint(game_id)  # her turn still: she keeps a face of the card drawn
        assert after.version == played.version and after.command.mooki.HasField("place")
    assert metric(server, SERVED) == served + 3, "every hint was worked out by a worker process"


def test_a_hint_over_rest_in_the_readers_language(server: ServerProcess) -> None:
    game_id, tokens = mooki_game(server)
    reply = Rest(server.http, tokens[0]).get(f"/v1/games/{game_id}/hint?locale=en")
    assert reply.status == 200, reply.body
    body = reply.json
    assert body["command"]["mooki"]["draw"] is not None and body["command"]["choices"]
    assert body["reason"]["text"].startswith("Take the")
    assert int(body["version"]) >= 1


def test_only_the_seat_to_act_of_a_game_going_on_gets_a_hint(server: ServerProcess) -> None:
    game_id, tokens = mooki_game(server)
    with Client(server.target) as anyone:
        robin, cleo = anyone.with_token(tokens[1]), anyone.with_token(tokens[0])
        cases = [
            (robin, grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
            (anyone, grpc.StatusCode.UNAUTHENTICATED, ""),
            (anyone.with_token(tokens[0][:-2] + "xx"), grpc.StatusCode.UNAUTHENTICATED, ""),
            (anyone.with_token(ADMIN_TOKEN), grpc.StatusCode.PERMISSION_DENIED, "NOT_A_SEAT"),
        ]
        for caller, code, reason in cases:
            with pytest.raises(grpc.RpcError) as refused:
                caller.get_hint(game_id)
            assert refusal(refused.value)[0] == code
            assert not reason or refusal(refused.value)[1] == reason
            assert localized_message(refused.value)
        with pytest.raises(grpc.RpcError) as unknown:
            cleo.get_hint("NoSuchGame000000")
        assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
        assert cleo.get_game(game_id).version == 1, "nothing was played by asking"
        with anyone.with_token(ADMIN_TOKEN) as admin:
            over = admin.create_game("pirates", [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "greedy"}])
        assert over.game.status == game_pb2.GAME_STATUS_FINISHED  # bots play it out at once
        with pytest.raises(grpc.RpcError) as finished:
            anyone.with_token(over.seat_tokens[0]).get_hint(over.game_id)
        assert refusal(finished.value) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
    with Client(server.target) as lobby:
        waiting = lobby.create_game("mooki", [{"name": "Cléo"}, {"open": True}])
        with pytest.raises(grpc.RpcError) as not_dealt:
            lobby.with_token(waiting.seat_tokens[0]).get_hint(waiting.game_id)
        assert refusal(not_dealt.value) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_STARTED")
    french = Rest(server.http, tokens[1]).get(f"/v1/games/{game_id}/hint?locale=fr")
    assert french.status == 400 and "ton tour" in french.body.decode()


def test_a_seat_and_a_client_asking_too_often_are_told_when_to_come_back() -> None:
    env = {"LUDOTHEQUE_HINT_RATE": "2", "LUDOTHEQUE_HINT_CLIENT_RATE": "3"}
    with running_server(env=env) as server:
        first, tokens = mooki_game(server)
        second, others = mooki_game(server)
        with Client(server.target, token=tokens[0]) as cleo:
            cleo.get_hint(first)
            cleo.get_hint(first)
            with pytest.raises(grpc.RpcError) as seat_rate:
                cleo.get_hint(first)
            assert refusal(seat_rate.value) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "HINT_RATE")
            assert (retry_delay(seat_rate.value) or 0) > 0
            other = cleo.with_token(others[0])
            other.get_hint(second)  # another seat: its own rate; the client's third
            with pytest.raises(grpc.RpcError) as client_rate:
                other.get_hint(second)
            assert refusal(client_rate.value) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "HINT_CLIENT_RATE")
        reply = Rest(server.http, others[0]).get(f"/v1/games/{second}/hint")
        assert reply.status == 429 and int(reply.headers["retry-after"]) >= 1
