"""End to end over the Connect protocol: the real server, plain HTTP calls with
binary protobuf bodies, compared with the same calls over gRPC; then the protocol's
own rules (codecs, compression, versions, deadlines, CORS)."""

from __future__ import annotations

import gzip
import http.client
import json
import struct
import time
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api
from prometheus_client.parser import text_string_to_metric_families

from service.api.connect import GONE_CHECK_SECONDS
from tests.support.connect import END_STREAM, Connect, Failure, Grpc, envelope, envelopes
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server

DRAW = game_pb2.Command(mooki=mooki.Command(draw=mooki.Draw(pile=1)))
PLACE = game_pb2.Command(mooki=mooki.Command(place=mooki.Place(side=mooki.SIDE_SHOWN)))
SERVICE_PATH = "/ludotheque.v1.GameService"


@pytest.fixture(scope="module")
def channel(server: ServerProcess) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.target) as channel:
        yield channel


def same_answer(
    server: ServerProcess, channel: grpc.Channel, token: str | None, method: str, request: Message
) -> Message | list[Message] | Failure:
    """Makes the call over Connect and over gRPC; both must answer the same."""
    connect, grpc_ = Connect(server.http, token), Grpc(channel, token)
    over_connect: Message | list[Message] | Failure
    over_grpc: Message | list[Message] | Failure
    if method == "StreamEvents":
        over_connect, over_grpc = connect.stream(method, request), grpc_.stream(method, request)
    else:
        over_connect, over_grpc = connect.unary(method, request), grpc_.unary(method, request)
    assert over_connect == over_grpc, f"{method}({request}) as {token}"
    return over_connect


def test_connect_and_grpc_answer_the_same_messages_and_errors(server: ServerProcess, channel: grpc.Channel) -> None:
    created = Grpc(channel).unary(
        "CreateGame",
        api.CreateGameRequest(
            kind="mooki", seats=[game_pb2.SeatSpec(name="Cléo", age=6), game_pb2.SeatSpec(name="Robin", age=38)]
        ),
    )
    assert isinstance(created, api.CreateGameResponse)
    game_id = created.game_id
    cleo, robin = created.seat_tokens
    callers = [None, cleo, robin, ADMIN_TOKEN]

    def same(token: str | None, method: str, request: Message) -> Message | list[Message] | Failure:
        return same_answer(server, channel, token, method, request)

    # A move made over gRPC, then retried with its command id over both: the same first result.
    first = Grpc(channel, cleo).unary(
        "SubmitCommand", api.SubmitCommandRequest(game_id=game_id, command=DRAW, command_id="c1")
    )
    assert isinstance(first, api.SubmitCommandResponse) and not first.replayed
    replayed = same(cleo, "SubmitCommand", api.SubmitCommandRequest(game_id=game_id, command=DRAW, command_id="c1"))
    assert isinstance(replayed, api.SubmitCommandResponse) and replayed.replayed
    for token in callers:
        same(token, "GetGame", api.GetGameRequest(game_id=game_id))
        same(token, "ListEvents", api.ListEventsRequest(game_id=game_id))
        for version in (1, 2):
            same(token, "ReplayGame", api.ReplayGameRequest(game_id=game_id, at_version=version))
    same(None, "ListGames", api.ListGamesRequest(kind="mooki", page_size=5))

    bots = Grpc(channel).unary(
        "CreateGame",
        api.CreateGameRequest(
            kind="mooki",
            seats=[game_pb2.SeatSpec(name="Ada", bot="greedy"), game_pb2.SeatSpec(name="Bo", bot="random")],
        ),
    )
    assert isinstance(bots, api.CreateGameResponse)
    for token in (None, ADMIN_TOKEN, bots.seat_tokens[1]):
        streamed = same(token, "StreamEvents", api.StreamEventsRequest(game_id=bots.game_id))
        assert isinstance(streamed, list) and len(streamed) > 30
        same(token, "StreamEvents", api.StreamEventsRequest(game_id=bots.game_id, from_version=7))

    errors = {
        "invalid_argument": (None, "CreateGame", api.CreateGameRequest(kind="chess")),
        "failed_precondition": (robin, "SubmitCommand", api.SubmitCommandRequest(game_id=game_id, command=DRAW)),
        "not_found": (None, "GetGame", api.GetGameRequest(game_id="no-such-game")),
        "unauthenticated": ("0.forged", "GetGame", api.GetGameRequest(game_id=game_id)),
        "permission_denied": (
            robin,
            "SubmitCommand",
            api.SubmitCommandRequest(game_id=game_id, command=PLACE, seat=0),
        ),
        "aborted": (
            cleo,
            "SubmitCommand",
            api.SubmitCommandRequest(game_id=game_id, command=PLACE, expected_version=1),
        ),
        "already_exists": (
            cleo,
            "SubmitCommand",
            api.SubmitCommandRequest(game_id=game_id, command=PLACE, command_id="c1"),
        ),
    }
    for code, (token, method, request) in errors.items():
        failure = same(token, method, request)
        assert isinstance(failure, Failure) and failure.code == code, failure
    assert isinstance(same(None, "StreamEvents", api.StreamEventsRequest(game_id="nope")), Failure)
    assert same(None, "GetGame", api.GetGameRequest(game_id=game_id)).version == 2  # type: ignore[union-attr]


def test_json_bodies_answer_what_binary_ones_do(server: ServerProcess) -> None:
    connect = Connect(server.http)
    body = json.dumps({"kind": "mooki", "seats": [{"name": "Ada", "bot": "greedy"}, {"name": "Bo", "bot": "random"}]})
    reply = connect.post("CreateGame", body.encode(), "application/json")
    assert reply.status == 200 and reply.headers["content-type"] == "application/json"
    game_id = reply.json["gameId"]
    request = api.ReplayGameRequest(game_id=game_id, at_version=4)
    as_json = connect.post("ReplayGame", json_format.MessageToJson(request).encode(), "application/json")
    assert json_format.Parse(as_json.body, api.ReplayGameResponse()) == connect.unary("ReplayGame", request)

    stream_request = envelope(json.dumps({"gameId": game_id}).encode())
    streamed = connect.post("StreamEvents", stream_request, "application/connect+json")
    assert streamed.headers["content-type"] == "application/connect+json"
    *messages, (flags, end) = envelopes(streamed.body)
    assert flags == END_STREAM and json.loads(end) == {}
    events = [json_format.Parse(data, api.StreamEventsResponse()).event for _, data in messages]
    assert [e.event for e in connect.stream("StreamEvents", api.StreamEventsRequest(game_id=game_id))] == events  # type: ignore[union-attr]


def test_errors_have_connect_codes_http_statuses_and_readable_details(server: ServerProcess) -> None:
    connect = Connect(server.http)
    reply = connect.post("GetGame", b'{"gameId": "nope"}', "application/json", {"Accept-Language": "fr"})
    assert reply.status == 404 and reply.json["code"] == "not_found"
    assert reply.json["message"] == "There is no game 'nope'."
    # Every error names its message for people, says it in the caller's language, and
    # says which request it was (for a bug report).
    details = {d["type"]: d for d in reply.json["details"]}
    assert set(details) == {"google.rpc.ErrorInfo", "google.rpc.LocalizedMessage", "google.rpc.RequestInfo"}
    assert details["google.rpc.ErrorInfo"]["debug"]["metadata"] == {"message_key": "error.not_found"}
    assert details["google.rpc.LocalizedMessage"]["debug"] == {"locale": "fr", "message": "Cette partie n’existe pas."}
    assert details["google.rpc.RequestInfo"]["debug"]["requestId"] == reply.headers["x-request-id"]
    reply = connect.post("CreateGame", b'{"kind": "chess"}', "application/json")
    assert reply.status == 400 and reply.json["code"] == "invalid_argument"
    details = {d["type"]: d for d in reply.json["details"]}
    assert details["google.rpc.ErrorInfo"]["debug"]["metadata"]["message_key"] == "error.invalid_argument"
    assert details["google.rpc.LocalizedMessage"]["debug"]["locale"] == "en"
    detail = details["google.rpc.BadRequest"]
    assert detail["type"] == "google.rpc.BadRequest" and not detail["value"].endswith("=")
    assert detail["debug"]["fieldViolations"][0]["field"] == "kind"
    reply = connect.post("GetGame", b'{"gameId": 12', "application/json")
    assert reply.status == 400 and reply.json["code"] == "invalid_argument"
    reply = connect.post("GetGame", b'{"gameId": "x", "color": "red"}', "application/json")
    assert reply.status == 400 and reply.json["code"] == "invalid_argument"
    reply = connect.post("GetGame", b"\xff\xff\xff", "application/proto")
    assert reply.status == 400 and reply.json["code"] == "invalid_argument"
    reply = connect.post("NoSuchMethod", b"{}", "application/json")  # a client's mistake: no 5xx
    assert reply.status == 404 and reply.json["code"] == "unimplemented"
    reply = Connect(server.http, "not a token").post("GetGame", b"{}", "application/json", {"Authorization": "Basic x"})
    assert reply.status == 401 and reply.json["code"] == "unauthenticated"


def test_unsupported_media_types_are_a_415_naming_the_right_ones(server: ServerProcess) -> None:
    connect = Connect(server.http)
    for method, content_type in [
        ("GetGame", "text/plain"),
        ("GetGame", "application/connect+json"),  # a streaming type for a unary RPC
        ("StreamEvents", "application/json"),  # and the other way round
    ]:
        reply = connect.post(method, b"{}", content_type)
        assert reply.status == 415, (method, content_type)
        assert "application/" in reply.headers["accept-post"]


def test_protocol_versions_other_than_1_are_refused(server: ServerProcess) -> None:
    connect = Connect(server.http)
    reply = connect.post("GetGame", b'{"gameId": "x"}', "application/json", {"Connect-Protocol-Version": "2"})
    assert reply.status == 400 and reply.json["code"] == "invalid_argument"
    assert "version" in reply.json["message"]


def test_gzip_requests_are_read_and_other_encodings_refused(server: ServerProcess) -> None:
    connect = Connect(server.http)
    body = gzip.compress(
        b'{"kind": "mooki", "seats": [{"name": "A", "bot": "random"}, {"name": "B", "bot": "random"}]}'
    )
    reply = connect.post("CreateGame", body, "application/json", {"Content-Encoding": "gzip"})
    assert reply.status == 200, reply.body
    game_id = reply.json["gameId"]
    reply = connect.post("GetGame", b"not gzip", "application/json", {"Content-Encoding": "gzip"})
    assert reply.status == 400 and reply.json["code"] == "invalid_argument"
    reply = connect.post("GetGame", b"...", "application/json", {"Content-Encoding": "snappy"})
    assert reply.status == 415 and reply.json["code"] == "unimplemented" and "gzip" in reply.json["message"]
    bomb = gzip.compress(b"\0" * (3 << 20))  # inflates past the 16 KiB of a GetGame (service/api/body_limits.py)
    reply = connect.post("GetGame", bomb, "application/proto", {"Content-Encoding": "gzip"})
    assert reply.status == 413 and reply.json["code"] == "resource_exhausted"

    compressed = envelope(gzip.compress(api.StreamEventsRequest(game_id=game_id).SerializeToString()), flags=1)
    headers = {"Connect-Content-Encoding": "gzip"}
    reply = connect.post("StreamEvents", compressed, "application/connect+proto", headers)
    *messages, (flags, end) = envelopes(reply.body)
    assert flags == END_STREAM and len(messages) > 30 and json.loads(end) == {}


def test_a_stream_past_its_deadline_ends_with_deadline_exceeded(server: ServerProcess) -> None:
    connect = Connect(server.http)
    reply = connect.post(
        "CreateGame", b'{"kind": "mooki", "seats": [{"name": "A"}, {"name": "B"}]}', "application/json"
    )
    live = api.StreamEventsRequest(game_id=reply.json["gameId"])  # waits for moves that never come
    ended = connect.stream("StreamEvents", live, headers={"Connect-Timeout-Ms": "200"})
    assert isinstance(ended, Failure) and ended.code == "deadline_exceeded"
    reply = connect.post("GetGame", b"{}", "application/json", {"Connect-Timeout-Ms": "soon"})
    assert reply.status == 400 and reply.json["code"] == "invalid_argument"
    malformed = connect.post("StreamEvents", b"\0\0\0", "application/connect+proto")
    [(flags, end)] = envelopes(malformed.body)
    assert malformed.status == 200 and flags == END_STREAM
    assert json.loads(end)["error"]["code"] == "invalid_argument"


def test_browsers_on_allowed_origins_may_call_connect() -> None:
    with running_server(env={"LUDOTHEQUE_CORS_ORIGINS": "https://play.example"}) as server:
        rest = Rest(server.http)
        preflight = rest.call(
            "OPTIONS",
            f"{SERVICE_PATH}/SubmitCommand",
            headers={
                "Origin": "https://play.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,connect-protocol-version,content-type",
            },
        )
        assert preflight.status == 204
        allowed = {h.strip() for h in preflight.headers["access-control-allow-headers"].split(",")}
        assert {"authorization", "connect-protocol-version", "connect-timeout-ms", "content-type"} <= allowed
        assert "POST" in preflight.headers["access-control-allow-methods"]
        reply = Connect(server.http).post(
            "GetGame", b'{"gameId": "nope"}', "application/json", {"Origin": "https://play.example"}
        )
        assert reply.status == 404 and reply.headers["access-control-allow-origin"] == "https://play.example"
        assert "connect-protocol-version" in reply.headers["access-control-expose-headers"]


def test_a_stream_whose_client_left_releases_its_subscription() -> None:
    with running_server() as server:
        rest = Rest(server.http)
        created = rest.post("/v1/games", {"kind": "mooki", "seats": [{"name": "A"}, {"name": "B"}]}).json
        connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
        body = envelope(api.StreamEventsRequest(game_id=created["gameId"]).SerializeToString())
        connection.request(
            "POST", f"{SERVICE_PATH}/StreamEvents", body=body, headers={"Content-Type": "application/connect+proto"}
        )
        response = connection.getresponse()
        flags, length = struct.unpack(">BI", response.read(5))
        assert flags == 0 and api.StreamEventsResponse.FromString(response.read(length)).event.version == 1
        assert subscriptions(rest) == 1  # the live game's stream now waits for moves
        connection.close()
        # The server notices within GONE_CHECK_SECONDS (Connect has no keep-alive frame to fail on).
        deadline = time.monotonic() + 4 * GONE_CHECK_SECONDS
        while subscriptions(rest) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert subscriptions(rest) == 0


def subscriptions(rest: Rest) -> float:
    for family in text_string_to_metric_families(rest.get("/metrics").body.decode()):
        for sample in family.samples:
            if sample.name == "ludotheque_active_subscriptions":
                return sample.value
    raise AssertionError("no ludotheque_active_subscriptions metric")
