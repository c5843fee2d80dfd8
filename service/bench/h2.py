"""HTTP/2 frames written by hand, for attacks no well-behaved client makes (a rapid
reset: HEADERS then RST_STREAM, thousands of times on one connection): the hostile
clients of tests/hostile/ and of the attack bench (attacks.py, floods.py) share them.

Only what the attacks need: the client preface, SETTINGS (and its ACK), HEADERS with
literal HPACK fields (no Huffman, no dynamic table: RFC 7541 6.2.2), RST_STREAM, PING
ACKs; and reading the server's frames to see a GOAWAY. No library is needed for that
much, and one that enforces the protocol would refuse to misbehave."""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE = 0x0, 0x1, 0x3, 0x4, 0x6, 0x7, 0x8
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4
CANCEL = 0x8  # RST_STREAM's error code
ENHANCE_YOUR_CALM = 0xB
HEADER = struct.Struct(">I B I")  # length (24 bits, in the int's low bytes) and type, flags, stream id


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    head = struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream & 0x7FFFFFFF)
    return head + payload


def _integer(value: int, prefix_bits: int = 7) -> bytes:
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([value])
    out, value = bytearray([limit]), value - limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def literal_headers(headers: list[tuple[str, str]]) -> bytes:
    """An HPACK block of literal fields without indexing, new names, no Huffman."""
    block = bytearray()
    for name, value in headers:
        block.append(0x00)
        block += _integer(len(name.encode())) + name.encode()
        block += _integer(len(value.encode())) + value.encode()
    return bytes(block)


def grpc_request_headers(path: str, authority: str) -> bytes:
    return literal_headers(
        [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", path),
            (":authority", authority),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
        ]
    )


@dataclass
class Frame:
    kind: int
    flags: int
    stream: int
    payload: bytes


class RawConnection:
    """One TCP connection speaking HTTP/2 frame by frame."""

    def __init__(self, host: str, port: int, timeout: float = 10.0, *, source: str = "") -> None:
        """`source`: the address to connect from (another loopback one: another client)."""
        self.socket = socket.create_connection(
            (host, port), timeout=timeout, source_address=(source, 0) if source else None
        )
        self.authority = f"{host}:{port}"
        self._buffer = b""
        self.sent = 0

    def send(self, data: bytes) -> None:
        self.socket.sendall(data)
        self.sent += len(data)

    def handshake(self, *, acknowledge: bool = False) -> None:
        """The client preface and its SETTINGS; `acknowledge`: then waits for the
        server's SETTINGS and acknowledges them (as any HTTP/2 library does)."""
        self.send(PREFACE + frame(SETTINGS, 0, 0))
        while acknowledge:
            received = self.read_frame()
            if received is None:
                return
            if received.kind == SETTINGS and not received.flags & ACK:
                self.send(frame(SETTINGS, ACK, 0))
                return

    def read_frame(self) -> Frame | None:
        """The next frame from the server; None once it closed the connection."""
        while True:
            if len(self._buffer) >= 9:
                length = int.from_bytes(self._buffer[:3], "big")
                if len(self._buffer) >= 9 + length:
                    kind, flags = self._buffer[3], self._buffer[4]
                    stream = int.from_bytes(self._buffer[5:9], "big") & 0x7FFFFFFF
                    payload = self._buffer[9 : 9 + length]
                    self._buffer = self._buffer[9 + length :]
                    return Frame(kind, flags, stream, payload)
            try:
                chunk = self.socket.recv(65536)
            except (ConnectionResetError, TimeoutError, OSError):
                return None
            if not chunk:
                return None
            self._buffer += chunk

    def close(self) -> None:
        self.socket.close()
