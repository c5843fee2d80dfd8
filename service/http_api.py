"""The HTTP transport: REST transcoded from the proto's google.api.http annotations,
server-sent events for streaming RPCs, /metrics, /healthz, /readyz, /openapi.json.

No route is written by hand: each annotated RPC's path, query and body are mapped to
its request message with the proto3 JSON mapping, the use case of service/rpcs.py
answers, and the response goes back as JSON (every field present, lowerCamelCase)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Middleware
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from service import connect_api
from service.app import GameApp
from service.errors import Code, ServiceError, invalid_argument, status_of, unauthenticated
from service.http_rules import HttpBinding, http_bindings
from service.metrics import Metrics
from service.rpcs import SERVICE, StreamUseCase, UseCase, use_cases

log = logging.getLogger(__name__)

OPENAPI_PATH = Path(__file__).resolve().parent / "openapi.json"
HEARTBEAT_SECONDS = 15.0
# A server-streaming RPC that can resume from an SSE Last-Event-ID: the request field
# to set (to the last id + 1) and how to read the id from a response.
RESUMABLE: dict[str, tuple[str, Callable[[Any], int]]] = {
    "StreamEvents": ("from_version", lambda response: response.event.version),
}
CORS_HEADERS = (
    "authorization, content-type, last-event-id, connect-protocol-version, connect-timeout-ms, x-user-agent, "
    "connect-content-encoding, connect-accept-encoding"
)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def to_json(message: Message) -> str:
    return json.dumps(
        json_format.MessageToDict(message, always_print_fields_with_no_presence=True),
        ensure_ascii=False,
        separators=(",", ":"),
    )


def error_response(error: ServiceError) -> web.Response:
    return web.Response(
        status=error.code.http_status,
        text=to_json(status_of(error)),
        content_type="application/json",
    )


def bearer_token(request: web.Request) -> str:
    header = request.headers.get("Authorization", "")
    if not header:
        return ""
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthenticated("The Authorization header must be 'Bearer <token>'.")
    return token.strip()


class Transcoder:
    """Builds an RPC's request message from an HTTP request."""

    def __init__(self, binding: HttpBinding, max_body_bytes: int) -> None:
        self.binding = binding
        self.request_type = message_factory.GetMessageClass(binding.method.input_type)
        self.max_body_bytes = max_body_bytes
        self.query: dict[str, FieldDescriptor] = {}
        for field in binding.query_fields():
            self.query[field.name] = field
            self.query[field.json_name] = field

    async def request(self, http: web.Request) -> Message:
        message = self.request_type()
        if self.binding.body == "*":
            body = await self._body(http)
            if body.strip():
                try:
                    json_format.Parse(body, message)
                except json_format.ParseError as error:
                    raise invalid_argument("body", f"The request body is not valid: {error}") from None
        query: dict[str, Any] = {}
        for name, value in http.query.items():
            field = self.query.get(name)
            if field is None:
                known = ", ".join(sorted(f.json_name for f in self.binding.query_fields())) or "none"
                raise invalid_argument(name, f"Unknown query parameter {name!r} (known: {known}).")
            converted = _query_value(field, value)
            if field.is_repeated:
                query.setdefault(field.json_name, []).append(converted)
            else:
                query[field.json_name] = converted
        for name in self.binding.path_fields:
            query[self.request_type.DESCRIPTOR.fields_by_name[name].json_name] = http.match_info[name]
        try:
            json_format.ParseDict(query, message)
        except json_format.ParseError as error:
            raise invalid_argument("query", f"A parameter is not valid: {error}") from None
        return message

    async def _body(self, http: web.Request) -> str:
        if http.content_length is not None and http.content_length > self.max_body_bytes:
            raise invalid_argument("body", f"The request body is larger than {self.max_body_bytes} bytes.")
        # The body is read as JSON whatever Content-Type says (curl -d sends a form's).
        data = bytearray()
        async for chunk in http.content.iter_chunked(64 * 1024):
            data += chunk
            if len(data) > self.max_body_bytes:
                raise invalid_argument("body", f"The request body is larger than {self.max_body_bytes} bytes.")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise invalid_argument("body", "The request body is not UTF-8.") from None


def _query_value(field: FieldDescriptor, value: str) -> Any:
    if field.type == FieldDescriptor.TYPE_BOOL:
        if value.lower() in ("true", "1"):
            return True
        if value.lower() in ("false", "0"):
            return False
        raise invalid_argument(field.json_name, f"{field.json_name} must be true or false.")
    return value  # ParseDict reads numbers and enum names from strings


def _unary_handler(transcoder: Transcoder, use_case: UseCase) -> Handler:
    async def handle(http: web.Request) -> web.StreamResponse:
        try:
            response = await use_case(await transcoder.request(http), bearer_token(http))
        except ServiceError as error:
            return error_response(error)
        return web.Response(text=to_json(response), content_type="application/json")

    return handle


def _sse_handler(transcoder: Transcoder, use_case: StreamUseCase) -> Handler:
    resume = RESUMABLE.get(transcoder.binding.method.name)

    async def handle(http: web.Request) -> web.StreamResponse:
        try:
            message = await transcoder.request(http)
            last_id = http.headers.get("Last-Event-ID", "").strip()
            if last_id and resume is not None:
                if not last_id.isdigit():
                    raise invalid_argument("Last-Event-ID", "Last-Event-ID must be a version number.")
                setattr(message, resume[0], int(last_id) + 1)
            responses = await use_case(message, bearer_token(http))
        except ServiceError as error:
            return error_response(error)
        if responses.known_empty:
            # Nothing will ever come (a finished game read past its end): 204 tells
            # an EventSource to stop reconnecting.
            return web.Response(status=204)
        stream = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        )
        await stream.prepare(http)
        iterator = responses.stream
        try:
            while True:
                item = await _next_with_heartbeats(iterator, stream)
                if item is None:
                    break
                event_id = f"id: {resume[1](item)}\n" if resume is not None else ""
                await stream.write(f"{event_id}data: {to_json(item)}\n\n".encode())
        except ServiceError as error:
            await stream.write(f"event: error\ndata: {to_json(status_of(error))}\n\n".encode())
        except ConnectionResetError:
            pass  # the client went away
        finally:
            await iterator.aclose()  # type: ignore[attr-defined]
        return stream

    return handle


async def _next_with_heartbeats(iterator: AsyncIterator[Message], stream: web.StreamResponse) -> Message | None:
    """The next response (None at the end), writing an SSE comment now and then
    while none comes, so that proxies keep the connection open."""
    next_item = asyncio.ensure_future(anext(iterator))
    try:
        while True:
            done, _ = await asyncio.wait({next_item}, timeout=HEARTBEAT_SECONDS)
            if done:
                return next_item.result()
            await stream.write(b": keep-alive\n\n")
    except StopAsyncIteration:
        return None
    finally:
        if not next_item.done():
            # Let the read finish cancelling before anyone closes the iterator it is
            # running in ("generator already running" otherwise).
            next_item.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await next_item


def build_http_app(
    app: GameApp,
    metrics: Metrics,
    *,
    max_body_bytes: int = 1 << 20,
    cors_origins: Sequence[str] = (),
) -> web.Application:
    """The aiohttp application for one server."""
    table = use_cases(app)
    preflight, add_cors_headers = _cors(tuple(cors_origins))
    web_app = web.Application(
        middlewares=[_metrics_middleware(metrics), _error_middleware, preflight],
        client_max_size=max_body_bytes,
    )
    web_app.on_response_prepare.append(add_cors_headers)
    for binding in http_bindings(SERVICE):
        transcoder = Transcoder(binding, max_body_bytes)
        use_case = table[binding.method.name]
        handler = (
            _sse_handler(transcoder, use_case)  # type: ignore[arg-type]
            if binding.streaming
            else _unary_handler(transcoder, use_case)  # type: ignore[arg-type]
        )
        web_app.router.add_route(binding.verb, binding.route, handler)
    connect_api.mount(web_app, table, max_body_bytes=max_body_bytes)

    async def openapi(_: web.Request) -> web.Response:
        return web.Response(body=OPENAPI_PATH.read_bytes(), content_type="application/json")

    async def prometheus(_: web.Request) -> web.Response:
        return web.Response(body=generate_latest(metrics.registry), headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def healthz(_: web.Request) -> web.Response:
        return web.json_response({"status": "alive"})

    async def readyz(_: web.Request) -> web.Response:
        try:
            await app.ready()
        except ServiceError as error:
            return web.json_response({"status": "not ready", "reason": error.message}, status=503)
        return web.json_response({"status": "ready"})

    web_app.router.add_get("/openapi.json", openapi)
    web_app.router.add_get("/metrics", prometheus)
    web_app.router.add_get("/healthz", healthz)
    web_app.router.add_get("/readyz", readyz)
    return web_app


@web.middleware
async def _error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every error as a google.rpc.Status in JSON, aiohttp's own (404, 405, 413) included."""
    try:
        return await handler(request)
    except web.HTTPRequestEntityTooLarge:
        return error_response(invalid_argument("body", "The request body is too large."))
    except web.HTTPException as error:
        if error.status < 400:
            raise
        code = {404: Code.NOT_FOUND, 405: Code.INVALID_ARGUMENT}.get(error.status, Code.INVALID_ARGUMENT)
        message = "No such route." if error.status == 404 else f"{error.reason} ({request.method} {request.path})."
        return web.Response(
            status=error.status,
            text=to_json(status_of(ServiceError(code, message))),
            content_type="application/json",
            headers={k: v for k, v in error.headers.items() if k.lower() == "allow"},
        )
    except Exception:
        log.exception("unexpected error on %s %s", request.method, request.path)
        return error_response(ServiceError(Code.INTERNAL, "Internal error: the operators have been told."))


def _route_label(request: web.Request) -> str:
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else "unmatched"


def _metrics_middleware(metrics: Metrics) -> Middleware:
    @web.middleware
    async def observe(request: web.Request, handler: Handler) -> web.StreamResponse:
        start = time.perf_counter()
        status = 500
        try:
            response = await handler(request)
            status = response.status
            return response
        finally:
            route = _route_label(request)
            metrics.http_requests.labels(request.method, route, str(status)).inc()
            metrics.http_seconds.labels(request.method, route).observe(time.perf_counter() - start)

    return observe


def _cors(origins: tuple[str, ...]) -> tuple[Middleware, Callable[[web.Request, web.StreamResponse], Awaitable[None]]]:
    """Lets browsers on the configured origins call the API ("*": any origin): a
    middleware answering preflight requests, and a hook adding the CORS headers to
    every response as it is prepared (event streams included)."""

    def allowed(origin: str) -> bool:
        return bool(origin) and ("*" in origins or origin in origins)

    @web.middleware
    async def preflight(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method == "OPTIONS" and request.headers.get("Access-Control-Request-Method"):
            if not allowed(request.headers.get("Origin", "")):
                return error_response(ServiceError(Code.PERMISSION_DENIED, "This origin may not call the API."))
            return web.Response(
                status=204,
                headers={
                    "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
                    "Access-Control-Allow-Headers": CORS_HEADERS,
                    "Access-Control-Max-Age": "600",
                },
            )
        return await handler(request)

    async def add_headers(request: web.Request, response: web.StreamResponse) -> None:
        origin = request.headers.get("Origin", "")
        if allowed(origin):
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = "grpc-status, grpc-message, connect-protocol-version"
            response.headers["Vary"] = "Origin"

    return preflight, add_headers


async def serve_http(
    web_app: web.Application, host: str, port: int, shutdown_grace: float, *, reuse_port: bool = False
) -> tuple[web.AppRunner, int]:
    """Starts `web_app`; returns its runner and the bound port. `reuse_port`: other
    processes listen on the same port (SO_REUSEPORT)."""
    runner = web.AppRunner(web_app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(
        runner, host, port, reuse_address=True, reuse_port=reuse_port or None, shutdown_timeout=shutdown_grace
    )
    await site.start()
    server = site._server  # the asyncio server: the only way to learn a port 0's number
    bound = server.sockets[0].getsockname()[1] if server is not None and server.sockets else port  # type: ignore[attr-defined]
    return runner, int(bound)
