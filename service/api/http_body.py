"""Reading a request's body on the HTTP port (REST and Connect alike): bounded in size
(its RPC's limit, body_limits.py), decoded as its Content-Encoding says (and refused once
it inflates past MAX_INFLATION times its compressed Content-Length), and given up on when
the client stops sending it (no byte for the idle timeout: a client that declares a body
and never sends it must not hold its connection and handler for ever) or sends it too
slowly (the whole body within the body timeout: a byte every few seconds would never be
idle long enough to be cut)."""

from __future__ import annotations

import asyncio

from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError

from service.api.body_limits import INFLATION_FLOOR, MAX_INFLATION, inflated, too_large
from service.app.model.errors import ServiceError

# How long a body may go without a byte, and how long it may take in all (seconds; 0:
# no bound): set on the application by build_http_app, from --http-idle-timeout and
# --http-body-timeout.
BODY_IDLE_TIMEOUT = web.AppKey("body_idle_timeout", float)
DEFAULT_BODY_IDLE_TIMEOUT = 60.0
BODY_TIMEOUT = web.AppKey("body_timeout", float)
DEFAULT_BODY_TIMEOUT = 30.0


class BodyError(Exception):
    """A body that could not be read; each transport answers it its own way."""


class BodyRefused(BodyError):
    """A body too large to be read on: answered RESOURCE_EXHAUSTED (413). `limit`: the
    RPC's, in bytes; 0: the body inflated past MAX_INFLATION times its compressed size.
    `compressed`: the connection is then closed rather than the rest of the body read,
    which aiohttp would inflate; a plain body's rest is read and dropped (aiohttp's
    lingering read, at most 10 s), so that a client still sending it reads the answer."""

    def __init__(self, limit: int, *, compressed: bool) -> None:
        super().__init__(
            f"The request body is larger than {limit:,} bytes."
            if limit
            else f"The request body inflates past {MAX_INFLATION} times its compressed size."
        )
        self.limit = limit
        self.compressed = compressed

    def error(self, method: str) -> ServiceError:
        """What the caller is told, in the terms of RPC `method`."""
        return too_large(self.limit, method) if self.limit else inflated(MAX_INFLATION)


class BodyTooLarge(BodyRefused):
    """Over the RPC's limit."""


class BodyInflated(BodyRefused):
    """A compression bomb."""

    def __init__(self) -> None:
        super().__init__(0, compressed=True)


class BodyUndecodable(BodyError):
    def __init__(self) -> None:
        super().__init__("The request body does not decode as its Content-Encoding says.")


class BodyGone(BodyError):
    """The client closed its connection before its body was whole: nobody to answer."""

    def __init__(self) -> None:
        super().__init__("The client closed the connection before its request body was whole.")


class BodyStalled(BodyError):
    """The body stopped coming, or came too slowly: 408, the connection closed."""

    @classmethod
    def idle(cls, seconds: float) -> BodyStalled:
        return cls(f"The request body stopped arriving: nothing came for {seconds:g} seconds.")

    @classmethod
    def slow(cls, seconds: float) -> BodyStalled:
        return cls(f"The request body did not arrive within {seconds:g} seconds.")


async def read_body(http: web.Request, limit: int) -> bytes:
    """The whole body, at most `limit` bytes; raises a BodyError."""
    encoded = http.headers.get("Content-Encoding", "").strip().lower() not in ("", "identity")
    if http.content_length is not None and http.content_length > limit:
        raise BodyTooLarge(limit, compressed=encoded)
    most = max(INFLATION_FLOOR, MAX_INFLATION * http.content_length) if encoded and http.content_length else limit
    idle = http.app.get(BODY_IDLE_TIMEOUT, DEFAULT_BODY_IDLE_TIMEOUT)
    whole = http.app.get(BODY_TIMEOUT, DEFAULT_BODY_TIMEOUT)
    data = bytearray()
    deadline = asyncio.timeout(whole or None)
    try:
        async with deadline:
            while True:
                async with asyncio.timeout(idle or None):
                    chunk = await http.content.readany()
                if not chunk:
                    return bytes(data)
                data += chunk
                if len(data) > limit:
                    raise BodyTooLarge(limit, compressed=encoded)
                if len(data) > most:
                    raise BodyInflated()
    except RequestPayloadError:  # e.g. a body that is not the gzip it claims to be
        raise BodyUndecodable() from None
    except ConnectionError:  # reset, or closed mid-body
        raise BodyGone() from None
    except TimeoutError:
        raise (BodyStalled.slow(whole) if deadline.expired() else BodyStalled.idle(idle)) from None


async def answer_and_close(http: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    """Sends `response`, then closes the connection: what is left of a body that came
    too slowly is not read (aiohttp would go on reading it for a while, a byte at a
    time, for the connection's sake)."""
    if not response.prepared:
        response.force_close()  # says so: Connection: close
        await response.prepare(http)
    await response.write_eof()
    if http.protocol is not None:
        http.protocol.force_close()
    return response
