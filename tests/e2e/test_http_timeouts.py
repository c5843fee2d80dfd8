"""The HTTP port's time limits, with raw sockets: 2,000 requests whose head never
completes are closed after the header timeout (not held for a minute), connections that
send nothing after the idle timeout, while the server goes on answering; an event stream
lasts as long as it is followed."""

from __future__ import annotations

import contextlib
import resource
import selectors
import socket
import time
from collections.abc import Iterator

import pytest

from tests.support.rest import Rest
from tests.support.server import ServerProcess, running_server

HALF_SENT = 2000
HEADER_TIMEOUT = 1.0
# Well past the header timeout: which of the two closed a connection shows even when a
# busy machine takes seconds to get to it.
IDLE_TIMEOUT = 6.0


@pytest.fixture(scope="module")
def timed_server() -> Iterator[ServerProcess]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 2 * HALF_SENT + 1000  # our sockets, and the server's (it inherits the limit)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    settings = {
        "LUDOTHEQUE_HTTP_HEADER_TIMEOUT": str(HEADER_TIMEOUT),
        "LUDOTHEQUE_HTTP_IDLE_TIMEOUT": str(IDLE_TIMEOUT),
    }
    try:
        with running_server(env=settings) as server:
            yield server
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def open_connections(server: ServerProcess, count: int, first_bytes: bytes) -> list[socket.socket]:
    connections = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", server.http_port), timeout=10)
        if first_bytes:
            connection.sendall(first_bytes)
        connections.append(connection)
    return connections


def seconds_until_all_closed(connections: list[socket.socket], limit: float) -> float:
    """How long until the server closed every connection (reads end); fails past `limit`."""
    start = time.monotonic()
    selector = selectors.DefaultSelector()
    for connection in connections:
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ)
    open_ones = len(connections)
    try:
        while open_ones:
            left = limit - (time.monotonic() - start)
            assert left > 0, f"{open_ones} of {len(connections)} connections still open after {limit}s"
            for key, _ in selector.select(timeout=left):
                ready = key.fileobj
                assert isinstance(ready, socket.socket)
                try:
                    data = ready.recv(4096)
                except ConnectionResetError:
                    data = b""
                if not data:
                    selector.unregister(ready)
                    open_ones -= 1
        return time.monotonic() - start
    finally:
        selector.close()
        for connection in connections:
            connection.close()


@pytest.mark.slow
def test_requests_whose_head_never_completes_are_closed_after_the_header_timeout(timed_server: ServerProcess) -> None:
    rest = Rest(timed_server.http)
    trickling = open_connections(timed_server, HALF_SENT, b"GET /v1/games HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    assert rest.get("/healthz").status == 200  # served meanwhile
    took = seconds_until_all_closed(trickling, limit=HEADER_TIMEOUT + 10)
    assert took < IDLE_TIMEOUT, f"{took:.1f}s: closed by the idle timeout, not the header timeout"
    assert rest.get("/healthz").status == 200


def test_a_connection_that_sends_nothing_is_closed_after_the_idle_timeout(timed_server: ServerProcess) -> None:
    silent = open_connections(timed_server, 20, b"")
    took = seconds_until_all_closed(silent, limit=IDLE_TIMEOUT + 10)
    assert took >= IDLE_TIMEOUT - 0.5


def test_a_request_trickled_in_within_the_header_timeout_is_answered(timed_server: ServerProcess) -> None:
    with socket.create_connection(("127.0.0.1", timed_server.http_port), timeout=10) as connection:
        for part in (b"GET /healthz HTTP/1.1\r\n", b"Host: x\r\n", b"Connection: close\r\n", b"\r\n"):
            connection.sendall(part)
            time.sleep(HEADER_TIMEOUT / 20)  # parts apart, as a slow client's (and time to spare on a busy machine)
        answer = connection.recv(4096)
    assert answer.startswith(b"HTTP/1.1 200")


def test_an_event_stream_outlives_both_timeouts(timed_server: ServerProcess) -> None:
    rest = Rest(timed_server.http)
    game = rest.post("/v1/games", {"kind": "mooki", "seats": [{"name": "a"}, {"name": "b"}]}).json["gameId"]
    with socket.create_connection(("127.0.0.1", timed_server.http_port), timeout=IDLE_TIMEOUT + 5) as connection:
        connection.sendall(f"GET /v1/games/{game}/events:stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        first = connection.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        connection.settimeout(0.2)
        deadline = time.monotonic() + IDLE_TIMEOUT + 1
        while time.monotonic() < deadline:  # the stream waits for moves: nothing to read, never closed
            with contextlib.suppress(TimeoutError):
                assert connection.recv(65536) != b"", "the server closed a stream it was answering"


@pytest.mark.parametrize(
    ("path", "content_type"),
    [("/v1/games", b"application/json"), ("/ludotheque.v1.GameService/CreateGame", b"application/json")],
)
def test_a_body_that_stops_arriving_is_a_408(timed_server: ServerProcess, path: str, content_type: bytes) -> None:
    with socket.create_connection(("127.0.0.1", timed_server.http_port), timeout=IDLE_TIMEOUT + 10) as connection:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type.decode()}\r\nContent-Length: 100\r\n\r\n"
        )
        connection.sendall(head.encode() + b'{"kind": ')  # and nothing more
        started = time.monotonic()
        answer = connection.recv(65536)  # (an answer that never comes: the socket's timeout)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert time.monotonic() - started >= IDLE_TIMEOUT - 0.5  # not before the body went idle that long
