"""Traces through the real server: its spans collected in its own process by
OpenTelemetry's InMemorySpanExporter (tests/support/traced_server.py) and read back when
it stops; then the same server configured only by the standard OTEL_* variables,
exporting over OTLP/gRPC to a collector this test runs."""

from __future__ import annotations

import json
import tempfile
import threading
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2, game_service_pb2_grpc
from ludotheque.v1 import game_service_pb2 as api
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from tests.support.redis import running_redis
from tests.support.rest import Rest
from tests.support.server import running_server
from tests.support.traced_server import SPANS_ENV
from tests.support.waiting import wait_until

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
CLIENT_SPAN = "b7ad6b7169203331"
DRAW = game_pb2.Command(mooki=mooki.Command(draw=mooki.Draw(pile=1)))
PLACE = game_pb2.Command(mooki=mooki.Command(place=mooki.Place(side=mooki.SIDE_SHOWN)))

Span = dict[str, Any]


def traceparent(trace_id: str = TRACE_ID) -> str:
    return f"00-{trace_id}-{CLIENT_SPAN}-01"


def request_info(error: grpc.RpcError) -> error_details_pb2.RequestInfo:
    trailing = dict(error.trailing_metadata())
    info = error_details_pb2.RequestInfo()
    for detail in status_pb2.Status.FromString(trailing["grpc-status-details-bin"]).details:
        if detail.Unpack(info):
            return info
    raise AssertionError("no RequestInfo")


def one(spans: list[Span], **wanted: Any) -> Span:
    found = [span for span in spans if all(span[key] == value for key, value in wanted.items())]
    assert len(found) == 1, f"{wanted}: {len(found)} spans"
    return found[0]


def children(spans: list[Span], parent: Span) -> list[Span]:
    return [span for span in spans if span["parent_id"] == parent["span_id"]]


def test_a_move_is_traced_from_the_callers_traceparent_to_redis_and_to_its_followers() -> None:
    spans_file = Path(tempfile.mkstemp(prefix="ludotheque-spans-", suffix=".jsonl")[1])
    with running_redis() as redis:
        env = {"LUDOTHEQUE_STORE": redis.url, SPANS_ENV: str(spans_file)}
        with running_server(env=env, module="tests.support.traced_server") as server:
            lobby = Client(server.target)
            created = lobby.create_game("mooki", ["Cléo", "Robin"])
            game_id, cleo = created.game_id, created.seat_tokens[0]
            follower = lobby.stream(game_id)
            assert next(follower).version == 1  # following: the move's events come to it live
            with grpc.insecure_channel(server.target) as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                metadata = [("authorization", f"Bearer {cleo}"), ("traceparent", traceparent())]
                stub.SubmitCommand(api.SubmitCommandRequest(game_id=game_id, command=DRAW), metadata=metadata)
                assert next(follower).version == 2
                try:
                    stub.SubmitCommand(api.SubmitCommandRequest(game_id=game_id, command=DRAW), metadata=metadata)
                    raise AssertionError("drawing twice is illegal")
                except grpc.RpcError as error:
                    assert request_info(error).serving_data == f"trace_id={TRACE_ID}"
            rest_trace = "1" * 32
            reply = Rest(server.http, cleo).post(
                f"/v1/games/{game_id}/commands",
                {"command": {"mooki": {"place": {"side": "SIDE_SHOWN"}}}},
                headers={"traceparent": traceparent(rest_trace)},
            )
            assert reply.status == 200, reply.body
            with lobby.with_token(created.seat_tokens[1]).play(game_id, from_version=4) as robin:
                robin.send(DRAW, command_id="robin-1")  # Robin's turn, over a Play session
                assert next(m for m in robin if m.HasField("result")).result.version == 4
            opened = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"open": True}])
            join_trace = "2" * 32
            with grpc.insecure_channel(server.target) as channel:  # a table change: a player joins
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                joining = api.JoinGameRequest(game_id=opened.game.join_code, name="Robin", age=4)
                stub.JoinGame(joining, metadata=[("traceparent", traceparent(join_trace))])
            follower.close()
            assert server.stop() == 0
    spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
    spans_file.unlink()

    calls = [span for span in spans if span["name"] == "/ludotheque.v1.GameService/SubmitCommand"]
    [rpc, refused] = sorted(calls, key=lambda span: span["attributes"]["rpc.grpc.status_code"])  # OK first
    assert refused["attributes"]["rpc.grpc.status_code"] == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert rpc["trace_id"] == refused["trace_id"] == TRACE_ID
    assert rpc["kind"] == "SERVER" and rpc["parent_id"] == CLIENT_SPAN  # the caller's span is its parent
    (move,) = children(spans, rpc)
    assert move["name"] == "ludotheque.move"
    assert move["attributes"] | {"ludotheque.game_id": game_id, "ludotheque.kind": "mooki"} == move["attributes"]
    assert move["attributes"]["ludotheque.outcome"] == "accepted"
    steps = {span["name"]: span for span in children(spans, move)}
    assert {"ludotheque.decide", "ludotheque.append", "ludotheque.fan_out"} <= steps.keys()
    redis_calls = children(spans, steps["ludotheque.append"])
    assert redis_calls and all(span["kind"] == "CLIENT" for span in redis_calls)  # each Redis round trip
    fan_out = steps["ludotheque.fan_out"]
    assert fan_out["attributes"]["ludotheque.version"] == 2 and fan_out["attributes"]["ludotheque.follower.request_id"]
    streams = [span for span in spans if span["name"] == "/ludotheque.v1.GameService/StreamEvents"]
    assert fan_out["links"] == [streams[0]["span_id"]]  # the follower's own call

    (refused_move,) = children(spans, refused)
    assert refused_move["status"] == "ERROR" and refused_move["attributes"]["ludotheque.outcome"] == "illegal"

    http = one(spans, trace_id=rest_trace, kind="SERVER")
    assert http["name"] == "POST /v1/games/{game_id}/commands" and http["parent_id"] == CLIENT_SPAN
    assert [span["name"] for span in children(spans, http)] == ["ludotheque.move"]

    join = one(spans, trace_id=join_trace, kind="SERVER")
    (change,) = [span for span in children(spans, join) if span["name"] == "ludotheque.table_change"]
    assert (
        change["attributes"] | {"ludotheque.game_id": opened.game_id, "ludotheque.change": "join"}
        == (change["attributes"])
    )
    assert {"ludotheque.decide", "ludotheque.append"} <= {span["name"] for span in children(spans, change)}

    play = one(spans, name="/ludotheque.v1.GameService/Play")
    (played,) = [span for span in spans if span["parent_id"] == play["span_id"] and span["name"] == "ludotheque.move"]
    assert played["attributes"]["ludotheque.command_id"] == "robin-1"

    # Background work makes no traces of its own: every trace starts at a request.
    roots = [span for span in spans if span["parent_id"] is None]
    assert roots and all(span["kind"] == "SERVER" for span in roots), {span["name"] for span in roots}
    assert not [span for span in spans if "Health" in span["name"]]
    assert all(span["resource"]["service.name"] == "ludotheque" for span in spans)


def test_streams_their_clients_cancel_end_without_an_error_in_the_logs() -> None:
    """A client leaving a stream while the server writes to it: grpc gives up on the
    handler's generator, and the layers holding the request context and the RPC's span
    across their yields must still end cleanly (service/api/grpc_observe.py)."""
    spans_file = Path(tempfile.mkstemp(prefix="ludotheque-spans-", suffix=".jsonl")[1])
    env = {SPANS_ENV: str(spans_file), "LUDOTHEQUE_LOG_FORMAT": "json"}
    with running_server(env=env, module="tests.support.traced_server") as server:
        lobby = Client(server.target)
        with grpc.insecure_channel(server.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            for _ in range(10):
                game_id = lobby.create_game("mooki", ["Cléo", {"name": "Robin", "bot": "greedy"}]).game_id
                call = stub.StreamEvents(api.StreamEventsRequest(game_id=game_id))
                next(call)
                call.cancel()
        assert server.stop() == 0
        errors = [line for line in server.log().splitlines() if json.loads(line)["level"] == "error"]
    spans_file.unlink()
    assert errors == []


class Collector(trace_service_pb2_grpc.TraceServiceServicer):
    """An OpenTelemetry collector's OTLP/gRPC trace endpoint, keeping what it is sent."""

    def __init__(self) -> None:
        self.spans: list[tuple[dict[str, Any], Any]] = []  # (resource attributes, span)
        self.lock = threading.Lock()

    def Export(self, request: Any, context: Any) -> Any:  # noqa: N802 - the RPC's name
        with self.lock:
            for resource_spans in request.resource_spans:
                resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
                for scope in resource_spans.scope_spans:
                    self.spans.extend((resource, span) for span in scope.spans)
        return trace_service_pb2.ExportTraceServiceResponse()

    def names(self) -> set[str]:
        with self.lock:
            return {span.name for _, span in self.spans}


@contextmanager
def collector() -> Iterator[tuple[Collector, int]]:
    servicer = Collector()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield servicer, port
    finally:
        server.stop(0)


def test_the_otel_variables_turn_tracing_on_and_send_it_over_otlp() -> None:
    with collector() as (received, port):
        env = {
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
            "OTEL_BSP_SCHEDULE_DELAY": "50",
            "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=test",
        }
        with running_server(env=env) as server:
            game_id = Client(server.target).create_game("mooki", ["Cléo", "Robin"]).game_id
            assert Rest(server.http).get(f"/v1/games/{game_id}").status == 200
            wanted = {"/ludotheque.v1.GameService/CreateGame", "GET /v1/games/{game_id}"}
            wait_until(lambda: wanted <= received.names(), 20, "the spans at the collector")
        resource = received.spans[0][0]
    assert resource["service.name"] == "ludotheque" and resource["deployment.environment"] == "test"


def test_tracing_is_off_unless_asked() -> None:
    with collector() as (received, port):
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}", "OTEL_BSP_SCHEDULE_DELAY": "50"}
        with running_server(env=env) as server:
            Client(server.target).create_game("mooki", ["Cléo", "Robin"])
            assert server.stop() == 0  # a stop flushes whatever was batched
    assert received.spans == []
