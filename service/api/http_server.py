"""The HTTP port: one aiohttp application serving REST (rest.py) and server-sent events
(sse.py) for every annotated RPC, Connect (connect.py), Play over WebSocket
(websocket.py), /metrics, /healthz, /readyz, /openapi.json and the web app at /
(web.py), with CORS, metrics and error middlewares.

No route is written by hand: the routes come from the proto's google.api.http
annotations and the use cases from service/api/rpcs.py."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Middleware
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from service.api import connect, diagnostics, websocket
from service.api import web as web_app_pages
from service.api.connections import Connections
from service.api.http_body import BODY_IDLE_TIMEOUT, BODY_TIMEOUT, DEFAULT_BODY_IDLE_TIMEOUT, DEFAULT_BODY_TIMEOUT
from service.api.http_guard import GuardedAppRunner, refusing
from service.api.http_observe import add_request_id, observe_requests
from service.api.http_rules import http_bindings
from service.api.rest import Handler, Transcoder, error_response, to_json, unary_handler
from service.api.rpcs import SERVICE, AnyUseCase, BidiUseCase, use_cases
from service.api.sse import sse_handler
from service.api.websocket import WebSocketSettings
from service.app import GameApp
from service.app.access.origins import Origin, calling_from, forwarded_for
from service.app.history.history import MAX_EVENTS_PAGE
from service.app.model.errors import Code, ServiceError, status_of
from service.app.model.json_answers import JsonAnswers
from service.app.observe.metrics import Metrics
from service.settings import at_least, setting

# An event stream over HTTP/1.1 (server-sent events, Connect) has no read receipt: a
# client whose receive buffer is deep would be sent a long game's whole past for one
# request. So a catch-up goes a page a request (as ListEvents does), the stream ending
# after it; the client comes back from the last event it got (an EventSource by itself).
CATCH_UP_PAGE = MAX_EVENTS_PAGE

log = logging.getLogger(__name__)

OPENAPI_PATH = Path(__file__).resolve().parent / "openapi.json"


def _origin(text: str) -> str | None:
    parts = urlsplit(text)
    if not text or (parts.scheme in ("http", "https") and parts.netloc and parts.path in ("", "/") and not parts.query):
        return None
    return f"{text!r} is not an origin: http(s)://host[:port], nothing after"


@dataclass(frozen=True, slots=True)
class HttpSettings:
    """The HTTP port, as a server is configured: what it serves, to which browsers, and
    how long a connection may take (http_guard.py, http_body.py)."""

    port: int = setting(
        8080,
        "HTTP port: REST, server-sent events, /metrics, /healthz, /readyz (0: any free port)",
        name="http_port",
    )
    cors_origins: str = setting("", "browser origins allowed to call the HTTP API, comma-separated ('*': any)")
    public_origin: str = setting(
        "",
        "the origin browsers reach this server at, e.g. https://ludo.example.org: the web app's "
        "Content-Security-Policy names its WebSocket, and WebSockets opened from it are let in",
        check=_origin,
    )
    web: bool = setting(True, "serve the web app (lobby, play, debug panel) at / on the HTTP port")
    header_timeout: float = setting(
        10.0,
        "HTTP port: seconds a request's head (request line and headers) may take to arrive once it "
        "starts, else the connection is closed",
        name="http_header_timeout",
        check=at_least(0),
    )
    idle_timeout: float = setting(
        DEFAULT_BODY_IDLE_TIMEOUT,
        "HTTP port: seconds a connection may wait for a request (from its opening, or after a "
        "response) before it is closed, and a request body may go without a byte (then 408)",
        name="http_idle_timeout",
        check=at_least(0),
    )
    body_timeout: float = setting(
        DEFAULT_BODY_TIMEOUT,
        "HTTP port: seconds a request's whole body may take to arrive once its head is in, however "
        "steadily it trickles (then 408 and the connection is closed); 0: no limit",
        name="http_body_timeout",
        check=at_least(0),
    )

    def origins(self) -> list[str]:
        """The CORS origins, one by one."""
        return [origin.strip() for origin in self.cors_origins.split(",") if origin.strip()]


CLIENT_CLOSED = 499  # the status a request whose client left is logged with (as nginx's)
CORS_HEADERS = (
    "authorization, content-type, last-event-id, connect-protocol-version, connect-timeout-ms, x-user-agent, "
    "connect-content-encoding, connect-accept-encoding, x-request-id, traceparent, tracestate"
)


def build_http_app(
    app: GameApp,
    metrics: Metrics,
    http: HttpSettings | None = None,
    *,
    max_body_bytes: int = 1 << 20,
    websockets: WebSocketSettings | None = None,
) -> web.Application:
    """The aiohttp application for one server, as `http` says (None: the defaults, no
    web app): its CORS origins, its body timeouts (http_body.py), its public origin
    (where browsers reach it, for the web app's policy and WebSockets)."""
    http = http or HttpSettings(web=False)
    table = use_cases(app, catch_up_page=CATCH_UP_PAGE)
    origins = tuple(http.origins())
    preflight, add_cors_headers = _cors(origins)
    public_origin = http.public_origin
    own = (public_origin.rstrip("/"),) if public_origin else ()
    web_app = web.Application(
        middlewares=[
            refusing(metrics),
            observe_requests,
            _metrics_middleware(metrics),
            _error_middleware,
            _origin_middleware,
            preflight,
        ],
        client_max_size=max_body_bytes,
    )
    web_app.on_response_prepare.append(add_cors_headers)
    web_app[BODY_IDLE_TIMEOUT] = http.idle_timeout
    web_app[BODY_TIMEOUT] = http.body_timeout
    web_app.on_response_prepare.append(add_request_id)
    websockets = websockets or WebSocketSettings(max_message_bytes=max_body_bytes)
    # A stream's write waits for a client that does not read as long as a WebSocket's.
    _mount_rpcs(web_app, table, max_body_bytes, websockets.send_timeout, JsonAnswers(app.heavy_reads))
    websocket.mount(
        web_app,
        cast(BidiUseCase, table["Play"]),
        websockets,
        lambda request: origin_allowed(request, origins + own),
        metrics,
    )

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
        if app.degraded:  # ready, but some shards cannot take writes (their games are UNAVAILABLE)
            return web.json_response({"status": "ready", "degraded": app.degraded})
        return web.json_response({"status": "ready"})

    web_app.router.add_get("/openapi.json", openapi)
    web_app.router.add_get("/metrics", prometheus)
    web_app.router.add_get("/healthz", healthz)
    web_app.router.add_get("/readyz", readyz)
    if http.web:
        web_app_pages.mount(web_app, public_origin)
    return web_app


def _mount_rpcs(
    web_app: web.Application,
    table: dict[str, AnyUseCase],
    max_body_bytes: int,
    send_timeout: float,
    answers: JsonAnswers,
) -> None:
    """Every annotated RPC on its REST route (server-streaming ones as server-sent
    events), every RPC over Connect, and the bench's echo baselines (REST and Connect);
    `answers` writes their unary JSON answers (a large one in a heavy worker)."""
    for binding in http_bindings(SERVICE):
        transcoder = Transcoder(binding, max_body_bytes)
        use_case = table[binding.method.name]
        handler = (
            sse_handler(transcoder, use_case, send_timeout)  # type: ignore[arg-type]
            if binding.streaming
            else unary_handler(transcoder, use_case, answers)  # type: ignore[arg-type]
        )
        web_app.router.add_route(binding.verb, binding.route, handler)
    connect.mount(web_app, table, max_body_bytes=max_body_bytes, send_timeout=send_timeout, answers=answers)
    for binding in http_bindings(diagnostics.SERVICE):
        web_app.router.add_route(
            binding.verb, binding.route, unary_handler(Transcoder(binding, max_body_bytes), diagnostics.echo)
        )
    connect.mount_method(web_app, diagnostics.SERVICE.methods_by_name["Echo"], diagnostics.echo, max_body_bytes)


@web.middleware
async def _error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every error as a google.rpc.Status in JSON, aiohttp's own (404, 405, 413) included."""
    try:
        return await handler(request)
    except web.HTTPRequestEntityTooLarge as error:
        response = error_response(ServiceError(Code.RESOURCE_EXHAUSTED, f"The request body is too large: {error.text}"))
        response.set_status(error.status)
        return response
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
    except Exception as error:
        if isinstance(error, ConnectionResetError) and (request.transport is None or request.transport.is_closing()):
            # Its client left (a WebSocket reset before its handshake was answered): nobody
            # to answer, nothing gone wrong here. 499, as proxies log a request its client closed.
            log.debug("%s %s: the client left before its answer", request.method, request.path)
            return web.Response(status=CLIENT_CLOSED)
        log.exception("unexpected error on %s %s", request.method, request.path)
        return error_response(ServiceError(Code.INTERNAL, "Internal error: the operators have been told."))


@web.middleware
async def _origin_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Notes where the request comes from (the peer, and any X-Forwarded-For)."""
    with calling_from(Origin(request.remote or "", forwarded_for(request.headers.getall("X-Forwarded-For", [])))):
        return await handler(request)


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


def origin_allowed(request: web.Request, origins: tuple[str, ...]) -> bool:
    """Whether a WebSocket may be opened from the request's Origin: one listed in
    --cors-origins ("*": any), the server's own (the Origin's host is the Host the request
    was sent to, e.g. a page served by the same proxy), or none at all (not a browser:
    browsers always send it, so a page elsewhere cannot open a socket in its user's name)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    if "*" in origins or origin in origins:
        return True
    return urlsplit(origin).netloc.lower() == request.host.lower()


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
            response.headers["Access-Control-Expose-Headers"] = (
                "grpc-status, grpc-message, connect-protocol-version, x-request-id"
            )
            response.headers["Vary"] = "Origin"

    return preflight, add_headers


async def serve_http(
    web_app: web.Application,
    host: str,
    http: HttpSettings,
    shutdown_grace: float,
    *,
    reuse_port: bool = False,
    connections: Connections | None = None,
) -> tuple[web.AppRunner, int]:
    """Starts `web_app` on `http`'s port; returns its runner and the bound port.
    `reuse_port`: other processes listen on the same port (SO_REUSEPORT). The
    connections' timeouts and `connections` (the limits on them, shared with the gRPC
    port): http_guard.py."""
    port = http.port
    runner = GuardedAppRunner(
        web_app,
        header_timeout=http.header_timeout,
        idle_timeout=http.idle_timeout,
        connections=connections,
        access_log=None,
        handle_signals=False,
    )
    await runner.setup()
    site = web.TCPSite(
        runner, host, port, reuse_address=True, reuse_port=reuse_port or None, shutdown_timeout=shutdown_grace
    )
    await site.start()
    server = site._server  # the asyncio server: the only way to learn a port 0's number
    bound = server.sockets[0].getsockname()[1] if server is not None and server.sockets else port  # type: ignore[attr-defined]
    return runner, int(bound)
