"""The gRPC port's front door: every client connection passes through it, byte for byte,
to the gRPC server listening on a private loopback port. It does what grpcio's own
options cannot, on one connection without touching the others:

- counts connections (connections.py): one past the limits (per client address, or in
  all) is answered with HTTP/2's SETTINGS and a GOAWAY (ENHANCE_YOUR_CALM) that says
  why, and closed;
- caps its buffers toward a client that stops reading (backpressure.py), and stops
  reading from gRPC while they are full, so gRPC's own writes wait;
- asks the client for read receipts (read_receipts.py): a PING with a nonce of its own
  between two of the server's frames every 16 KiB, the client's PING ACK saying it read
  what came before; the gRPC server is read no further while 128 KiB are unread. HTTP/2's
  flow control cannot bound a client that grants the largest window (2 GiB) and makes
  its receive buffer deep: its WINDOW_UPDATEs prove nothing read, a PING ACK does;
- watches the frames go by (their 9-byte headers only): a client that resets streams
  (RST_STREAM) or has them refused (opening more than the server's
  MAX_CONCURRENT_STREAMS) faster than `max_resets` every 10 seconds, HTTP/2's rapid
  reset, is sent a GOAWAY and cut. grpcio refuses such streams before any handler runs
  (grpc.max_concurrent_streams), but never closes the connection that sends them;
- and cuts so the other HTTP/2 floods of the 2023–2024 advisories, which grpcio reads on
  for ever (http2_limits.py): a header block over 64 KiB (CONTINUATION flood), SETTINGS
  and PING floods, streams pinned by a zero window.

The gRPC server sees every call coming from the gate's own connection; `peer_of` gives
back the client's address for it (grpc_server.origin), as grpc would have written it
("ipv4:1.2.3.4:5678")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from collections.abc import Callable

from service.api.backpressure import cap_buffers
from service.api.connections import GRPC_DESCRIPTORS, LINGER, Connections
from service.api.http2_limits import READ_PAYLOADS, Allowance, FrameLimits
from service.api.read_receipts import ReceiptLedger
from service.app.observe.metrics import Metrics

log = logging.getLogger(__name__)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY = 0x1, 0x3, 0x4, 0x6, 0x7
ACK = 0x1  # a PING's flag: the answer to one
GATHERED = frozenset({RST_STREAM, PING, *READ_PAYLOADS})  # frames whose payload is read (all small)
PING_FRAME_BYTES = 9 + 8
REFUSED_STREAM, ENHANCE_YOUR_CALM = 0x7, 0xB
RESET_WINDOW = 10.0  # seconds: max_resets may be spent in a burst, and come back over this long
BOUNDARY_WAIT = 1.0  # seconds a cut waits for the server's frame under way to end
# Read receipts toward a client (read_receipts.py): a PING after so many bytes, and the
# gRPC server read no further while so many are unread (HTTP/2's own default window is
# 64 KiB; this lets a reading client's calls run at full speed, and bounds one that
# grants the largest window and reads nothing).
GATE_RECEIPT_EVERY = 16 * 1024
GATE_UNREAD = 128 * 1024
# The receive buffer of the gate's socket toward gRPC (Linux doubles it): what gRPC can
# have written past a held client, and the most one read takes.
UPSTREAM_BUFFER_BYTES = 32 * 1024


def frame(kind: int, stream: int, payload: bytes = b"", flags: int = 0) -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream & 0x7FFFFFFF) + payload


def goaway(last_stream: int, message: str) -> bytes:
    return frame(GOAWAY, 0, struct.pack(">II", last_stream, ENHANCE_YOUR_CALM) + message.encode())


class Frames:
    """Follows the HTTP/2 frames of one direction as its bytes go by, calling
    `seen(kind, flags, stream, payload)` at the end of each frame (`payload`: gathered
    for the small frames whose content matters here, RST_STREAM and PING; else empty),
    with `ended_at` the offset of that end in the chunk being fed. `preface`: the
    client's connection preface comes first; bytes that are not it are not HTTP/2,
    and are let through unread (gRPC answers them)."""

    __slots__ = (
        "_flags",
        "_head",
        "_kind",
        "_left",
        "_payload",
        "_preface",
        "_seen",
        "_stream",
        "ended_at",
        "http2",
        "length",
    )

    def __init__(self, seen: Callable[[int, int, int, bytes], None], *, preface: bool) -> None:
        self._seen = seen
        self._preface = PREFACE if preface else b""
        self._head = b""
        self._left = 0  # payload bytes of the current frame still to pass
        self._kind = self._flags = self._stream = 0
        self._payload = b""  # a small frame's payload, gathered
        self.length = 0  # the payload length of the frame under way (or that just ended)
        self.ended_at = 0
        self.http2 = True

    @property
    def at_boundary(self) -> bool:
        return not (self._head or self._left or self._preface)

    def feed(self, data: bytes) -> None:
        at, end = 0, len(data)
        if self._preface:
            first = data[: len(self._preface)]
            self.http2 = self._preface.startswith(first)
            self._preface, at = self._preface[len(first) :], len(first)
            if not self.http2:
                self._preface = b""
        while self.http2 and at < end:
            if self._left:
                taken = min(self._left, end - at)
                if self._kind in GATHERED:
                    self._payload += data[at : at + taken]
                self._left -= taken
                at += taken
                if not self._left:
                    self._ended(at)
                continue
            taken = min(9 - len(self._head), end - at)
            self._head += data[at : at + taken]
            at += taken
            if len(self._head) == 9:
                self._left = self.length = int.from_bytes(self._head[:3], "big")
                self._kind, self._flags = self._head[3], self._head[4]
                self._stream = int.from_bytes(self._head[5:9], "big") & 0x7FFFFFFF
                self._head, self._payload = b"", b""
                if not self._left:
                    self._ended(at)

    def _ended(self, at: int) -> None:
        self.ended_at = at
        self._seen(self._kind, self._flags, self._stream, self._payload)


class Resets(Allowance):
    """A connection's allowance of streams reset or refused: `limit` at once, coming back
    evenly over RESET_WINDOW seconds (0: no limit)."""

    __slots__ = ()

    def __init__(self, limit: int) -> None:
        super().__init__(limit, RESET_WINDOW)


KEPT_ALLOWANCES = 4096  # client addresses whose allowance is remembered; past it, the full ones go


class GrpcGate:
    """The listening front door of one server process's gRPC port."""

    def __init__(self, connections: Connections, metrics: Metrics, *, max_resets: int) -> None:
        self.upstream_port = 0  # the gRPC server's private port, once it listens
        self.connections = connections
        self.metrics = metrics
        self.max_resets = max_resets
        self._peers: dict[int, str] = {}  # the gate's local port toward gRPC -> the client's peer
        # Each client address's allowance of resets, shared by its connections: one cut
        # for abuse does not end with a fresh allowance on the next connection.
        self._resets: dict[str, Resets] = {}
        self._server: asyncio.Server | None = None
        self._open: set[_Client] = set()

    def resets_of(self, client: str) -> Resets:
        """The reset allowance of a client address ("": a trusted proxy's connection, whose
        clients are many: an allowance of its own)."""
        if not client:
            return Resets(self.max_resets)
        resets = self._resets.get(client)
        if resets is None:
            if len(self._resets) >= KEPT_ALLOWANCES:
                self._resets = {name: kept for name, kept in self._resets.items() if not kept.full()}
            resets = self._resets[client] = Resets(self.max_resets)
        return resets

    def peer_of(self, grpc_peer: str) -> str:
        """The client's peer for what the gRPC server calls the peer of a call."""
        port = grpc_peer.rpartition(":")[2]
        return self._peers.get(int(port), grpc_peer) if port.isdigit() else grpc_peer

    async def start(self, host: str, port: int, *, reuse_port: bool) -> int:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: _Client(self), host, port, reuse_address=True, reuse_port=reuse_port or None
        )
        return int(self._server.sockets[0].getsockname()[1])

    def stop_accepting(self) -> None:
        if self._server is not None:
            self._server.close()

    async def close(self) -> None:
        """Once the gRPC server has stopped (its connections ended): what is left goes."""
        self.stop_accepting()
        for client in list(self._open):
            client.close()
        if self._server is not None:
            await self._server.wait_closed()


class _Client(asyncio.Protocol):
    """One client's connection, and its relay to the gRPC server."""

    def __init__(self, gate: GrpcGate) -> None:
        self.gate = gate
        self.transport: asyncio.Transport | None = None
        self.upstream: _Upstream | None = None
        self.admitted = False
        self.client = ""
        self.peer = ""
        self.last_stream = 0
        self.resets = Resets(gate.max_resets)
        self.limits = FrameLimits()
        self.frames = Frames(self._client_frame, preface=True)
        self.full = False  # its buffers are full: gRPC is not read meanwhile
        self._answers: list[int] = []  # where the answers to the gate's PINGs start in the chunk under way
        self.cutting = ""  # why, once the connection is being cut
        self.said = False  # its last frames are written
        self.lingering = False  # refused, and given a moment to read why

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        address = transport.get_extra_info("peername") or ("", 0)
        family = "ipv6" if ":" in address[0] else "ipv4"
        self.peer = f"{family}:[{address[0]}]:{address[1]}" if family == "ipv6" else f"ipv4:{address[0]}:{address[1]}"
        self.client = self.gate.connections.client(address[0])
        self.resets = self.gate.resets_of(self.client)
        refusal = self.gate.connections.admit(self.client, GRPC_DESCRIPTORS)
        if refusal is not None:
            self.gate.metrics.labelled(self.gate.metrics.connections_refused, "grpc", refusal.reason).inc()
            self.lingering = self.gate.connections.linger()
            if not self.lingering:
                transport.abort()  # not a descriptor to spare, even to say why
                return
            self._say_and_close(frame(SETTINGS, 0) + goaway(0, refusal.message))
            return
        self.admitted = True
        self.gate._open.add(self)
        cap_buffers(transport)
        transport.pause_reading()  # until the gRPC server is reached
        asyncio.get_running_loop().create_task(self._connect())

    async def _connect(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            toward = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            toward.setblocking(False)
            # asyncio sets it only on a socket made with IPPROTO_TCP named: without it,
            # Nagle holds small writes for the delayed ACK (+40 ms on 1% of the calls).
            toward.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # Before connecting, so that the window gRPC is granted is this small too.
            toward.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, UPSTREAM_BUFFER_BYTES)
            try:
                await loop.sock_connect(toward, ("127.0.0.1", self.gate.upstream_port))
            except BaseException:
                toward.close()
                raise
            transport, upstream = await loop.create_connection(lambda: _Upstream(self), sock=toward)
        except OSError as error:
            log.warning("the gRPC gate cannot reach the gRPC server: %s", error)
            self.close()
            return
        if self.transport is None or self.transport.is_closing():
            transport.close()
            return
        self.upstream = upstream
        self.gate._peers[transport.get_extra_info("sockname")[1]] = self.peer
        self.transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        if self.cutting or self.upstream is None or self.upstream.transport is None:
            return
        self._answers = []
        self.frames.feed(data)
        if self.cutting:
            return
        if self._answers:  # the answers to the gate's own PINGs are the gate's, not gRPC's
            at, kept = 0, []
            for start in self._answers:
                kept.append(data[at:start])
                at = start + PING_FRAME_BYTES
            data = b"".join((*kept, data[at:]))
        self.upstream.transport.write(data)

    def _client_frame(self, kind: int, flags: int, stream: int, payload: bytes) -> None:
        if self.cutting:
            return  # the rest of a chunk that was cut: not passed on, not counted
        abuse = self.limits.client_frame(kind, flags, stream, self.frames.length, payload)
        if abuse:
            self.cut("http2_flood", abuse)
            return
        if kind == HEADERS:
            self.last_stream = max(self.last_stream, stream)
        elif kind == RST_STREAM and not self.resets.spend():
            self.cut("resets", "Too many streams reset: this connection is closed (HTTP/2 rapid reset).")
        elif kind == PING and flags & ACK and self.upstream is not None:
            ours = self.upstream.receipt(payload)
            if ours and self.frames.ended_at >= PING_FRAME_BYTES:  # whole in this chunk: not passed on
                self._answers.append(self.frames.ended_at - PING_FRAME_BYTES)

    def refused_stream(self) -> None:
        """The gRPC server refused one of this client's streams (over its concurrency)."""
        if not self.resets.spend():
            self.cut("resets", "Too many streams opened past the server's limit: this connection is closed.")

    def cut(self, reason: str, message: str) -> None:
        """Ends an abusive connection: a GOAWAY once the server's frame under way is out."""
        if self.cutting:
            return
        self.cutting = message
        self.gate.metrics.labelled(self.gate.metrics.connections_cut, reason).inc()
        log.warning("gRPC connection from %s cut: %s", self.peer, message)
        if self.transport is not None:
            self.transport.pause_reading()
        # Not now, in the middle of a chunk of frames: once what was received is passed on
        # and the server's frame under way is whole (or a moment later whatever it is).
        loop = asyncio.get_running_loop()
        loop.call_soon(self._cut_when_whole)
        loop.call_later(BOUNDARY_WAIT, self._finish_cut)

    def _cut_when_whole(self) -> None:
        if self.upstream is None or self.upstream.frames.at_boundary:
            self._finish_cut()

    def _finish_cut(self) -> None:
        if self.said:
            return
        if self.upstream is not None and self.upstream.transport is not None:
            self.upstream.transport.abort()  # the server ends the client's calls
        if self.transport is not None and not self.transport.is_closing():
            self._say_and_close(goaway(self.last_stream, self.cutting))

    def _say_and_close(self, data: bytes) -> None:
        """Writes the last frames, stops sending, and closes once the client has had a
        moment to read them (closing at once, with its bytes unread, would reset it)."""
        transport = self.transport
        if transport is None or self.said:
            return
        self.said = True
        transport.write(data)
        with contextlib.suppress(OSError, RuntimeError):
            transport.write_eof()
        transport.resume_reading()  # what it still sends is read, and dropped (data_received)
        self.cutting = self.cutting or "refused"
        asyncio.get_running_loop().call_later(LINGER, transport.close)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.lingering:
            self.lingering = False
            self.gate.connections.lingered()
        if self.admitted:
            self.admitted = False
            self.gate.connections.release(self.client, GRPC_DESCRIPTORS)
            self.gate._open.discard(self)
        if self.upstream is not None and self.upstream.transport is not None:
            self.upstream.transport.close()

    def pause_writing(self) -> None:  # the client reads slowly: so does the relay from gRPC
        self.full = True
        if self.upstream is not None:
            self.upstream.read_if_due()

    def resume_writing(self) -> None:
        self.full = False
        if self.upstream is not None:
            self.upstream.read_if_due()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class _Upstream(asyncio.Protocol):
    """The relay's connection to the gRPC server, for one client."""

    def __init__(self, client: _Client) -> None:
        self.client = client
        self.transport: asyncio.Transport | None = None
        self.frames = Frames(self._server_frame, preface=False)
        self.receipts = ReceiptLedger(GATE_RECEIPT_EVERY, GATE_UNREAD)
        self.held = False  # waiting for a receipt: gRPC is not read meanwhile
        self.reading = True
        self._counted = 0  # bytes of the chunk under way counted as sent
        self._pings: list[tuple[int, bytes]] = []  # where in that chunk a PING goes, and it

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        client = self.client
        if client.transport is None or client.transport.is_closing():
            return
        self._counted, self._pings = 0, []
        self.frames.feed(data)
        self.receipts.count(len(data) - self._counted)
        at, pieces = 0, list[bytes]()
        for offset, nonce in self._pings:
            pieces += (data[at:offset], frame(PING, 0, nonce))
            at = offset
        client.transport.write(b"".join((*pieces, data[at:])) if pieces else data)
        if client.cutting and self.frames.at_boundary:
            client._finish_cut()
        self._settle()

    def _server_frame(self, kind: int, flags: int, stream: int, payload: bytes) -> None:
        self.client.limits.server_frame(kind, flags, stream)
        if kind == RST_STREAM and int.from_bytes(payload[:4], "big") == REFUSED_STREAM:
            self.client.refused_stream()
        ended = self.frames.ended_at
        self.receipts.count(ended - self._counted)
        self._counted = ended
        if self.receipts.ping_due and self.client.frames.http2 and not self.client.cutting:
            self._pings.append((ended, self.receipts.ping()))

    def receipt(self, payload: bytes) -> bool:
        """The client answered a PING: if it was one of ours (True), what came before it
        was read."""
        if not self.receipts.pong(payload):
            return False
        self._settle()
        return True

    def _settle(self) -> None:
        """Holds gRPC back while too much is unread and a receipt that would free it is
        awaited (asking for one, between two frames, if none is); goes on otherwise,
        to the next frame's end, where a PING can be put."""
        receipts, client = self.receipts, self.client
        transport = client.transport
        asking = not receipts.may_send(0) and receipts.unpinged and self.frames.at_boundary and client.frames.http2
        if asking and transport is not None and not transport.is_closing():
            transport.write(frame(PING, 0, receipts.ping()))
        held = not receipts.may_send(0) and receipts.awaited
        if held and not self.held:
            client.gate.metrics.receipt_waits.inc()
        self.held = held
        self.read_if_due()

    def read_if_due(self) -> None:
        """Reads gRPC unless the client's buffers are full or a receipt is awaited."""
        reading = not (self.client.full or self.held)
        if self.transport is not None and reading != self.reading:
            self.reading = reading
            if reading and not self.client.cutting:
                self.transport.resume_reading()
            elif not reading:
                self.transport.pause_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self.client.gate._peers.pop(self._port(), None)
        if not self.client.cutting:
            self.client.close()  # the server closed (max age, shutdown): what it sent goes first

    def _port(self) -> int:
        sockname = self.transport.get_extra_info("sockname") if self.transport is not None else None
        return int(sockname[1]) if sockname else 0

    def pause_writing(self) -> None:  # gRPC reads slowly: so does the relay from the client
        if self.client.transport is not None:
            self.client.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.client.transport is not None and not self.client.cutting:
            self.client.transport.resume_reading()
