"""The benchmark under attack: a victim player's moves, quiet and then beside each class
of attack of issue 27 (tests/hostile/ holds their tests), on one server in one run.

For each class, over one window: what the attacker sent (bytes written to its sockets),
the server's CPU, and the victim's move latency (SubmitCommand over gRPC against a bot,
one move at a time), beside the quiet baseline measured first on the same server. The
attacks are the hostile clients' own, small: Play joins from version 1 of a long game
over WebSockets that never read (deep receive buffers), and ReplayLog floods of that
long game's log."""

from __future__ import annotations

import base64
import json
import os
import socket
import statistics
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
from ludotheque import Client
from ludotheque.v1 import game_service_pb2 as api

from service.bench.target import Server, cpu_seconds

ADMIN = "bench-attack-admin-token-0123456789abcdef-0123"
DEEP_BUFFER = 4 << 20  # a never-reading attacker's receive buffer
MIN_MOVES = 5  # the victim's moves in a window at least, however slow
ATTACKS = ("quiet", "catch-ups never read", "ReplayLog flood")


@dataclass(slots=True)
class AttackFigures:
    attack: str
    seconds: float
    attacker_bytes: int  # bytes the attacker wrote
    attacker_requests: int
    refused: int  # attacker requests answered 429 (or a close for a slow reader)
    server_cpu: float  # seconds of server CPU in the window
    victim_moves: list[float] = field(default_factory=list)  # seconds each

    def percentile(self, q: float) -> float:
        ordered = sorted(self.victim_moves)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")

    @property
    def p50(self) -> float:
        return statistics.median(self.victim_moves) if self.victim_moves else float("nan")


@dataclass(slots=True)
class _Attacker:
    sent: int = 0
    requests: int = 0
    refused: int = 0
    sockets: list[socket.socket] = field(default_factory=list)


def attack_figures(window: float, joins: int = 20, replayers: int = 4) -> list[AttackFigures]:
    """Each attack class over `window` seconds, the quiet baseline first."""
    server = Server.start("memory", env={"LUDOTHEQUE_ADMIN_TOKEN": ADMIN, "LUDOTHEQUE_BOT_GAME_RATE": "1000000"})
    try:
        long_game, log = _long_game(server)
        attacks: dict[str, Callable[[_Attacker, threading.Event], None]] = {
            "quiet": lambda attacker, stop: None,
            "catch-ups never read": lambda attacker, stop: _catch_ups(server, long_game, joins, window, attacker, stop),
            "ReplayLog flood": lambda attacker, stop: _replays(server, log, replayers, attacker, stop),
        }
        return [_window(server, name, attack, window) for name, attack in attacks.items()]
    finally:
        server.stop()


def _window(
    server: Server, name: str, attack: Callable[[_Attacker, threading.Event], None], window: float
) -> AttackFigures:
    attacker, stop = _Attacker(), threading.Event()
    thread = threading.Thread(target=attack, args=(attacker, stop), daemon=True)
    before = cpu_seconds(server.pids)
    started = time.perf_counter()
    thread.start()
    moves = _victim(server, started + window)
    stop.set()
    thread.join(30)
    figures = AttackFigures(name, time.perf_counter() - started, 0, 0, 0, cpu_seconds(server.pids) - before, moves)
    for sock in attacker.sockets:
        sock.close()
    figures.attacker_bytes, figures.attacker_requests, figures.refused = (
        attacker.sent,
        attacker.requests,
        attacker.refused,
    )
    return figures


def _victim(server: Server, until: float) -> list[float]:
    """A player's moves against a bot, one at a time, until `until` (and MIN_MOVES at
    least): each one's latency."""
    latencies: list[float] = []

    def more() -> bool:
        return time.perf_counter() < until or len(latencies) < MIN_MOVES

    with Client(server.target) as lobby:
        while more():
            created = lobby.create_game("mooki", ["Victim", {"name": "Bot", "bot": "greedy"}])
            player = lobby.with_token(created.seat_tokens[0])
            game = player.get_game(created.game_id)  # (the creator's answer has no seat's commands)
            while game.legal_commands and more():
                began = time.perf_counter()
                player.submit(created.game_id, game.legal_commands[0])
                latencies.append(time.perf_counter() - began)
                game = player.get_game(created.game_id)  # (not measured: the victim's next move)
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


def _catch_ups(
    server: Server, game_id: str, joins: int, window: float, attacker: _Attacker, stop: threading.Event
) -> None:
    """`joins` Play joins from version 1 over WebSockets that never read, spread over the window."""
    join = json.dumps({"join": {"gameId": game_id, "fromVersion": 1, "views": True, "viewUpdates": True}}).encode()
    for _ in range(joins):
        if stop.wait(window / joins / 2):
            return
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, DEEP_BUFFER)
        sock.connect(("127.0.0.1", server.http_port))
        key = base64.b64encode(os.urandom(16)).decode()
        head = (
            f"GET /v1/play HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Protocol: ludotheque.v1.json\r\n\r\n"
        ).encode()
        mask = os.urandom(4)
        frame = bytes([0x81, 0x80 | 126]) + len(join).to_bytes(2, "big") + mask
        frame += bytes(byte ^ mask[i % 4] for i, byte in enumerate(join))
        sock.sendall(head + frame)  # the answer is never read: not even the handshake's
        attacker.sent += len(head) + len(frame)
        attacker.requests += 1
        attacker.sockets.append(sock)


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
