"""The gRPC transport: a thin adapter from GameService calls to GameApp's use cases.

One handler per RPC of the proto's service descriptor (service/api/rpcs.py says which use
case answers it). Each reads the bearer token from the call's metadata, parses the
request itself (a corrupt message is INVALID_ARGUMENT, not an opaque grpc error),
and turns a ServiceError into a gRPC status with google.rpc details
(grpc-status-details-bin)."""

from __future__ import annotations

import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import DecodeError, Message

from service.api.body_limits import LARGE_MESSAGES, SMALL_MESSAGE_BYTES, parse_off_loop, too_large
from service.api.locales import accept_language, fill_locale
from service.api.rpcs import SERVICE, BidiUseCase, Responses, StreamUseCase, UseCase, use_cases
from service.app import GameApp
from service.app.access.origins import Origin, calling_from, forwarded_for, grpc_peer_address
from service.app.model.errors import Code, ServiceError, invalid_argument, status_of, unauthenticated
from service.settings import at_least, setting

log = logging.getLogger(__name__)

STATUS_DETAILS_KEY = "grpc-status-details-bin"
INTERNAL = ServiceError(Code.INTERNAL, "Internal error: the operators have been told.")

Context: TypeAlias = Any  # grpc.aio.ServicerContext (grpc ships no type hints)


@dataclass(frozen=True, slots=True)
class GrpcSettings:
    """The gRPC port, as a server is configured: grpcio's own limits, the gate in front
    of it (grpc_gate.py) and the live streams of one connection (`register`)."""

    port: int = setting(50051, "gRPC port (0: any free port)", name="grpc_port")
    max_connection_age: float = setting(600.0, "seconds before a client is asked to reconnect (load balancing)")
    max_concurrent_streams: int = setting(
        200,
        "gRPC: streams (calls in flight) one connection may have at once (HTTP/2 MAX_CONCURRENT_STREAMS); "
        "past it grpc refuses the stream before any handler runs. More than --max-streams-per-connection",
        name="grpc_max_concurrent_streams",
    )
    max_resets: int = setting(
        200,
        "gRPC: streams one client address (all its connections; a trusted proxy's connections each) may "
        "reset or have refused in a burst, coming back over 10 s; past it the connection gets a GOAWAY and "
        "is closed (HTTP/2 rapid reset). 0: no limit",
        name="grpc_max_resets",
        check=at_least(0),
    )
    gate: bool = setting(
        True,
        "pass gRPC connections through the server's gate (connection limits, rapid-reset cuts; the gRPC "
        "server listens on a loopback port behind it); --no-grpc-gate: clients reach grpc directly",
        name="grpc_gate",
    )
    max_streams_per_connection: int = setting(
        100,
        "gRPC: live streams (StreamEvents, Play) one client connection may have open at once "
        "(HTTP/1.1 carries one request at a time)",
        check=at_least(1),
    )

    def __post_init__(self) -> None:
        if self.max_concurrent_streams <= self.max_streams_per_connection:
            raise ValueError(
                "--grpc-max-concurrent-streams must be more than --max-streams-per-connection "
                "(a connection's live streams, and room for its other calls)"
            )


def bearer_token(metadata: Any) -> str:
    """The token of an `authorization: Bearer <token>` entry; "" when there is none."""
    for key, value in metadata or ():
        if key.lower() == "authorization":
            text = value.decode(errors="replace") if isinstance(value, bytes) else value
            if not text.isascii():  # a token is ASCII (HTTP headers may carry other bytes)
                raise unauthenticated("The authorization header must be 'Bearer <token>', in ASCII.")
            scheme, _, token = text.strip().partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise unauthenticated("The authorization header must be 'Bearer <token>'.")
            return str(token.strip())
    return ""


async def abort(context: Context, error: ServiceError) -> None:
    await context.abort(
        grpc.StatusCode[error.code.name],
        error.message,
        # What the call set already (its x-request-id) stays: abort's metadata replaces it.
        trailing_metadata=(
            *(context.trailing_metadata() or ()),
            (STATUS_DETAILS_KEY, status_of(error).SerializeToString()),
        ),
    )


class ConnectionStreams:
    """The streams (StreamEvents, Play) open on each client connection, at most `limit`
    on one: one connection of HTTP/2 could otherwise hold any number of subscriptions."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: Counter[str] = Counter()

    @contextmanager
    def slot(self, connection: str) -> Iterator[None]:
        if self._open[connection] >= self.limit:
            raise ServiceError(
                Code.RESOURCE_EXHAUSTED,
                f"This connection has {self.limit} streams open, the most one may have: close one first.",
            )
        self._open[connection] += 1
        try:
            yield
        finally:
            self._open[connection] -= 1
            if not self._open[connection]:
                del self._open[connection]


def _slot(streams: ConnectionStreams | None, context: Context) -> contextlib.AbstractContextManager[None]:
    """A stream's place on its connection (none counted without `streams`)."""
    return contextlib.nullcontext() if streams is None else streams.slot(context.peer())


def register(
    server: grpc.aio.Server,
    app: GameApp,
    *,
    max_streams_per_connection: int = 100,
    peers: Callable[[str], str] | None = None,
) -> None:
    """Adds GameService to `server`. `peers`: the client's peer for a call's own, when
    the calls come through the gate (grpc_gate.py)."""
    table = use_cases(app)
    streams = ConnectionStreams(max_streams_per_connection)
    handlers = {}
    for method in SERVICE.methods:
        use_case = table[method.name]
        behavior: Callable[..., Any]
        if method.client_streaming:
            behavior = _bidi(method, cast(BidiUseCase, use_case), streams, peers)
            handlers[method.name] = grpc.stream_stream_rpc_method_handler(behavior, response_serializer=_serialize)
        elif method.server_streaming:
            behavior = _streaming(method, cast(StreamUseCase, use_case), streams, peers)
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(behavior, response_serializer=_serialize)
        else:
            behavior = _unary(method, cast(UseCase, use_case), peers)
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(behavior, response_serializer=_serialize)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE.full_name, handlers),))


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()


async def _parse(method: MethodDescriptor, data: bytes) -> Message:
    """The request, refused unparsed over its RPC's limit (body_limits.py; grpc's own
    grpc.max_receive_message_length is --max-message-bytes, the largest's), parsed in a
    worker thread when it is large."""
    if method.name not in LARGE_MESSAGES and len(data) > SMALL_MESSAGE_BYTES:
        raise too_large(SMALL_MESSAGE_BYTES, method.name)
    request_type = message_factory.GetMessageClass(method.input_type)
    return await parse_off_loop(len(data), lambda: _decode(request_type, method, data))


def _decode(request_type: type[Message], method: MethodDescriptor, data: bytes) -> Message:
    try:
        return request_type.FromString(data)
    except DecodeError:
        raise invalid_argument("request", f"The request is not a valid {method.input_type.name}.") from None


class _Aborting:
    """`async with _Aborting(method, context):` ends the call with the status of what
    its body raised: a ServiceError's own, any other Exception INTERNAL (and logged)."""

    __slots__ = ("context", "method")

    def __init__(self, method: MethodDescriptor, context: Context) -> None:
        self.method = method
        self.context = context

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> bool:
        if isinstance(error, ServiceError):
            await abort(self.context, error)
        elif isinstance(error, Exception):
            log.error("unexpected error in %s", self.method.name, exc_info=error)
            await abort(self.context, INTERNAL)
        return False  # nothing raised, or not ours to answer (a cancellation)


def origin(context: Context, peers: Callable[[str], str] | None = None) -> Origin:
    """Where the call comes from: the peer (the gate's client, through the gate), and the
    x-forwarded-for a proxy may have added."""
    metadata = context.invocation_metadata() or ()
    forwarded = [value for key, value in metadata if key.lower() == "x-forwarded-for" and isinstance(value, str)]
    peer = context.peer() or ""
    return Origin(grpc_peer_address(peers(peer) if peers is not None else peer), forwarded_for(forwarded))


def _unary(
    method: MethodDescriptor, use_case: UseCase, peers: Callable[[str], str] | None = None
) -> Callable[[bytes, Context], Any]:
    async def handle(data: bytes, context: Context) -> Message:
        with calling_from(origin(context, peers)):
            async with _Aborting(method, context):
                metadata = context.invocation_metadata()
                request = fill_locale(await _parse(method, data), accept_language(metadata))
                return await use_case(request, bearer_token(metadata))
        raise AssertionError("abort() always raises")

    return handle


def _streaming(
    method: MethodDescriptor,
    use_case: StreamUseCase,
    streams: ConnectionStreams | None = None,
    peers: Callable[[str], str] | None = None,
) -> Callable[[bytes, Context], Any]:
    async def handle(data: bytes, context: Context) -> AsyncIterator[Message]:
        async with _Aborting(method, context):
            with _slot(streams, context), calling_from(origin(context, peers)):  # (followers count per client)
                metadata = context.invocation_metadata()
                request = fill_locale(await _parse(method, data), accept_language(metadata))
                responses: Responses = await use_case(request, bearer_token(metadata))
                async for response in responses.stream:
                    yield response

    return handle


def _bidi(
    method: MethodDescriptor,
    use_case: BidiUseCase,
    streams: ConnectionStreams | None = None,
    peers: Callable[[str], str] | None = None,
) -> Callable[[AsyncIterator[bytes], Context], Any]:
    async def handle(data: AsyncIterator[bytes], context: Context) -> AsyncIterator[Message]:
        accept = accept_language(context.invocation_metadata())

        async def requests() -> AsyncIterator[Message]:
            async for item in data:
                yield fill_locale(await _parse(method, item), accept)

        async with _Aborting(method, context):
            with _slot(streams, context), calling_from(origin(context, peers)):
                async for response in use_case(requests(), bearer_token(context.invocation_metadata())):
                    yield response

    return handle
