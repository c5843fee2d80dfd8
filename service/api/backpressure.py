"""What a stream holds for a client that stops reading: its socket's buffers capped, and
its writes given a deadline.

An event stream over HTTP/1.1 (server-sent events, Connect) has no read receipt but
TCP's: a write waits once the buffers toward the client are full, and the stream reads
its next event only after its last write (each transport's loop pulls one event at a
time). Left to itself, Linux grows a socket's send buffer to megabytes (tcp_wmem),
enough to take the whole catch-up of a long game for a client that reads nothing:
the server then renders every event of it. Capped here (the kernel's buffer, and
asyncio's above it), a write waits after a fixed amount, so the stream produces
nothing more until the client reads, and a write that waited `timeout` seconds cuts
the client (what it never read is dropped: a stalled client holds no buffer). The
gRPC gate caps its sockets the same way (grpc_gate.py); a WebSocket has read receipts
of its own besides (read_receipts.py)."""

from __future__ import annotations

import asyncio
import contextlib
import socket

from aiohttp import web

# The kernel's send buffer of a stream's socket (Linux doubles it). Capped, a client that
# stops reading is noticed after a few hundred KiB, while a reading one still gets
# megabytes a second.
SEND_BUFFER_BYTES = 128 * 1024
# asyncio's buffer above the kernel's: past this, a write waits (aiohttp waits for it
# after every 64 KiB written).
WRITE_BUFFER_BYTES = 16 * 1024
DEFAULT_SEND_TIMEOUT = 10.0  # seconds a write may wait for a client that does not read


class StalledReader(Exception):
    """A write waited longer than its deadline for a client that does not read."""


def cap_send_buffer(transport: asyncio.BaseTransport | None) -> None:
    """Caps the kernel's send buffer of `transport`'s socket."""
    raw = transport.get_extra_info("socket") if transport is not None else None
    if raw is not None:
        with contextlib.suppress(OSError):
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)


def cap_buffers(transport: asyncio.BaseTransport | None) -> None:
    """Caps what `transport` holds for its client: the kernel's send buffer, and asyncio's."""
    cap_send_buffer(transport)
    if isinstance(transport, asyncio.WriteTransport):
        transport.set_write_buffer_limits(high=WRITE_BUFFER_BYTES)


async def write_within(http: web.Request, stream: web.StreamResponse, data: bytes, timeout: float) -> None:
    """Writes `data` to `stream`, waiting for a client that reads slowly no longer than
    `timeout` seconds: then the client is cut (its connection aborted) and StalledReader
    raised."""
    try:
        async with asyncio.timeout(timeout):
            await stream.write(data)
    except TimeoutError:
        if http.transport is not None:
            http.transport.abort()
        raise StalledReader from None
