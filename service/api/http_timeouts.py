"""Time limits of the HTTP port, so that connections which send nothing, or a request
a byte at a time, do not hold the server's sockets and memory.

- Idle: a connection waiting for a request is closed `idle_timeout` seconds after it
  opened or after its last response (aiohttp's keep-alive timeout, which also runs from
  the connection's start).
- Header: once a request's first bytes arrive, its head (request line and headers) must
  be complete within `header_timeout` seconds, however slowly it trickles in.

aiohttp has the first but not the second: its request handler is extended here to bring
its keep-alive deadline forward when a request starts arriving (a request being
handled, an event stream for one, is never cut)."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler


class _HeaderTimedHandler(RequestHandler):
    """aiohttp's request handler, with a deadline on each request's head."""

    __slots__ = ("_head_deadline", "_header_timeout")

    def __init__(self, manager: web.Server, *, header_timeout: float, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._header_timeout = header_timeout
        self._head_deadline: float | None = None

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


class _TimedServer(web.Server):
    """aiohttp's connection factory, making handlers with a header deadline."""

    header_timeout: float = 0.0

    def __call__(self) -> RequestHandler:
        return _HeaderTimedHandler(self, loop=self._loop, header_timeout=self.header_timeout, **self._kwargs)


class TimedAppRunner(web.AppRunner):
    """An AppRunner whose connections have the header and idle timeouts above."""

    def __init__(self, app: web.Application, *, header_timeout: float, idle_timeout: float, **kwargs: Any) -> None:
        super().__init__(app, keepalive_timeout=idle_timeout, **kwargs)
        self._header_timeout = header_timeout

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        # The application's own Server, as aiohttp builds it, making our handlers: a
        # subclass that only adds __call__ and a class attribute, so it fits the instance.
        server.__class__ = _TimedServer
        server.header_timeout = self._header_timeout  # type: ignore[attr-defined]
        return server
