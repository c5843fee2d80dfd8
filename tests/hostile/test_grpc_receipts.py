"""gRPC catch-ups from version 1 of a long game, on a connection that grants the server
the largest window HTTP/2 allows and has a deep receive buffer, never read.

Before: HTTP/2's flow control is the client's to open, and a WINDOW_UPDATE proves
nothing read, so such a client was sent the whole game (0.75 MB a stream of a
5,500-event game, in protobuf; 20 streams, 8.8 s of server CPU) into buffers nobody
read, until the keep-alive ping went unanswered 80 s later. Now the gRPC gate asks for
read receipts (a PING of its own every 16 KiB, service/api/grpc_gate.py) and reads the
server no further while `GATE_UNREAD` bytes are not acknowledged: a client that stops
reading holds a fixed amount, and one that reads (and so acknowledges) gets it all."""

from __future__ import annotations

import socket
import struct

import pytest
from ludotheque import Client
from ludotheque.v1 import game_service_pb2 as api

from service.api.grpc_gate import GATE_UNREAD, UPSTREAM_BUFFER_BYTES
from service.bench.h2 import (
    ACK,
    DATA,
    END_HEADERS,
    END_STREAM,
    HEADERS,
    PING,
    PREFACE,
    SETTINGS,
    WINDOW_UPDATE,
    frame,
    grpc_request_headers,
)
from tests.hostile.test_catch_up import DEEP_BUFFER, long_game, metric
from tests.hostile.test_stream_backpressure import queued
from tests.support.server import ServerProcess
from tests.support.waiting import wait_until

WAITS = "ludotheque_grpc_receipt_waits_total"
LARGEST_WINDOW = (1 << 31) - 1
INITIAL_WINDOW_SIZE = 0x4  # the SETTINGS parameter
STREAMS = 4
# What a held client may have been sent: what it has not acknowledged, one read of the
# gate's (its socket toward gRPC is this small, doubled by Linux) and a frame of 16 KiB.
HELD_AT_MOST = GATE_UNREAD + 2 * UPSTREAM_BUFFER_BYTES + 16 * 1024 + 4096


def _message(request: api.StreamEventsRequest | api.PlayRequest) -> bytes:
    data = request.SerializeToString()
    return struct.pack(">BI", 0, len(data)) + data


def wide_open(server: ServerProcess, method: str, game_id: str) -> socket.socket:
    """A gRPC call on a connection whose client grants the largest window, and has a
    receive buffer of megabytes, then reads nothing."""
    if method == "StreamEvents":
        body, end = _message(api.StreamEventsRequest(game_id=game_id, from_version=1)), END_STREAM
    else:  # Play's session stays open: its request stream is not ended
        join = api.PlayJoin(game_id=game_id, from_version=1, views=True, view_updates=True)
        body, end = _message(api.PlayRequest(join=join)), 0
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, DEEP_BUFFER)
    client.connect(("127.0.0.1", server.grpc_port))
    client.sendall(
        PREFACE
        + frame(SETTINGS, 0, 0, struct.pack(">HI", INITIAL_WINDOW_SIZE, LARGEST_WINDOW))
        + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", LARGEST_WINDOW - 65_535))
        + frame(HEADERS, END_HEADERS, 1, grpc_request_headers(f"/ludotheque.v1.GameService/{method}", "x"))
        + frame(DATA, end, 1, body)
    )
    return client


def streamed_bytes(server: ServerProcess, game_id: str) -> int:
    """What the whole of a finished game's anonymous StreamEvents weighs on the wire:
    each message and its 5-byte gRPC prefix."""
    with Client(server.target) as client:
        stream = client.stub.StreamEvents(api.StreamEventsRequest(game_id=game_id, from_version=1), timeout=30)
        return sum(5 + response.ByteSize() for response in stream)


def read_acknowledging(client: socket.socket) -> int:
    """Reads the call to its end as any HTTP/2 library would (acknowledging SETTINGS and
    PINGs): the DATA bytes of stream 1."""
    client.settimeout(30)
    buffer, received = b"", 0
    while True:
        while len(buffer) < 9 or len(buffer) < 9 + int.from_bytes(buffer[:3], "big"):
            chunk = client.recv(1 << 20)
            assert chunk, "the connection closed before the call ended"
            buffer += chunk
        length = int.from_bytes(buffer[:3], "big")
        kind, flags, stream = buffer[3], buffer[4], int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF
        payload, buffer = buffer[9 : 9 + length], buffer[9 + length :]
        if kind == PING and not flags & ACK:
            client.sendall(frame(PING, ACK, 0, payload))
        elif kind == SETTINGS and not flags & ACK:
            client.sendall(frame(SETTINGS, ACK, 0))
        elif kind == DATA and stream == 1:
            received += length
        if stream == 1 and flags & END_STREAM:
            return received


@pytest.mark.parametrize("method", ["StreamEvents", "Play"])
def test_a_grpc_client_that_grants_the_largest_window_and_never_reads_holds_a_fixed_amount(
    server: ServerProcess, method: str, volume: int
) -> None:
    game_id, weight = long_game(server)
    waits = metric(server, WAITS)
    clients = [wide_open(server, method, game_id) for _ in range(STREAMS * volume)]
    # Each is held back once it was sent what it may hold unread: nothing more comes
    # (but the PINGs asking for a receipt) until it says it read.
    wait_until(lambda: metric(server, WAITS) >= waits + len(clients), 30, "the clients held back")
    held = queued(server, clients)
    assert 0 < max(held) < HELD_AT_MOST, held
    assert max(held) * 4 < weight, (held, weight)  # not the game (JSON weighs about twice protobuf)
    if method == "StreamEvents":
        # One that reads, and so acknowledges, gets the rest: the whole game, then its end.
        # (The game is random: its size is the stream's, not a figure.)
        assert read_acknowledging(clients[0]) == streamed_bytes(server, game_id) > max(held)
    for client in clients:
        client.close()
