"""A bare WebSocket client on a plain socket, for what a library client never does:
stop reading while the server writes (library clients read the socket into memory
whatever their user does). Only what the tests need: the handshake, masked frames
out, frames in."""

from __future__ import annotations

import base64
import os
import socket
import struct
from dataclasses import dataclass

TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA


@dataclass(frozen=True, slots=True)
class Frame:
    opcode: int
    payload: bytes

    @property
    def close_code(self) -> int | None:
        return struct.unpack(">H", self.payload[:2])[0] if self.opcode == CLOSE and len(self.payload) >= 2 else None


def text_frame(text: str) -> bytes:
    """A client's text frame (masked) carrying `text`."""
    return client_frame(TEXT, text.encode())


def client_frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame (masked), whole."""
    mask = os.urandom(4)
    header = bytes([0x80 | opcode])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    else:
        header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    return header + mask + masked


class RawWebSocket:
    def __init__(
        self,
        host: str,
        port: int,
        path: str,
        *,
        protocol: str = "",
        receive_buffer: int = 0,
        source: str = "",
        early: bytes = b"",
    ) -> None:
        """`source`: the address to connect from; `early`: frames sent in the same write
        as the upgrade, before its answer."""
        self.sock = socket.socket()
        if receive_buffer:
            # Before connecting: the buffer then also bounds the window the server sees.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(30)
        if source:
            self.sock.bind((source, 0))
        self.sock.connect((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        if protocol:
            lines.append(f"Sec-WebSocket-Protocol: {protocol}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + early)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)  # byte by byte: nothing after the headers is read
            if not chunk:
                raise ConnectionError("the server closed during the handshake")
            head += chunk
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(f"the upgrade was refused: {head.decode(errors='replace')}")

    def send_text(self, text: str) -> None:
        self.sock.sendall(text_frame(text))

    def send_pong(self, payload: bytes) -> None:
        """The answer to a ping: its read receipt (service/api/read_receipts.py)."""
        self.sock.sendall(client_frame(PONG, payload))

    def receive(self) -> Frame | None:
        """The next frame (whole, continuation frames joined), or None at the end."""
        opcode, payload = 0, b""
        while True:
            head = self._exactly(2)
            if head is None:
                return None
            length = head[1] & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._exactly(2) or b"\0\0")[0]
            elif length == 127:
                length = struct.unpack(">Q", self._exactly(8) or bytes(8))[0]
            data = self._exactly(length)
            if data is None:
                return None
            opcode = opcode or head[0] & 0x0F
            payload += data
            if head[0] & 0x80:  # FIN
                return Frame(opcode, payload)

    def _exactly(self, count: int) -> bytes | None:
        data = b""
        while len(data) < count:
            try:
                chunk = self.sock.recv(count - len(data))
            except ConnectionResetError:
                return None
            if not chunk:
                return None
            data += chunk
        return data

    def close(self) -> None:
        self.sock.close()
