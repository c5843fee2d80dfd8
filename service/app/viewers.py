"""Who is asking: a bearer token read as a seat, a spectator or the admin, and the seat
a command is played for."""

from __future__ import annotations

from collections.abc import Callable

from ludotheque.v1 import game_service_pb2

from engines.contract import Role, Viewer
from service.app.auth import BadToken, TokenAuthority
from service.app.errors import invalid_argument, permission_denied, unauthenticated
from service.app.live import LiveGame

VIEWER_CACHE_SIZE = 100_000


class Viewers:
    def __init__(self, tokens: TokenAuthority) -> None:
        self.tokens = tokens
        # Tokens already checked (an HMAC per call otherwise): (game id, token) -> the
        # viewer, and the seat generation the token was made for.
        self._known: dict[tuple[str, str], tuple[Viewer, int]] = {}
        # Told of every call a seat makes with its token (presence: a recent call).
        self.seen: Callable[[str, int], None] | None = None

    def in_game(self, live: LiveGame, token: str) -> Viewer:
        """Who `token` stands for in this game; a bad token is UNAUTHENTICATED."""
        key = (live.game_id, token)
        known = self._known.get(key)
        if known is None:
            try:
                viewer = self.tokens.viewer(live.game_id, token, len(live.record.seats))
            except BadToken:
                raise unauthenticated("That token is not valid for this game.") from None
            if len(self._known) >= VIEWER_CACHE_SIZE:
                self._known.clear()
            known = self._known[key] = (viewer, self.tokens.generation(token))
        viewer, generation = known
        if viewer.seat is not None:
            if not live.table.holds(viewer.seat, generation):
                raise unauthenticated("That token is not valid for this game any more: its seat was left.")
            if self.seen is not None:
                self.seen(live.game_id, viewer.seat)
        return viewer

    def outside_game(self, token: str) -> Viewer:
        """Outside a game (creating, listing) only the admin token means anything."""
        return Viewer.admin() if self.tokens.is_admin(token) else Viewer.spectator()


def acting_seat(live: LiveGame, viewer: Viewer, request: game_service_pb2.SubmitCommandRequest) -> int:
    """The seat a command is for: the token's own, or the one an admin names."""
    if viewer.role is Role.SPECTATOR:
        raise unauthenticated("Send your seat token (authorization: Bearer <token>) to play.")
    if viewer.role is Role.ADMIN:
        if not request.HasField("seat"):
            raise invalid_argument("seat", "An admin must say which seat to act for.")
        if request.seat >= len(live.record.seats):
            raise invalid_argument("seat", f"This game has no seat {request.seat}.")
        return request.seat
    assert viewer.seat is not None
    if request.HasField("seat") and request.seat != viewer.seat:
        raise permission_denied(f"Your token is for seat {viewer.seat}; it cannot act for seat {request.seat}.")
    return viewer.seat
