"""Who is asking: a bearer token read as a seat, a spectator or the admin, and the seat
a command is played for."""

from __future__ import annotations

from collections.abc import Callable

from ludotheque.v1 import game_service_pb2

from engines.contract import ADMIN, SPECTATOR, Role, Viewer
from service.app.access.auth import BadToken, SeatClaim, TokenAuthority
from service.app.model.errors import invalid_argument, permission_denied, unauthenticated
from service.app.model.live_game import LiveGame
from service.app.observe import request_context

VIEWER_CACHE_SIZE = 100_000


class Viewers:
    def __init__(self, tokens: TokenAuthority, seen: Callable[[str, int], None] | None = None) -> None:
        self.tokens = tokens
        # Seat tokens whose signature was checked (an HMAC per call otherwise):
        # (game id, token) -> the seat and generation it was signed for.
        self._known: dict[tuple[str, str], SeatClaim] = {}
        # Told of every call a seat makes with its token (presence: a recent call).
        self.seen = seen

    def in_game(self, live: LiveGame, token: str) -> Viewer:
        """Who `token` stands for in this game; a bad token, the token of a seat its
        player left, or of a seat whose token changed since (another player joined it,
        the admin rotated it) is UNAUTHENTICATED. `live` is as fresh as its last read
        from the store (GameRepository.refresh)."""
        request_context.note(kind=live.engine.kind)
        if not token:
            return SPECTATOR
        if self.tokens.is_admin(token):
            return ADMIN
        key = (live.game_id, token)
        claim = self._known.get(key)
        if claim is None:
            try:
                claim = self.tokens.seat_claim(live.game_id, token)
            except BadToken:
                raise unauthenticated("That token is not valid for this game.") from None
            if claim.seat >= len(live.record.seats):
                raise unauthenticated("That token is not valid for this game.")
            if len(self._known) >= VIEWER_CACHE_SIZE:
                self._known.clear()
            self._known[key] = claim
        seat = claim.seat
        if live.table.seats[seat].open:
            raise unauthenticated("That token is not valid for this game any more: its seat was left.")
        if claim.generation != live.seat_generation(seat):
            raise unauthenticated(
                "This seat's token was replaced (another player took the seat, or it got a new token): "
                "ask the game's organiser for the new one."
            )
        request_context.note(seat=seat)
        if self.seen is not None:
            self.seen(live.game_id, seat)
        return Viewer.player(seat)

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
