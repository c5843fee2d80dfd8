"""Seat tokens, host tokens and the admin token.

A seat token is `<seat>.<HMAC-SHA256(secret, game_id:seat)>` in base64url: the server
keeps no token table, any process with the same secret checks it, and a token is
worthless for another game or another seat. A seat's tokens have a *generation*, which
goes up each time a player joins the seat (an open seat) and each time the admin
rotates its token (LiveGame.seat_generation); a token of generation g > 0 is
`<seat>.<g>.<HMAC(secret, game_id:seat:g)>`. A token of a past generation still has a
valid HMAC, but the game refuses it (Viewers.in_game). A host token (a game's creator,
who may start it with bots) is `host.<HMAC(secret, game_id:host)>`: never a seat's.

Secrets rotate too: tokens are signed with the current secret and checked against it
and the previous ones (docs/SECURITY.md, "Rotating the signing secret")."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass

MIN_SECRET_BYTES = 32
MAX_SEAT_DIGITS = 3
MAX_GENERATION_DIGITS = 9


class BadToken(Exception):
    """A token that is not valid for this game."""


@dataclass(frozen=True, slots=True)
class SeatClaim:
    """What a seat token's signature vouches for: a seat, at a generation of its tokens."""

    seat: int
    generation: int


class TokenAuthority:
    def __init__(self, secret: bytes, admin_token: str = "", *, previous_secrets: Sequence[bytes] = ()) -> None:
        for key in (secret, *previous_secrets):
            if len(key) < MIN_SECRET_BYTES:
                raise ValueError(f"a token secret must be at least {MIN_SECRET_BYTES} bytes")
        if admin_token and len(admin_token.encode()) < MIN_SECRET_BYTES:
            raise ValueError(f"the admin token must be at least {MIN_SECRET_BYTES} bytes")
        self._secret = secret
        self._verifying = (secret, *previous_secrets)  # the current one first: the common case
        self._admin_token = admin_token.encode()  # compared on every call

    @staticmethod
    def _mac(key: bytes, game_id: str, seat: int, generation: int) -> str:
        signed = f"{game_id}:{seat}" if generation == 0 else f"{game_id}:{seat}:{generation}"
        digest = hmac.new(key, signed.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def seat_token(self, game_id: str, seat: int, generation: int = 0) -> str:
        mac = self._mac(self._secret, game_id, seat, generation)
        return f"{seat}.{mac}" if generation == 0 else f"{seat}.{generation}.{mac}"

    def host_token(self, game_id: str) -> str:
        return f"host.{self._host_mac(self._secret, game_id)}"

    def is_host(self, game_id: str, token: str) -> bool:
        """Whether `token` is the host token of `game_id` (signed with any secret in use)."""
        if not token.startswith("host."):
            return False
        mac = token[len("host.") :].encode()
        return any(hmac.compare_digest(mac, self._host_mac(key, game_id).encode()) for key in self._verifying)

    @staticmethod
    def _host_mac(key: bytes, game_id: str) -> str:
        digest = hmac.new(key, f"{game_id}:host".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def derived_key(self, purpose: str) -> bytes:
        """A signing key of its own for `purpose` (e.g. stream tickets), from the same
        secret: every process of a deployment derives the same one."""
        return self.derived_keys(purpose)[0]

    def derived_keys(self, purpose: str) -> tuple[bytes, ...]:
        """`derived_key(purpose)` from each secret in use, the current one first: what
        checks a signature made before the secret rotated."""
        return tuple(
            hmac.new(key, f"ludotheque key: {purpose}".encode(), hashlib.sha256).digest() for key in self._verifying
        )

    def is_admin(self, token: str) -> bool:
        return bool(self._admin_token) and hmac.compare_digest(token.encode(), self._admin_token)

    def seat_claim(self, game_id: str, token: str) -> SeatClaim:
        """The seat and generation `token` was signed for in `game_id`. Raises BadToken."""
        parts = token.split(".")
        if len(parts) not in (2, 3) or not all(_is_number(part, MAX_SEAT_DIGITS) for part in parts[:1]):
            raise BadToken("invalid token")
        generation = 0
        if len(parts) == 3:
            if not _is_number(parts[1], MAX_GENERATION_DIGITS) or int(parts[1]) == 0:
                raise BadToken("invalid token")
            generation = int(parts[1])
        seat, mac = int(parts[0]), parts[-1].encode()
        for key in self._verifying:
            if hmac.compare_digest(mac, self._mac(key, game_id, seat, generation).encode()):
                return SeatClaim(seat, generation)
        raise BadToken("invalid token")


def _is_number(text: str, max_digits: int) -> bool:
    return 0 < len(text) <= max_digits and text.isascii() and text.isdigit()
