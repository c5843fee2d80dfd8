"""Bytes no client library sends, and clients that leave at the worst moment: each is
answered 4xx or ends cleanly, and the server's log stays quiet (no ERROR, no traceback,
no "Task was destroyed but it is pending!"), one warning line at most per request.

Before: a non-UTF-8 byte in `Authorization` or `Accept-Language`, a client closing in
the middle of its body (REST, Connect), an event stream written to after its client left
and a WebSocket session closed mid-race answered 500 with a traceback; a client's own
deadline or cancellation of `StreamEvents` was counted `UNKNOWN`; every malformed request
logged an ERROR with a traceback."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from ludotheque import Client
from ludotheque.v1 import game_service_pb2 as api
from ludotheque.v1 import game_service_pb2_grpc

from tests.hostile.test_catch_up import metric
from tests.hostile.test_stream_backpressure import SUBSCRIPTIONS
from tests.support.connect import envelope
from tests.support.raw_websocket import RawWebSocket
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server
from tests.support.sockets import connections_on
from tests.support.waiting import wait_until

CONNECT = "/ludotheque.v1.GameService"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with running_server(env={"LUDOTHEQUE_LOG_FORMAT": "json"}) as process:
        yield process


def mark(server: ServerProcess) -> int:
    """Where the log is now: its count of lines."""
    return len(server.log().splitlines())


def let_go(server: ServerProcess, held: int) -> None:
    """Waits until the server holds no more HTTP connections than `held` (what it held
    before the clients that left came): it noticed them all and their handlers ended,
    however long a busy machine takes to get to them."""
    wait_until(lambda: connections_on(server.process.pid, server.http_port) <= held, 30, "the clients let go")


def quiet_since(server: ServerProcess, since: int) -> list[dict[str, Any]]:
    """The log's lines written since `since`, parsed; fails on a loud one."""
    raw = server.log().splitlines()[since:]
    text = "\n".join(raw)
    assert "Task was destroyed" not in text and "Traceback" not in text, text[-4000:]
    lines = [json.loads(line) for line in raw if line.strip()]  # every line is JSON: nothing else wrote
    loud = [line for line in lines if line["level"] in ("error", "critical")]
    assert not loud, loud
    return lines


def raw_exchange(server: ServerProcess, request: bytes, *, close_early: bool = False) -> bytes:
    """Sends bytes as they are; the server's answer (b"" when it only closed), or nothing
    read at all when `close_early` (the client leaves at once)."""
    with socket.create_connection(("127.0.0.1", server.http_port), timeout=10) as connection:
        connection.sendall(request)
        if close_early:
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")  # RST on close
            return b""
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and _complete(answer):
                break
        return answer


def _complete(answer: bytes) -> bool:
    """Whether the answer is whole: its body as long as it says, or a stream's head."""
    head, _, body = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(body) >= int(line.split(b":")[1])
    return True  # a stream: its head is enough


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


@pytest.fixture(scope="module")
def game_id(server: ServerProcess) -> str:
    return Client(server.target).create_game("mooki", ["Cléo", "Robin"]).game_id


@pytest.mark.parametrize("header", [b"Authorization: Bearer \xff\xfe-token", b"Accept-Language: fr-\xe9\xff"])
def test_a_header_that_is_not_utf8_is_a_4xx_on_every_route(server: ServerProcess, game_id: str, header: bytes) -> None:
    before = mark(server)
    requests = [
        b"GET /v1/games/" + game_id.encode() + b" HTTP/1.1\r\nHost: x\r\n" + header + b"\r\n\r\n",
        b"GET /v1/games/" + game_id.encode() + b"/events:stream HTTP/1.1\r\nHost: x\r\n" + header + b"\r\n\r\n",
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        + header
        + b"\r\n\r\n{}",
        b"POST " + CONNECT.encode() + b"/GetGame HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\n" + header + b"\r\n\r\n{}",
    ]
    for request in requests:
        answer = raw_exchange(server, request.replace(b"HTTP/1.1\r\n", b"HTTP/1.1\r\nConnection: close\r\n", 1))
        assert 200 <= status(answer) < 500, answer[:300]
    quiet_since(server, before)


def test_a_client_that_leaves_in_the_middle_of_its_body_ends_cleanly(server: ServerProcess, game_id: str) -> None:
    before, held = mark(server), connections_on(server.process.pid, server.http_port)
    body = json.dumps({"gameId": game_id}).encode()
    for path, content_type in (
        (b"/v1/games", b"application/json"),
        (CONNECT.encode() + b"/GetGame", b"application/json"),
        (CONNECT.encode() + b"/StreamEvents", b"application/connect+json"),
    ):
        head = b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Type: " + content_type
        raw_exchange(server, head + b"\r\nContent-Length: 1000\r\n\r\n" + envelope(body)[:10], close_early=True)
    let_go(server, held)
    quiet_since(server, before)
    assert Rest(server.http).get(f"/v1/games/{game_id}").status == 200


def test_a_client_that_leaves_during_the_websocket_handshake_ends_quietly(server: ServerProcess) -> None:
    """Its upgrade is answered to a socket it has already reset: no error logged."""
    before, held = mark(server), connections_on(server.process.pid, server.http_port)
    upgrade = (
        b"GET /v1/play HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        b"Sec-WebSocket-Protocol: ludotheque.v1.json\r\n\r\n"
    )
    for _ in range(40):
        raw_exchange(server, upgrade, close_early=True)
    let_go(server, held)
    quiet_since(server, before)


def leave_streams(server: ServerProcess, game_id: str, count: int) -> None:
    """Opens `count` event streams of the game (SSE and Connect in turn), each read until
    it has begun, then drops them all without a word (a reset)."""
    body = envelope(json.dumps({"gameId": game_id}).encode())
    requests = (
        f"GET /v1/games/{game_id}/events:stream HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
        f"POST {CONNECT}/StreamEvents HTTP/1.1\r\nHost: x\r\nContent-Type: application/connect+json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body,
    )
    followers = []
    for number in range(count):
        connection = socket.create_connection(("127.0.0.1", server.http_port), timeout=10)
        connection.sendall(requests[number % 2])
        connection.recv(10)  # the stream has begun
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
        followers.append(connection)
    for connection in followers:
        connection.close()


def test_an_event_stream_whose_client_left_ends_quietly(server: ServerProcess) -> None:
    client = Client(server.target)
    created = client.create_game("mooki", ["Cléo", "Robin"])
    before, streams = mark(server), metric(server, SUBSCRIPTIONS)
    leave_streams(server, created.game_id, 20)
    seat = client.with_token(created.seat_tokens[0])
    game = seat.get_game(created.game_id)
    if game.legal_commands:  # an event for streams whose clients are gone
        seat.submit(created.game_id, game.legal_commands[0])
    leave_streams(server, created.game_id, 20)
    # The streams' last word, an error (the game is gone), to clients that left.
    assert Rest(server.http, ADMIN_TOKEN).call("DELETE", f"/v1/games/{created.game_id}").status == 200
    # The streams end by themselves, once the server tries to write to them.
    wait_until(lambda: metric(server, SUBSCRIPTIONS) <= streams, 30, "the streams ended")
    quiet_since(server, before)


def handled(server: ServerProcess, code: str) -> float:
    text = Rest(server.http).get("/metrics").body.decode()
    total = 0.0
    for line in text.splitlines():
        counted = line.startswith("grpc_server_handled_total{") and 'grpc_method="StreamEvents"' in line
        if counted and f'grpc_code="{code}"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_a_clients_own_deadline_and_cancellation_are_counted_as_theirs(server: ServerProcess, game_id: str) -> None:
    deadlines, cancels, unknown = (handled(server, c) for c in ("DEADLINE_EXCEEDED", "CANCELLED", "UNKNOWN"))
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        late = stub.StreamEvents(api.StreamEventsRequest(game_id=game_id), timeout=0.5)
        with pytest.raises(grpc.RpcError) as ended:
            for _ in late:
                pass
        assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        dropped = stub.StreamEvents(api.StreamEventsRequest(game_id=game_id), timeout=30)
        next(dropped)
        dropped.cancel()
    for _ in range(150):  # the server counts once its side of each call is over
        if handled(server, "DEADLINE_EXCEEDED") > deadlines and handled(server, "CANCELLED") > cancels:
            break
        time.sleep(0.1)
    assert handled(server, "DEADLINE_EXCEEDED") == deadlines + 1
    assert handled(server, "CANCELLED") == cancels + 1
    assert handled(server, "UNKNOWN") == unknown


MALFORMED = [
    b"GARBAGE\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    b"GET / HTTP/1.1\r\nHo st: x\r\n\r\n",
    b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /v1/games HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
]


def test_malformed_http_is_one_warning_line_each(server: ServerProcess) -> None:
    before = mark(server)
    for request in MALFORMED:
        answer = raw_exchange(server, request)
        assert not answer or 400 <= status(answer) < 500, answer[:200]
    lines = quiet_since(server, before)
    warnings = [line for line in lines if line["level"] == "warning"]
    assert len(warnings) <= len(MALFORMED), warnings


def test_play_sessions_whose_clients_vanish_mid_session_end_cleanly(server: ServerProcess) -> None:
    client = Client(server.target)
    games = [client.create_game("pirates", ["Cléo", {"name": "Robin", "bot": "random"}]) for _ in range(4)]
    before, held = mark(server), connections_on(server.process.pid, server.http_port)
    draw = random.Random(27)

    def session(number: int) -> None:
        game = games[number % len(games)]
        socket_ = RawWebSocket("127.0.0.1", server.http_port, "/v1/play", protocol="ludotheque.v1.json")
        join = {"gameId": game.game_id, "token": game.seat_tokens[0], "viewUpdates": True, "presence": True}
        socket_.sock.settimeout(5)
        socket_.send_text(json.dumps({"join": join}))
        for _ in range(number % 2):  # leaves at once, or after its first message
            socket_.receive()
        if draw.random() < 0.5:  # a reset, or a close frame (1000) sent as the server writes
            socket_.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
        else:
            socket_.sock.sendall(b"\x88\x82abcd" + bytes(x ^ y for x, y in zip(b"\x03\xe8", b"ab", strict=True)))
        socket_.close()

    sessions = [threading.Thread(target=session, args=(number,)) for number in range(120)]
    for thread in sessions:
        thread.start()
    for thread in sessions:
        thread.join()
    let_go(server, held)  # the sessions end by themselves
    quiet_since(server, before)
