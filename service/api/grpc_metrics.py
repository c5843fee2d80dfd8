"""A grpc.aio server interceptor that counts and times every RPC (grpc_server_*)."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc

from service.api.grpc_wrapping import WrappingInterceptor
from service.app.observe.metrics import Metrics

# A client whose own deadline passes cancels its call (RST_STREAM) a little before the
# server's copy of that deadline fires: the server still sees time left. A cancellation in
# the last tenth of the call's budget, or its last 250 ms, is that deadline's doing.
DEADLINE_SLACK_SECONDS = 0.25
DEADLINE_SLACK_SHARE = 0.1


class Ending:
    """How a call's handler ended, as the wrappers around it saw: `failed` (it raised),
    `cancelled` (grpc cancelled its task: the client went away or its deadline passed),
    and `budget`, the seconds the client's deadline gave the call when it started."""

    __slots__ = ("budget", "cancelled", "failed")

    def __init__(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        self.failed = True  # until the handler returns
        self.cancelled = False
        self.budget = context.time_remaining()

    def watch(self, error: BaseException) -> None:
        """Notes what the handler raised (called from an `except BaseException`)."""
        self.cancelled = isinstance(error, asyncio.CancelledError)


def code_name(context: grpc.aio.ServicerContext[Any, Any], ending: Ending) -> str:
    """The status the call ended with. One the server set is its own; a call the client
    ended (it cancelled, or its deadline passed) is CANCELLED or DEADLINE_EXCEEDED, never
    UNKNOWN (which the server-errors alert counts as the server's failure)."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    if isinstance(code, int):
        return next((c.name for c in grpc.StatusCode if c.value[0] == code), "UNKNOWN")
    if not ending.failed:
        return "OK"
    if ending.cancelled:
        remaining, budget = context.time_remaining(), ending.budget
        if remaining is None or budget is None:
            return "CANCELLED"
        slack = max(DEADLINE_SLACK_SECONDS, DEADLINE_SLACK_SHARE * budget)
        return "DEADLINE_EXCEEDED" if remaining <= slack else "CANCELLED"
    return "UNKNOWN"


class MetricsInterceptor(WrappingInterceptor):
    def __init__(self, metrics: Metrics) -> None:
        super().__init__()
        self._metrics = metrics

    def wrap(self, handler: grpc.RpcMethodHandler, full_name: str) -> grpc.RpcMethodHandler:
        service, _, method = full_name.lstrip("/").partition("/")
        if handler.unary_unary:
            labels = ("unary", service, method)
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, labels), handler.request_deserializer, handler.response_serializer
            )
        if handler.unary_stream:
            labels = ("server_stream", service, method)
            return grpc.unary_stream_rpc_method_handler(
                self._stream(handler.unary_stream, labels), handler.request_deserializer, handler.response_serializer
            )
        if handler.stream_unary:
            labels = ("client_stream", service, method)
            return grpc.stream_unary_rpc_method_handler(
                self._unary(handler.stream_unary, labels), handler.request_deserializer, handler.response_serializer
            )
        labels = ("bidi_stream", service, method)
        return grpc.stream_stream_rpc_method_handler(
            self._stream(handler.stream_stream, labels), handler.request_deserializer, handler.response_serializer
        )

    def _unary(self, behavior: Callable[..., Any], labels: tuple[str, str, str]) -> Callable[..., Any]:
        metrics = self._metrics
        started = metrics.labelled(metrics.grpc_started, *labels)
        seconds = metrics.labelled(metrics.grpc_seconds, *labels)

        async def observed(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            started.inc()
            start = time.perf_counter()
            ending = Ending(context)
            try:
                result = await behavior(request, context)
                ending.failed = False
                return result
            except BaseException as error:
                ending.watch(error)
                raise
            finally:
                metrics.labelled(metrics.grpc_handled, *labels, code_name(context, ending)).inc()
                seconds.observe(time.perf_counter() - start)

        return observed

    def _stream(self, behavior: Callable[..., Any], labels: tuple[str, str, str]) -> Callable[..., Any]:
        if not inspect.isasyncgenfunction(behavior):
            return self._unary(behavior, labels)  # a streaming RPC that writes with context.write
        metrics = self._metrics
        started = metrics.labelled(metrics.grpc_started, *labels)
        seconds = metrics.labelled(metrics.grpc_seconds, *labels)

        async def observed(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
            started.inc()
            start = time.perf_counter()
            ending = Ending(context)
            try:
                async for response in behavior(request, context):
                    yield response
                ending.failed = False
            except BaseException as error:
                ending.watch(error)
                raise
            finally:
                metrics.labelled(metrics.grpc_handled, *labels, code_name(context, ending)).inc()
                seconds.observe(time.perf_counter() - start)

        return observed
