"""Fuzzing what a hostile client controls besides bodies: headers, query parameters,
page tokens, Last-Event-ID, gRPC metadata, on every transport (REST, server-sent events,
Connect, gRPC). No answer may be a server error (5xx, INTERNAL, UNKNOWN), and the store
must be as it was: nothing a stranger sends changes a game.

A few seconds by default; HYPOTHESIS_PROFILE=thorough sends ten times more."""

from __future__ import annotations

import http.client
import json
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ludotheque import Client
from ludotheque.v1 import game_service_pb2 as api

from service.api.rpcs import SERVICE
from tests.support.connect import envelope
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, watched_server

EXAMPLES = max(settings().max_examples // 2, 25)
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
HTTP_HEADERS = [
    "Authorization",
    "Last-Event-ID",
    "Connect-Timeout-Ms",
    "Connect-Protocol-Version",
    "Connect-Content-Encoding",
    "Content-Encoding",
    "Content-Type",
    "Content-Length",
    "Transfer-Encoding",
    "Origin",
    "Accept",
    "Accept-Encoding",
    "Access-Control-Request-Method",
    "Connection",
    "Expect",
    "X-Anything",
]
QUERY_NAMES = [
    "pageToken",
    "page_token",
    "pageSize",
    "kind",
    "status",
    "fromVersion",
    "toVersion",
    "atVersion",
    "asSeat",
    "asSpectator",
    "gameId",
    "ticket",
    "x",
]
READ_RPCS = ["GetGame", "ListGames", "ListEvents", "ReplayGame", "ExportGame", "SubmitCommand", "DeleteGame"]


@dataclass
class Targets:
    server: ServerProcess
    active: str
    finished: str
    move: dict[str, object]  # a legal command of the active game, in JSON

    def state(self) -> tuple[int, int, int]:
        """The two games' versions and how many games there are (as the admin sees them)."""
        rest = Rest(self.server.http, ADMIN_TOKEN)
        versions = [int(rest.get(f"/v1/games/{game}").json["version"]) for game in (self.active, self.finished)]
        listed = len(rest.get("/v1/games?pageSize=500").json["games"])
        return versions[0], versions[1], listed


@pytest.fixture(scope="module")
def targets() -> Iterator[Targets]:
    # A client that declares a body and never sends it is answered 408 once the body
    # has gone this long without a byte: short here, so that such examples stay quick.
    quick = {"LUDOTHEQUE_HTTP_IDLE_TIMEOUT": "0.5"}
    with watched_server(env=quick) as server, Client(server.target) as client:
        active = client.create_game("mooki", ["Cléo", "Robin"])
        finished = client.create_game("mooki", [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}])
        cleo = Rest(server.http, active.seat_tokens[0])
        move = cleo.get(f"/v1/games/{active.game_id}").json["legalCommands"][0]
        yield Targets(server, active.game_id, finished.game_id, move)


# --- what a client sends --------------------------------------------------------------

header_bytes = st.binary(max_size=60).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"").strip())
digits = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.integers(min_value=0, max_value=6000).map(lambda n: "9" * n),
)
header_values = st.one_of(
    header_bytes,
    st.text(max_size=40).map(lambda t: t.encode("utf-8", "replace")),
    digits.map(str.encode),
    st.sampled_from([b"gzip", b"deflate", b"br", b"identity", b"application/json", b"application/connect+json"]),
    st.text(max_size=30).map(lambda t: b"Bearer " + t.encode("utf-8", "replace")),
).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"").strip())
headers = st.dictionaries(
    st.one_of(st.sampled_from(HTTP_HEADERS), st.from_regex(r"\A[A-Za-z][A-Za-z0-9-]{0,20}\Z")),
    header_values,
    max_size=5,
)
query_values = st.one_of(st.text(max_size=40), digits, st.sampled_from(["true", "1", "GAME_STATUS_FINISHED", ""]))
queries = st.lists(st.tuples(st.one_of(st.sampled_from(QUERY_NAMES), st.text(max_size=10)), query_values), max_size=4)


def request(server: ServerProcess, method: str, path: str, sent: dict[str, bytes], body: bytes = b"") -> int:
    """Sends one request as given; its status (a stream's too, without reading it)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
    try:
        connection.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
        if not any(name.lower() in ("content-length", "transfer-encoding") for name in sent):
            connection.putheader("Content-Length", str(len(body)))
        for name, value in sent.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        return connection.getresponse().status
    except (ConnectionError, http.client.RemoteDisconnected):
        return 400  # the server refused to parse it at all (HTTP framing), which is a client error
    finally:
        connection.close()


def query_string(pairs: list[tuple[str, str]]) -> str:
    return urllib.parse.urlencode(pairs, quote_via=urllib.parse.quote) if pairs else ""


# --- REST and server-sent events ------------------------------------------------------


@given(data=st.data(), sent=headers, pairs=queries)
@FUZZ
def test_rest_and_event_streams_never_fail_on_what_the_client_sends(
    targets: Targets, data: st.DataObject, sent: dict[str, bytes], pairs: list[tuple[str, str]]
) -> None:
    game = data.draw(st.sampled_from([targets.active, targets.finished, "nope", "a" * 65]), label="game")
    method, path = data.draw(
        st.sampled_from(
            [
                ("GET", "/v1/games"),
                ("GET", f"/v1/games/{game}"),
                ("GET", f"/v1/games/{game}/events"),
                ("GET", f"/v1/games/{game}/events:stream"),
                ("GET", f"/v1/games/{game}/replay"),
                ("GET", f"/v1/games/{game}:export"),
                ("DELETE", f"/v1/games/{game}"),
                ("POST", f"/v1/games/{game}/commands"),
                ("OPTIONS", f"/v1/games/{game}"),
            ]
        ),
        label="route",
    )
    body = json.dumps({"command": targets.move, "commandId": "fuzz"}).encode() if method == "POST" else b""
    before = targets.state()
    query = query_string(pairs)
    status = request(targets.server, method, f"{path}?{query}" if query else path, sent, body)
    assert status < 500, f"{method} {path}?{query} with {sent!r} answered {status}"
    assert targets.state() == before, "a stranger's request changed the store"


# --- Connect --------------------------------------------------------------------------


@given(data=st.data(), sent=headers)
@FUZZ
def test_connect_never_fails_on_what_the_client_sends(
    targets: Targets, data: st.DataObject, sent: dict[str, bytes]
) -> None:
    game = data.draw(st.sampled_from([targets.active, targets.finished, "nope"]), label="game")
    fields = data.draw(
        st.fixed_dictionaries(
            {},
            optional={
                "gameId": st.just(game),
                "pageToken": st.one_of(st.text(max_size=20), digits),
                "fromVersion": digits,
                "atVersion": digits,
                "pageSize": digits,
                "command": st.just(targets.move),
                "commandId": st.text(max_size=20),
            },
        ),
        label="fields",
    )
    streaming = data.draw(st.booleans(), label="streaming")
    method = "StreamEvents" if streaming else data.draw(st.sampled_from(READ_RPCS), label="rpc")
    payload = json.dumps(fields).encode()
    body = envelope(payload) if streaming else payload
    content_type = b"application/connect+json" if streaming else b"application/json"
    before = targets.state()
    status = request(
        targets.server, "POST", f"/{SERVICE.full_name}/{method}", {"Content-Type": content_type, **sent}, body
    )
    assert status < 500, f"{method} {fields} with {sent!r} answered {status}"
    assert targets.state() == before, "a stranger's request changed the store"


# --- gRPC metadata --------------------------------------------------------------------

metadata_keys = st.one_of(
    st.sampled_from(["authorization", "grpc-timeout-x", "x-anything", "last-event-id", "user-agent-x"]),
    st.from_regex(r"\A[a-z][a-z0-9_.-]{0,15}\Z"),
).filter(lambda key: not key.startswith("grpc-") and key not in ("te", "content-type", "user-agent"))
metadata_text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
metadata = st.lists(
    st.one_of(
        st.tuples(metadata_keys.filter(lambda key: not key.endswith("-bin")), metadata_text),
        st.tuples(metadata_keys.map(lambda key: key + "-bin"), st.binary(max_size=40)),
        st.tuples(st.just("authorization"), metadata_text.map(lambda t: "Bearer " + t)),
    ),
    max_size=4,
)
SERVER_ERRORS = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS}


@pytest.fixture(scope="module")
def channel(targets: Targets) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(targets.server.target) as opened:
        yield opened


@given(data=st.data(), sent=metadata)
@FUZZ
def test_grpc_never_fails_on_what_the_client_sends(
    targets: Targets, channel: grpc.Channel, data: st.DataObject, sent: list[tuple[str, str | bytes]]
) -> None:
    game = data.draw(st.sampled_from([targets.active, targets.finished, "nope"]), label="game")
    token = data.draw(st.one_of(st.text(max_size=20), st.integers(0, 2**64 - 1).map(str)), label="page token")
    version = data.draw(st.integers(0, 2**64 - 1), label="version")
    calls = [
        ("ListGames", api.ListGamesRequest(page_token=token, page_size=data.draw(st.integers(0, 2**32 - 1)))),
        ("GetGame", api.GetGameRequest(game_id=game)),
        ("ListEvents", api.ListEventsRequest(game_id=game, from_version=version, to_version=version)),
        ("ReplayGame", api.ReplayGameRequest(game_id=game, at_version=version)),
        ("DeleteGame", api.DeleteGameRequest(game_id=game)),
        ("StreamEvents", api.StreamEventsRequest(game_id=targets.finished, from_version=version)),
    ]
    name, message = data.draw(st.sampled_from(calls), label="rpc")
    method = SERVICE.methods_by_name[name]
    before = targets.state()
    path = f"/{SERVICE.full_name}/{name}"
    call = (channel.unary_stream if method.server_streaming else channel.unary_unary)(
        path, request_serializer=lambda m: m.SerializeToString(), response_deserializer=lambda b: b
    )
    try:
        answer = call(message, metadata=sent, timeout=30)
        if method.server_streaming:
            list(answer)
    except grpc.RpcError as error:
        assert error.code() not in SERVER_ERRORS, f"{name} with {sent!r}: {error.code()} {error.details()}"
    except ValueError:
        pass  # metadata grpc itself will not send (e.g. a reserved key): nothing reached the server
    assert targets.state() == before, "a stranger's request changed the store"
