"""The attack bench's hostile clients (attacks.py): small, on plain sockets and
`http.client`, each from loopback addresses of its own (127.0.0.2 to 127.0.0.9; the
honest player is 127.0.0.1), each counting what it sent and how each of its requests
ended (`Attacker.outcomes`: the HTTP status, "cut" when the server closed the connection
first, a stream's first answer, a flood's GOAWAY...). Each runs until its `stop` event is
set; the HTTP/2 floods are floods.py's, the frames h2.py's."""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import select
import socket
import struct
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from service.bench import floods
from service.bench.h2 import (
    CANCEL,
    DATA,
    END_HEADERS,
    END_STREAM,
    GOAWAY,
    HEADERS,
    PREFACE,
    RST_STREAM,
    SETTINGS,
    WINDOW_UPDATE,
    frame,
    grpc_request_headers,
)

ADDRESSES = tuple(f"127.0.0.{n}" for n in range(2, 10))  # the attackers' (the honest player: 127.0.0.1)
DEEP_BUFFER = 4 << 20  # a never-reading attacker's receive buffer
LARGEST_WINDOW = (1 << 31) - 1  # the largest window HTTP/2 allows
INITIAL_WINDOW_SIZE = 0x4  # a SETTINGS parameter
FLOOD_BUDGET = 8 << 20  # bytes a flood sends at most on one connection (a cut one sends far less)
# A request: method, path, body, headers (the request's number in, for those that vary).
Request = Callable[[int], tuple[str, str, bytes, dict[str, str]]]


@dataclass(slots=True)
class Attacker:
    """What one attack did: its requests, the bytes it sent, how each request ended."""

    requests: int = 0
    sent: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    sockets: list[socket.socket] = field(default_factory=list)  # closed after the window
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, outcome: str, sent: int = 0, requests: int = 1) -> None:
        with self.lock:
            self.requests += requests
            self.sent += sent
            self.outcomes[outcome] += requests

    def close(self) -> None:
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()


@dataclass(frozen=True, slots=True)
class Server:
    """Where the attacks go: the server's two ports on 127.0.0.1."""

    http_port: int
    grpc_port: int

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"


def in_threads(count: int, work: Callable[[int], None]) -> None:
    """`work(i)` for i in range(count), each in a thread, waited for."""
    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)


def requests(server: Server, clients: int, request: Request, attacker: Attacker, stop: threading.Event) -> None:
    """`clients` HTTP/1.1 clients, each from an address of its own (as far as there are),
    each sending `request` back to back on a kept-alive connection (a new one when the
    server closes it) until `stop`."""

    def client(index: int) -> None:
        address, number = ADDRESSES[index % len(ADDRESSES)], index
        connection: http.client.HTTPConnection | None = None
        while not stop.is_set():
            if connection is None:
                connection = http.client.HTTPConnection(
                    "127.0.0.1", server.http_port, timeout=60, source_address=(address, 0)
                )
            method, path, body, headers = request(number)
            number += clients
            try:
                connection.request(method, path, body, headers)
                response = connection.getresponse()
                response.read()
            except (OSError, http.client.HTTPException):
                attacker.record("cut", len(body) + len(path))
                connection.close()
                connection = None
                continue
            attacker.record(str(response.status), len(body) + len(path))
            if response.will_close:
                connection.close()
                connection = None
        if connection is not None:
            connection.close()

    in_threads(clients, client)


def _deep_socket(port: int, address: str) -> socket.socket:
    """A connection from `address` whose receive buffer (and so the window the server
    sees) is deep."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, DEEP_BUFFER)  # before connecting: the window too
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def _first_answer(sock: socket.socket, http2: bool = False) -> str:
    """How a stream never read stands, from the first bytes the server sent (peeked at):
    the HTTP status, "cut" if it closed the connection, "no answer yet"."""
    try:
        sock.setblocking(False)  # (a socket with a timeout would wait for it first)
        head = sock.recv(16, socket.MSG_PEEK)
    except BlockingIOError:
        return "no answer yet"
    except OSError:
        return "cut"
    if not head:
        return "cut"
    if http2:
        return "open"  # the server's frames; a refusal would have closed it
    parts = head.split()
    return parts[1].decode(errors="replace") if len(parts) > 1 and head.startswith(b"HTTP/") else "?"


Opener = Callable[[Server, str, str], tuple[socket.socket, int]]


def never_read(
    server: Server, opener: Opener, game_id: str, count: int, spread: float, attacker: Attacker, stop: threading.Event
) -> None:
    """`count` catch-ups from version 1 of the game that are never read, from the
    attackers' addresses in turn, opened over `spread` seconds; each one's outcome is its
    first answer at the end of the window."""
    opened: list[socket.socket] = []
    for index in range(count):
        if stop.wait(spread / count):
            break
        try:
            sock, sent = opener(server, game_id, ADDRESSES[index % len(ADDRESSES)])
        except OSError:
            attacker.record("refused")
            continue
        opened.append(sock)
        attacker.sockets.append(sock)
        attacker.sent += sent
    stop.wait()
    for sock in opened:
        attacker.record(_first_answer(sock, http2=opener is grpc_stream))


def play_join(server: Server, game_id: str, address: str) -> tuple[socket.socket, int]:
    """A Play join over a WebSocket, from version 1, views and their updates asked."""
    join = {"join": {"gameId": game_id, "fromVersion": 1, "views": True, "viewUpdates": True}}
    sock = _deep_socket(server.http_port, address)
    head = websocket_head()
    data = head + ws_frame(json.dumps(join).encode())
    sock.sendall(data)
    return sock, len(data)


def websocket_head() -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET /v1/play HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: ludotheque.v1.json\r\n\r\n"
    ).encode()


def ws_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """A client's WebSocket frame (masked, as a client's must be)."""
    mask = os.urandom(4)
    if len(payload) < 126:
        head = bytes([0x80 | opcode, 0x80 | len(payload)])
    else:
        head = bytes([0x80 | opcode, 0x80 | 126]) + len(payload).to_bytes(2, "big")
    return head + mask + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))


def sse_stream(server: Server, game_id: str, address: str) -> tuple[socket.socket, int]:
    """StreamEvents as server-sent events."""
    request = f"GET /v1/games/{game_id}/events:stream?fromVersion=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    sock = _deep_socket(server.http_port, address)
    sock.sendall(request)
    return sock, len(request)


def connect_stream(server: Server, game_id: str, address: str) -> tuple[socket.socket, int]:
    """StreamEvents over Connect (JSON)."""
    message = json.dumps({"gameId": game_id, "fromVersion": 1}).encode()
    body = struct.pack(">BI", 0, len(message)) + message
    head = (
        "POST /ludotheque.v1.GameService/StreamEvents HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/connect+json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    sock = _deep_socket(server.http_port, address)
    sock.sendall(head + body)
    return sock, len(head) + len(body)


def grpc_stream(server: Server, game_id: str, address: str) -> tuple[socket.socket, int]:
    """StreamEvents over gRPC, on a connection that grants the server the largest
    window HTTP/2 allows (any client may)."""
    request = b"\n" + bytes([len(game_id)]) + game_id.encode() + b"\x10\x01"  # game_id, from_version 1
    settings = struct.pack(">HI", INITIAL_WINDOW_SIZE, LARGEST_WINDOW)
    data = (
        PREFACE
        + frame(SETTINGS, 0, 0, settings)
        + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", LARGEST_WINDOW - 65_535))
        + frame(HEADERS, END_HEADERS, 1, grpc_request_headers(floods.STREAM_EVENTS, server.grpc_target))
        + frame(DATA, END_STREAM, 1, struct.pack(">BI", 0, len(request)) + request)
    )
    sock = _deep_socket(server.grpc_port, address)
    sock.sendall(data)
    return sock, len(data)


def rapid_reset(server: Server, attacker: Attacker, stop: threading.Event) -> None:
    """HEADERS then RST_STREAM, a hundred pairs at a time on one gRPC connection; a new
    connection each time the server cuts one. A request is a pair; its outcome "sent"
    until the server's GOAWAY, then "cut" for the pairs the cut connection had."""
    block = grpc_request_headers(floods.GET_GAME, server.grpc_target)
    while not stop.is_set():
        try:
            sock = socket.create_connection(
                ("127.0.0.1", server.grpc_port), timeout=0.25, source_address=(ADDRESSES[0], 0)
            )
        except OSError:
            attacker.record("connection refused")
            continue
        pairs, received = 0, bytearray()
        try:
            sock.sendall(PREFACE + frame(SETTINGS, 0, 0))
            stream = 1
            while not stop.is_set() and not _goaway_in(received):
                batch = bytearray()
                for _ in range(100):
                    batch += frame(HEADERS, END_HEADERS, stream, block)
                    batch += frame(RST_STREAM, 0, stream, CANCEL.to_bytes(4, "big"))
                    stream += 2
                sock.sendall(batch)
                attacker.sent += len(batch)
                pairs += 100
                if select.select([sock], [], [], 0)[0]:
                    chunk = sock.recv(1 << 16)
                    if not chunk:
                        break
                    received += chunk
        except OSError:  # closed
            pass
        finally:
            sock.close()
        attacker.record("until GOAWAY" if _goaway_in(received) else "until closed", requests=pairs)


def _goaway_in(received: bytearray) -> bool:
    """Whether the server's frames so far hold a GOAWAY."""
    at = 0
    while at + 9 <= len(received):
        if received[at + 3] == GOAWAY:
            return True
        at += 9 + int.from_bytes(received[at : at + 3], "big")
    return False


def flood_loop(flood: Callable[[str], floods.Outcome], attacker: Attacker, stop: threading.Event) -> None:
    """One flood after another (`flood(source address)`), from the attackers' addresses
    in turn: a request is a flood's connection, its outcome the server's GOAWAY (its debug
    text's head), "closed" without one, or "not cut"."""
    index = 0
    while not stop.is_set():
        try:
            outcome = flood(ADDRESSES[index % len(ADDRESSES)])
        except OSError:
            attacker.record("connection refused")
            continue
        finally:
            index += 1
        if outcome.goaways:
            said = outcome.goaways[0][1].decode(errors="replace").split(":")[0].split(",")[0][:40]
            attacker.record(f"GOAWAY ({said})", outcome.sent)
        else:
            attacker.record("closed" if outcome.closed else "not cut", outcome.sent)


def slow_connections(server: Server, count: int, attacker: Attacker, stop: threading.Event) -> None:
    """`count` connections from the attackers' addresses, each sending a request head a
    header line a second, never ending it; each one's outcome at the end of the window:
    "open", "cut", or the status the server answered."""
    opened: list[socket.socket] = []
    for index in range(count):
        try:
            sock = socket.create_connection(
                ("127.0.0.1", server.http_port), timeout=2, source_address=(ADDRESSES[index % len(ADDRESSES)], 0)
            )
            sock.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        except OSError:
            attacker.record("connection refused")
            continue
        opened.append(sock)
        attacker.sockets.append(sock)
        attacker.sent += 40
    line = 0
    while not stop.wait(1.0):
        line += 1
        for sock in opened:
            with contextlib.suppress(OSError):  # cut: seen below
                sock.send(f"X-Slow-{line}: 1\r\n".encode(), socket.MSG_DONTWAIT)
                attacker.sent += 14
    for sock in opened:
        answer = _first_answer(sock)
        attacker.record("open" if answer == "no answer yet" else answer)


def slow_bodies(server: Server, count: int, attacker: Attacker, stop: threading.Event) -> None:
    """`count` connections each announcing a 10,000-byte body (under CreateGame's limit:
    a larger one is refused at once) and sending it a byte a second; each one's outcome
    at the end of the window."""
    head = b"POST /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: 10000\r\n\r\n"
    opened: list[socket.socket] = []
    for index in range(count):
        address = ADDRESSES[index % len(ADDRESSES)]
        try:
            sock = socket.create_connection(("127.0.0.1", server.http_port), timeout=2, source_address=(address, 0))
            sock.sendall(head)
        except OSError:
            attacker.record("connection refused")
            continue
        opened.append(sock)
        attacker.sockets.append(sock)
        attacker.sent += len(head)
    while not stop.wait(1.0):
        for sock in opened:
            with contextlib.suppress(OSError):
                sock.send(b"{", socket.MSG_DONTWAIT)
                attacker.sent += 1
    for sock in opened:
        answer = _first_answer(sock)
        attacker.record("open" if answer == "no answer yet" else answer)


class _Session:
    """A Play session over a WebSocket, frame by frame: sends commands, reads the
    server's messages, answers its pings (a session that does not is cut)."""

    def __init__(self, server: Server, address: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", server.http_port), timeout=10, source_address=(address, 0))
        self.sock.sendall(websocket_head())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise OSError("closed before the upgrade")
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise OSError(head.split(b"\r\n", 1)[0].decode(errors="replace"))

    def send(self, message: object) -> int:
        data = ws_frame(json.dumps(message).encode())
        self.sock.sendall(data)
        return len(data)

    def receive(self) -> dict[str, object] | int:
        """The server's next message; a close frame's code (or 1006 for a cut) at the end."""
        while True:
            opcode, payload = self._frame()
            if opcode == 0x8:
                return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            if opcode == 0x9:
                self.sock.sendall(ws_frame(payload, opcode=0xA))
            elif opcode in (0x1, 0x2):
                answer: dict[str, object] = json.loads(payload)
                return answer
            elif opcode < 0:
                return 1006

    def _frame(self) -> tuple[int, bytes]:
        if not self._fill(2):
            return -1, b""
        opcode, length, at = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F, 2
        if length >= 126:
            size = 2 if length == 126 else 8
            if not self._fill(2 + size):
                return -1, b""
            length, at = int.from_bytes(self.buffer[2 : 2 + size], "big"), 2 + size
        if not self._fill(at + length):
            return -1, b""
        payload, self.buffer = self.buffer[at : at + length], self.buffer[at + length :]
        return opcode, payload

    def _fill(self, size: int) -> bool:
        while len(self.buffer) < size:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return False
            if not chunk:
                return False
            self.buffer += chunk
        return True


def illegal_commands(
    server: Server, game_id: str, token: str, sessions: int, attacker: Attacker, stop: threading.Event
) -> None:
    """`sessions` Play sessions of a seat whose turn it is not, each sending commands 32
    at a time and reading their results: a request is a command, its outcome the
    result's status code (or the session's close code, then a new session)."""
    command: Mapping[str, object] = {"mooki": {"draw": {"pile": 1}}}

    def session(index: int) -> None:
        number = 0
        while not stop.is_set():
            try:
                play = _Session(server, ADDRESSES[index % len(ADDRESSES)])
            except OSError as error:
                attacker.record(f"refused ({error})"[:40])
                stop.wait(0.1)
                continue
            attacker.sockets.append(play.sock)
            with contextlib.closing(play.sock):
                attacker.sent += play.send({"join": {"gameId": game_id, "token": token, "fromVersion": 1}})
                while not stop.is_set() and _commands(play, command, index, number, attacker):
                    number += 32

    in_threads(sessions, session)


def _commands(play: _Session, command: Mapping[str, object], index: int, number: int, attacker: Attacker) -> bool:
    """32 commands sent, then read until their 32 results; False once the session ended."""
    for n in range(32):
        message = {"command": {"command": command, "commandId": f"a{index}-{number + n}"}}
        attacker.sent += play.send(message)
    results = 0
    while results < 32:
        answer = play.receive()
        if isinstance(answer, int):
            attacker.record(f"closed {answer}", requests=32 - results)
            return False
        result = answer.get("result")
        if isinstance(result, dict):
            error = result.get("error")
            code = error.get("code", 0) if isinstance(error, dict) else 0
            attacker.record(f"refused, code {code}" if code else "played")
            results += 1
    return True
