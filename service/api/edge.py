"""The edge of every request, whatever its transport: `observed()` gives it a request id
(the caller's `x-request-id`, or a new one), reads the W3C `traceparent`'s trace id,
makes both the request context's (service/app/observe/request_context.py) so every log line of
the request carries them, and writes its access log line when it ends.

A transport calls it once per request, around its handling; gRPC does it in
grpc_observe.py, the HTTP port in a middleware (http_observe.py), and a new transport
(a WebSocket) the same way:

    with observed("websocket", "Play", request.headers.get) as call:
        ...  # send call.request_id back to the client, serve the session
        call.ended("OK", error=False)  # or the status it ended with, error=True

The span of the request itself is the OpenTelemetry instrumentation's (gRPC, aiohttp:
service/cli/telemetry.py installs them when tracing is on), already current here."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import format_trace_id
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from service.app.observe import access_log, request_context, tracing
from service.app.observe.request_context import REQUEST_ID_HEADER, RequestFields

TRACEPARENT_HEADER = "traceparent"
_W3C = TraceContextTextMapPropagator()


@dataclass(slots=True)
class Call:
    """A request being handled: what its access log line will say. The transport
    sets `status` (and `error` when it is not a success) and may add `fields`."""

    fields: RequestFields
    status: str = "UNKNOWN"
    error: bool = True  # until the transport says how it ended
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def request_id(self) -> str:
        return self.fields.request_id

    def ended(self, status: str, *, error: bool, **extra: Any) -> None:
        self.status, self.error = status, error
        self.extra.update(extra)


@contextmanager
def observed(transport: str, method: str, header: Callable[[str], str | None]) -> Iterator[Call]:
    """The request's context for the body; its access log line when it ends.
    `header(name)`: the request's header or metadata value (lower-case name), or None."""
    fields = RequestFields(
        request_id=request_context.request_id_from(header(REQUEST_ID_HEADER)),
        transport=transport,
        method=method,
        trace_id=tracing.current_trace_id() or _incoming_trace_id(header(TRACEPARENT_HEADER)),
    )
    call = Call(fields)
    started = time.perf_counter()
    with request_context.begin(fields):
        try:
            yield call
        finally:
            access_log.write(call.status, error=call.error, seconds=time.perf_counter() - started, **call.extra)


def _incoming_trace_id(traceparent: str | None) -> str:
    """The trace id a client sent, for the logs even when this server traces nothing."""
    if not traceparent:
        return ""
    context = trace.get_current_span(_W3C.extract({TRACEPARENT_HEADER: traceparent})).get_span_context()
    return format_trace_id(context.trace_id) if context.is_valid else ""
