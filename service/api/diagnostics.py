"""DiagnosticsService: calls that do no work (proto/ludotheque/v1/diagnostics.proto).

Echo is served by the same gRPC server as GameService, behind the same metrics
interceptor (and over REST and Connect by the HTTP server, behind the same middleware),
so `ludotheque bench` can measure what a call costs the server when it does nothing,
and state every figure as a ratio to that baseline on the same machine. EchoStream
answers each message of a stream: the price of one message each way, as in Play."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
from ludotheque.v1 import diagnostics_pb2, diagnostics_pb2_grpc

SERVICE = diagnostics_pb2.DESCRIPTOR.services_by_name["DiagnosticsService"]
SERVICE_NAME = SERVICE.full_name


async def echo(request: diagnostics_pb2.EchoRequest, token: str) -> diagnostics_pb2.EchoResponse:
    """Echo as the HTTP transports call a use case: (request, bearer token) -> response."""
    return diagnostics_pb2.EchoResponse(payload=request.payload)


class Diagnostics(diagnostics_pb2_grpc.DiagnosticsServiceServicer):
    async def Echo(self, request: diagnostics_pb2.EchoRequest, context: Any) -> diagnostics_pb2.EchoResponse:  # noqa: N802 (the RPC's name)
        return diagnostics_pb2.EchoResponse(payload=request.payload)

    async def EchoStream(  # noqa: N802 (the RPC's name)
        self, requests: AsyncIterator[diagnostics_pb2.EchoStreamRequest], context: Any
    ) -> AsyncIterator[diagnostics_pb2.EchoStreamResponse]:
        async for request in requests:
            yield diagnostics_pb2.EchoStreamResponse(payload=request.payload)


def register(server: grpc.aio.Server) -> None:
    diagnostics_pb2_grpc.add_DiagnosticsServiceServicer_to_server(Diagnostics(), server)
