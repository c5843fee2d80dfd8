"""What the HTTP port guards against below its routes: connections that send nothing,
or a request a byte at a time, and request heads that aiohttp's own handling trips on.

- Idle: a connection waiting for a request is closed `idle_timeout` seconds after it
  opened or after its last response (aiohttp's keep-alive timeout, which also runs from
  the connection's start).
- Header: once a request's first bytes arrive, its head (request line and headers) must
  be complete within `header_timeout` seconds, however slowly it trickles in. aiohttp
  has no such limit: its request handler is extended here to bring its keep-alive
  deadline forward when a request starts arriving (a request being handled, an event
  stream for one, is never cut).
- An `Expect` header whose value is not printable ASCII is replaced before any handler
  reads it: aiohttp answers an unknown expectation with a 417 that quotes it, and fails
  (a 500) when the bytes are not UTF-8.
- A request that is not HTTP (aiohttp answers 400 and closes) is one warning line in the
  log, not an ERROR with a traceback: the internet sends such bytes all day.
- Connections are counted (connections.py): one past the limits (per client address, or
  in all) is answered at its first request, 429 or 503 with Retry-After, and closed. It
  is not refused before its request: closing a socket with a request unread resets it,
  and the client would not read why.
- A connection upgraded to a WebSocket may be handed over (`hand_over`) to a Protocol of
  its own (ws_connection.py): aiohttp forgets it, and its place among the counted
  connections goes with it, given back when it ends."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

from aiohttp import web
from aiohttp.typedefs import Middleware
from aiohttp.web_protocol import RequestHandler
from multidict import CIMultiDict, CIMultiDictProxy

from service.api.connections import HTTP_DESCRIPTORS, LINGER, Connections, Refusal
from service.app.observe.metrics import Metrics

log = logging.getLogger(__name__)

UNREADABLE = "unreadable"  # what an Expect header of other bytes becomes (a 417 all the same)
MAX_LOGGED_CHARACTERS = 200  # of what aiohttp says of a malformed request
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class _HeaderTimedHandler(RequestHandler):
    """aiohttp's request handler, with a deadline on each request's head, counted."""

    __slots__ = ("_client", "_connections", "_head_deadline", "_header_timeout", "_quiet", "refusal")

    def __init__(
        self, manager: web.Server, *, header_timeout: float, connections: Connections | None, **kwargs: Any
    ) -> None:
        super().__init__(manager, **kwargs)
        self._header_timeout = header_timeout
        self._head_deadline: float | None = None
        self._quiet = False
        self._connections = connections
        self._client = ""
        self.refusal: Refusal | None = None  # over a limit: its first request is answered so

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if self._connections is None:
            return
        peer = transport.get_extra_info("peername")
        self._client = self._connections.client(peer[0] if isinstance(peer, tuple) and peer else "")
        self.refusal = self._connections.admit(self._client, HTTP_DESCRIPTORS)
        if self.refusal is None:
            return
        if not self._connections.linger():
            self._connections = None  # nothing to give back
            cast(asyncio.Transport, transport).abort()  # not a descriptor to spare, even to say why
            return
        self._loop.call_later(LINGER, transport.close)  # its request, if it comes by then, is refused

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._connections is not None:
            if self.refusal is None:
                self._connections.release(self._client, HTTP_DESCRIPTORS)
            else:
                self._connections.lingered()
            self._connections = None  # (once)
        super().connection_lost(exc)

    def let_go(self, protocol: asyncio.Protocol) -> tuple[bytes, Callable[[], None]]:
        """Gives the connection to `protocol` (the request being handled upgraded it): what
        came after the request, unread, and what gives back its place when it ends."""
        transport = self.transport
        if transport is None or transport.is_closing():
            raise ConnectionResetError("the client left during the WebSocket handshake")
        connections, self._connections = self._connections, None
        release: Callable[[], None] = _nothing
        if connections is not None and self.refusal is None:
            release = functools.partial(connections.release, self._client, HTTP_DESCRIPTORS)
        tail, self._message_tail = self._message_tail, b""
        paused, self._buffer_paused = self._buffer_paused, False
        transport.set_protocol(protocol)
        self.transport = None  # aiohttp closes what it holds once the request is done: nothing now
        self.connection_lost(None)  # its server forgets the connection; its timers stop
        if paused:
            transport.resume_reading()
        return tail, release

    def handle_error(
        self, request: web.BaseRequest, status: int = 500, exc: BaseException | None = None, message: str | None = None
    ) -> web.StreamResponse:
        """aiohttp's answer to a request it could not read (or a handler's failure, which
        the error middleware answers first); a client's malformed request is a warning."""
        if status >= 500 or exc is None:
            return super().handle_error(request, status, exc, message)
        said = str(exc).replace("\n", " ")[:MAX_LOGGED_CHARACTERS]
        log.warning("malformed HTTP request from %s answered %d: %s", request.remote, status, said)
        self._quiet = True
        try:
            return super().handle_error(request, status, exc, message)
        finally:
            self._quiet = False

    def log_exception(self, *args: Any, **kwargs: Any) -> None:
        if not self._quiet:
            super().log_exception(*args, **kwargs)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._messages or self._request_in_progress:
            self._head_deadline = None  # the head is in: the next request gets its own deadline
            return
        if self._head_deadline is not None or self._force_close or self._header_timeout <= 0:
            return
        deadline = self._loop.time() + self._header_timeout
        self._head_deadline = deadline
        if self._keepalive_handle is None or deadline < self._next_keepalive_close_time:
            # aiohttp closes a connection still waiting for a request when this fires.
            if self._keepalive_handle is not None:
                self._keepalive_handle.cancel()
            self._next_keepalive_close_time = deadline
            self._keepalive_handle = self._loop.call_at(deadline, self._process_keepalive)


class _GuardedServer(web.Server):
    """aiohttp's connection factory, making handlers with a header deadline."""

    header_timeout: float = 0.0
    connection_limits: Connections | None = None  # (aiohttp's Server has a `connections` of its own)

    def __call__(self) -> RequestHandler:
        return _HeaderTimedHandler(
            self,
            loop=self._loop,
            header_timeout=self.header_timeout,
            connections=self.connection_limits,
            **self._kwargs,
        )


class GuardedAppRunner(web.AppRunner):
    """An AppRunner whose connections and request heads are guarded as above."""

    def __init__(
        self,
        app: web.Application,
        *,
        header_timeout: float,
        idle_timeout: float,
        connections: Connections | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(app, keepalive_timeout=idle_timeout, **kwargs)
        self._header_timeout = header_timeout
        self._connections = connections

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        # The application's own Server, as aiohttp builds it, making our handlers: a
        # subclass that only adds __call__ and class attributes, so it fits the instance.
        server.__class__ = _GuardedServer
        server.header_timeout = self._header_timeout  # type: ignore[attr-defined]
        server.connection_limits = self._connections  # type: ignore[attr-defined]
        make_request = server.request_factory

        def guarded_request(message: Any, *args: Any) -> web.BaseRequest:
            return make_request(_readable_expect(message), *args)

        server.request_factory = guarded_request
        return server


def hand_over(request: web.BaseRequest, protocol: asyncio.Protocol) -> Callable[[], None]:
    """Takes the connection of `request`, upgraded to a WebSocket and its handshake
    answered, from aiohttp to `protocol` (aiohttp writes nothing more on it: the handler
    returns a response that goes nowhere). Returns what gives the connection's place back
    (connections.py) when it ends."""
    handler = request.protocol
    if not isinstance(handler, _HeaderTimedHandler):
        raise TypeError("only the guarded server's connections can be handed over")
    transport = handler.transport
    tail, release = handler.let_go(protocol)
    assert transport is not None
    protocol.connection_made(transport)
    if tail:
        protocol.data_received(tail)
    return release


def _nothing() -> None:
    pass


def _readable_expect(message: Any) -> Any:
    """The request's message, its Expect header replaced if it is not printable ASCII."""
    expect = message.headers.get("Expect")
    if expect is None or (expect.isascii() and expect.isprintable()):
        return message
    headers = CIMultiDict(message.headers)
    headers["Expect"] = UNREADABLE
    return message._replace(headers=CIMultiDictProxy(headers))


def refusing(metrics: Metrics) -> Middleware:
    """The outermost middleware: a request on a connection past the limits is answered
    with its refusal (no route, no access log line: the metric counts them) and its
    connection closed."""

    @web.middleware
    async def refuse(request: web.Request, handler: Handler) -> web.StreamResponse:
        refusal = getattr(request.protocol, "refusal", None)
        if refusal is None:
            return await handler(request)
        metrics.labelled(metrics.connections_refused, "http", refusal.reason).inc()
        code = 8 if refusal.status == 429 else 14  # RESOURCE_EXHAUSTED, UNAVAILABLE
        response = web.Response(
            status=refusal.status,
            text=json.dumps({"code": code, "message": refusal.message, "details": []}),
            content_type="application/json",
            headers={"Retry-After": str(refusal.retry_after), "Connection": "close"},
        )
        response.force_close()
        return response

    return refuse
