"""Seat tokens, host tokens and the admin token.

A seat token is `<seat>.<HMAC-SHA256(secret, game_id:seat)>` in base64url: the server
keeps no token table, any process with the same secret checks it, and a token is
worthless for another game or another seat. A seat that players join (an open seat)
gets a new token at each join, `<seat>.<generation>.<HMAC(game_id.generation:seat)>`,
the generation counting its joins: a player who left holds a token of a past
generation, which the game refuses. A host token (a game's creator, who may start it
with bots) is `host.<HMAC(game_id.host:0)>`: never a seat's."""

from __future__ import annotations

import base64
import hashlib
import hmac

from engines.contract import ADMIN, SPECTATOR, Viewer


class BadToken(Exception):
    """A token that is not valid for this game."""


class TokenAuthority:
    def __init__(self, secret: bytes, admin_token: str = "") -> None:
        if len(secret) < 16:
            raise ValueError("the token secret must be at least 16 bytes")
        self._secret = secret
        self._admin_token = admin_token

    def _mac(self, game_id: str, seat: int) -> str:
        digest = hmac.new(self._secret, f"{game_id}:{seat}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def seat_token(self, game_id: str, seat: int, generation: int = 0) -> str:
        if generation:
            return f"{seat}.{generation}.{self._mac(f'{game_id}.{generation}', seat)}"
        return f"{seat}.{self._mac(game_id, seat)}"

    def host_token(self, game_id: str) -> str:
        return f"host.{self._mac(f'{game_id}.host', 0)}"

    def is_host(self, game_id: str, token: str) -> bool:
        return hmac.compare_digest(token.encode(), self.host_token(game_id).encode())

    @staticmethod
    def generation(token: str) -> int:
        """The seat generation a seat token (checked by viewer()) was made for."""
        parts = token.split(".")
        return int(parts[1]) if len(parts) == 3 else 0

    def is_admin(self, token: str) -> bool:
        return bool(self._admin_token) and hmac.compare_digest(token.encode(), self._admin_token.encode())

    def viewer(self, game_id: str | None, token: str, seat_count: int | None = None) -> Viewer:
        """Who `token` stands for in `game_id`: no token is a spectator. Raises BadToken."""
        if not token:
            return SPECTATOR
        if self.is_admin(token):
            return ADMIN
        seat_text, _, mac = token.partition(".")
        if game_id is None or not seat_text.isdigit() or len(seat_text) > 3:
            raise BadToken("invalid token")
        seat = int(seat_text)
        if seat_count is not None and seat >= seat_count:
            raise BadToken("invalid token")
        scope = game_id
        if "." in mac:  # a joined seat's: "<generation>.<mac>"
            generation, _, mac = mac.partition(".")
            if not generation.isdigit() or len(generation) > 9 or generation != str(int(generation)):
                raise BadToken("invalid token")
            scope = f"{game_id}.{int(generation)}"
        if not hmac.compare_digest(mac.encode(), self._mac(scope, seat).encode()):
            raise BadToken("invalid token")
        return Viewer.player(seat)
