"""What one client's HTTP/2 frames may make the gRPC port do, counted as they pass the
gate (grpc_gate.py), for the floods of the 2023–2024 advisories that grpcio's own options
let through (measured with grpcio 1.85: docs/SECURITY.md):

- a header block (HEADERS, then CONTINUATION frames until END_HEADERS) of at most
  MAX_HEADER_BLOCK bytes: a CONTINUATION flood never ends its block, and grpcio reads
  it for ever (64 MB accepted, +37 MB of memory, never cut, even with
  grpc.max_metadata_size set);
- SETTINGS and PING frames (each one the server must answer) at most CONTROL_BURST in
  a burst, coming back over CONTROL_WINDOW seconds: grpcio answers 4.5 million
  SETTINGS frames on one connection without a word (it cuts PINGs only without a call
  in flight);
- at most MAX_PINNED streams at once to which the client granted no window to answer
  in (SETTINGS_INITIAL_WINDOW_SIZE 0, and no WINDOW_UPDATE of the stream since): each
  holds its answer in the server's memory until the client grants one, if ever.

Past any of them, the gate sends a GOAWAY (ENHANCE_YOUR_CALM) saying which, and closes
the connection. Counted in frames and bytes, never in time: what a flood costs before
the cut does not depend on how busy the server is."""

from __future__ import annotations

import struct
import time

HEADERS, RST_STREAM, SETTINGS, PING, WINDOW_UPDATE, CONTINUATION = 0x1, 0x3, 0x4, 0x6, 0x8, 0x9
PUSH_PROMISE = 0x5
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4
INITIAL_WINDOW_SIZE = 0x4  # a SETTINGS parameter
DEFAULT_WINDOW = 65_535  # HTTP/2's initial stream window, until the client's SETTINGS say otherwise
MAX_HEADER_BLOCK = 64 * 1024  # bytes of one compressed header block: a gRPC call's are a few hundred
CONTROL_BURST = 100  # SETTINGS or PING frames in a burst (a client sends a few; gRPC's pings are seconds apart)
CONTROL_WINDOW = 10.0  # seconds over which the burst comes back
MAX_PINNED = 32  # streams at once that the client gave no window to answer in
# Frames whose payload the limits read (all small: a SETTINGS frame's is 6 bytes a setting).
READ_PAYLOADS = frozenset({SETTINGS, WINDOW_UPDATE})


class Allowance:
    """So many at once, coming back evenly over `window` seconds (a limit of 0: no limit)."""

    __slots__ = ("_at", "_left", "limit", "window")

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._left = float(limit)
        self._at = time.monotonic()

    def spend(self) -> bool:
        """Counts one; False once the allowance is spent."""
        if not self.limit:
            return True
        now = time.monotonic()
        self._left = min(self.limit, self._left + (now - self._at) * self.limit / self.window) - 1
        self._at = now
        return self._left >= 0

    def full(self) -> bool:
        """All of it has come back: nothing to remember."""
        return time.monotonic() - self._at >= self.window


class FrameLimits:
    """The limits of one client connection. `client_frame` and `server_frame` see each
    frame as it ends; `client_frame` says why the connection must be cut, if it must."""

    __slots__ = ("_block", "_control", "_pinned", "_window")

    def __init__(self) -> None:
        self._block = -1  # bytes of the header block under way; -1: none is
        self._control = Allowance(CONTROL_BURST, CONTROL_WINDOW)
        self._window = DEFAULT_WINDOW  # the client's SETTINGS_INITIAL_WINDOW_SIZE
        self._pinned: set[int] = set()

    def client_frame(self, kind: int, flags: int, stream: int, length: int, payload: bytes) -> str:
        """Why the connection must be cut after this frame of the client's ("": it need not)."""
        if kind in (HEADERS, PUSH_PROMISE) or (kind == CONTINUATION and self._block >= 0):
            self._block = max(self._block, 0) + length
            if self._block > MAX_HEADER_BLOCK:
                return (
                    f"A header block larger than {MAX_HEADER_BLOCK // 1024} KiB: this connection is closed "
                    "(HTTP/2 CONTINUATION flood)."
                )
            if flags & END_HEADERS:
                self._block = -1
        if kind == HEADERS and self._window == 0:
            self._pinned.add(stream)
            if len(self._pinned) > MAX_PINNED:
                return (
                    f"More than {MAX_PINNED} streams opened with no window to answer in: this connection is "
                    "closed (HTTP/2 zero window)."
                )
        elif kind in (SETTINGS, PING) and not flags & ACK:
            if kind == SETTINGS:
                self._settings(payload)
            if not self._control.spend():
                name = "SETTINGS" if kind == SETTINGS else "PING"
                return (
                    f"More than {CONTROL_BURST} {name} frames in {CONTROL_WINDOW:g} seconds: this connection is "
                    f"closed (HTTP/2 {name} flood)."
                )
        elif kind == WINDOW_UPDATE and stream and len(payload) == 4 and struct.unpack(">I", payload)[0]:
            self._pinned.discard(stream)  # it may now be answered
        elif kind == RST_STREAM:
            self._pinned.discard(stream)
        return ""

    def server_frame(self, kind: int, flags: int, stream: int) -> None:
        """A frame of the server's: a stream it ended (or reset) holds nothing any more."""
        if kind == RST_STREAM or (flags & END_STREAM and kind in (0x0, HEADERS)):
            self._pinned.discard(stream)

    def _settings(self, payload: bytes) -> None:
        for at in range(0, len(payload) - len(payload) % 6, 6):
            name, value = struct.unpack_from(">HI", payload, at)
            if name == INITIAL_WINDOW_SIZE:
                self._window = value
                if value:  # every stream's window grows by it: none is pinned any more
                    self._pinned.clear()
