"""Bad input answers 4xx / INVALID_ARGUMENT, never a 5xx: each case a hostile client
tried (issue 16), sent as raw bytes to the real server."""

from __future__ import annotations

import http.client
import json

import grpc
import pytest
from ludotheque import Client
from ludotheque.v1 import game_service_pb2 as api
from ludotheque.v1 import game_service_pb2_grpc

from tests.support.server import ServerProcess


def raw(
    server: ServerProcess, method: str, path: str, headers: dict[str, bytes], body: bytes = b""
) -> tuple[int, bytes]:
    """Sends a request exactly as given (header values as raw bytes); the status and body."""
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        for name, value in {"Content-Length": str(len(body)).encode(), **headers}.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.fixture(scope="module")
def game_id(server: ServerProcess) -> str:
    with Client(server.target) as client:
        return client.create_game("mooki", ["Cléo", "Robin"]).game_id


def test_a_bearer_token_with_a_unicode_digit_is_unauthenticated(server: ServerProcess, game_id: str) -> None:
    status, body = raw(server, "GET", f"/v1/games/{game_id}", {"Authorization": "Bearer ².x".encode()})
    assert (status, json.loads(body)["code"]) == (401, 16)
    status, body = raw(
        server,
        "POST",
        "/ludotheque.v1.GameService/GetGame",
        {"Authorization": "Bearer ².x".encode(), "Content-Type": b"application/json"},
        json.dumps({"gameId": game_id}).encode(),
    )
    assert (status, json.loads(body)["code"]) == (401, "unauthenticated")


@pytest.mark.parametrize("token", ["99999", "%C2%B2", "9" * 5000, "-1", "1.5"])
def test_a_page_token_the_server_never_gave_is_invalid(server: ServerProcess, token: str) -> None:
    status, body = raw(server, "GET", f"/v1/games?pageToken={token}", {})
    assert status == 400, body
    assert json.loads(body)["code"] == 3


@pytest.mark.parametrize("query", ["atVersion=1&atVersion=0", "atVersion=1&at_version=1"])
def test_a_query_parameter_of_one_value_given_twice_is_invalid(server: ServerProcess, game_id: str, query: str) -> None:
    status, body = raw(server, "GET", f"/v1/games/{game_id}/replay?{query}", {})
    assert status == 400, body
    assert json.loads(body)["code"] == 3


def test_a_page_token_the_server_never_gave_is_invalid_over_grpc(server: ServerProcess) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        for token in ("99999", "²", "9" * 5000):
            with pytest.raises(grpc.RpcError) as refused:
                stub.ListGames(api.ListGamesRequest(page_token=token), timeout=10)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize("last_id", [b"18446744073709551615", b"99999999999999999999999", "²".encode(), b"-1"])
def test_a_last_event_id_that_is_no_version_is_invalid(server: ServerProcess, game_id: str, last_id: bytes) -> None:
    status, body = raw(server, "GET", f"/v1/games/{game_id}/events:stream", {"Last-Event-ID": last_id})
    assert status == 400, body
    assert json.loads(body)["code"] == 3


@pytest.mark.parametrize("timeout", ["²".encode(), b"-5", b"1e3", b"12345678901"])
def test_a_connect_timeout_that_is_no_number_is_invalid(server: ServerProcess, game_id: str, timeout: bytes) -> None:
    status, body = raw(
        server,
        "POST",
        "/ludotheque.v1.GameService/GetGame",
        {"Connect-Timeout-Ms": timeout, "Content-Type": b"application/json"},
        json.dumps({"gameId": game_id}).encode(),
    )
    assert (status, json.loads(body)["code"]) == (400, "invalid_argument")


@pytest.mark.parametrize("encoding", [b"gzip", b"deflate"])
def test_a_rest_body_that_is_not_its_content_encoding_is_invalid(server: ServerProcess, encoding: bytes) -> None:
    body = json.dumps({"kind": "mooki", "seats": [{"name": "A"}, {"name": "B"}]}).encode()
    status, answer = raw(
        server, "POST", "/v1/games", {"Content-Encoding": encoding, "Content-Type": b"application/json"}, body
    )
    assert status == 400, answer
    assert json.loads(answer)["code"] == 3


@pytest.mark.parametrize("path", ["/v1/games", "/ludotheque.v1.GameService/GetGame", "/no/such/route"])
def test_an_expect_header_that_is_not_text_is_an_expectation_failed(server: ServerProcess, path: str) -> None:
    status, _ = raw(server, "POST", path, {"Expect": b"\x80\xff", "Content-Type": b"application/json"}, b"{}")
    assert status == 417
