"""grpc.aio server interceptors that observe every RPC: `ObservingInterceptor` puts it
through the request edge (edge.py): a request id (from `x-request-id` metadata, or new)
returned in the `x-request-id` trailing metadata, the request context for its log lines,
and its access log line (method, status code, duration, bytes). `ClosingStreams`, the
outermost, makes sure a streaming RPC's layers end in the RPC's own task."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from service.api.edge import Call, observed
from service.api.grpc_metrics import Ending, code_name
from service.api.grpc_wrapping import WrappingInterceptor
from service.app.observe.request_context import REQUEST_ID_HEADER

Context = Any  # grpc.aio.ServicerContext


def _header(context: Context) -> Callable[[str], str | None]:
    def value(name: str) -> str | None:
        for key, item in context.invocation_metadata() or ():
            if key == name:
                return item.decode(errors="replace") if isinstance(item, bytes) else str(item)
        return None

    return value


def _size(message: Any) -> int:
    return len(message) if isinstance(message, bytes) else int(message.ByteSize())


class ObservingInterceptor(WrappingInterceptor):
    def wrap(self, handler: grpc.RpcMethodHandler, full_name: str) -> grpc.RpcMethodHandler:
        return _wrap(handler, full_name.lstrip("/"))


class ClosingStreams(WrappingInterceptor):
    """Streams responses with `context.write` from a coroutine instead of handing grpc
    the generator: grpc abandons a generator whose write failed (a client gone mid-send)
    and the event loop closes it later in a task of its own, where the layers holding
    context variables across their yields (the request context, a span) cannot undo
    them. Closed here, in the RPC's task, they can."""

    def wrap(self, handler: grpc.RpcMethodHandler, full_name: str) -> grpc.RpcMethodHandler:
        streaming = handler.unary_stream or handler.stream_stream
        if not streaming or not inspect.isasyncgenfunction(streaming):
            return handler
        serializers = (handler.request_deserializer, handler.response_serializer)
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(_writing(handler.unary_stream), *serializers)
        return grpc.stream_stream_rpc_method_handler(_writing(handler.stream_stream), *serializers)


def _writing(behavior: Callable[..., AsyncIterator[Any]]) -> Callable[..., Awaitable[None]]:
    async def write_all(request: Any, context: Context) -> None:
        responses = behavior(request, context)
        try:
            async for response in responses:
                await context.write(response)
        finally:
            await responses.aclose()  # type: ignore[attr-defined]

    return write_all


def _wrap(handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
    serializers = (handler.request_deserializer, handler.response_serializer)
    if handler.unary_unary:
        return grpc.unary_unary_rpc_method_handler(_unary(handler.unary_unary, method), *serializers)
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(_stream(handler.unary_stream, method), *serializers)
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(_unary(handler.stream_unary, method), *serializers)
    return grpc.stream_stream_rpc_method_handler(_stream(handler.stream_stream, method), *serializers)


def _started(call: Call, context: Context, request: Any) -> None:
    context.set_trailing_metadata(((REQUEST_ID_HEADER, call.request_id),))
    if isinstance(request, bytes):
        call.extra["bytes_in"] = len(request)


def _ended(call: Call, context: Context, ending: Ending) -> None:
    status = code_name(context, ending)
    # A call its client ended (cancelled, or past its deadline) is not the server's failure.
    call.ended(status, error=status != "OK" and not ending.cancelled)


def _unary(behavior: Callable[..., Any], method: str) -> Callable[..., Any]:
    async def observe(request: Any, context: Context) -> Any:
        with observed("grpc", method, _header(context)) as call:
            _started(call, context, request)
            ending = Ending(context)
            try:
                response = await behavior(request, context)
                call.extra["bytes_out"] = _size(response)
                ending.failed = False
                return response
            except BaseException as error:
                ending.watch(error)
                raise
            finally:
                _ended(call, context, ending)

    return observe


def _stream(behavior: Callable[..., Any], method: str) -> Callable[..., Any]:
    if not inspect.isasyncgenfunction(behavior):
        return _unary(behavior, method)  # a streaming RPC that writes with context.write

    async def observe(request: Any, context: Context) -> AsyncIterator[Any]:
        with observed("grpc", method, _header(context)) as call:
            _started(call, context, request)
            ending = Ending(context)
            messages = size = 0
            try:
                async for response in behavior(request, context):
                    messages += 1
                    size += _size(response)
                    yield response
                ending.failed = False
            except BaseException as error:
                ending.watch(error)
                raise
            finally:
                call.extra.update(messages_out=messages, bytes_out=size)
                _ended(call, context, ending)

    return observe
