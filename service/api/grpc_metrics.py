"""A grpc.aio server interceptor that counts and times every RPC (grpc_server_*)."""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from service.app.observe.metrics import Metrics


def _code_name(context: grpc.aio.ServicerContext[Any, Any], failed: bool) -> str:
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    if isinstance(code, int):
        return next((c.name for c in grpc.StatusCode if c.value[0] == code), "UNKNOWN")
    return "UNKNOWN" if failed else "OK"


class MetricsInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics
        # Each method's wrapped handler, built on its first call: building it (and
        # looking its metrics up by labels) on every call cost more than the metrics.
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None:
            return None
        known = self._wrapped.get(details.method)
        if known is not None and known[0] is handler:
            return known[1]
        wrapped = self._wrap(handler, details)
        self._wrapped[details.method] = (handler, wrapped)
        return wrapped

    def _wrap(self, handler: grpc.RpcMethodHandler, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        service, _, method = details.method.lstrip("/").partition("/")
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
            failed = True
            try:
                result = await behavior(request, context)
                failed = False
                return result
            finally:
                metrics.labelled(metrics.grpc_handled, *labels, _code_name(context, failed)).inc()
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
            failed = True
            try:
                async for response in behavior(request, context):
                    yield response
                failed = False
            finally:
                metrics.labelled(metrics.grpc_handled, *labels, _code_name(context, failed)).inc()
                seconds.observe(time.perf_counter() - start)

        return observed
