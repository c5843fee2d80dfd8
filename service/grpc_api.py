"""The gRPC transport: a thin adapter from GameService calls to GameApp.

It reads the bearer token from the call's metadata, calls the use case, and turns a
ServiceError into a gRPC status with google.rpc details (grpc-status-details-bin).
Requests are parsed here, not by grpc, so a corrupt message is INVALID_ARGUMENT."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import grpc
from google.protobuf import any_pb2, message_factory
from google.protobuf.message import DecodeError, Message
from google.rpc import status_pb2
from ludotheque.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

from service.app import GameApp
from service.errors import Code, ServiceError, invalid_argument, unauthenticated

log = logging.getLogger(__name__)

Request = TypeVar("Request", bound=Message)
Response = TypeVar("Response", bound=Message)

STATUS_DETAILS_KEY = "grpc-status-details-bin"


def bearer_token(metadata: tuple[tuple[str, str | bytes], ...] | None) -> str:
    """The token of an `authorization: Bearer <token>` entry; "" when there is none."""
    for key, value in metadata or ():
        if key.lower() == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, token = text.strip().partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise unauthenticated("The authorization header must be 'Bearer <token>'.")
            return token.strip()
    return ""


def status_of(error: ServiceError) -> status_pb2.Status:
    status = status_pb2.Status(code=error.code.grpc_value, message=error.message)
    for detail in error.details:
        packed = any_pb2.Any()
        packed.Pack(detail)
        status.details.append(packed)
    return status


async def abort(context: grpc.aio.ServicerContext[object, object], error: ServiceError) -> None:
    await context.abort(
        grpc.StatusCode[error.code.name],
        error.message,
        trailing_metadata=((STATUS_DETAILS_KEY, status_of(error).SerializeToString()),),
    )


def _token(context: grpc.aio.ServicerContext[object, object]) -> str:
    return bearer_token(context.invocation_metadata())


class GameService(game_service_pb2_grpc.GameServiceServicer):
    def __init__(self, app: GameApp) -> None:
        self.app = app

    async def _unary(
        self,
        use_case: Callable[[Request, str], Awaitable[Response]],
        request: Request,
        context: grpc.aio.ServicerContext[object, object],
    ) -> Response:
        try:
            return await use_case(request, _token(context))
        except ServiceError as error:
            await abort(context, error)
        except Exception:
            log.exception("unexpected error in %s", getattr(use_case, "__name__", "a call"))
            await abort(context, ServiceError(Code.INTERNAL, "Internal error: the operators have been told."))
        raise AssertionError("abort() always raises")

    async def CreateGame(self, request, context):  # type: ignore[no-untyped-def]  # noqa: N802
        return await self._unary(self.app.create_game, request, context)

    async def GetGame(self, request, context):  # type: ignore[no-untyped-def]  # noqa: N802
        return await self._unary(self.app.get_game, request, context)

    async def ListGames(self, request, context):  # type: ignore[no-untyped-def]  # noqa: N802
        return await self._unary(self.app.list_games, request, context)

    async def SubmitCommand(self, request, context):  # type: ignore[no-untyped-def]  # noqa: N802
        return await self._unary(self.app.submit, request, context)

    async def ListEvents(self, request, context):  # type: ignore[no-untyped-def]  # noqa: N802
        return await self._unary(self.app.list_events, request, context)

    async def ReplayGame(self, request, context):  # type: ignore[no-untyped-def]  # noqa: N802
        return await self._unary(self.app.replay, request, context)

    async def StreamEvents(  # noqa: N802
        self,
        request: game_service_pb2.StreamEventsRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> AsyncIterator[game_service_pb2.StreamEventsResponse]:
        try:
            events: AsyncIterator[game_pb2.Event] = self.app.stream_events(request, _token(context))
            async for event in events:
                yield game_service_pb2.StreamEventsResponse(event=event)
        except ServiceError as error:
            await abort(context, error)
        except Exception:
            log.exception("unexpected error in StreamEvents")
            await abort(context, ServiceError(Code.INTERNAL, "Internal error: the operators have been told."))


SERVICE = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]


def register(server: grpc.aio.Server, app: GameApp) -> None:
    """Adds GameService to `server`, one handler per RPC of the proto's descriptor."""
    servicer = GameService(app)
    handlers = {}
    for method in SERVICE.methods:
        request_type = message_factory.GetMessageClass(method.input_type)
        behavior = getattr(servicer, method.name)
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _parsing_stream(request_type, behavior), response_serializer=_serialize
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _parsing_unary(request_type, behavior), response_serializer=_serialize
            )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE.full_name, handlers),))


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()


async def _parse(
    request_type: type[Message], data: bytes, context: grpc.aio.ServicerContext[object, object]
) -> Message:
    try:
        return request_type.FromString(data)
    except DecodeError:
        await abort(context, invalid_argument("request", f"The request is not a valid {request_type.DESCRIPTOR.name}."))
        raise


def _parsing_unary(
    request_type: type[Message], behavior: Callable[..., Awaitable[Message]]
) -> Callable[..., Awaitable[Message]]:
    async def handle(data: bytes, context: grpc.aio.ServicerContext[object, object]) -> Message:
        return await behavior(await _parse(request_type, data, context), context)

    return handle


def _parsing_stream(
    request_type: type[Message], behavior: Callable[..., AsyncIterator[Message]]
) -> Callable[..., AsyncIterator[Message]]:
    async def handle(data: bytes, context: grpc.aio.ServicerContext[object, object]) -> AsyncIterator[Message]:
        async for response in behavior(await _parse(request_type, data, context), context):
            yield response

    return handle
