"""Reading a request's body on the HTTP port (REST and Connect alike): bounded in size,
decoded as its Content-Encoding says, and given up on when the client stops sending it
(no byte for the body timeout: a client that declares a body and never sends it must not
hold its connection and handler for ever)."""

from __future__ import annotations

import asyncio

from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError

# How long a body may go without a byte (seconds): set on the application by
# build_http_app, from --http-idle-timeout.
BODY_IDLE_TIMEOUT = web.AppKey("body_idle_timeout", float)
DEFAULT_BODY_IDLE_TIMEOUT = 60.0


class BodyError(Exception):
    """A body that could not be read; each transport answers it its own way."""


class BodyTooLarge(BodyError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"The request body is larger than {limit} bytes.")


class BodyUndecodable(BodyError):
    def __init__(self) -> None:
        super().__init__("The request body does not decode as its Content-Encoding says.")


class BodyGone(BodyError):
    """The client closed its connection before its body was whole: nobody to answer."""

    def __init__(self) -> None:
        super().__init__("The client closed the connection before its request body was whole.")


class BodyStalled(BodyError):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"The request body stopped arriving: nothing came for {seconds:g} seconds.")


async def read_body(http: web.Request, limit: int) -> bytes:
    """The whole body, at most `limit` bytes; raises a BodyError."""
    if http.content_length is not None and http.content_length > limit:
        raise BodyTooLarge(limit)
    timeout = http.app.get(BODY_IDLE_TIMEOUT, DEFAULT_BODY_IDLE_TIMEOUT)
    data = bytearray()
    try:
        while True:
            async with asyncio.timeout(timeout or None):
                chunk = await http.content.readany()
            if not chunk:
                return bytes(data)
            data += chunk
            if len(data) > limit:
                raise BodyTooLarge(limit)
    except RequestPayloadError:  # e.g. a body that is not the gzip it claims to be
        raise BodyUndecodable() from None
    except ConnectionError:  # reset, or closed mid-body
        raise BodyGone() from None
    except TimeoutError:
        raise BodyStalled(timeout) from None
