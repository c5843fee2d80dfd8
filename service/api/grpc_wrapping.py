"""What every grpc.aio server interceptor of ours shares: each method's handler wrapped
once, on its first call, and that wrapper reused (building it, and looking its metrics
up by labels, on every call cost more than what it wraps)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import grpc


class WrappingInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Wraps each method's handler with `wrap`, remembered per method."""

    def __init__(self) -> None:
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
        wrapped = self.wrap(handler, details.method)
        self._wrapped[details.method] = (handler, wrapped)
        return wrapped

    def wrap(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        """The handler to serve `method` (its full name, "/package.Service/Method") with."""
        raise NotImplementedError
