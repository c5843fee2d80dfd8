"""DiagnosticsService: calls that do no work (proto/ludotheque/v1/diagnostics.proto).

Echo is served by the same gRPC server as GameService, behind the same metrics
interceptor, so `ludotheque bench` can measure what a call costs the server when it
does nothing, and state every figure as a ratio to that baseline on the same machine."""

from __future__ import annotations

from typing import Any

import grpc
from ludotheque.v1 import diagnostics_pb2, diagnostics_pb2_grpc

SERVICE_NAME = diagnostics_pb2.DESCRIPTOR.services_by_name["DiagnosticsService"].full_name


class Diagnostics(diagnostics_pb2_grpc.DiagnosticsServiceServicer):
    async def Echo(self, request: diagnostics_pb2.EchoRequest, context: Any) -> diagnostics_pb2.EchoResponse:  # noqa: N802 (the RPC's name)
        return diagnostics_pb2.EchoResponse(payload=request.payload)


def register(server: grpc.aio.Server) -> None:
    diagnostics_pb2_grpc.add_DiagnosticsServiceServicer_to_server(Diagnostics(), server)
