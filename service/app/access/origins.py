"""Where a call comes from: the transports note the peer's address and any
X-Forwarded-For it carried; the use cases that limit callers by address (CreateGame
when anyone may create) ask for the client's address, believing X-Forwarded-For only
from the proxies the operator trusts (--trusted-proxies).

A context variable carries the origin from the transport to the use case, so the one
use case that needs it does not widen every use case's signature."""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# IPv6 clients are counted by /64: one home or one phone usually gets a whole /64,
# so counting single addresses would let anyone multiply their quota.
IPV6_PREFIX = 64


@dataclass(frozen=True, slots=True)
class Origin:
    """The transport's view of a call: the peer's address (empty for a Unix socket or
    an unknown one) and the X-Forwarded-For entries, first (the client, if honest) to last."""

    peer: str = ""
    forwarded_for: tuple[str, ...] = ()


UNKNOWN_ORIGIN = Origin()
_ORIGIN: ContextVar[Origin] = ContextVar("ludotheque_origin", default=UNKNOWN_ORIGIN)


@contextmanager
def calling_from(origin: Origin) -> Iterator[None]:
    """The call handled inside comes from `origin` (transports wrap each call in it)."""
    token = _ORIGIN.set(origin)
    try:
        yield
    finally:
        # A stream's generator closed from another context (grpc's aclose of a stream its
        # client left) set nothing there: nothing to undo.
        with contextlib.suppress(ValueError):
            _ORIGIN.reset(token)


def current_origin() -> Origin:
    return _ORIGIN.get()


def forwarded_for(headers: Sequence[str]) -> tuple[str, ...]:
    """X-Forwarded-For header values (each a comma-separated list) as one list."""
    return tuple(part.strip() for value in headers for part in value.split(",") if part.strip())


def grpc_peer_address(peer: str) -> str:
    """The address of a grpc peer string ("ipv4:1.2.3.4:5678", "ipv6:[::1]:5678")."""
    scheme, _, rest = peer.partition(":")
    if scheme == "ipv4":
        return rest.rpartition(":")[0]
    if scheme == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return ""


def parse_networks(text: str) -> tuple[Network, ...]:
    """`--trusted-proxies`: comma-separated addresses or CIDR ranges. Raises ValueError."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


class ClientAddresses:
    """The client's address of a call, given the proxies trusted to tell it."""

    def __init__(self, trusted_proxies: Sequence[Network] = ()) -> None:
        self._trusted = tuple(trusted_proxies)

    def trusted(self, address: Address | None) -> bool:
        """Whether `address` is one of the proxies trusted to tell the client's."""
        return address is not None and any(address in network for network in self._trusted)

    def client(self, origin: Origin) -> Address | None:
        """The first address, walking back from the peer through X-Forwarded-For, that
        is not a trusted proxy (a client cannot forge what a trusted proxy appended;
        everything left of it, it can). None: no address is known."""
        chain = [*origin.forwarded_for, origin.peer]
        address = _address(chain.pop())
        while self.trusted(address) and chain:
            address = _address(chain.pop())
        return address

    def identity(self, origin: Origin) -> str:
        """The identity a call is counted under when callers are known only by address:
        "ip:<address>", an IPv6 client by its /64."""
        address = self.client(origin)
        if address is None:
            return "ip:unknown"
        if isinstance(address, ipaddress.IPv6Address):
            if address.ipv4_mapped is not None:
                return f"ip:{address.ipv4_mapped}"
            return f"ip:{ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False)}"
        return f"ip:{address}"

    def calling(self) -> str:
        """The identity of the call being served (`identity` of its origin), "" when its
        address is not known."""
        identity = self.identity(current_origin())
        return "" if identity == "ip:unknown" else identity


def _address(text: str) -> Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[v6]:port", as some proxies write it
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "v4:port"
        text = text.partition(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None  # "unknown", an obfuscated identifier (RFC 7239), garbage
