"""Read receipts: how much of what the server sent its client the client has read.

TCP says only what the client's kernel took, and a client can make its receive buffer
megabytes deep without reading a byte of it: a catch-up from an early version of a long
game would then be sent whole (rendered, encoded) into buffers nobody reads. A
WebSocket and HTTP/2 each have a receipt of their own: a client answers a ping with a
pong (an ACK) once it has read what came before the ping (RFC 6455, RFC 9113; every
browser and library does, by itself). So the server pings with a fresh nonce every
`every` bytes it sends, and sends no more than `unread` bytes past the last pong it got
back: a client that stops reading holds at most that much, whatever its buffers. A pong
that answers no ping of ours (unsolicited, or forged) counts for nothing.

`ReceiptLedger` keeps the count (the gRPC gate uses it as frames go by, grpc_gate.py);
`ReadReceipts` waits on it for a WebSocket's session (websocket.py)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable

RECEIPT_EVERY_BYTES = 16 * 1024  # a ping after so many bytes sent
UNREAD_BYTES = 64 * 1024  # at most so many bytes sent that the client has not said it read
OUTSTANDING_PINGS = 16  # pings awaiting their pong, at most (the oldest are forgotten)
NONCE_BYTES = 8  # a WebSocket ping's payload, and exactly an HTTP/2 PING's


class ReceiptLedger:
    """Bytes sent, of which the client said it read so many, and the pings out."""

    __slots__ = ("_every", "_pinged_at", "_pings", "_unread", "read", "sent")

    def __init__(self, every: int = RECEIPT_EVERY_BYTES, unread: int = UNREAD_BYTES) -> None:
        self._every = every
        self._unread = unread
        self.sent = 0  # bytes sent to the client
        self.read = 0  # of which the client said it read (its pongs)
        self._pinged_at = 0  # `sent` when the last ping went
        self._pings: dict[bytes, int] = {}  # nonce -> `sent` when it went

    def may_send(self, size: int) -> bool:
        """Whether `size` more bytes may go now, without waiting for a receipt (a
        message larger than the allowance alone goes once all before it was read)."""
        return self.sent == self.read or self.sent - self.read + size <= self._unread

    def count(self, size: int) -> None:
        self.sent += size

    @property
    def ping_due(self) -> bool:
        """`every` bytes went since the last ping."""
        return self.sent - self._pinged_at >= self._every

    @property
    def awaited(self) -> bool:
        """A ping is out whose pong would say more was read."""
        return self._pinged_at > self.read

    @property
    def unpinged(self) -> bool:
        """Bytes went that no ping asks a receipt for (waiting on them needs one)."""
        return self._pinged_at < self.sent

    def ping(self) -> bytes:
        """The nonce of a ping asking a receipt for everything sent so far."""
        self._pinged_at = self.sent
        nonce = secrets.token_bytes(NONCE_BYTES)
        if len(self._pings) >= OUTSTANDING_PINGS:
            del self._pings[next(iter(self._pings))]
        self._pings[nonce] = self.sent
        return nonce

    def pong(self, payload: bytes) -> bool:
        """A pong came back: everything sent before its ping was read. True if that
        is more than was known read."""
        upto = self._pings.pop(bytes(payload), None)
        if upto is None or upto <= self.read:
            return False
        self.read = upto
        return True


class ReadReceipts:
    """A ledger that a session's writes wait on."""

    def __init__(
        self,
        ping: Callable[[bytes], Awaitable[None]],
        every: int = RECEIPT_EVERY_BYTES,
        unread: int = UNREAD_BYTES,
    ) -> None:
        self._ping = ping
        self.ledger = ReceiptLedger(every, unread)
        # Set when a pong moves the ledger, for a send waiting on it (a future made only
        # while one waits: an idle asyncio.Event holds a deque, 1 KiB a seat).
        self._moved: asyncio.Future[None] | None = None

    def may_send(self, size: int) -> bool:
        return self.ledger.may_send(size)

    async def before_sending(self, size: int) -> None:
        """Waits until `size` more bytes stay within what the client may hold unread."""
        while not self.ledger.may_send(size):
            moved = self._moved  # made before the ping: its pong may come back while it is sent
            if moved is None or moved.done():
                moved = self._moved = asyncio.get_running_loop().create_future()
            if self.ledger.unpinged:
                await self._ping(self.ledger.ping())  # a receipt for all that was sent, or the wait never ends
            if not self.ledger.may_send(size):
                await asyncio.wait((moved,))  # (not `await moved`: a waiter's cancel must not cancel it for others)

    async def sent_bytes(self, size: int) -> None:
        """Counts `size` bytes sent; pings when a receipt is due."""
        self.ledger.count(size)
        if self.ledger.ping_due:
            await self._ping(self.ledger.ping())

    def pong(self, payload: bytes) -> None:
        if self.ledger.pong(payload) and self._moved is not None and not self._moved.done():
            self._moved.set_result(None)
