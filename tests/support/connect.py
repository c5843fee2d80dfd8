"""Connect protocol calls over plain HTTP (the standard library's http.client), as a
browser's fetch would make them, with binary protobuf bodies by default; and the same
calls over gRPC, so that tests can compare the two transports."""

from __future__ import annotations

import base64
import json
import struct
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import any_pb2, message_factory
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from service.api.rpcs import SERVICE
from tests.support.rest import Reply, Rest

ENVELOPE = struct.Struct(">BI")
END_STREAM = 0b10


@dataclass(frozen=True)
class Failure:
    """An RPC's error, whichever transport it came by: comparable across them."""

    code: str  # Connect's name: "not_found"...
    message: str
    details: tuple[bytes, ...] = field(default=())  # each detail's Any, serialized (but the RequestInfo)
    # The google.rpc.RequestInfo detail's request id: each call's own, so not compared.
    request_id: str = field(default="", compare=False)


REQUEST_INFO_URL = "type.googleapis.com/google.rpc.RequestInfo"


def failure(code: str, message: str, details: list[any_pb2.Any]) -> Failure:
    """A Failure of these packed details, the RequestInfo set apart."""
    request_id = ""
    kept = []
    for detail in details:
        if detail.type_url == REQUEST_INFO_URL:
            info = error_details_pb2.RequestInfo()
            detail.Unpack(info)
            request_id = info.request_id
        else:
            kept.append(detail.SerializeToString())
    return Failure(code, message, tuple(kept), request_id)


def envelope(data: bytes, flags: int = 0) -> bytes:
    return ENVELOPE.pack(flags, len(data)) + data


def envelopes(body: bytes) -> list[tuple[int, bytes]]:
    """The (flags, data) of each enveloped message of a streaming body."""
    found = []
    offset = 0
    while offset < len(body):
        flags, length = ENVELOPE.unpack_from(body, offset)
        offset += ENVELOPE.size
        found.append((flags, body[offset : offset + length]))
        offset += length
    assert offset == len(body), "a truncated envelope"
    return found


def failure_of_json(error: dict[str, Any]) -> Failure:
    details = []
    for detail in error.get("details", []):
        value = detail["value"]
        packed = any_pb2.Any(
            type_url=f"type.googleapis.com/{detail['type']}",
            value=base64.b64decode(value + "=" * (-len(value) % 4)),
        )
        details.append(packed)
    return failure(error["code"], error.get("message", ""), details)


def _types(method: str) -> tuple[type[Message], type[Message]]:
    descriptor = SERVICE.methods_by_name[method]
    return (
        message_factory.GetMessageClass(descriptor.input_type),
        message_factory.GetMessageClass(descriptor.output_type),
    )


class Connect:
    def __init__(self, base_url: str, token: str | None = None) -> None:
        self.rest = Rest(base_url, token)

    def post(self, method: str, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> Reply:
        path = f"/{SERVICE.full_name}/{method}"
        return self.rest.post(path, body, headers={"Content-Type": content_type, **(headers or {})})

    def unary(self, method: str, request: Message) -> Message | Failure:
        reply = self.post(method, request.SerializeToString(), "application/proto", {"Connect-Protocol-Version": "1"})
        if reply.status != 200:
            assert reply.headers["content-type"].startswith("application/json"), reply.headers
            return failure_of_json(reply.json)
        assert reply.headers["content-type"] == "application/proto"
        return _types(method)[1].FromString(reply.body)

    def stream(self, method: str, request: Message, headers: dict[str, str] | None = None) -> list[Message] | Failure:
        body = envelope(request.SerializeToString())
        reply = self.post(
            method, body, "application/connect+proto", {"Connect-Protocol-Version": "1", **(headers or {})}
        )
        assert reply.status == 200, reply.body  # a stream's errors come in its end message
        assert reply.headers["content-type"] == "application/connect+proto"
        *messages, (flags, end) = envelopes(reply.body)
        assert flags == END_STREAM and all(f == 0 for f, _ in messages)
        end_stream = json.loads(end)
        if "error" in end_stream:
            return failure_of_json(end_stream["error"])
        response_type = _types(method)[1]
        return [response_type.FromString(data) for _, data in messages]


class Grpc:
    def __init__(self, channel: grpc.Channel, token: str | None = None) -> None:
        self.channel = channel
        self.metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def _callable(self, method: str, streaming: bool) -> Any:
        response_type = _types(method)[1]
        factory = self.channel.unary_stream if streaming else self.channel.unary_unary
        return factory(
            f"/{SERVICE.full_name}/{method}",
            request_serializer=lambda message: message.SerializeToString(),
            response_deserializer=response_type.FromString,
        )

    def unary(self, method: str, request: Message) -> Message | Failure:
        try:
            return self._callable(method, False)(request, metadata=self.metadata, timeout=30)  # type: ignore[no-any-return]
        except grpc.RpcError as error:
            return _failure_of_rpc_error(error)

    def stream(self, method: str, request: Message) -> list[Message] | Failure:
        try:
            return list(self._callable(method, True)(request, metadata=self.metadata, timeout=30))
        except grpc.RpcError as error:
            return _failure_of_rpc_error(error)


def _failure_of_rpc_error(error: grpc.RpcError) -> Failure:
    details: list[any_pb2.Any] = []
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            details = list(status_pb2.Status.FromString(value).details)
    return failure(error.code().name.lower(), error.details(), details)
