"""How many connections the server holds, on both ports together: at most so many from
one client address, and in all no more than the file descriptors it may open allow (and
--max-connections, when set). A connection past a limit is refused at once, with an
answer that says why (HTTP: 429 or 503; gRPC: a GOAWAY), before the process runs out of
descriptors and fails everyone else's calls.

A client is its peer address (IPv6: its /64), as the transports see it before any
request: X-Forwarded-For comes later, per request. A trusted proxy (--trusted-proxies)
carries many clients on its connections: it is not held to the per-client limit, only
to the total."""

from __future__ import annotations

import ipaddress
import resource
from collections import Counter
from dataclasses import dataclass

from service.app.access.origins import ClientAddresses, Origin
from service.settings import at_least, setting

# Descriptors kept for everything but client connections: the store's connections,
# files, the listening sockets, the log.
RESERVED_DESCRIPTORS = 256
# What one connection costs in descriptors: an HTTP connection its socket; a gRPC one
# through the gate (grpc_gate.py) three: the client's, the gate's to the gRPC server,
# and the gRPC server's end of that. A refused one, its socket, for the LINGER seconds it
# is given to read why (then it is closed, read or not).
LINGER = 2.0
HTTP_DESCRIPTORS = 1
GRPC_DESCRIPTORS = 3


def descriptor_limit() -> int:
    """The descriptors this process may open, raised to the hard limit first (a
    process is often started with a soft limit far below what it is allowed)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return int(soft)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a connection was refused: `status` is HTTP's (429: this client has too many,
    503: the server has too many), `message` says so to the client."""

    status: int
    reason: str  # for the metrics: "per_client" or "total"
    message: str
    retry_after: int  # seconds


@dataclass(frozen=True, slots=True)
class ConnectionSettings:
    """The limits on both ports' connections, as a server is configured (0: none)."""

    total: int = setting(
        0,
        "connections one server process may hold at once on its two ports; past it a new one is refused "
        "(HTTP 503, gRPC a GOAWAY). 0: as many as the process's file descriptors allow (ulimit -n, less 256; "
        "a gRPC connection takes 3)",
        name="max_connections",
        check=at_least(0),
    )
    per_client: int = setting(
        256,
        "connections one client address (an IPv6 client by its /64) may hold at once on a server process's two ports; "
        "a new one is refused (HTTP 429, gRPC a GOAWAY). Trusted proxies are held to the total only; 0: no limit",
        name="max_connections_per_client",
        check=at_least(0),
    )


class Connections:
    """The connections open on both ports, counted per client and in descriptors."""

    def __init__(
        self, *, per_client: int, total: int, descriptors: int, addresses: ClientAddresses | None = None
    ) -> None:
        self.per_client = per_client  # 0: no limit
        self.total = total  # 0: as many as the descriptors allow
        self.budget = max(descriptors - RESERVED_DESCRIPTORS, 0)
        self._addresses = addresses or ClientAddresses()
        self._open: Counter[str] = Counter()
        self.count = 0
        self.spent = 0  # descriptors

    def client(self, peer: str) -> str:
        """The identity a peer address ("1.2.3.4", "::1") is counted under; "" for a
        trusted proxy (or an unknown peer: a Unix socket), held to the total only."""
        if not peer or self._addresses.trusted(_address(peer)):
            return ""
        return self._addresses.identity(Origin(peer))

    def admit(self, client: str, cost: int) -> Refusal | None:
        """Counts a new connection of `client` costing `cost` descriptors; or why not."""
        if self.per_client and client and self._open[client] >= self.per_client:
            return Refusal(
                429,
                "per_client",
                f"Too many connections from your address: at most {self.per_client} at once. Close some first.",
                1,
            )
        if (self.total and self.count >= self.total) or self.spent + cost > self.budget:
            return Refusal(503, "total", "The server holds as many connections as it can: try again shortly.", 5)
        self.count += 1
        self.spent += cost
        if client:
            self._open[client] += 1
        return None

    def linger(self) -> bool:
        """A refused connection stays a moment, for its client to read why: it takes a
        descriptor meanwhile. False: none is left, it must close at once."""
        if self.spent + 1 > self.budget:
            return False
        self.spent += 1
        return True

    def lingered(self) -> None:
        """A refused connection that lingered is closed."""
        self.spent -= 1

    def release(self, client: str, cost: int) -> None:
        """A connection admitted with `admit` is closed."""
        self.count -= 1
        self.spent -= cost
        if client:
            self._open[client] -= 1
            if not self._open[client]:
                del self._open[client]


def _address(peer: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(peer.partition("%")[0])  # (an IPv6 zone is not part of it)
    except ValueError:
        return None
