"""Read receipts for a WebSocket: how much of what the server sent its client has read.

TCP says only what the client's kernel took, and a client can make its receive buffer
megabytes deep without reading a byte of it: a Play join from an early version of a
long game would then be sent whole (rendered, encoded) into buffers nobody reads. A
WebSocket has its own receipt: a client answers a ping with a pong once it has read
the frames before the ping (RFC 6455; every browser and library does, by itself). So
the server pings with a fresh nonce every `every` bytes it sends, and sends no more
than `unread` bytes past the last pong it got back: a client that stops reading holds
at most that much, whatever its buffers, and its session stops producing until it
reads (or is cut as a slow reader). A pong that answers no ping of ours (unsolicited,
or forged) counts for nothing."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable

RECEIPT_EVERY_BYTES = 16 * 1024  # a ping after so many bytes sent
UNREAD_BYTES = 64 * 1024  # at most so many bytes sent that the client has not said it read
OUTSTANDING_PINGS = 16  # pings awaiting their pong, at most (the oldest are forgotten)


class ReadReceipts:
    def __init__(
        self,
        ping: Callable[[bytes], Awaitable[None]],
        every: int = RECEIPT_EVERY_BYTES,
        unread: int = UNREAD_BYTES,
    ) -> None:
        self._ping = ping
        self._every = every
        self._unread = unread
        self.sent = 0  # bytes sent to the client
        self.read = 0  # of which the client said it read (its pongs)
        self._pinged_at = 0  # `sent` when the last ping went
        self._pings: dict[bytes, int] = {}  # nonce -> `sent` when it went
        self._moved = asyncio.Event()

    def may_send(self, size: int) -> bool:
        """Whether `size` more bytes may go now, without waiting for a receipt."""
        return self.sent - self.read == 0 or self.sent - self.read + size <= self._unread

    async def before_sending(self, size: int) -> None:
        """Waits until `size` more bytes stay within what the client may hold unread
        (a message larger than that alone goes once everything before it was read)."""
        while not self.may_send(size):
            self._moved.clear()  # before the ping: its pong may come back while it is sent
            if self._pinged_at < self.sent:
                await self._ping_now()  # a receipt for all that was sent, or the wait never ends
            if not self.may_send(size):
                await self._moved.wait()

    async def sent_bytes(self, size: int) -> None:
        """Counts `size` bytes sent; pings when a receipt is due."""
        self.sent += size
        if self.sent - self._pinged_at >= self._every:
            await self._ping_now()

    async def _ping_now(self) -> None:
        self._pinged_at = self.sent
        nonce = secrets.token_bytes(8)
        if len(self._pings) >= OUTSTANDING_PINGS:
            del self._pings[next(iter(self._pings))]
        self._pings[nonce] = self.sent
        await self._ping(nonce)

    def pong(self, payload: bytes) -> None:
        """A pong came back: everything sent before its ping was read."""
        upto = self._pings.pop(bytes(payload), None)
        if upto is not None and upto > self.read:
            self.read = upto
            self._moved.set()
