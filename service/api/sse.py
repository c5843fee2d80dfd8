"""Server-sent events: a server-streaming RPC as a text/event-stream, each response
a `data:` line in JSON, resumable from Last-Event-ID, with keep-alive comments. A
client that stops reading holds a fixed buffer, and is cut once a write has waited
`send_timeout` seconds for it (backpressure.py): its EventSource comes back from its
Last-Event-ID. So it does, soon (`retry:`), after a stream that ended: a game's end
(then 204 tells it to stop) or a page of a long catch-up (http_server.CATCH_UP_PAGE);
after a dropped connection, a few seconds later (each stream says so as it starts)."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from aiohttp import web
from google.protobuf.message import Message

from service.api.backpressure import DEFAULT_SEND_TIMEOUT, StalledReader, cap_buffers, write_within
from service.api.locales import fill_locale
from service.api.next_item import next_item
from service.api.rest import Handler, Transcoder, bearer_token, error_response, to_json
from service.api.rpcs import StreamUseCase
from service.app.model.errors import ServiceError, invalid_argument, status_of

HEARTBEAT_SECONDS = 15.0
# An EventSource's wait before it reconnects (milliseconds), said as a stream ends: the
# next page of a catch-up is then half a second away (browsers wait seconds by default).
RETRY_AFTER_END = b"retry: 500\n\n"
# ...and said again as every stream starts, for a connection that drops instead: the
# wait an EventSource keeps is the last one said, and a crowd dropped at once (a
# restart, a proxy gone) comes back spread over these seconds, not all within 500 ms.
RETRY_AFTER_DROP_MS = (2_000, 4_000)
MAX_VERSION = (1 << 64) - 1  # versions are uint64
MAX_VERSION_DIGITS = len(str(MAX_VERSION))
# A server-streaming RPC that can resume from an SSE Last-Event-ID: the request field
# to set (to the last id + 1) and how to read the id from a response.
RESUMABLE: dict[str, tuple[str, Callable[[Any], int]]] = {
    "StreamEvents": ("from_version", lambda response: response.event.version),
}


def sse_handler(transcoder: Transcoder, use_case: StreamUseCase, send_timeout: float = DEFAULT_SEND_TIMEOUT) -> Handler:
    resume = RESUMABLE.get(transcoder.binding.method.name)

    async def handle(http: web.Request) -> web.StreamResponse:
        try:
            message = fill_locale(await transcoder.request(http), http.headers.get("Accept-Language", ""))
            last_id = http.headers.get("Last-Event-ID", "").strip()
            if last_id and resume is not None:
                setattr(message, resume[0], _after(last_id))
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
        cap_buffers(http.transport)
        iterator = responses.stream

        async def write(data: bytes) -> None:
            await write_within(http, stream, data, send_timeout)

        try:
            await write(f"retry: {random.randint(*RETRY_AFTER_DROP_MS)}\n\n".encode())
            while True:
                # The next event is read only once the last one is written (and the
                # kernel's capped buffers took it): a client that stops reading stops it.
                item = await _next_with_heartbeats(iterator, write)
                if item is None:
                    await write(RETRY_AFTER_END)
                    break
                event_id = f"id: {resume[1](item)}\n" if resume is not None else ""
                await write(f"{event_id}data: {to_json(item)}\n\n".encode())
        except ServiceError as error:
            # Its last word, to a client that may have left.
            with contextlib.suppress(ConnectionResetError, StalledReader):
                await write(f"event: error\ndata: {to_json(status_of(error))}\n\n".encode())
        except (ConnectionResetError, StalledReader):
            pass  # the client went away, or stopped reading (and was cut)
        finally:
            await iterator.aclose()  # type: ignore[attr-defined]
        return stream

    return handle


def _after(last_id: str) -> int:
    """The version after a Last-Event-ID, which must be a version (an ASCII number
    below the largest uint64, so that the next one is still a version)."""
    if not (last_id.isascii() and last_id.isdigit()) or len(last_id) > MAX_VERSION_DIGITS:
        raise invalid_argument("Last-Event-ID", "Last-Event-ID must be a version number.")
    after = int(last_id) + 1
    if after > MAX_VERSION:
        raise invalid_argument("Last-Event-ID", f"Last-Event-ID must be below {MAX_VERSION}.")
    return after


async def _next_with_heartbeats(
    iterator: AsyncIterator[Message], write: Callable[[bytes], Awaitable[None]]
) -> Message | None:
    """The next response (None at the end), writing an SSE comment now and then
    while none comes, so that proxies keep the connection open."""

    async def heartbeat() -> bool:
        await write(b": keep-alive\n\n")
        return True

    return await next_item(iterator, HEARTBEAT_SECONDS, heartbeat)
