"""Connections that cost the server more than they pay for: HTTP/2 rapid reset and stream
floods on the gRPC port, a request body trickled a byte at a time, and more connections
than the server's file descriptors can take.

Before: 50,000 HEADERS + RST_STREAM pairs on one gRPC connection got no GOAWAY, cost 2 to
3 s of server CPU, and another client's calls failed CANCELLED; a body of 100,000 bytes
trickled at a byte every 25 s was still open after 150 s (the idle timeout never fired);
and one address could open connections until the process ran out of descriptors. Now:
the gate on the gRPC port (service/api/grpc_gate.py) cuts a connection that resets or
has refused more than --grpc-max-resets streams in a burst, with a GOAWAY, grpcio
refusing streams past --grpc-max-concurrent-streams before any handler runs; a body must
come whole within --http-body-timeout; connections are capped per client address and in
all (--max-connections-per-client, --max-connections), refused with a reason."""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc
import pytest
from ludotheque import Client
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.bench.h2 import (
    ACK,
    CANCEL,
    DATA,
    END_HEADERS,
    END_STREAM,
    ENHANCE_YOUR_CALM,
    GOAWAY,
    HEADERS,
    PING,
    RST_STREAM,
    Frame,
    RawConnection,
    frame,
    grpc_request_headers,
)
from tests.support.raw_websocket import TEXT, RawWebSocket
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server
from tests.support.waiting import eventually

GET_GAME = "/ludotheque.v1.GameService/GetGame"
PAIRS = 20_000  # HEADERS + RST_STREAM pairs of a rapid reset (x10 with --hostile-long)
MAX_RESETS = 100
PER_CLIENT = 6
BODY_TIMEOUT = 2.0
HOLD_ON = 120.0  # seconds: the capped server's other HTTP timeouts, past any wait of the tests


def cpu_seconds(server: ServerProcess) -> float:
    """The server process's CPU time so far (user and system)."""
    with open(f"/proc/{server.process.pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Victim:
    """Another player, calling GetGame over its own connection while an attack runs."""

    server: ServerProcess
    game_id: str
    waits: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        with Client(self.server.target, retries=0) as player:
            while not self.done.is_set():
                started = time.perf_counter()
                try:
                    player.get_game(self.game_id)
                except grpc.RpcError as error:
                    self.failures.append(error.code().name)
                self.waits.append(time.perf_counter() - started)

    def p99(self, since: int = 0) -> float:
        """The 99th percentile of its waits (seconds), from its `since`-th call on."""
        waits = sorted(self.waits[since:])
        return waits[int(len(waits) * 0.99)] if waits else 0.0


@pytest.fixture
def victim(gated: ServerProcess) -> Iterator[Victim]:
    game_id = Client(gated.target).create_game("mooki", ["Ana", "Ben"]).game_id
    player = Victim(gated, game_id)
    thread = threading.Thread(target=player.run)
    thread.start()
    while len(player.waits) < 20:  # it plays before the attack begins
        time.sleep(0.01)
    yield player
    player.done.set()
    thread.join()


@pytest.fixture(scope="module")
def gated() -> Iterator[ServerProcess]:
    with running_server(env={"LUDOTHEQUE_GRPC_MAX_RESETS": str(MAX_RESETS)}) as server:
        yield server


def read_until_closed(connection: RawConnection, seconds: float, ack_pings: bool = True) -> list[Frame]:
    """The server's frames until it closes the connection (fails after `seconds`)."""
    connection.socket.settimeout(seconds)
    frames = []
    deadline = time.monotonic() + seconds
    while (received := connection.read_frame()) is not None:
        frames.append(received)
        if ack_pings and received.kind == PING and not received.flags & ACK:
            try:
                connection.send(frame(PING, ACK, 0, received.payload))
            except OSError:
                break
        assert time.monotonic() < deadline, "the server did not close the connection"
    return frames


def goaways(frames: list[Frame]) -> list[tuple[int, bytes]]:
    return [(struct.unpack(">I", f.payload[4:8])[0], f.payload[8:]) for f in frames if f.kind == GOAWAY]


def send_attack(connection: RawConnection, pairs: int, reset: bool, chunk: int = 16_384) -> int:
    """Sends `pairs` new streams (each reset at once when `reset`), `chunk` bytes at a
    time (0: each pair on its own); how many went out before the server closed the
    connection."""
    block = grpc_request_headers(GET_GAME, connection.authority)
    batch, sent = bytearray(), 0
    try:
        for number in range(pairs):
            stream = 2 * number + 1
            batch += frame(HEADERS, END_HEADERS, stream, block)
            if reset:
                batch += frame(RST_STREAM, 0, stream, CANCEL.to_bytes(4, "big"))
            if len(batch) > chunk:
                connection.send(bytes(batch))
                batch.clear()
                sent = number + 1
        connection.send(bytes(batch))
        sent = pairs
    except OSError:  # cut
        pass
    return sent


@pytest.mark.slow
def test_a_rapid_reset_is_cut_with_a_goaway_and_other_players_never_notice(
    gated: ServerProcess, victim: Victim, volume: int
) -> None:
    quiet = victim.p99()
    cpu_before, calls_before = cpu_seconds(gated), len(victim.waits)
    attacker = RawConnection("127.0.0.1", gated.grpc_port)
    attacker.handshake()
    reader: list[Frame] = []
    listening = threading.Thread(target=lambda: reader.extend(read_until_closed(attacker, 10)))
    listening.start()
    send_attack(attacker, PAIRS * volume, reset=True)
    listening.join()
    attacker.close()
    spent = cpu_seconds(gated) - cpu_before
    (code, said), *_ = goaways(reader) or [(0, b"")]
    assert code == ENHANCE_YOUR_CALM and b"reset" in said, reader[-3:]
    assert not victim.failures, victim.failures
    print(
        f"rapid reset: {attacker.sent} bytes sent, {spent:.2f} s of server CPU (the victim's calls included), "
        f"victim p99 {victim.p99(calls_before) * 1e3:.1f} ms (quiet: {quiet * 1e3:.1f} ms)"
    )


def last_stream(frames: list[Frame]) -> int:
    """The last stream a GOAWAY says the server took (0: none came)."""
    found = [f for f in frames if f.kind == GOAWAY]
    return int(struct.unpack(">I", found[0].payload[:4])[0]) & 0x7FFF_FFFF if found else 0


@pytest.mark.slow
def test_a_rapid_reset_that_connects_again_after_each_cut_gets_no_new_allowance(
    gated: ServerProcess, victim: Victim
) -> None:
    """The allowance is the client address's, not its connection's: a connection made
    again after a cut starts where the last one ended, and is cut at once."""
    taken = []
    for _ in range(12):
        attacker = RawConnection("127.0.0.1", gated.grpc_port)
        attacker.handshake()
        reader: list[Frame] = []
        listening = threading.Thread(target=lambda c=attacker, r=reader: r.extend(read_until_closed(c, 10)))
        listening.start()
        send_attack(attacker, 4 * MAX_RESETS, reset=True, chunk=0)  # the server sees each pair apart
        listening.join()
        attacker.close()
        (code, _), *_ = goaways(reader) or [(0, b"")]
        assert code == ENHANCE_YOUR_CALM, reader[-3:]
        taken.append(last_stream(reader) // 2)  # client streams are odd: 2n + 1
    # One allowance for them all (the first spent what was left of it, the others only
    # what came back meanwhile), not one each.
    assert sum(taken) < 2 * MAX_RESETS and all(n < MAX_RESETS // 2 for n in taken[1:]), taken
    assert not victim.failures, victim.failures


@pytest.mark.slow
def test_a_stream_flood_past_the_limit_is_refused_then_cut(gated: ServerProcess, victim: Victim) -> None:
    attacker = RawConnection("127.0.0.1", gated.grpc_port)
    attacker.handshake(acknowledge=True)  # the server's limit on streams now binds
    reader: list[Frame] = []
    listening = threading.Thread(target=lambda: reader.extend(read_until_closed(attacker, 10)))
    listening.start()
    send_attack(attacker, 2_000, reset=False)  # streams opened and left open, past the 200 allowed
    listening.join()
    attacker.close()
    refused = [f for f in reader if f.kind == RST_STREAM and f.payload[:4] == (7).to_bytes(4, "big")]
    assert refused, "streams past the limit are refused (REFUSED_STREAM)"
    (code, said), *_ = goaways(reader) or [(0, b"")]
    assert code == ENHANCE_YOUR_CALM and b"past the server's limit" in said, reader[-3:]
    assert not victim.failures, victim.failures


def test_a_ping_flood_gets_a_goaway(gated: ServerProcess) -> None:
    # grpcio's own limit (held before): pings with no call in flight, more than every 10 s.
    attacker = RawConnection("127.0.0.1", gated.grpc_port)
    attacker.handshake()
    try:
        for number in range(50):
            attacker.send(frame(PING, 0, 0, number.to_bytes(8, "big")))
    except OSError:
        pass
    frames = read_until_closed(attacker, 10, ack_pings=False)
    attacker.close()
    assert any(code == ENHANCE_YOUR_CALM and said == b"too_many_pings" for code, said in goaways(frames)), frames[-3:]


def test_calls_through_the_gate_keep_their_clients_address(gated: ServerProcess) -> None:
    # The gRPC server sees the gate's connection; the creation limits count the client's.
    caller = RawConnection("127.0.0.1", gated.grpc_port, source="127.0.0.2")  # another address, by loopback
    caller.handshake()
    seats = [game_pb2.SeatSpec(name="Ana"), game_pb2.SeatSpec(name="Ben")]
    request = api.CreateGameRequest(kind="mooki", seats=seats).SerializeToString()
    path = "/ludotheque.v1.GameService/CreateGame"
    caller.send(
        frame(HEADERS, END_HEADERS, 1, grpc_request_headers(path, caller.authority))
        + frame(DATA, END_STREAM, 1, b"\0" + len(request).to_bytes(4, "big") + request)
    )
    caller.socket.settimeout(10)
    while (answer := caller.read_frame()) is not None and not (answer.kind == HEADERS and answer.flags & END_STREAM):
        pass
    caller.close()
    games = Rest(gated.http, ADMIN_TOKEN).get("/v1/games?pageSize=500").json["games"]
    assert "ip:127.0.0.2" in {game["createdBy"] for game in games}


@pytest.fixture(scope="module")
def capped() -> Iterator[ServerProcess]:
    settings = {
        "LUDOTHEQUE_MAX_CONNECTIONS_PER_CLIENT": str(PER_CLIENT),
        "LUDOTHEQUE_HTTP_BODY_TIMEOUT": str(BODY_TIMEOUT),
        # Longer than any test here waits: only the body timeout may close a connection.
        "LUDOTHEQUE_HTTP_HEADER_TIMEOUT": str(HOLD_ON),
        "LUDOTHEQUE_HTTP_IDLE_TIMEOUT": str(HOLD_ON),
    }
    with running_server(env=settings) as server:
        yield server


def admitted_grpc(server: ServerProcess, source: str) -> RawConnection:
    """A gRPC connection from `source`, once the server counted it (it answered)."""
    connection = RawConnection("127.0.0.1", server.grpc_port, source=source)
    connection.handshake(acknowledge=True)
    return connection


def admitted_http(server: ServerProcess, source: str) -> socket.socket:
    """An HTTP connection from `source`, kept open, once the server counted it (it answered)."""
    connection = socket.create_connection(("127.0.0.1", server.http_port), timeout=30, source_address=(source, 0))
    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert connection.recv(65536).startswith(b"HTTP/1.1 200")
    return connection


def served_again(server: ServerProcess, source: str) -> bool:
    """Whether a new HTTP connection from `source` is served (not refused as one too many)."""
    with socket.create_connection(("127.0.0.1", server.http_port), timeout=30, source_address=(source, 0)) as again:
        again.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return again.recv(65536).startswith(b"HTTP/1.1 200")


def test_connections_from_one_address_are_capped_on_both_ports_with_a_reason(capped: ServerProcess) -> None:
    # Each held one answered first: the server has counted it, however busy the machine.
    held: list[RawConnection | socket.socket] = [admitted_grpc(capped, "127.0.0.3") for _ in range(PER_CLIENT // 2)]
    held += [admitted_http(capped, "127.0.0.3"), admitted_http(capped, "127.0.0.3")]
    held += [admitted_grpc(capped, "127.0.0.3")]
    over = RawConnection("127.0.0.1", capped.grpc_port, source="127.0.0.3")
    over.handshake()
    (code, said), *_ = goaways(read_until_closed(over, 5)) or [(0, b"")]
    assert code == ENHANCE_YOUR_CALM and b"Too many connections from your address" in said
    with socket.create_connection(("127.0.0.1", capped.http_port), source_address=("127.0.0.3", 0)) as refused:
        refused.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = refused.recv(65536)
    assert answer.startswith(b"HTTP/1.1 429") and b"Retry-After: 1" in answer, answer[:300]
    # Another address is served meanwhile; and once the connections close, this one again.
    assert Rest(capped.http).get("/v1/kinds").status == 200
    for connection in held:
        connection.close()
    # The server notices the closes when it gets to them: until then, one too many.
    eventually(lambda: served_again(capped, "127.0.0.3") or None, 30, "the address served again", interval=0.1)


def test_a_play_websocket_holds_its_place_among_its_addresss_connections_until_it_closes(
    capped: ServerProcess,
) -> None:
    # aiohttp hands a Play WebSocket's connection over after the handshake (http_guard.py):
    # the connection's place goes with it, not back to the address.
    game_id = Rest(capped.http).post("/v1/games", {"kind": "mooki", "seats": [{}, {}]}).json["gameId"]
    sockets = [
        RawWebSocket("127.0.0.1", capped.http_port, "/v1/play", protocol="ludotheque.v1.json", source="127.0.0.5")
        for _ in range(PER_CLIENT)
    ]
    try:
        for socket_ in sockets:  # each a session (a spectator), answered: the handover is done
            socket_.send_text(json.dumps({"join": {"gameId": game_id}}))
            answer = socket_.receive()
            assert answer is not None and answer.opcode == TEXT, answer
        with socket.create_connection(("127.0.0.1", capped.http_port), source_address=("127.0.0.5", 0)) as over:
            over.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\n\r\n")
            assert over.recv(65536).startswith(b"HTTP/1.1 429")
    finally:
        for socket_ in sockets:
            socket_.close()
    eventually(lambda: served_again(capped, "127.0.0.5") or None, 30, "the address served again", interval=0.1)


@pytest.mark.parametrize(
    ("path", "content_type"),
    [("/v1/games", "application/json"), ("/ludotheque.v1.GameService/GetGame", "application/json")],
)
def test_a_body_trickled_a_byte_at_a_time_is_cut_at_the_body_timeout(
    capped: ServerProcess, path: str, content_type: str
) -> None:
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\nContent-Length: 10000\r\n\r\n"
    with socket.create_connection(("127.0.0.1", capped.http_port), timeout=10) as slow:
        slow.sendall(head.encode())
        started = time.monotonic()
        slow.settimeout(0.25)
        answer = b""
        answered = closed = 0.0
        # A minute bounds a hang; a busy machine may answer late, but only the body
        # timeout can answer at all (the others are HOLD_ON).
        while time.monotonic() - started < 60:
            try:
                slow.sendall(b" ")  # a byte every quarter second: never idle
                chunk = slow.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                closed = time.monotonic() - started
                break
            answer += chunk
            answered = answered or time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408") and answer.count(b"HTTP/1.1 ") == 1, answer[:300]
    assert answered >= 0.9 * BODY_TIMEOUT, answered  # not before the body's time was up
    # ...and the connection closed with it: nothing else would close it (before HOLD_ON),
    # while the trickle goes on.
    assert closed, (answered, closed)
