"""The benchmark under attack: a victim player's moves, quiet and then beside each class
of attack of issue 27 (tests/hostile/ holds their tests), on one server in one run.

For each class, over one window: what the attacker sent (bytes written to its sockets),
the server's CPU, and the victim's move latency (SubmitCommand over gRPC against a bot,
one move at a time), beside the quiet baseline measured first on the same server. The
attacks are the hostile clients' own, small, on plain sockets (HTTP/2 frames written by
hand where a library would not misbehave): catch-ups from version 1 of a long game that
never read, over each transport that streams (Play over WebSockets, server-sent events,
Connect's and gRPC's StreamEvents; deep receive buffers, and a gRPC window as large as
HTTP/2 allows); ReplayLog floods of that long game's log; HTTP/2 rapid reset on the gRPC
port; request bodies trickled a byte at a time; join codes guessed as fast as the server
answers."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import socket
import statistics
import struct
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

import grpc
from ludotheque import Client
from ludotheque.v1 import game_service_pb2 as api

from service.bench.percentiles import percentile
from service.bench.seam import JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH
from service.bench.target import Server, cpu_seconds

ADMIN = "bench-attack-admin-token-0123456789abcdef-0123"
DEEP_BUFFER = 4 << 20  # a never-reading attacker's receive buffer
MIN_MOVES = 5  # the victim's moves in a window at least, however slow
SLOW_BODIES = 16  # connections trickling a request body at once
ATTACKS = (
    "quiet",
    "catch-ups never read",
    "SSE catch-ups never read",
    "Connect catch-ups never read",
    "StreamEvents catch-ups never read",
    "ReplayLog flood",
    "HTTP/2 rapid reset",
    "slow request bodies",
    "join-code guessing",
)
# HTTP/2, as much of it as the attacks need (RFC 9113): frame types, flags, settings.
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
H2_DATA, H2_HEADERS, H2_RST_STREAM, H2_SETTINGS, H2_GOAWAY, H2_WINDOW_UPDATE = 0x0, 0x1, 0x3, 0x4, 0x7, 0x8
H2_END_STREAM, H2_END_HEADERS = 0x1, 0x4
H2_INITIAL_WINDOW_SIZE = 0x4
H2_CANCEL = 0x8
H2_LARGEST_WINDOW = (1 << 31) - 1


@dataclass(slots=True)
class AttackFigures:
    attack: str
    seconds: float
    attacker_bytes: int  # bytes the attacker wrote
    attacker_requests: int
    refused: int  # attacker requests answered 429 (or a close for a slow reader)
    server_cpu: float  # seconds of server CPU in the window
    victim_moves: list[float] = field(default_factory=list)  # seconds each
    victim_failures: list[str] = field(default_factory=list)  # the status of each victim's call that failed

    def percentile(self, q: float) -> float:
        return percentile(self.victim_moves, q)

    @property
    def p50(self) -> float:
        return statistics.median(self.victim_moves) if self.victim_moves else float("nan")


@dataclass(slots=True)
class _Attacker:
    sent: int = 0
    requests: int = 0
    refused: int = 0
    sockets: list[socket.socket] = field(default_factory=list)


_Attack = Callable[[_Attacker, threading.Event], None]


def attack_figures(window: float, joins: int = 20, replayers: int = 4) -> list[AttackFigures]:
    """Each attack class over `window` seconds, the quiet baseline first."""
    server = Server.start("memory", env={"LUDOTHEQUE_ADMIN_TOKEN": ADMIN, "LUDOTHEQUE_BOT_GAME_RATE": "1000000"})
    try:
        long_game, log = _long_game(server)
        openers: dict[str, Callable[[Server, str], tuple[socket.socket, int]]] = {
            "catch-ups never read": _play_join,
            "SSE catch-ups never read": _sse_stream,
            "Connect catch-ups never read": _connect_stream,
            "StreamEvents catch-ups never read": _grpc_stream,
        }

        def never_read(opener: Callable[[Server, str], tuple[socket.socket, int]]) -> _Attack:
            return lambda attacker, stop: _never_read(server, opener, long_game, joins, window, attacker, stop)

        attacks: dict[str, _Attack] = {
            "quiet": lambda attacker, stop: None,
            **{name: never_read(opener) for name, opener in openers.items()},
            "ReplayLog flood": lambda attacker, stop: _replays(server, log, replayers, attacker, stop),
            "HTTP/2 rapid reset": lambda attacker, stop: _rapid_reset(server, attacker, stop),
            "slow request bodies": lambda attacker, stop: _slow_bodies(server, window, attacker, stop),
            "join-code guessing": lambda attacker, stop: _join_guesses(server, attacker, stop),
        }
        assert tuple(attacks) == ATTACKS
        return [_window(server, name, attack, window) for name, attack in attacks.items()]
    finally:
        server.stop()


def _window(server: Server, name: str, attack: _Attack, window: float) -> AttackFigures:
    attacker, stop = _Attacker(), threading.Event()
    thread = threading.Thread(target=attack, args=(attacker, stop), daemon=True)
    before = cpu_seconds(server.pids)
    started = time.perf_counter()
    thread.start()
    failures: list[str] = []
    moves = _victim(server, started + window, failures)
    stop.set()
    thread.join(30)
    spent = cpu_seconds(server.pids) - before
    figures = AttackFigures(name, time.perf_counter() - started, 0, 0, 0, spent, moves, failures)
    for sock in attacker.sockets:
        sock.close()
    figures.attacker_bytes, figures.attacker_requests, figures.refused = (
        attacker.sent,
        attacker.requests,
        attacker.refused,
    )
    return figures


def _victim(server: Server, until: float, failures: list[str]) -> list[float]:
    """A player's moves against a bot, one at a time, until `until` (and MIN_MOVES at
    least): each one's latency. A call that fails is noted in `failures` (its status), and
    the player starts a new game."""
    latencies: list[float] = []

    def more() -> bool:
        return time.perf_counter() < until or len(latencies) < MIN_MOVES

    with Client(server.target) as lobby:
        while more():
            try:
                created = lobby.create_game("mooki", ["Victim", {"name": "Bot", "bot": "greedy"}])
                player = lobby.with_token(created.seat_tokens[0])
                game = player.get_game(created.game_id)  # (the creator's answer has no seat's commands)
                while game.legal_commands and more():
                    began = time.perf_counter()
                    player.submit(created.game_id, game.legal_commands[0])
                    latencies.append(time.perf_counter() - began)
                    game = player.get_game(created.game_id)  # (not measured: the victim's next move)
            except grpc.RpcError as error:
                failures.append(error.code().name)
    return latencies


def _long_game(server: Server) -> tuple[str, api.ReplayLogRequest]:
    """A finished game of three bots (thousands of events), and a ReplayLog request of
    its complete log (protobuf: what fits in a request)."""
    seats = [{"name": f"Bot {i}", "bot": "random"} for i in range(3)]
    created = _post(server, "/v1/games", {"kind": "pirates", "seats": seats}, ADMIN)
    game_id = str(created["gameId"])
    with Client(server.target, token=ADMIN) as admin:
        log = admin.stub.ExportGame(api.ExportGameRequest(game_id=game_id), metadata=admin_metadata(), timeout=60).log
    return game_id, api.ReplayLogRequest(log=log, page_size=1)


def admin_metadata() -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {ADMIN}"),)


def _post(server: Server, path: str, body: object, token: str = "") -> dict[str, object]:
    """A JSON POST's answer."""
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(f"{server.http}{path}", json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        answer: dict[str, object] = json.loads(response.read())
        return answer


def _never_read(
    server: Server,
    opener: Callable[[Server, str], tuple[socket.socket, int]],
    game_id: str,
    joins: int,
    window: float,
    attacker: _Attacker,
    stop: threading.Event,
) -> None:
    """`joins` catch-ups from version 1 of the game that are never read (not even their
    answer's head), spread over the window; `opener` opens one: its socket and the bytes
    it sent."""
    for _ in range(joins):
        if stop.wait(window / joins / 2):
            return
        sock, sent = opener(server, game_id)
        attacker.sent += sent
        attacker.requests += 1
        attacker.sockets.append(sock)


def _deep_socket(port: int) -> socket.socket:
    """A connection whose receive buffer (and so the window the server sees) is deep."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, DEEP_BUFFER)  # before connecting: the window too
    sock.connect(("127.0.0.1", port))
    return sock


def _play_join(server: Server, game_id: str) -> tuple[socket.socket, int]:
    """A Play join over a WebSocket."""
    join = json.dumps({"join": {"gameId": game_id, "fromVersion": 1, "views": True, "viewUpdates": True}}).encode()
    sock = _deep_socket(server.http_port)
    key = base64.b64encode(os.urandom(16)).decode()
    head = (
        f"GET /v1/play HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: ludotheque.v1.json\r\n\r\n"
    ).encode()
    mask = os.urandom(4)
    frame = bytes([0x81, 0x80 | 126]) + len(join).to_bytes(2, "big") + mask
    frame += bytes(byte ^ mask[i % 4] for i, byte in enumerate(join))
    sock.sendall(head + frame)
    return sock, len(head) + len(frame)


def _sse_stream(server: Server, game_id: str) -> tuple[socket.socket, int]:
    """StreamEvents as server-sent events."""
    request = f"GET /v1/games/{game_id}/events:stream?fromVersion=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    sock = _deep_socket(server.http_port)
    sock.sendall(request)
    return sock, len(request)


def _connect_stream(server: Server, game_id: str) -> tuple[socket.socket, int]:
    """StreamEvents over Connect (JSON)."""
    message = json.dumps({"gameId": game_id, "fromVersion": 1}).encode()
    body = struct.pack(">BI", 0, len(message)) + message
    head = (
        "POST /ludotheque.v1.GameService/StreamEvents HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/connect+json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    sock = _deep_socket(server.http_port)
    sock.sendall(head + body)
    return sock, len(head) + len(body)


def _grpc_stream(server: Server, game_id: str) -> tuple[socket.socket, int]:
    """StreamEvents over gRPC, on a connection that grants the server the largest
    window HTTP/2 allows (any client may)."""
    data = api.StreamEventsRequest(game_id=game_id, from_version=1).SerializeToString()
    settings = struct.pack(">HI", H2_INITIAL_WINDOW_SIZE, H2_LARGEST_WINDOW)
    request = (
        H2_PREFACE
        + _h2_frame(H2_SETTINGS, 0, 0, settings)
        + _h2_frame(H2_WINDOW_UPDATE, 0, 0, struct.pack(">I", H2_LARGEST_WINDOW - 65_535))
        + _h2_frame(H2_HEADERS, H2_END_HEADERS, 1, _grpc_headers("StreamEvents", server.grpc_port))
        + _h2_frame(H2_DATA, H2_END_STREAM, 1, struct.pack(">BI", 0, len(data)) + data)
    )
    sock = _deep_socket(server.grpc_port)
    sock.sendall(request)
    return sock, len(request)


def _h2_frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def _grpc_headers(method: str, port: int) -> bytes:
    """The HPACK block of a gRPC call's headers: literal fields, new names, no Huffman
    (RFC 7541 6.2.2), every length under 127."""
    block = bytearray()
    fields = (
        (":method", "POST"),
        (":scheme", "http"),
        (":path", f"/ludotheque.v1.GameService/{method}"),
        (":authority", f"127.0.0.1:{port}"),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    )
    for name, value in fields:
        block += bytes([0, len(name)]) + name.encode() + bytes([len(value)]) + value.encode()
    return bytes(block)


def _rapid_reset(server: Server, attacker: _Attacker, stop: threading.Event) -> None:
    """HEADERS then RST_STREAM, again and again on one gRPC connection; a new connection
    each time the server cuts one (a GOAWAY)."""
    block = _grpc_headers("GetGame", server.grpc_port)
    while not stop.is_set():
        try:
            sock = socket.create_connection(("127.0.0.1", server.grpc_port), timeout=0.25)
        except OSError:
            attacker.refused += 1
            continue
        try:
            sock.sendall(H2_PREFACE + _h2_frame(H2_SETTINGS, 0, 0))
            attacker.sent += len(H2_PREFACE) + 9
            stream, received = 1, bytearray()
            while not stop.is_set() and not _goaway_in(received):
                batch = bytearray()
                for _ in range(100):
                    batch += _h2_frame(H2_HEADERS, H2_END_HEADERS, stream, block)
                    batch += _h2_frame(H2_RST_STREAM, 0, stream, H2_CANCEL.to_bytes(4, "big"))
                    stream += 2
                sock.sendall(batch)
                attacker.sent += len(batch)
                attacker.requests += 100
                with contextlib.suppress(BlockingIOError):
                    received += sock.recv(1 << 16, socket.MSG_DONTWAIT)
            attacker.refused += _goaway_in(received)
        except OSError:  # closed
            attacker.refused += 1
        finally:
            sock.close()


def _goaway_in(received: bytearray) -> bool:
    """Whether the server's frames so far (after its preface: none) hold a GOAWAY."""
    at = 0
    while at + 9 <= len(received):
        if received[at + 3] == H2_GOAWAY:
            return True
        at += 9 + int.from_bytes(received[at : at + 3], "big")
    return False


def _slow_bodies(server: Server, window: float, attacker: _Attacker, stop: threading.Event) -> None:
    """SLOW_BODIES connections each announcing a 100,000-byte body and sending it a byte
    at a time, a byte a connection every tenth of the window."""
    head = b"POST /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: 100000\r\n\r\n"
    trickling: list[socket.socket] = []
    for _ in range(SLOW_BODIES):
        sock = socket.create_connection(("127.0.0.1", server.http_port), timeout=2)
        sock.sendall(head)
        attacker.sent += len(head)
        attacker.requests += 1
        trickling.append(sock)
    attacker.sockets.extend(trickling)
    while not stop.wait(window / 10):
        for sock in list(trickling):
            try:
                sock.sendall(b"{")
                attacker.sent += 1
            except OSError:  # cut (408)
                attacker.refused += 1
                trickling.remove(sock)


def _join_guesses(server: Server, attacker: _Attacker, stop: threading.Event) -> None:
    """Join codes guessed as fast as the server answers, on one kept-alive connection."""
    body = b'{"name":"Guess"}'
    sock = socket.create_connection(("127.0.0.1", server.http_port), timeout=10)
    attacker.sockets.append(sock)
    replies = sock.makefile("rb")
    while not stop.is_set():
        code = "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))
        request = (
            f"POST /v1/games/{code}:join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        sock.sendall(request)
        attacker.sent += len(request)
        attacker.requests += 1
        status = _read_response(replies)
        attacker.refused += status == 429


def _read_response(replies: BinaryIO) -> int:
    """The status of the next HTTP/1.1 response on a connection, its body read."""
    status = int(replies.readline().split()[1])
    length = 0
    while (line := replies.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    replies.read(length)
    return status


def _replays(
    server: Server, request: api.ReplayLogRequest, replayers: int, attacker: _Attacker, stop: threading.Event
) -> None:
    """`replayers` threads sending ReplayLog of the long game back to back, over gRPC."""
    lock = threading.Lock()
    size = request.ByteSize()

    def replay() -> None:
        with Client(server.target) as anyone:
            while not stop.is_set():
                refused = 0
                try:
                    anyone.stub.ReplayLog(request, timeout=60)
                except grpc.RpcError as error:
                    if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                        raise
                    refused = 1
                with lock:
                    attacker.sent += size
                    attacker.requests += 1
                    attacker.refused += refused

    threads = [threading.Thread(target=replay, daemon=True) for _ in range(replayers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
