"""Requests sized to their message (service/api/body_limits.py): a move or a creation is
refused past 16 KiB on every transport, before it is parsed, with RESOURCE_EXHAUSTED /
413 naming the limit; only a game's log (ImportGame, ReplayLog) may be as large as
--max-message-bytes; a compressed body that inflates past 100 times its size is refused
as a bomb; and the HTTP connection of a refused compressed body is closed, its rest
never read (nor inflated).

Before: every route took 1 MiB bodies (a 1 MB JSON body to `POST /v1/games` cost about
0.07 s of the event loop to be refused, 400 INVALID_ARGUMENT); a 200 KB gzip bomb cost
0.55 s of CPU (aiohttp inflated the rest of the body after the refusal, to read the
connection on); large bodies were parsed on the event loop."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import json
import random
import socket
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from ludotheque.v1 import game_pb2, game_service_pb2_grpc
from ludotheque.v1 import game_service_pb2 as api

from service.api.body_limits import PARSE_ON_LOOP_BYTES, SMALL_MESSAGE_BYTES, parse_off_loop
from tests.support.raw_websocket import RawWebSocket
from tests.support.server import ServerProcess, running_server

CONNECT = "/ludotheque.v1.GameService"
OVER = 100_000  # bytes: far past a move's limit, far below --max-message-bytes


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with running_server() as process:
        yield process
        assert process.process.poll() is None, f"the server died:\n{process.log()}"


def post(server: ServerProcess, path: str, body: bytes, **headers: str) -> tuple[int, dict[str, Any], bool]:
    """The status and JSON answer to a POST, and whether the server closed the connection."""
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json", **headers})
        response = connection.getresponse()
        answer = json.loads(response.read())
        return response.status, answer, response.will_close
    finally:
        connection.close()


def creation_of(size: int) -> bytes:
    return json.dumps({"kind": "mooki", "seats": [{"name": "x" * size}, {"name": "Ben"}]}).encode()


def test_a_creation_past_its_limit_is_refused_413_naming_the_limit(server: ServerProcess) -> None:
    status, answer, _ = post(server, "/v1/games", creation_of(OVER))
    assert status == 413 and answer["code"] == 8, answer
    assert f"{SMALL_MESSAGE_BYTES:,} bytes" in str(answer["message"]) and "CreateGame" in str(answer["message"])
    status, answer, _ = post(server, "/v1/games", creation_of(20))
    assert status == 200, answer


def test_connect_refuses_a_large_move_413_resource_exhausted(server: ServerProcess) -> None:
    body = json.dumps({"gameId": "g", "command": {"note": "x" * OVER}}).encode()
    status, answer, _ = post(server, f"{CONNECT}/SubmitCommand", body)
    assert status == 413 and answer["code"] == "resource_exhausted", answer
    assert f"{SMALL_MESSAGE_BYTES:,} bytes" in str(answer["message"])


def test_grpc_refuses_a_large_creation_resource_exhausted_before_parsing(server: ServerProcess) -> None:
    seats = [game_pb2.SeatSpec(name="x" * OVER), game_pb2.SeatSpec(name="Ben")]
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.CreateGame(api.CreateGameRequest(kind="mooki", seats=seats), timeout=10)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert f"{SMALL_MESSAGE_BYTES:,} bytes" in (refused.value.details() or "")


def test_a_play_frame_past_a_moves_limit_closes_1009(server: ServerProcess) -> None:
    socket_ = RawWebSocket("127.0.0.1", server.http_port, "/v1/play", protocol="ludotheque.v1.json")
    try:
        socket_.send_text(json.dumps({"join": {"gameId": "g", "token": "x" * 60_000}}))  # (a 16-bit length)
        while (frame := socket_.receive()) is not None and frame.close_code is None:
            pass
        assert frame is not None and frame.close_code == 1009  # message too big
    finally:
        socket_.close()


def test_a_game_log_may_be_as_large_as_max_message_bytes(server: ServerProcess) -> None:
    # Not a log at all, but its size is taken: the answer is about its content.
    status, answer, _ = post(server, "/v1/logs:replay", b"{" + b" " * (4 * OVER) + b"}")
    assert status == 400 and answer["code"] == 3, answer


def test_a_gzip_bomb_is_refused_and_its_rest_never_inflated(server: ServerProcess) -> None:
    bomb = gzip.compress(b"{" + b" " * (20 << 20) + b"}", 9)  # 20 KB inflating to 20 MB
    status, answer, closed = post(server, "/v1/logs:replay", bomb, **{"Content-Encoding": "gzip"})
    assert status == 413 and answer["code"] == 8 and closed, answer
    # Refused on its Content-Length alone, before a byte is read: closed all the same.
    declared = gzip.compress(random.Random(42).randbytes(2 * SMALL_MESSAGE_BYTES))
    status, answer, closed = post(server, "/v1/games", declared, **{"Content-Encoding": "gzip"})
    assert status == 413 and closed, answer


def test_a_body_inflating_past_the_ratio_is_refused_under_the_size_limit(server: ServerProcess) -> None:
    small_bomb = gzip.compress(b"{" + b" " * (900 << 10) + b"}", 9)  # about 1 KB to 900 KiB: under 1 MiB
    assert len(small_bomb) * 100 < 900 << 10
    status, answer, closed = post(server, "/v1/logs:replay", small_bomb, **{"Content-Encoding": "gzip"})
    assert status == 413 and "compression bomb" in str(answer["message"]) and closed, answer
    honest = gzip.compress(json.dumps({"log": {"events": [{"version": n} for n in range(500)]}}).encode())
    status, answer, _ = post(server, "/v1/logs:replay", honest, **{"Content-Encoding": "gzip"})
    assert status == 200 and answer["problem"]["where"] == "the header", answer  # read, replayed, found wanting


def test_a_refused_body_leaves_the_server_serving(server: ServerProcess) -> None:
    """The connection of a body refused mid-way is closed; the next one is served."""
    with socket.create_connection(("127.0.0.1", server.http_port), timeout=10) as connection:
        head = f"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {10 * OVER}"
        connection.sendall(head.encode() + b"\r\n\r\n" + b"{" + b" " * OVER)
        answer = connection.recv(65536)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    status, _, _ = post(server, "/v1/games", creation_of(10))
    assert status == 200


def test_a_large_request_is_parsed_beside_the_event_loop_a_small_one_on_it() -> None:
    async def where(size: int) -> bool:
        loop_thread = threading.get_ident()
        return await parse_off_loop(size, lambda: threading.get_ident() == loop_thread)

    assert asyncio.run(where(PARSE_ON_LOOP_BYTES)) is True
    assert asyncio.run(where(PARSE_ON_LOOP_BYTES + 1)) is False
