"""DiagnosticsService, the benchmark's baselines: Echo over gRPC, REST and Connect,
and EchoStream's one answer per message, against the real server."""

from __future__ import annotations

import base64
import http.client
import json
from collections.abc import Iterator

import grpc
from ludotheque.v1 import diagnostics_pb2, diagnostics_pb2_grpc

from tests.support.server import ServerProcess

PAYLOAD = b"0123456789abcdef"


def _post(server: ServerProcess, path: str, body: bytes, content_type: str) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": content_type})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


def test_echo_answers_its_payload_over_grpc_rest_and_connect(server: ServerProcess) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = diagnostics_pb2_grpc.DiagnosticsServiceStub(channel)
        assert stub.Echo(diagnostics_pb2.EchoRequest(payload=PAYLOAD)).payload == PAYLOAD

    body = json.dumps({"payload": base64.b64encode(PAYLOAD).decode()}).encode()
    status, content_type, answer = _post(server, "/v1/diagnostics:echo", body, "application/json")
    assert (status, content_type) == (200, "application/json; charset=utf-8")
    assert base64.b64decode(json.loads(answer)["payload"]) == PAYLOAD

    request = diagnostics_pb2.EchoRequest(payload=PAYLOAD).SerializeToString()
    status, content_type, answer = _post(server, "/ludotheque.v1.DiagnosticsService/Echo", request, "application/proto")
    assert (status, content_type) == (200, "application/proto")
    assert diagnostics_pb2.EchoResponse.FromString(answer).payload == PAYLOAD


def test_echo_stream_answers_each_message_in_turn(server: ServerProcess) -> None:
    payloads = [PAYLOAD, b"", b"x" * 1000]

    def requests() -> Iterator[diagnostics_pb2.EchoStreamRequest]:
        for payload in payloads:
            yield diagnostics_pb2.EchoStreamRequest(payload=payload)

    with grpc.insecure_channel(server.target) as channel:
        stub = diagnostics_pb2_grpc.DiagnosticsServiceStub(channel)
        assert [response.payload for response in stub.EchoStream(requests())] == payloads
