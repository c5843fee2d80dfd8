"""Cross-origin writes and what a request may put into an answer's headers.

Before: a foreign page's "simple" `POST /v1/games` (`Content-Type: text/plain`, which a
browser sends without asking the server first) created a game, spending its visitors'
creation quota; the `Host` header was copied into the Content-Security-Policy; and a
`fromVersion` past the end was answered "the event store lost versions 2 to
18446744073709551614 (a storage failover)"."""

from __future__ import annotations

import http.client
import json

import grpc
import pytest
from ludotheque import Client
from ludotheque.v1 import game_service_pb2 as api
from ludotheque.v1 import game_service_pb2_grpc

from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server

GAME = json.dumps({"kind": "mooki", "seats": [{"name": "Cléo"}, {"name": "Robin", "bot": "greedy"}]}).encode()
LAST_UINT64 = (1 << 64) - 1


def post(server: ServerProcess, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def games_created(server: ServerProcess) -> int:
    return len(Rest(server.http, ADMIN_TOKEN).get("/v1/games?pageSize=500").json["games"])


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        None,
    ],
)
def test_a_simple_cross_origin_post_writes_nothing(server: ServerProcess, content_type: str | None) -> None:
    before = games_created(server)
    headers = {"Origin": "https://elsewhere.example"}
    if content_type is not None:
        headers["Content-Type"] = content_type
    status, body = post(server, "/v1/games", GAME, headers)
    assert status == 415, body
    assert json.loads(body)["code"] == 3  # INVALID_ARGUMENT, naming what would do
    assert "application/json" in json.loads(body)["message"]
    assert games_created(server) == before


def test_a_json_post_still_writes(server: ServerProcess) -> None:
    status, body = post(server, "/v1/games", GAME, {"Content-Type": "application/json; charset=utf-8"})
    assert status == 200, body


def test_a_bodyless_write_with_a_token_needs_no_content_type(server: ServerProcess) -> None:
    # Authorization is never sent cross-origin without the server's leave (a preflight).
    game_id = Client(server.target).create_game("mooki", ["Cléo", "Robin"]).game_id
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    try:
        connection.request("DELETE", f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        assert connection.getresponse().status == 200
    finally:
        connection.close()


def page_policy(server: ServerProcess, host: str) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    try:
        connection.request("GET", "/", headers={"Host": host})
        response = connection.getresponse()
        response.read()
        return response.getheader("Content-Security-Policy", "")
    finally:
        connection.close()


def test_the_content_security_policy_never_quotes_the_host_header(server: ServerProcess) -> None:
    policy = page_policy(server, "evil.example; script-src *")
    assert policy, "the page has a Content-Security-Policy"
    assert "evil" not in policy and "script-src *" not in policy


def test_the_content_security_policy_names_the_configured_origin() -> None:
    with running_server(env={"LUDOTHEQUE_PUBLIC_ORIGIN": "https://ludo.example.org"}) as server:
        policy = page_policy(server, "evil.example")
    assert "wss://ludo.example.org" in policy and "evil" not in policy


def test_a_version_past_the_end_is_out_of_range_not_a_loss(server: ServerProcess) -> None:
    game_id = Client(server.target).create_game("mooki", ["Cléo", "Robin"]).game_id
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            next(stub.StreamEvents(api.StreamEventsRequest(game_id=game_id, from_version=LAST_UINT64), timeout=10))
    assert refused.value.code() == grpc.StatusCode.OUT_OF_RANGE
    assert "lost" not in refused.value.details() and "failover" not in refused.value.details()
    reply = Rest(server.http).get(f"/v1/games/{game_id}/events:stream?fromVersion={LAST_UINT64}")
    assert reply.status == 400 and reply.json["code"] == 11
