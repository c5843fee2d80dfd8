"""Play over WebSocket: GET /v1/play on the HTTP port, upgraded.

The same PlayRequest / PlayResponse messages as the gRPC Play stream, one per frame,
served by the same use case (service/app/play/play_session.py): binary protobuf frames
(subprotocol `ludotheque.v1.proto`, or none) or proto3 JSON text frames
(`ludotheque.v1.json`). The first message is the join, which carries the seat token:
never the URL. This module translates frames, cuts a client that stops reading, and
turns the session's end into a close code (1000, or 4000 + the gRPC status code of the
error, after a last message carrying the whole google.rpc.Status); it decides nothing.

aiohttp answers the handshake (its route and middleware, the checks below), then hands
the connection over to ws_connection.py: wsproto's frames on an asyncio Protocol, which
keeps the connection alive (pings) and holds far less per idle seat than aiohttp's
WebSocket would (3.5 KiB against 15.7: `python -m service.bench.connection_floor`). The
handler returns at once; the session runs in a task of its own.

A browser cannot read the status of a refused handshake (its WebSocket only says
1006), so what a page can get wrong is refused after the upgrade, as such an error
with its close code and reason: an origin missing from --cors-origins (4007), a query
string (4003). A browser cannot send headers either: its W3C `traceparent` may come as
the one query parameter allowed, and each command of a session is a request of its
own in the logs (`<the session's request id>.<n>`).

Also GET /v1/diagnostics/echo: a WebSocket that sends every frame back, the baseline
`ludotheque bench` compares a move over WebSocket with."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass

from aiohttp import WSMsgType, web
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from ludotheque.v1 import game_service_pb2 as api
from opentelemetry import trace
from opentelemetry.trace import Link, SpanKind, format_trace_id
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from wsproto import ConnectionType
from wsproto.connection import Connection
from wsproto.events import AcceptConnection
from wsproto.handshake import H11Handshake
from wsproto.utilities import ProtocolError

from service.api.backpressure import cap_send_buffer
from service.api.body_limits import SMALL_MESSAGE_BYTES
from service.api.http_guard import hand_over
from service.api.read_receipts import ReadReceipts
from service.api.rest import bearer_token, error_response, to_json
from service.api.rpcs import BidiUseCase
from service.api.ws_connection import Frame, WebSocketConnection
from service.app.model.errors import Code, ServiceError, invalid_argument, permission_denied, status_of
from service.app.observe import request_context, tracing
from service.app.observe.metrics import Metrics
from service.settings import setting

log = logging.getLogger(__name__)

PLAY_PATH = "/v1/play"
ECHO_PATH = "/v1/diagnostics/echo"
PROTO = "ludotheque.v1.proto"  # binary frames, each a serialized message (the default)
JSON = "ludotheque.v1.json"  # text frames, each a message in the proto3 JSON mapping

# Close codes (docs/API.md, "Play over WebSocket").
CLOSE_NORMAL = 1000  # the client closed: the session is over
CLOSE_GOING_AWAY = 1001  # the server is stopping: resume elsewhere
ERROR_CLOSE_BASE = 4000  # + the gRPC status code: the session ended on that error
FRAME_HEADER_BYTES = 14  # at most, for a frame the server sends (unmasked)
MAX_REASON_BYTES = 123  # RFC 6455: a close frame's reason fits in 123 bytes
ECHO_MAX_BYTES = 1024  # the echo returns small frames only: a baseline, not a relay
TRACEPARENT = "traceparent"  # the only query parameter of /v1/play: a browser's W3C trace context
CORS_FLAG = "--cors-origins (LUDOTHEQUE_CORS_ORIGINS)"
_W3C = TraceContextTextMapPropagator()
_tracer = trace.get_tracer("ludotheque")
_GONE = ServiceError(Code.UNAVAILABLE, "The connection is gone.")  # a session's end nobody reads
SLOW_READER = ServiceError(
    Code.RESOURCE_EXHAUSTED,
    "You read too slowly: the server stopped waiting. Join again from the last version received plus one.",
)


@dataclass(frozen=True, slots=True)
class WebSocketSettings:
    heartbeat: float = setting(
        20.0,
        "seconds between the pings of a WebSocket; a client that does not answer within half of it is disconnected",
        name="websocket_heartbeat",
    )
    send_timeout: float = setting(
        10.0,
        "seconds a WebSocket message, or a server-sent event or Connect stream's write, may wait for a client "
        "that does not read; then it is cut (a WebSocket with close code 4008)",
        name="websocket_send_timeout",
    )
    max_message_bytes: int = 1 << 20  # the largest frame accepted from a client: the server's --max-message-bytes


def mount(
    web_app: web.Application,
    play: BidiUseCase,
    settings: WebSocketSettings,
    origin_allowed: Callable[[web.Request], bool],
    metrics: Metrics,
) -> None:
    """Adds GET /v1/play and GET /v1/diagnostics/echo to `web_app`."""
    sockets: weakref.WeakSet[web.WebSocketResponse] = weakref.WeakSet()  # the echo's
    sessions: dict[WebSocketConnection, asyncio.Task[None]] = {}  # Play's, each with its connection

    async def play_handler(http: web.Request) -> web.StreamResponse:
        ready = web.WebSocketResponse(protocols=(PROTO, JSON)).can_prepare(http)  # aiohttp's checks, its choice
        if not ready.ok:
            return _upgrade_required(http)
        try:
            _check_subprotocols(http)  # no subprotocol agreed, no socket a browser keeps open
            token = bearer_token(http)  # programs may send the header; browsers put it in the join
            accepted, frames = _handshake(http, ready.protocol)
        except ServiceError as error:
            return error_response(error)
        refused = _refusal(http, origin_allowed)
        codec = _JSON_CODEC if ready.protocol == JSON else _PROTO_CODEC
        connection = WebSocketConnection(
            frames,
            max_message=min(settings.max_message_bytes, SMALL_MESSAGE_BYTES),  # a join or a move: body_limits.py
            heartbeat=settings.heartbeat,
        )
        receipts = ReadReceipts(connection.send_ping)
        connection.on_pong = receipts.pong  # pongs are read receipts (read_receipts.py)
        _take_over(http, accepted, connection)
        requests = _requests(connection, codec)
        responses = _refused(refused) if refused is not None else play(requests, token)
        span = _client_trace(http) if refused is None else contextlib.nullcontext
        serve = _serve_session(connection, responses, codec, settings, closing, receipts, span)
        task = asyncio.create_task(serve)  # the request's context comes along: its id, its origin
        sessions[connection] = task
        task.add_done_callback(lambda _: sessions.pop(connection, None))
        return web.Response(status=101)  # written nowhere: the connection is not aiohttp's any more

    def closing(code: int) -> None:
        metrics.labelled(metrics.websocket_closes, str(code)).inc()

    async def close_all(_: web.Application) -> None:
        """On shutdown: every socket still open is told the server goes away (1001)."""
        stopping = b"the server is stopping"
        await asyncio.gather(
            *(socket.close(code=CLOSE_GOING_AWAY, message=stopping) for socket in list(sockets)),
            *(
                connection.close(CLOSE_GOING_AWAY, stopping.decode(), settings.send_timeout)
                for connection in list(sessions)
            ),
            return_exceptions=True,
        )

    async def end_sessions(_: web.Application) -> None:
        """Then their sessions end (each saw its client's close, or is cut now)."""
        tasks = list(sessions.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    web_app.router.add_get(PLAY_PATH, play_handler)
    web_app.router.add_get(ECHO_PATH, functools.partial(_echo, settings, origin_allowed, sockets))
    web_app.on_shutdown.append(close_all)
    web_app.on_cleanup.append(end_sessions)


async def _echo(
    settings: WebSocketSettings,
    origin_allowed: Callable[[web.Request], bool],
    sockets: weakref.WeakSet[web.WebSocketResponse],
    http: web.Request,
) -> web.StreamResponse:
    """GET /v1/diagnostics/echo: aiohttp's own WebSocket, sending back every frame."""
    socket = web.WebSocketResponse(heartbeat=settings.heartbeat, max_msg_size=ECHO_MAX_BYTES, compress=False)
    if not socket.can_prepare(http).ok:
        return _upgrade_required(http)
    refused = _refusal(http, origin_allowed, play=False)
    if refused is not None:
        return error_response(refused)
    await socket.prepare(http)
    sockets.add(socket)
    async for message in socket:
        if message.type is WSMsgType.BINARY:
            await socket.send_bytes(message.data)
        elif message.type is WSMsgType.TEXT:
            await socket.send_str(message.data)
    return socket


def _take_over(http: web.Request, accepted: bytes, connection: WebSocketConnection) -> None:
    """Answers the upgrade with `accepted` and hands the connection to `connection`."""
    transport = http.transport
    if transport is None or transport.is_closing():
        raise ConnectionResetError("the client left during the WebSocket handshake")
    # Left to itself the kernel's buffer grows to megabytes for a client that stops reading.
    cap_send_buffer(transport)
    transport.write(accepted)
    connection.release = hand_over(http, connection)


def _check_subprotocols(http: web.Request) -> None:
    """Refuses, before the upgrade, a client offering only subprotocols we do not speak."""
    offered = {p.strip() for p in http.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()}
    if offered and not offered & {PROTO, JSON}:
        raise invalid_argument(
            "Sec-WebSocket-Protocol",
            f"Unknown subprotocol {', '.join(sorted(offered))}: use {PROTO} (binary) or {JSON}.",
        )


def _refusal(
    http: web.Request,
    origin_allowed: Callable[[web.Request], bool],
    *,
    play: bool = True,
) -> ServiceError | None:
    """Why this handshake must not become a session (`play`: of /v1/play), if it must
    not: told after the upgrade, where a browser can read it."""
    if play and set(http.query) - {TRACEPARENT}:
        return invalid_argument(
            "query",
            f"GET /v1/play takes no query parameter but {TRACEPARENT}: the token goes in the join message, "
            "never in the URL.",
        )
    if not origin_allowed(http):
        origin = http.headers.get("Origin", "")
        log.info("a WebSocket from origin %r was refused: it is not in --cors-origins", origin)
        # The first 123 bytes are the close frame's reason: the flag and the origin come first.
        return permission_denied(
            f"Origin not in {CORS_FLAG}: {origin}. Add it to the server's list to open a WebSocket "
            "from this page, or serve the page from the server's own origin."
        )
    return None


async def _refused(error: ServiceError) -> AsyncIterator[Message]:
    """A session that ends on `error` before it starts."""
    raise error
    yield  # unreachable: it makes this function an async generator, as a session is


def _client_trace(http: web.Request) -> Callable[[], contextlib.AbstractContextManager[None]]:
    """The trace a browser's session belongs to, from its `traceparent` query parameter
    (a browser cannot send it as a header): the upgrade's log line and the session's
    carry its trace id (noted now) and, when tracing, its moves are spans of that trace,
    under a span of the session linked to the upgrade's own (what the returned function
    opens, in the session's task). A malformed traceparent is ignored, as in a header."""
    traceparent = http.query.get(TRACEPARENT, "")
    context = _W3C.extract({TRACEPARENT: traceparent}) if traceparent else None
    parent = trace.get_current_span(context).get_span_context() if context is not None else None
    if parent is None or not parent.is_valid:
        return contextlib.nullcontext
    request_context.note(trace_id=format_trace_id(parent.trace_id))
    if not tracing.enabled():
        return contextlib.nullcontext
    upgrade = trace.get_current_span().get_span_context()
    links = [Link(upgrade)] if upgrade.is_valid else []

    @contextlib.contextmanager
    def span() -> Iterator[None]:
        with _tracer.start_as_current_span("ludotheque.play", context=context, kind=SpanKind.SERVER, links=links):
            yield

    return span


def _handshake(http: web.Request, protocol: str | None) -> tuple[bytes, Connection]:
    """wsproto's answer to the upgrade (`protocol`: the subprotocol agreed, or none), and
    the connection's frames from then on."""
    handshake = H11Handshake(ConnectionType.SERVER)
    try:
        handshake.initiate_upgrade_connection(list(http.raw_headers), http.raw_path)
        accepted = handshake.send(AcceptConnection(subprotocol=protocol or None))
    except ProtocolError as error:
        raise invalid_argument("upgrade", f"The WebSocket handshake cannot be accepted: {error}") from None
    connection = handshake.connection
    assert connection is not None  # (accepted)
    return accepted, connection


def _upgrade_required(http: web.Request) -> web.Response:
    """A plain GET: 426 Upgrade Required."""
    error = invalid_argument("upgrade", f"GET {http.path} is a WebSocket: send a WebSocket upgrade request.")
    response = error_response(error)
    response.set_status(426)
    response.headers["Upgrade"] = "websocket"
    return response


class _Codec:
    """How messages travel in frames: protobuf in binary frames, or JSON in text frames."""

    def __init__(self, frame: Frame, name: str) -> None:
        self.frame = frame
        self.name = name

    def decode(self, frame: Frame, data: str | bytes) -> api.PlayRequest:
        if frame is not self.frame:
            other = "text" if frame is Frame.TEXT else "binary"
            raise invalid_argument("frame", f"This session speaks {self.name}: a {other} frame cannot be read.")
        try:
            if isinstance(data, bytes):
                return api.PlayRequest.FromString(data)
            return json_format.Parse(data, api.PlayRequest())
        except (DecodeError, json_format.ParseError) as error:
            raise invalid_argument("frame", f"The frame is not a valid PlayRequest: {error}") from None

    def encode(self, message: Message) -> tuple[bytes | str, int]:
        """The message's frame data, and its size in bytes."""
        if self.frame is Frame.BINARY:
            data = message.SerializeToString()
            return data, len(data)
        text = to_json(message)
        return text, len(text.encode())


_PROTO_CODEC = _Codec(Frame.BINARY, f"binary protobuf ({PROTO})")
_JSON_CODEC = _Codec(Frame.TEXT, f"proto3 JSON text ({JSON})")


async def _requests(connection: WebSocketConnection, codec: _Codec) -> AsyncIterator[api.PlayRequest]:
    """The client's messages, until it closes (its pings are answered, its pongs taken
    as read receipts, by the connection)."""
    while (received := await connection.receive()) is not None:
        yield codec.decode(*received)


async def _serve_session(
    connection: WebSocketConnection,
    responses: AsyncIterator[Message],
    codec: _Codec,
    settings: WebSocketSettings,
    closing: Callable[[int], None],
    receipts: ReadReceipts,
    span: Callable[[], contextlib.AbstractContextManager[None]],
) -> None:
    """Sends the session's messages, then closes, telling `closing` the close code first."""
    with span():
        error = await _sent(connection, responses, codec, settings.send_timeout, receipts)
    if error is _GONE:
        return  # no close to send
    if error is None:
        closing(CLOSE_NORMAL)
        await connection.close(CLOSE_NORMAL, timeout=settings.send_timeout)
        return
    code = ERROR_CLOSE_BASE + error.code.grpc_value
    closing(code)
    if error is SLOW_READER:
        connection.abort()  # drop what it never read: a stalled client holds no buffer, gets no more
        return
    with contextlib.suppress(ServiceError, ConnectionError):
        await _send(connection, codec, api.PlayResponse(error=status_of(error)), settings.send_timeout, receipts)
    await connection.close(code, _reason(error.message), settings.send_timeout)


async def _sent(
    connection: WebSocketConnection,
    responses: AsyncIterator[Message],
    codec: _Codec,
    timeout: float,
    receipts: ReadReceipts,
) -> ServiceError | None:
    """Sends the session's messages: None once it ended, or the error it ended on (its
    connection gone: an error nobody will read)."""
    try:
        async for response in responses:
            await _send(connection, codec, response, timeout, receipts)
    except ServiceError as ended:
        return ended
    except ConnectionError:
        return _GONE
    except Exception:
        log.exception("unexpected error in a WebSocket Play session")
        return ServiceError(Code.INTERNAL, "Internal error: the operators have been told.")
    finally:
        await responses.aclose()  # type: ignore[attr-defined]
    return None


async def _send(
    connection: WebSocketConnection,
    codec: _Codec,
    message: Message,
    timeout: float,
    receipts: ReadReceipts,
) -> None:
    """Sends one message once the client has read enough of what came before
    (read_receipts.py), and pings for a receipt when one is due. When the transport's
    buffer is full, or the client has not read enough of what it was sent, the send
    waits, but no longer than `timeout`: then the client is cut (SLOW_READER)."""
    data, length = codec.encode(message)
    size = length + FRAME_HEADER_BYTES
    if not receipts.may_send(size) or connection.buffered() + size > connection.high_water():
        try:
            async with asyncio.timeout(timeout):
                await receipts.before_sending(size)
                await connection.drain()
        except TimeoutError:
            raise SLOW_READER from None
    connection.send(data)
    await receipts.sent_bytes(size)


def _reason(message: str) -> str:
    """The message cut to what a close frame can carry, on a character boundary."""
    data = message.encode()
    if len(data) <= MAX_REASON_BYTES:
        return message
    return data[: MAX_REASON_BYTES - 3].decode(errors="ignore") + "..."
