"""The Connect protocol (connectrpc.com/docs/protocol) on the HTTP port, so that
browsers and Node call GameService with `@connectrpc/connect-web` and no proxy.

Routes come from the service descriptor, like the REST gateway's: every RPC is
`POST /ludotheque.v1.GameService/<Method>`, answered by the use case of
service/api/rpcs.py. Unary RPCs take and return a bare message (`application/proto` or
`application/json`); server-streaming RPCs take one enveloped message and answer
enveloped messages (`application/connect+proto` or `+json`) ending with an
end-of-stream message that carries the error, if any. Errors are the ServiceErrors
of every transport, in Connect's JSON form with google.rpc details; the caller is
the same `authorization: Bearer` token; `connect-timeout-ms` bounds a call.

Not served: GET requests (connect-web sends them only for RPCs annotated
`idempotency_level = NO_SIDE_EFFECTS`, which ours are not), compressed responses
(requests may be gzipped), client and bidirectional streaming (they need HTTP/2, which
aiohttp does not speak: such RPCs answer unimplemented)."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import struct
import zlib
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, cast

from aiohttp import web
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import DecodeError, Message

from service.api.backpressure import DEFAULT_SEND_TIMEOUT, StalledReader, cap_buffers, write_within
from service.api.body_limits import INFLATION_FLOOR, MAX_INFLATION, inflated, message_limit, parse_off_loop, too_large
from service.api.grpc_server import bearer_token
from service.api.http_body import (
    BodyGone,
    BodyRefused,
    BodyStalled,
    BodyUndecodable,
    answer_and_close,
    read_body,
)
from service.api.locales import accept_language, fill_locale
from service.api.next_item import next_item
from service.api.rpcs import SERVICE, AnyUseCase, Responses, StreamUseCase, UseCase
from service.app.model.errors import ServiceError, details_of, invalid_argument, retry_after_seconds
from service.app.model.json_answers import AnswerSlot, JsonAnswers, answering, as_json

log = logging.getLogger(__name__)

PROTOCOL_VERSION = "1"
# What requests may be compressed with. A unary request's Content-Encoding is HTTP's
# own, which aiohttp decodes before the handler reads the body (gzip and deflate);
# a streaming request's messages are compressed one by one (connect-content-encoding).
UNARY_ENCODINGS = ("identity", "gzip", "deflate")
STREAM_ENCODINGS = ("identity", "gzip")
COMPRESSED_FLAG = 0b01
END_STREAM_FLAG = 0b10
ENVELOPE = struct.Struct(">BI")  # flags, then the message's length (big-endian)
# How often a silent stream checks that its client is still there: Connect has no
# keep-alive frame, and a subscription whose client left must not live on.
GONE_CHECK_SECONDS = 5.0

# Connect's codes (gRPC's, in snake case) and the HTTP status a unary error gets.
HTTP_STATUS: dict[str, int] = {
    "canceled": 499,
    "unknown": 500,
    "invalid_argument": 400,
    "deadline_exceeded": 504,
    "not_found": 404,
    "already_exists": 409,
    "permission_denied": 403,
    "resource_exhausted": 429,
    "failed_precondition": 400,
    "aborted": 409,
    "out_of_range": 400,
    "unimplemented": 501,
    "internal": 500,
    "unavailable": 503,
    "data_loss": 500,
    "unauthenticated": 401,
}


class ConnectFailure(Exception):
    """An RPC's error in Connect's terms: a ServiceError, or one of the protocol's
    own codes that the service never raises (deadline_exceeded, unimplemented)."""

    def __init__(
        self, code: str, message: str, details: Sequence[Message] = (), http_status: int = 0, *, close: bool = False
    ) -> None:
        super().__init__(message)
        self.close = close or http_status == 408  # the rest of the body is not read: the connection is closed
        self.code = code
        self.message = message
        self.details = tuple(details)
        # The HTTP status when it is not the code's own, so that what a client sent never
        # gets a 5xx: an unknown method is a 404 and a missed deadline of the client's a
        # 408 (statuses Connect's own table reads as those codes), an unknown compression
        # a 415 (HTTP's status for it).
        self.http_status = http_status or HTTP_STATUS[code]

    @classmethod
    def of(cls, error: ServiceError) -> ConnectFailure:
        return cls(error.code.name.lower(), error.message, details_of(error))

    def as_json(self) -> dict[str, Any]:
        """The protocol's Error: each detail as its type, its bytes in unpadded
        base64 (what clients decode) and its JSON form (for people reading)."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            error["details"] = [
                {
                    "type": detail.DESCRIPTOR.full_name,
                    "value": base64.b64encode(detail.SerializeToString()).decode().rstrip("="),
                    "debug": json_format.MessageToDict(detail),
                }
                for detail in self.details
            ]
        return error

    def response(self) -> web.Response:
        retry_after = retry_after_seconds(self.details)
        response = web.Response(
            status=self.http_status,
            text=_compact(self.as_json()),
            content_type="application/json",
            headers={"Retry-After": str(retry_after)} if retry_after is not None else None,
        )
        return response


INTERNAL = ConnectFailure("internal", "Internal error: the operators have been told.")


@dataclass(frozen=True, slots=True)
class Codec:
    """How messages are written on the wire: binary protobuf or the proto3 JSON mapping."""

    name: str  # "proto" or "json"

    def decode(self, data: bytes, message_type: type[Message]) -> Message:
        message = message_type()
        if self.name == "proto":
            try:
                message.ParseFromString(data)
            except DecodeError:
                raise invalid_argument("request", f"The request is not a valid {message_type.__name__}.") from None
            return message
        if not data.strip():
            return message
        try:
            json_format.Parse(data.decode("utf-8"), message)
        except (json_format.ParseError, UnicodeDecodeError) as error:
            raise invalid_argument("request", f"The request is not valid: {error}") from None
        return message

    def encode(self, message: Message) -> bytes:
        if self.name == "proto":
            return message.SerializeToString()
        return as_json(message, "connect")


PROTO, JSON = Codec("proto"), Codec("json")
UNARY_TYPES = {"application/proto": PROTO, "application/json": JSON}
STREAM_TYPES = {"application/connect+proto": PROTO, "application/connect+json": JSON}


def mount(
    web_app: web.Application,
    use_cases: Mapping[str, AnyUseCase],
    *,
    max_body_bytes: int,
    send_timeout: float = DEFAULT_SEND_TIMEOUT,
    answers: JsonAnswers | None = None,
) -> None:
    """Adds a Connect route for every RPC of GameService to `web_app` (`send_timeout`:
    how long a stream's write may wait for a client that does not read; `answers`: writes
    unary JSON answers, a large one in a heavy worker; none: all on the loop)."""
    for method in SERVICE.methods:
        if method.client_streaming:
            continue  # needs full-duplex HTTP/2, which aiohttp lacks: unimplemented, below
        use_case = cast(UseCase | StreamUseCase, use_cases[method.name])
        mount_method(web_app, method, use_case, max_body_bytes, send_timeout, answers)

    async def unknown_method(http: web.Request) -> web.Response:
        name = http.match_info["method"]
        return ConnectFailure(
            "unimplemented", f"{SERVICE.full_name} serves no method {name!r} over Connect.", http_status=404
        ).response()

    web_app.router.add_post(f"/{SERVICE.full_name}/{{method}}", unknown_method)


def mount_method(
    web_app: web.Application,
    method: MethodDescriptor,
    use_case: UseCase | StreamUseCase,
    max_body_bytes: int,
    send_timeout: float = DEFAULT_SEND_TIMEOUT,
    answers: JsonAnswers | None = None,
) -> None:
    """Adds the Connect route of one RPC (unary or server-streaming) of any service."""
    endpoint = Endpoint(method, use_case, max_body_bytes, send_timeout, answers)
    handler = endpoint.stream if method.server_streaming else endpoint.unary
    web_app.router.add_post(f"/{method.containing_service.full_name}/{method.name}", handler)


class Endpoint:
    """One RPC over Connect."""

    def __init__(
        self,
        method: MethodDescriptor,
        use_case: UseCase | StreamUseCase,
        max_body_bytes: int,
        send_timeout: float = DEFAULT_SEND_TIMEOUT,
        answers: JsonAnswers | None = None,
    ) -> None:
        self.method = method
        self.answers = answers
        self.use_case = use_case
        self.request_type = message_factory.GetMessageClass(method.input_type)
        self.max_body_bytes = message_limit(method.name, max_body_bytes)  # body_limits.py
        self.send_timeout = send_timeout

    async def unary(self, http: web.Request) -> web.StreamResponse:
        codec = UNARY_TYPES.get(http.content_type)
        if codec is None:
            return _unsupported_media_type(http, UNARY_TYPES)
        try:
            _check_protocol_version(http)
            timeout = _timeout_seconds(http)
            _check_http_encoding(http)
            data = await _body(http, self.max_body_bytes, self.method.name)
            request = await parse_off_loop(len(data), lambda: codec.decode(data, self.request_type))
            fill_locale(request, accept_language(http.headers.items()))
            token = bearer_token(http.headers.items())
            async with _deadline(timeout):
                with answering() as slot:
                    response: Message = await self.use_case(request, token)  # type: ignore[assignment]
                body = await self._encode(codec, response, token, slot)
        except ServiceError as error:
            return ConnectFailure.of(error).response()
        except ConnectFailure as failure:
            if failure.close:  # a body that stopped, came too slowly, or inflates too much
                return await answer_and_close(http, failure.response())
            return failure.response()
        except Exception:
            log.exception("unexpected error in %s over Connect", self.method.name)
            return INTERNAL.response()
        return web.Response(body=body, content_type=f"application/{codec.name}")

    async def _encode(self, codec: Codec, response: Message, token: str, slot: AnswerSlot) -> bytes:
        """The unary answer in `codec`: a large JSON one written in a heavy worker (json_answers.py)."""
        if codec.name == "proto" or self.answers is None:
            return codec.encode(response)
        return await self.answers.encode(self.method.name, response, "connect", token, slot)

    async def stream(self, http: web.Request) -> web.StreamResponse:
        codec = STREAM_TYPES.get(http.content_type)
        if codec is None:
            return _unsupported_media_type(http, STREAM_TYPES)
        # A streaming response is always 200: its errors travel in the end-of-stream message.
        stream = web.StreamResponse(headers={"Content-Type": f"application/connect+{codec.name}"})
        failure: ConnectFailure | None = None
        try:
            _check_protocol_version(http)
            timeout = _timeout_seconds(http)
            body = await _body(http, self.max_body_bytes + ENVELOPE.size, self.method.name)
            encoding = http.headers.get("Connect-Content-Encoding")
            data = _single_envelope(body, encoding, self.max_body_bytes, self.method.name)
            request = await parse_off_loop(len(data), lambda: codec.decode(data, self.request_type))
            fill_locale(request, accept_language(http.headers.items()))
            token = bearer_token(http.headers.items())
            async with _deadline(timeout):
                responses: Responses = await self.use_case(request, token)  # type: ignore[assignment]
                await stream.prepare(http)
                cap_buffers(http.transport)
                await _write_all(responses.stream, codec, stream, http, self.send_timeout)
        except ServiceError as error:
            failure = ConnectFailure.of(error)
        except ConnectFailure as caught:
            failure = caught
        except (ConnectionResetError, StalledReader):
            return stream  # the client went away, or stopped reading (and was cut)
        except Exception:
            log.exception("unexpected error in %s over Connect", self.method.name)
            failure = INTERNAL
        try:
            if not stream.prepared:
                await stream.prepare(http)
            end = {"error": failure.as_json()} if failure is not None else {}
            await stream.write(_envelope(END_STREAM_FLAG, _compact(end).encode()))
            await stream.write_eof()
        except ConnectionResetError:
            pass
        if failure is not None and failure.close and http.protocol is not None:
            http.protocol.force_close()  # a body that stopped, came too slowly or inflates too much: the rest unread
        return stream


async def _write_all(
    messages: AsyncIterator[Message], codec: Codec, stream: web.StreamResponse, http: web.Request, send_timeout: float
) -> None:
    """Each message, the next one read only once the last is written (the kernel's capped
    buffers took it): a client that stops reading stops the stream, and is cut once a
    write waited `send_timeout` seconds for it."""
    try:
        while (message := await _next_while_connected(messages, http)) is not None:
            await write_within(http, stream, _envelope(0, codec.encode(message)), send_timeout)
    finally:
        await messages.aclose()  # type: ignore[attr-defined]


async def _next_while_connected(messages: AsyncIterator[Message], http: web.Request) -> Message | None:
    """The next message; None at the end, or once the client has disconnected."""

    async def connected() -> bool:
        return http.transport is not None and not http.transport.is_closing()

    return await next_item(messages, GONE_CHECK_SECONDS, connected)


@asynccontextmanager
async def _deadline(seconds: float | None) -> AsyncIterator[None]:
    """Bounds the body to `seconds` (None: no bound): past it, deadline_exceeded."""
    scope = asyncio.timeout(seconds)
    try:
        async with scope:
            yield
    except TimeoutError:
        if scope.expired():
            raise ConnectFailure(
                "deadline_exceeded", "The call's deadline (connect-timeout-ms) passed.", http_status=408
            ) from None
        raise


def _check_protocol_version(http: web.Request) -> None:
    # The header is optional (so curl users need not send it), but when sent it must be 1.
    version = http.headers.get("Connect-Protocol-Version")
    if version is not None and version.strip() != PROTOCOL_VERSION:
        raise invalid_argument(
            "connect-protocol-version", f"Connect protocol version {version!r} is not supported (only 1)."
        )


def _timeout_seconds(http: web.Request) -> float | None:
    text = http.headers.get("Connect-Timeout-Ms")
    if text is None:
        return None
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 10:
        raise invalid_argument("connect-timeout-ms", "connect-timeout-ms must be a number of at most 10 digits.")
    return int(text) / 1000


async def _body(http: web.Request, limit: int, method: str) -> bytes:
    try:
        return await read_body(http, limit)
    except BodyRefused as refused:
        raise _too_large(refused.error(method), close=refused.compressed) from None
    except BodyUndecodable as error:
        raise invalid_argument("request", str(error)) from None
    except BodyStalled as error:
        raise ConnectFailure("deadline_exceeded", str(error), http_status=408) from None
    except BodyGone as error:
        raise ConnectFailure("canceled", str(error)) from None


def _too_large(error: ServiceError, *, close: bool = False) -> ConnectFailure:
    """RESOURCE_EXHAUSTED, naming the limit; HTTP's 413 (`close`: the connection closed)."""
    return ConnectFailure("resource_exhausted", error.message, details_of(error), http_status=413, close=close)


def _check_http_encoding(http: web.Request) -> None:
    encoding = http.headers.get("Content-Encoding", "").strip().lower() or "identity"
    if encoding not in UNARY_ENCODINGS:
        raise _unsupported_encoding(encoding, UNARY_ENCODINGS)


def _unsupported_encoding(encoding: str, supported: Sequence[str]) -> ConnectFailure:
    return ConnectFailure(
        "unimplemented", f"Unsupported compression {encoding!r}: use one of {', '.join(supported)}.", http_status=415
    )


def _decompress(data: bytes, encoding: str, limit: int, method: str) -> bytes:
    """A streaming request's message, inflated (at most `limit` bytes, and at most
    MAX_INFLATION times its compressed size)."""
    if encoding == "identity" or not data:
        return data
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip framing
    try:
        # Bounded, so that a small bomb cannot inflate into gigabytes.
        whole = inflater.decompress(data, limit + 1)
    except zlib.error:
        raise invalid_argument("request", "The request is not valid gzip.") from None
    if len(whole) > limit or inflater.unconsumed_tail:
        raise _too_large(too_large(limit, method))
    if len(whole) > max(INFLATION_FLOOR, MAX_INFLATION * len(data)):
        raise _too_large(inflated(MAX_INFLATION))
    return whole


def _single_envelope(body: bytes, encoding_header: str | None, limit: int, method: str) -> bytes:
    """The one message of a server-streaming request, out of its envelope."""
    encoding = (encoding_header or "").strip().lower() or "identity"
    if encoding not in STREAM_ENCODINGS:
        raise _unsupported_encoding(encoding, STREAM_ENCODINGS)
    if len(body) < ENVELOPE.size:
        raise invalid_argument("request", "A streaming request needs exactly one enveloped message.")
    flags, length = ENVELOPE.unpack_from(body)
    if len(body) != ENVELOPE.size + length:
        raise invalid_argument("request", "A streaming request needs exactly one enveloped message.")
    if flags & ~COMPRESSED_FLAG:
        raise invalid_argument("request", f"Unexpected envelope flags {flags:#04x} in the request.")
    data = body[ENVELOPE.size :]
    if flags & COMPRESSED_FLAG:
        if encoding == "identity":
            raise invalid_argument("request", "A compressed message needs connect-content-encoding.")
        return _decompress(data, encoding, limit, method)
    return data


def _envelope(flags: int, data: bytes) -> bytes:
    return ENVELOPE.pack(flags, len(data)) + data


def _unsupported_media_type(http: web.Request, supported: Mapping[str, Codec]) -> web.Response:
    # The protocol's answer to an unknown codec: 415, naming what would do.
    return web.Response(
        status=415,
        text=f"Content-Type {http.content_type!r} is not supported here; use one of: {', '.join(supported)}.\n",
        headers={"Accept-Post": ", ".join(supported)},
    )


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
