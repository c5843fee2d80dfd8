"""Event streams over HTTP/1.1 that nobody reads: server-sent events and Connect's
StreamEvents, from version 1 of a long game.

Before: 20 such streams (a client's receive buffer of 4 KiB, never read) to a
5,586-event game each had the server render the whole game into its socket, whose send
buffer Linux grows to megabytes (2.3 MB of SSE, 1.9 MB of Connect queued a stream),
for 9.9 s (SSE) and 8.0 s (Connect) of server CPU. Now a stream reads its next event
only once its last write is taken, into capped buffers (service/api/backpressure.py):
a stream that is not read stops at a fixed amount, and is cut once a write has waited
--websocket-send-timeout for it. What the server held for each stream is counted in
the kernel's queues (its sockets' and the client's), polled until every stream began
and the server let them all go: the test waits on that, not on a window of time."""

from __future__ import annotations

import fcntl
import functools
import json
import socket
import struct
import termios
from collections.abc import Callable, Iterator

import pytest

from service.api.backpressure import SEND_BUFFER_BYTES
from service.api.http_server import CATCH_UP_PAGE
from tests.hostile.test_catch_up import DEEP_BUFFER, long_game, metric
from tests.hostile.test_connections import cpu_seconds
from tests.support.rest import Rest
from tests.support.server import ServerProcess, running_server
from tests.support.sockets import tcp_sockets
from tests.support.waiting import wait_until

STREAMS = 8  # never-reading streams at once (x10 with --hostile-long)
SMALL_BUFFER = 4096  # the client's receive buffer: it reads nothing, and says so
SUBSCRIPTIONS = "ludotheque_active_subscriptions"
ESTABLISHED = 1  # tcp_info's state of a connection no FIN or RST has come to (Linux's TCP_ESTABLISHED)
# TCP queues a write's last segment past a full send buffer: up to this much more.
LAST_SEGMENT = 64 * 1024


@pytest.fixture(scope="module")
def impatient() -> Iterator[ServerProcess]:
    """A server that cuts a stream whose client read nothing for three seconds (time
    enough for a busy machine to look at what it held)."""
    with running_server(env={"LUDOTHEQUE_WEBSOCKET_SEND_TIMEOUT": "3"}) as process:
        yield process


def unread(port: int, buffer: int) -> socket.socket:
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, buffer)  # before connecting: the window too
    client.connect(("127.0.0.1", port))
    return client


def sse(server: ServerProcess, game_id: str, buffer: int = SMALL_BUFFER) -> socket.socket:
    client = unread(server.http_port, buffer)
    client.sendall(f"GET /v1/games/{game_id}/events:stream?fromVersion=1 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return client


def connect_stream(server: ServerProcess, game_id: str, buffer: int = SMALL_BUFFER) -> socket.socket:
    message = json.dumps({"gameId": game_id, "fromVersion": 1}).encode()
    body = struct.pack(">BI", 0, len(message)) + message
    client = unread(server.http_port, buffer)
    head = (
        "POST /ludotheque.v1.GameService/StreamEvents HTTP/1.1\r\nHost: x\r\n"
        f"Content-Type: application/connect+json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    client.sendall(head.encode() + body)
    return client


def held_at_most(client: socket.socket) -> int:
    """What a stream may hold for `client` (connected) in the kernel's queues: the server
    socket's send buffer as capped (Linux doubles what is asked, up to
    net.core.wmem_max), a segment past it, and the client's receive buffer as the kernel
    set it. A fixed amount, whatever the game's length and the machine's speed."""
    with open("/proc/sys/net/core/wmem_max") as wmem_max:
        send_buffer = 2 * min(SEND_BUFFER_BYTES, int(wmem_max.read()))
    return send_buffer + LAST_SEGMENT + client.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)


def connected(client: socket.socket) -> bool:
    """Whether `client`'s connection is open as the client sees it (no FIN or RST came):
    while it is, its port is its own, and the server's socket toward that port is its
    stream's."""
    return client.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] == ESTABLISHED


def queued(server: ServerProcess, clients: list[socket.socket]) -> list[int]:
    """The bytes each client has been sent and not read: in its receive queue, and, while
    it is connected, in the queues of the server's socket toward it (a connection's
    port, once it is closed, may be another's: the test's reads of /metrics)."""
    ports = {client.getsockname()[1]: index for index, client in enumerate(clients) if connected(client)}
    held = [_unread_by(client) for client in clients]
    for each in tcp_sockets(server.process.pid):
        if each.remote_port in ports:
            held[ports[each.remote_port]] += each.send_queue + each.receive_queue
    return held


def _unread_by(client: socket.socket) -> int:
    with_error = fcntl.ioctl(client.fileno(), termios.FIONREAD, b"\0\0\0\0")
    return int(struct.unpack("I", with_error)[0])


def streams_held(
    server: ServerProcess, open_stream: Callable[[ServerProcess, str], socket.socket], game_id: str, count: int
) -> tuple[list[int], list[int], int]:
    """Opens `count` never-reading streams from version 1 of the game, and returns the
    most bytes each held before the server ended it and let its subscription go, what
    each may hold at most (held_at_most), and how many times the server's /metrics was
    read meanwhile (to know whether they are gone)."""
    before = metric(server, SUBSCRIPTIONS)
    clients = [open_stream(server, game_id) for _ in range(count)]
    bounds = [held_at_most(client) for client in clients]
    most = [0] * count
    polls = 0

    def ended() -> bool:
        nonlocal polls
        held = queued(server, clients)
        most[:] = [max(a, b) for a, b in zip(most, held, strict=True)]
        if not all(most):
            return False  # a stream not yet begun (its subscription not yet counted)
        polls += 1
        return metric(server, SUBSCRIPTIONS) <= before

    # However long a busy machine takes to serve and cut them: a minute bounds a hang.
    wait_until(ended, 60, "the streams nobody reads begun, then ended by the server")
    for client in clients:
        client.close()
    return most, bounds, polls


def metrics_cost(server: ServerProcess, reads: int = 20) -> float:
    """The server's CPU seconds for one read of /metrics (the test's polling of it)."""
    spent = cpu_seconds(server)
    for _ in range(reads):
        metric(server, SUBSCRIPTIONS)
    return (cpu_seconds(server) - spent) / reads


@pytest.mark.parametrize("open_stream", [sse, connect_stream], ids=["sse", "connect"])
def test_a_stream_nobody_reads_holds_a_fixed_buffer_and_is_cut(
    impatient: ServerProcess, open_stream: Callable[[ServerProcess, str], socket.socket], volume: int
) -> None:
    game_id, weight = long_game(impatient)
    whole = cpu_seconds(impatient)
    # One client reads it all (page after page, as an EventSource would).
    read = Rest(impatient.http).resumed_events(f"/v1/games/{game_id}/events:stream?fromVersion=1")
    assert [int(event_id) for event_id, _, _ in read] == list(range(1, len(read) + 1)), "every event, in order"
    assert read[-1][2]["event"]["gameOver"], "to the end"
    whole = cpu_seconds(impatient) - whole
    poll = metrics_cost(impatient)
    spent = cpu_seconds(impatient)
    most, bounds, polls = streams_held(impatient, open_stream, game_id, STREAMS * volume)
    # The streams' own CPU: less the test's reads of /metrics meanwhile (a busy machine
    # takes longer to let them go, and the test polls the more).
    spent = cpu_seconds(impatient) - spent - polls * poll
    held = max(most)
    assert all(0 < each < bound for each, bound in zip(most, bounds, strict=True)), (most, bounds)  # a fixed buffer
    assert held * 2 < weight, (held, weight)  # not the game: at most half of one of 1,500 events or more
    # Each stream rendered what it held, not the game: together, less than a few clients
    # reading the whole game (before, each of them cost one).
    assert spent < STREAMS * volume * whole / 2, (spent, whole)


@pytest.mark.parametrize("open_stream", [sse, connect_stream], ids=["sse", "connect"])
def test_a_stream_with_a_deep_receive_buffer_is_sent_a_page_of_the_past_and_ends(
    impatient: ServerProcess, open_stream: Callable[[ServerProcess, str, int], socket.socket], volume: int
) -> None:
    """Before: a client that made its receive buffer deep (4 MiB asked) was sent the whole
    game for one request (2.3 MB of SSE a stream, 20 streams 16 s of CPU): HTTP/1.1 has no
    read receipt. Now a catch-up ends after a page of the past (CATCH_UP_PAGE events, as
    ListEvents gives), and the next page takes another request."""
    game_id, weight = long_game(impatient)
    page = len(Rest(impatient.http).get(f"/v1/games/{game_id}/events?fromVersion=1&pageSize={CATCH_UP_PAGE}").body)
    deep = functools.partial(_deep, open_stream)
    most, _, _ = streams_held(impatient, deep, game_id, STREAMS * volume)
    held = max(most)
    assert page / 2 < held < page * 1.5, (held, page)  # a page, in the stream's framing
    assert held * 3 < weight * 2, (held, weight)  # not the game: its first 1,000 of 1,500 events or more


def _deep(
    open_stream: Callable[[ServerProcess, str, int], socket.socket], server: ServerProcess, game_id: str
) -> socket.socket:
    return open_stream(server, game_id, DEEP_BUFFER)
