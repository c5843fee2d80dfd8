"""A WebSocket connection after its handshake: wsproto's frames on an asyncio Protocol.

aiohttp reads the HTTP request of GET /v1/play and answers it (its route, middleware,
origin and subprotocol checks stay aiohttp's); then its request handler hands the
connection over (http_guard.hand_over) and this Protocol carries the frames, parsed and
built by wsproto: no task, no reader and no buffer of aiohttp's held per connection
(`python -m service.bench.connection_floor`: 3.5 KiB an idle connection against aiohttp's
15.7). What it holds: the transport, wsproto's connection, the frames received and not
read yet, and a timer for the heartbeat.

Like aiohttp's WebSocketResponse as websocket.py used it: a message larger than
`max_message` closes the connection (1009); a ping is answered by a pong; a pong is told
to `on_pong` (read receipts); every `heartbeat` seconds the client is pinged, and cut
if nothing comes from it within half of that; a client's close is answered
and ends the frames received. A client that sends faster than it is read stops being
read (TCP holds the rest), and a send waits, in `drain`, while the transport's buffer is
full."""

from __future__ import annotations

import asyncio
import contextlib
import enum
from collections.abc import Callable

from wsproto.connection import Connection, ConnectionState
from wsproto.events import BytesMessage, CloseConnection, Message, Ping, Pong, TextMessage

from service.app.model.mailbox import Mailbox

CLOSE_TOO_BIG = 1009  # RFC 6455: a message too big to process
INBOX_FRAMES = 64  # messages received and not read yet, past which the client is not read
# What the inbox can take at all: everything one read of the socket may hold (asyncio reads
# at most 256 KiB; a frame is at least 6 bytes), so that a burst is never refused.
INBOX_ROOM = 256 * 1024 // 6 + 1
HEARTBEAT_PING = b"heartbeat"  # a heartbeat's ping payload (a read receipt's is a nonce: read_receipts.py)


class Frame(enum.Enum):
    BINARY = enum.auto()
    TEXT = enum.auto()


Received = tuple[Frame, bytes | str]


class WebSocketConnection(asyncio.Protocol):
    __slots__ = (
        "_beat",
        "_closed",
        "_drained",
        "_heard",
        "_inbox",
        "_inboxed",
        "_max_message",
        "_parts",
        "_size",
        "_ws",
        "close_code",
        "heartbeat",
        "on_pong",
        "release",
        "transport",
    )

    def __init__(
        self,
        ws: Connection,
        *,
        max_message: int,
        heartbeat: float,
    ) -> None:
        self._ws = ws
        self._max_message = max_message
        self.heartbeat = heartbeat
        self.on_pong: Callable[[bytes], None] = _ignore  # told each pong (read receipts)
        self.release: Callable[[], None] = _nothing  # gives back the connection's place (connections.py)
        self.transport: asyncio.Transport | None = None
        self._inbox: Mailbox[Received | None] = Mailbox(INBOX_ROOM)  # None: no more
        self._inboxed = 0  # messages in the inbox
        self._parts: list[bytes | str] = []  # of a message that comes in several frames
        self._size = 0
        self._heard = True  # a frame came since the last beat
        self._beat: asyncio.TimerHandle | None = None
        self._drained: asyncio.Future[None] | None = None  # while the transport's buffer is full
        self._closed: asyncio.Future[None] | None = None  # while a close we sent awaits the client's
        self.close_code: int | None = None  # the close code this side sent, once it did

    # --- asyncio's side ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if self.heartbeat > 0:
            self._beat = asyncio.get_running_loop().call_later(self.heartbeat, self._on_beat)

    def data_received(self, data: bytes) -> None:
        self._heard = True
        if self._ws.state is ConnectionState.CLOSED:
            return  # after the closing handshake: nothing more is read
        self._ws.receive_data(data)
        for event in self._ws.events():
            if isinstance(event, Message):
                self._message(event)
            elif isinstance(event, Ping):
                self._write(self._ws.send(event.response()))
            elif isinstance(event, Pong):
                self.on_pong(bytes(event.payload))
            elif isinstance(event, CloseConnection):
                self._closing(event)
                return

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None
        for waiter in (self._drained, self._closed):
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
        self._end_inbox()
        release, self.release = self.release, _nothing
        release()  # once

    def pause_writing(self) -> None:
        if self._drained is None or self._drained.done():
            self._drained = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)
        self._drained = None

    # --- the session's side -------------------------------------------------------------

    async def receive(self) -> Received | None:
        """The client's next message (None: it closed, or the connection is gone)."""
        item = await self._inbox.get()
        if item is None:
            self._inbox.put_nowait(None)  # (for any later call too)
            return None
        self._inboxed -= 1
        if self._inboxed == INBOX_FRAMES - 1 and self.transport is not None:
            self.transport.resume_reading()
        return item

    def send(self, data: bytes | str) -> None:
        """Sends one message now (a binary frame for bytes, a text frame for a str)."""
        if self.transport is None:
            raise ConnectionResetError("the WebSocket's connection is gone")
        if self._ws.state is ConnectionState.OPEN or self._ws.state is ConnectionState.REMOTE_CLOSING:
            message = BytesMessage(data=data) if isinstance(data, bytes) else TextMessage(data=data)
            self._write(self._ws.send(message))

    def ping(self, payload: bytes) -> None:
        if self._ws.state is ConnectionState.OPEN:
            self._write(self._ws.send(Ping(payload=payload)))

    async def send_ping(self, payload: bytes) -> None:
        """`ping`, for a caller that awaits its pings (read_receipts.py)."""
        self.ping(payload)

    def buffered(self) -> int:
        """Bytes written that the transport has not handed to the kernel yet."""
        return self.transport.get_write_buffer_size() if self.transport is not None else 0

    def high_water(self) -> int:
        return self.transport.get_write_buffer_limits()[1] if self.transport is not None else 0

    async def drain(self) -> None:
        """Returns once the transport's buffer is below its high water (or it is gone)."""
        drained = self._drained
        if drained is not None and self.transport is not None:
            await asyncio.wait((drained,))  # (not `await drained`: a cancelled waiter must not cancel it)
        if self.transport is None:
            raise ConnectionResetError("the WebSocket's connection is gone")

    async def close(self, code: int, reason: str = "", timeout: float = 10.0) -> None:
        """Sends a close frame, waits for the client's (at most `timeout` seconds), then
        closes the connection."""
        if self._ws.state is ConnectionState.OPEN:
            self.close_code = code
            self._closed = asyncio.get_running_loop().create_future()
            self._write(self._ws.send(CloseConnection(code=code, reason=reason or None)))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._closed
        if self.transport is not None:
            self.transport.close()

    def abort(self) -> None:
        """Drops the connection and whatever it had not sent."""
        if self.transport is not None:
            self.transport.abort()

    # --- within ----------------------------------------------------------------------------

    def _message(self, event: Message) -> None:  # type: ignore[type-arg]
        data = event.data
        self._size += len(data)
        if self._size > self._max_message:
            self._parts.clear()
            self._fail(CLOSE_TOO_BIG, f"A message is at most {self._max_message} bytes.")
            return
        if not event.message_finished:
            self._parts.append(data)
            return
        if self._parts:
            self._parts.append(data)
            data = b"".join(self._parts) if isinstance(data, bytes) else "".join(self._parts)  # type: ignore[arg-type]
            self._parts.clear()
        self._size = 0
        self._inbox.put_nowait((Frame.TEXT, data) if isinstance(data, str) else (Frame.BINARY, bytes(data)))
        self._inboxed += 1
        if self._inboxed == INBOX_FRAMES and self.transport is not None:
            self.transport.pause_reading()  # read again once the session took one (receive)

    def _closing(self, event: CloseConnection) -> None:
        """The client's close: an answer to ours, or its own (answered), or wsproto's
        account of a frame it could not read (answered with its code)."""
        if self._ws.state is ConnectionState.OPEN:  # a frame wsproto could not read
            self._fail(event.code, event.reason or "")
            return
        if self._ws.state is ConnectionState.REMOTE_CLOSING:
            self.close_code = self.close_code or event.code
            self._write(self._ws.send(event.response()))
        if self._closed is not None and not self._closed.done():
            self._closed.set_result(None)
        self._end_inbox()
        if self.transport is not None:
            self.transport.close()

    def _fail(self, code: int, reason: str) -> None:
        """Closes at once on what the client sent wrong: a close frame, and no more read."""
        if self._ws.state is ConnectionState.OPEN:
            self.close_code = code
            self._write(self._ws.send(CloseConnection(code=code, reason=reason)))
        self._end_inbox()
        if self.transport is not None:
            self.transport.close()

    def _end_inbox(self) -> None:
        if not self._inbox.full():  # (room is kept for it: INBOX_ROOM)
            self._inbox.put_nowait(None)

    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _on_beat(self) -> None:
        """Pings the client; half a heartbeat later, cuts it if nothing came meanwhile."""
        if self.transport is None:
            return
        self._heard = False
        self.ping(HEARTBEAT_PING)
        self._beat = asyncio.get_running_loop().call_later(self.heartbeat / 2, self._on_silence)

    def _on_silence(self) -> None:
        if self.transport is None:
            return
        if not self._heard:
            self.abort()  # as aiohttp's heartbeat does: no close frame to a client that is gone
            return
        self._beat = asyncio.get_running_loop().call_later(self.heartbeat / 2, self._on_beat)


def _nothing() -> None:
    pass


def _ignore(_: bytes) -> None:
    pass
